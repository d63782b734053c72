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

# Writes the generated monitoring files: deploy/prometheusrule.yaml, the chart's
# PrometheusRule template rendered with its default values, and
# deploy/grafana/kube-hpa-dashboard.json, which hack/dashboards generates from Go.
# With --verify it writes them to a temporary directory instead and fails when
# the committed ones differ, vets hack/dashboards, and runs the test that every
# metric they name is one the controller exports (or one of kube-state-metrics',
# or a future one listed there).
#
# Usage: hack/update-monitoring.sh [--verify]

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

verify=false
if [[ "${1:-}" == "--verify" ]]; then
  verify=true
fi

rule="deploy/prometheusrule.yaml"
dashboard="deploy/grafana/kube-hpa-dashboard.json"
# Helm keeps caches under HOME; nothing of the user's may leak in, nor
# anything of this run stay behind.
tmp=$(mktemp -d)
trap 'rm -rf "${tmp}"' EXIT
export HELM_CACHE_HOME="${tmp}/helm/cache" HELM_CONFIG_HOME="${tmp}/helm/config" HELM_DATA_HOME="${tmp}/helm/data"
out="${REPO_ROOT}"
if ${verify}; then
  out="${tmp}/out"
fi
mkdir -p "${out}/deploy/grafana"

"${REPO_ROOT}/hack/build-upstream.sh" helm
helm="${BIN_DIR}/helm"

# The chart's labels (helm.sh/chart, managed-by Helm) do not belong in a file
# applied with kubectl, so the header is this script's and only the rules,
# from spec: on, are the chart's.
{
  cat <<'HEADER'
# kube-hpa's alerts, for the Prometheus Operator: charts/kube-hpa/templates/prometheusrule.yaml rendered
# with the chart's default values by `make update-monitoring`; edit the template, not this file.
# Not among kustomization.yaml's resources, since it needs the operator's PrometheusRule CRD: apply it
# where the operator runs, with the labels your Prometheus selects rules by:
#   kubectl apply -f deploy/prometheusrule.yaml
# The controller's series are selected by job="kube-hpa-metrics", the job of the chart's ServiceMonitor;
# edit the selector for another scrape configuration. The fallback alert reads kube-state-metrics (see
# deploy/kube-state-metrics). Each alert's runbook is docs/runbooks/<alert>.md; make test-rules tests them.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: kube-hpa
  namespace: kube-hpa-system
  labels:
    app.kubernetes.io/name: hpa-controller-manager
HEADER
  "${helm}" template kube-hpa "${REPO_ROOT}/charts/kube-hpa" --namespace kube-hpa-system \
    --set prometheusRule.enabled=true --show-only templates/prometheusrule.yaml | sed -n '/^spec:$/,$p'
} >"${out}/${rule}.tmp"
mv "${out}/${rule}.tmp" "${out}/${rule}"

(cd "${REPO_ROOT}/hack/dashboards" && go run . -o "${out}/${dashboard}")

if ! ${verify}; then
  # The chart carries a copy of the dashboard.
  "${REPO_ROOT}/hack/update-chart-files.sh"
  exit 0
fi
status=0
for f in "${rule}" "${dashboard}"; do
  if ! diff -u "${REPO_ROOT}/${f}" "${out}/${f}"; then
    echo "${f} is not what the code generates: run make update-monitoring" >&2
    status=1
  fi
done
(cd "${REPO_ROOT}/hack/dashboards" && go vet ./...) || status=1
(cd "${REPO_ROOT}" && go test -count=1 -run '^TestMonitoring' ./cmd/hpa-controller-manager/app) || status=1
exit ${status}
