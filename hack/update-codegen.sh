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

# Regenerates everything derived from the Go types of api/: the deepcopy
# functions and the CRD under deploy/crd. Run it after changing a type.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# OUTPUT_ROOT lets verify-codegen.sh generate into a scratch copy.
OUTPUT_ROOT=${OUTPUT_ROOT:-${REPO_ROOT}}
gen=$(controller_gen)

cd "${OUTPUT_ROOT}"
"${gen}" object:headerFile="${REPO_ROOT}/hack/boilerplate.go.txt" paths=./api/...
"${gen}" crd:crdVersions=v1 paths=./api/... output:crd:artifacts:config=deploy/crd

# The chart carries a copy of the CRDs.
if [[ "${OUTPUT_ROOT}" == "${REPO_ROOT}" ]]; then
  "${REPO_ROOT}/hack/update-chart-files.sh"
fi
