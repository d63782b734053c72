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

# Prints the -ldflags that stamp k8s.io/component-base/version, which
# --version and kubernetes_build_info read. The version is VERSION when set
# (make release), else git describe's, made a semantic version the way
# Kubernetes does (v0.3.0-4-gabcdef becomes v0.3.0-4+abcdef; with no tag yet,
# v0.0.0-<commits>+<sha>); "-dirty" marks uncommitted changes.

set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
tree=clean
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  tree=dirty
fi
version=${VERSION:-}
if [[ -z "${version}" ]]; then
  if described=$(git describe --tags --match 'v*' --abbrev=12 2>/dev/null); then
    # vX.Y.Z or vX.Y.Z-N-gSHA: the distance becomes a pre-release, the sha build metadata.
    version=$(sed -E 's/-([0-9]+)-g([0-9a-f]+)$/-\1+\2/' <<<"${described}")
  else
    version="v0.0.0-$(git rev-list --count HEAD 2>/dev/null || echo 0)+${commit:0:12}"
  fi
  if [[ "${tree}" == dirty ]]; then
    version+="-dirty"
  fi
fi
if [[ ! "${version}" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+([-+].*)?$ ]]; then
  echo "version ${version} is not a semantic version vX.Y.Z" >&2
  exit 1
fi
major=${BASH_REMATCH[1]}
minor=${BASH_REMATCH[2]}
if [[ -n "${BASH_REMATCH[3]}" ]]; then
  minor+="+"
fi
date=$(date -u ${SOURCE_DATE_EPOCH:+-d "@${SOURCE_DATE_EPOCH}"} +%Y-%m-%dT%H:%M:%SZ)

pkg=k8s.io/component-base/version
echo "-X ${pkg}.gitMajor=${major} -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitVersion=${version} -X ${pkg}.gitCommit=${commit} -X ${pkg}.gitTreeState=${tree} -X ${pkg}.buildDate=${date}"
