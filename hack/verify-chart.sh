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

# Checks the Helm chart charts/kube-hpa: its CRDs and dashboard are copies of deploy/crd's and
# deploy/grafana's (files/), helm lint passes, and helm template renders every switch of
# the values that turn objects on and off, with each CRD kept on uninstall.
# Helm is built from the module proxy (hack/tools/helm).

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

chart="${REPO_ROOT}/charts/kube-hpa"
status=0

# A packaged chart carries only its own directory: files/ holds real copies of
# deploy/crd's CRDs and deploy/grafana's dashboard, never links out of the chart.
for pair in "crd:*.yaml" "grafana:*.json"; do
  dir=${pair%%:*}
  if [[ -L "${chart}/files/${dir}" ]] || find "${chart}/files/${dir}" -type l | grep -q .; then
    echo "charts/kube-hpa/files/${dir} must hold copies, not links: run hack/update-chart-files.sh" >&2
    status=1
  elif ! diff <(cd "${REPO_ROOT}/deploy/${dir}" && find . -maxdepth 1 -type f -name "${pair#*:}" -exec sha256sum {} + | sort) \
      <(cd "${chart}/files/${dir}" && find . -maxdepth 1 -type f -name "${pair#*:}" -exec sha256sum {} + | sort) >&2; then
    echo "charts/kube-hpa/files/${dir} drifted from deploy/${dir}: run hack/update-chart-files.sh (make update-chart-files)" >&2
    status=1
  fi
done

# The chart's default featureGates and deploy/'s --feature-gates keep the binary's defaults
# (pkg/features): alpha gates off unless the user turns them on.
if ! (cd "${REPO_ROOT}" && go test -count=1 -run '^(TestDeployAndChartKeepTheBinarysGateDefaults|TestOffDefault)' ./pkg/features/); then
  echo "the chart's or deploy/'s feature gates differ from the binary's defaults (pkg/features)" >&2
  status=1
fi

"${REPO_ROOT}/hack/build-upstream.sh" helm
helm="${BIN_DIR}/helm"
# Helm keeps its caches and repositories under HOME; nothing of the user's
# may leak in, nor anything of this run stay behind.
HELM_HOME=$(mktemp -d)
trap 'rm -rf "${HELM_HOME}"' EXIT
export HELM_CACHE_HOME="${HELM_HOME}/cache" HELM_CONFIG_HOME="${HELM_HOME}/config" HELM_DATA_HOME="${HELM_HOME}/data"

# Each line is one set of values: the defaults, then every switch flipped.
variants=(
  ""
  "--set webhook.certManager.enabled=true"
  "--set webhook.certManager.enabled=true --set webhook.certManager.issuerRef.name=my-issuer --set webhook.certManager.issuerRef.kind=ClusterIssuer"
  "--set serviceMonitor.enabled=true --set manageNativeHPAs=true --set extraArgs={--v=2}"
  "--set serviceMonitor.enabled=true --set serviceMonitor.insecureSkipVerify=true --set metrics.securePort=8443 --set metrics.readerSubjects[0].kind=ServiceAccount --set metrics.readerSubjects[0].name=prometheus-k8s --set metrics.readerSubjects[0].namespace=monitoring"
  "--set serviceMonitor.enabled=true --set webhook.enabled=false"
  "--set webhook.enabled=false --set crds.install=false --set rbac.create=false --set serviceAccount.create=false --set serviceAccount.name=existing"
  "--set crds.keep=false --set featureGates.HPAExternalMetricFallback=false"
  "--set featureGates.HPAMetricSource=true --set rbac.metricSources={keda.sh,metrics.vendor.example.com}"
  "--set podDisruptionBudget.enabled=false --set topologySpread.enabled=false --set priorityClassName=system-cluster-critical --set replicaCount=1"
  "--set sharding.enabled=true --set sharding.shards=32 --set replicaCount=3"
  "--set networkPolicy.enabled=true --set networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring"
  "--set hostNetwork=true --set rbac.aggregateToDefaultRoles=false --set env[0].name=GOMAXPROCS --set-string env[0].value=2"
  "--set podSecurityContext.runAsUser=1000 --set securityContext.readOnlyRootFilesystem=false"
  "--set prometheusRule.enabled=true --set prometheusRule.labels.release=prometheus --set prometheusRule.selector=job=\"kube-controller-manager\" --set prometheusRule.fallbackActive.for=1h --set grafanaDashboard.enabled=true --set grafanaDashboard.namespace=monitoring --set grafanaDashboard.annotations.grafana_folder=kube-hpa"
)
for v in "${variants[@]}"; do
  # shellcheck disable=SC2086 # each variant is a list of flags
  if ! "${helm}" lint --strict "${chart}" ${v} >"${HELM_HOME}/lint.log" 2>&1; then
    echo "helm lint ${v:-(defaults)} failed:" >&2
    cat "${HELM_HOME}/lint.log" >&2
    status=1
  fi
  # shellcheck disable=SC2086
  if ! "${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system ${v} >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"; then
    echo "helm template ${v:-(defaults)} failed:" >&2
    cat "${HELM_HOME}/template.log" >&2
    status=1
  fi
