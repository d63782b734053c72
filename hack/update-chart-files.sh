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

# Checks the Helm chart charts/kube-hpa: its CRDs are deploy/crd's (files/crd
# Copies the generated files the chart ships into charts/kube-hpa/files: the
# CRDs of deploy/crd and the dashboard of deploy/grafana. A packaged chart
# carries only what is inside its directory, so these are real copies, not
# links out of it; verify-chart.sh fails when a copy drifts from its source.
# update-codegen.sh and update-monitoring.sh run this after regenerating.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

files="${REPO_ROOT}/charts/kube-hpa/files"
for pair in "crd:*.yaml" "grafana:*.json"; do
  dir=${pair%%:*}
  pattern=${pair#*:}
  mkdir -p "${files}/${dir}"
  # A source file that is gone must not linger in the chart.
  find "${files}/${dir}" -maxdepth 1 -type f -name "${pattern}" -delete
  find "${REPO_ROOT}/deploy/${dir}" -maxdepth 1 -type f -name "${pattern}" -exec cp {} "${files}/${dir}/" \;
done
