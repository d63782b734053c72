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

# Runs the make targets it is given in order, stopping at the first that
# fails, and prints how long each took at the end (also after a failure),
# so that the cost of a new stage of `make test` is visible in every run.

set -o nounset -o pipefail

MAKE=${MAKE:-make}
names=() secs=() results=()
rc=0
total_start=$(date +%s)
for stage in "$@"; do
	start=$(date +%s)
	if "${MAKE}" --no-print-directory "${stage}"; then
		result=ok
	else
		rc=$?
		result="FAILED (exit ${rc})"
	fi
	names+=("${stage}") secs+=($(($(date +%s) - start))) results+=("${result}")
	((rc == 0)) || break
done

echo
echo "Stages of this run:"
for i in "${!names[@]}"; do
	printf '  %-22s %5d s  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"
done
printf '  %-22s %5d s\n' total $(($(date +%s) - total_start))
exit "${rc}"