done

# The defaults install every CRD of deploy/crd, each kept by helm uninstall.
"${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"
want=$(find "${REPO_ROOT}/deploy/crd" -name '*.yaml' | wc -l)
crds=$(grep -c '^kind: CustomResourceDefinition$' "${HELM_HOME}/out.yaml" || true)
kept=$(grep -c '^    helm.sh/resource-policy: keep$' "${HELM_HOME}/out.yaml" || true)
if [[ ${crds} -ne ${want} || ${kept} -ne ${want} ]]; then
  echo "helm template: ${crds} CRDs, ${kept} with helm.sh/resource-policy: keep; deploy/crd has ${want}" >&2
  status=1
fi

# The monitoring switches render the PrometheusRule with its thresholds (deploy/prometheusrule.yaml
# is its rendering with the defaults, which make verify-monitoring checks) and the dashboard's
# ConfigMap with the JSON of deploy/grafana.
"${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system --set prometheusRule.enabled=true \
  --set grafanaDashboard.enabled=true >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"
if ! grep -q '^kind: PrometheusRule$' "${HELM_HOME}/out.yaml" || ! grep -q '"uid": "kube-hpa-overview"' "${HELM_HOME}/out.yaml"; then
  echo "helm template with prometheusRule.enabled and grafanaDashboard.enabled: no PrometheusRule, or no dashboard in the ConfigMap" >&2
  status=1
fi
# With cert-manager, the serving certificate comes from a CA Issuer, never straight from a
# self-signed one: a self-signed renewal changes the CA that cert-manager injects a minute
# before the pods' Secret follows, and admission fails in between.
"${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system --set webhook.certManager.enabled=true \
  >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"
if ! grep -q '^  isCA: true$' "${HELM_HOME}/out.yaml" || ! grep -q '^  ca:$' "${HELM_HOME}/out.yaml"; then
  echo "helm template with webhook.certManager.enabled: the serving certificate must come from a CA Issuer of its own" >&2
  status=1
fi

# rbac.metricSources grants the controller the metrics of each source group.
"${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system --set 'rbac.metricSources={keda.sh,metrics.vendor.example.com}' \
  >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"
if ! grep -q '^- apiGroups: \["keda.sh","metrics.vendor.example.com"\]$' "${HELM_HOME}/out.yaml"; then
  echo "helm template with rbac.metricSources: the ClusterRole does not grant the source groups" >&2
  status=1
fi

# sharding.enabled runs every replica with --sharded, grants the Lease verbs sharding adds, and lets a
# drain take one replica at a time.
"${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system --set sharding.enabled=true --set sharding.shards=32 \
  >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"
