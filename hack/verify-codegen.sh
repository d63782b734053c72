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

# Fails when the generated deepcopy code or the CRD differ from what the Go
# types of api/ produce. It generates into a scratch copy of the repository,
# so a failed check leaves the work tree as it was.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "${scratch}"' EXIT

# Copy the sources the generators read and the files they write.
(cd "${REPO_ROOT}" && tar --exclude=./_output --exclude=./.git -cf - .) | tar -C "${scratch}" -xf -
# Generated files that no longer belong to any type must show up as drift too.
rm -f "${scratch}"/api/*/*/zz_generated.deepcopy.go "${scratch}"/deploy/crd/*.yaml

OUTPUT_ROOT="${scratch}" "${REPO_ROOT}/hack/update-codegen.sh"

status=0
for dir in api deploy/crd; do
  if ! diff -ru "${REPO_ROOT}/${dir}" "${scratch}/${dir}"; then
    status=1
  fi
done
if [[ ${status} -ne 0 ]]; then
  echo "generated files are out of date: run hack/update-codegen.sh" >&2
fi
exit ${status}
