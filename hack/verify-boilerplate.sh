#!/usr/bin/env bash
# Copyright The kube-hpa Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Checks that every Go and shell file of the repository opens with the
# license header of hack/boilerplate.{go,sh}.txt, as upstream's
# verify-boilerplate does: after a shebang or a //go:build line only.

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# header FILE prints the lines where FILE's header must be: a shebang or a
# build constraint (and the blank line after it) come first.
header() {
	awk -v n="$2" '
		NR == 1 && (/^#!/ || /^\/\/go:build/) { skip = 1; next }
		skip == 1 && /^$/ { skip = 2; next }
		{ print; if (++count == n) exit }
	' "$1"
}

bad=()
while IFS= read -r f; do
	case "$f" in
	*.go) want=hack/boilerplate.go.txt ;;
	*.sh) want=hack/boilerplate.sh.txt ;;
	esac
	if ! diff -q <(header "$f" "$(wc -l <"$want")") "$want" >/dev/null; then
		bad+=("$f")
	fi
done < <(git ls-files -- '*.go' '*.sh' ':!:**/testdata/**')

if ((${#bad[@]})); then
	echo "These files do not open with the license header of hack/boilerplate.{go,sh}.txt:" >&2
	printf '  %s\n' "${bad[@]}" >&2
	exit 1
fi