if ! grep -q -- '- --sharded$' "${HELM_HOME}/out.yaml" || ! grep -q -- '- --shards=32$' "${HELM_HOME}/out.yaml" ||
  ! grep -q '^  verbs: \["list", "delete"\]$' "${HELM_HOME}/out.yaml" || ! grep -q '^  maxUnavailable: 1$' "${HELM_HOME}/out.yaml"; then
  echo "helm template with sharding.enabled: want --sharded, --shards=32, the shard Lease Role and a PodDisruptionBudget of maxUnavailable 1" >&2
  status=1
fi

# values.schema.json refuses a mistyped value, in helm lint --strict as in helm install and upgrade.
refused=(
  "--set replicaCount=two"
  "--set replicaCunt=2"
  "--set webhook.failurePolicy=fail"
  "--set webhook.port=70000"
  "--set hostNetwork=yes"
  "--set networkPolicy.enable=true"
  "--set featureGates.HPAExternalMetricFallback=on"
  "--set rbac.aggregateToDefaultRoles=1"
)
for v in "${refused[@]}"; do
  # shellcheck disable=SC2086
  if "${helm}" lint --strict "${chart}" ${v} >"${HELM_HOME}/lint.log" 2>&1; then
    echo "helm lint --strict ${v}: passes, but values.schema.json must refuse it" >&2
    status=1
  elif ! grep -q 'values.yaml: - at' "${HELM_HOME}/lint.log"; then
    echo "helm lint --strict ${v}: fails, but not on the schema:" >&2
    cat "${HELM_HOME}/lint.log" >&2
    status=1
  fi
  # shellcheck disable=SC2086
  if "${helm}" template kube-hpa "${chart}" ${v} >/dev/null 2>&1; then
    echo "helm template ${v}: renders, but values.schema.json must refuse it (as helm install would)" >&2
    status=1
  fi
done

# render prints the chart rendered with the given flags into out.yaml.
render() {
  "${helm}" template kube-hpa "${chart}" --namespace kube-hpa-system "$@" >"${HELM_HOME}/out.yaml" 2>"${HELM_HOME}/template.log"
}
# has and lacks check a fixed line (a grep -x pattern) in out.yaml.
has() { grep -qx -- "$1" "${HELM_HOME}/out.yaml"; }
fail() {
  echo "helm template: $*" >&2
  status=1
}

# The defaults: no NetworkPolicy, no host network, the restricted security contexts, and the
# extended kind aggregated to admin, edit and view.
render
if grep -q '^kind: NetworkPolicy$' "${HELM_HOME}/out.yaml" || grep -q 'hostNetwork:' "${HELM_HOME}/out.yaml"; then
  fail "the defaults must render no NetworkPolicy and no hostNetwork"
fi
has '        runAsNonRoot: true' && has '          readOnlyRootFilesystem: true' && has '          allowPrivilegeEscalation: false' ||
  fail "the defaults: want runAsNonRoot in the pod's securityContext, readOnlyRootFilesystem and no privilege escalation in the container's"
for r in admin edit view; do
  has "    rbac.authorization.k8s.io/aggregate-to-${r}: \"true\"" || fail "the defaults: no ClusterRole aggregated to ${r}"
done
if grep -q -- '--feature-gates' "${HELM_HOME}/out.yaml"; then
  fail "the defaults must pass no --feature-gates: the binary's defaults hold"
fi
# Only view's ClusterRole is aggregated to view, and it never writes.
view=$(awk '/^kind: ClusterRole$/{doc=""} {doc=doc"\n"$0} /aggregate-to-view/{v=1} /^---$/{if(v)print doc; v=0; doc=""} END{if(v)print doc}' "${HELM_HOME}/out.yaml")
if [[ -z "${view}" ]] || grep -q -E 'create|update|patch|delete' <<<"${view}"; then
  fail "the ClusterRole aggregated to view must exist and grant only get, list and watch"
fi

render --set rbac.aggregateToDefaultRoles=false
if grep -q 'aggregate-to-' "${HELM_HOME}/out.yaml"; then
  fail "rbac.aggregateToDefaultRoles=false must render no aggregated ClusterRole"
