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

# Fails when go.mod or go.sum of the project or of a module of its own is not what
# `go mod tidy` would write.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status=0
for mod in "${REPO_ROOT}" "${REPO_ROOT}/hack/tools" "${REPO_ROOT}/hack/tools/skew" "${REPO_ROOT}/hack/tools/kwok" "${REPO_ROOT}/hack/tools/metrics-server" "${REPO_ROOT}/hack/tools/prometheus" "${REPO_ROOT}/hack/tools/helm" "${REPO_ROOT}/hack/tools/release" "${REPO_ROOT}/hack/dashboards" "${REPO_ROOT}/test/metrics-adapter" "${REPO_ROOT}/test/bench/plot" "${REPO_ROOT}/test/differential"; do
  if ! (cd "${mod}" && go mod tidy -diff); then
    echo "go.mod/go.sum in ${mod} are not tidy: run 'go mod tidy' there" >&2
    status=1
  fi
done
exit ${status}