fi
render --set rbac.create=false
if grep -q 'aggregate-to-' "${HELM_HOME}/out.yaml"; then
  fail "rbac.create=false must render no aggregated ClusterRole"
fi

# networkPolicy.enabled: ingress to the webhook port from anywhere, to the metrics port from
# metricsFrom only; the webhook's rule goes with the webhook.
render --set networkPolicy.enabled=true --set 'networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring'
has 'kind: NetworkPolicy' && has '  policyTypes: \["Ingress"\]' && has '    - port: 9443' && has '    - port: 10257' &&
  has '            name: monitoring' || fail "networkPolicy.enabled: want an Ingress NetworkPolicy for ports 9443 and 10257 (from metricsFrom)"
render --set networkPolicy.enabled=true --set webhook.enabled=false
if grep -q -- '- port: 9443' "${HELM_HOME}/out.yaml"; then
  fail "networkPolicy.enabled with the webhook off must not open the webhook port"
fi

# hostNetwork: the pods in the node's network, resolving cluster names still.
render --set hostNetwork=true
has '      hostNetwork: true' && has '      dnsPolicy: ClusterFirstWithHostNet' ||
  fail "hostNetwork=true: want hostNetwork: true and dnsPolicy: ClusterFirstWithHostNet"

# securityContext, podSecurityContext and env reach the pod as given.
render --set podSecurityContext.runAsUser=1000 --set securityContext.readOnlyRootFilesystem=false \
  --set env[0].name=GOMAXPROCS --set-string env[0].value=2
has '        runAsUser: 1000' && has '          readOnlyRootFilesystem: false' && has '        - name: GOMAXPROCS' ||
  fail "podSecurityContext, securityContext and env must reach the pod spec"

# featureGates turn a gate on only when asked.
render --set featureGates.HPAExternalMetricFallback=true
has '        - --feature-gates=HPAExternalMetricFallback=true' || fail "featureGates.HPAExternalMetricFallback=true: no --feature-gates flag"

# The kustomizations build, the cert-manager one on its own (after deploy/).
"${REPO_ROOT}/hack/build-upstream.sh" kubectl
for dir in deploy deploy/cert-manager; do
  if ! "${BIN_DIR}/kubectl" kustomize "${REPO_ROOT}/${dir}" >/dev/null 2>"${HELM_HOME}/kustomize.log"; then
    echo "kubectl kustomize ${dir} fails:" >&2
    cat "${HELM_HOME}/kustomize.log" >&2
    status=1
  fi
done
# deploy/sharding is a Component: an overlay of deploy/ with it runs three sharded replicas.
overlay="${HELM_HOME}/overlay"
mkdir -p "${overlay}/o"
ln -s "${REPO_ROOT}/deploy" "${overlay}/deploy"
printf 'resources: [../deploy]\ncomponents: [../deploy/sharding]\n' >"${overlay}/o/kustomization.yaml"
if ! "${BIN_DIR}/kubectl" kustomize --load-restrictor LoadRestrictionsNone "${overlay}/o" >"${HELM_HOME}/sharded.yaml" 2>"${HELM_HOME}/kustomize.log"; then
  echo "kubectl kustomize of deploy/ with the deploy/sharding component fails:" >&2
  cat "${HELM_HOME}/kustomize.log" >&2
  status=1
elif ! grep -q -- '- --sharded$' "${HELM_HOME}/sharded.yaml" || ! grep -q '^  replicas: 3$' "${HELM_HOME}/sharded.yaml" ||
  ! grep -q '^  maxUnavailable: 1$' "${HELM_HOME}/sharded.yaml" || grep -q '^  minAvailable:' "${HELM_HOME}/sharded.yaml"; then
  echo "deploy/ with the deploy/sharding component: want three replicas with --sharded and a PodDisruptionBudget of maxUnavailable 1 only" >&2
  status=1
fi
exit ${status}
