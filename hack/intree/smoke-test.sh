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

# Starts etcd and the patched kube-apiserver of hack/build-intree.sh and shows,
# with kubectl, what the patch promises for native autoscaling/v2:
#
#   gate on:  a manifest with spec.metrics[].external.fallback is kept through
#             create (client- and server-side apply), get, and an
#             autoscaling/v1 read and write (upstream's metrics annotation
#             carries it on its metric); failureDurationSeconds defaults
#             to 180; bad values are refused with their field path;
#             fallbackStatus and firstFailureTime are written through
#             /status only.
#   gate off (same etcd, API server restarted): a new HPA loses the field on
#             create; an HPA that already has it keeps it on update; new
#             status fields are dropped.
#
# KEP-6382's metric.source and KEP-6003's spec.syncPeriodSeconds, whose
# gates (HPAMetricSource, HPAConfigurableSyncPeriod) follow the fallback's
# here, are checked the same way: kept and validated with the gates on,
# dropped on create with them off.
#
# Usage: hack/intree/smoke-test.sh   (ETCD, KUBECTL and KUBE_APISERVER
# override the binaries; by default _output/bin/{etcd,kubectl} of
# hack/build-upstream.sh and _output/bin/intree/kube-apiserver.)

source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

ETCD=${ETCD:-${BIN_DIR}/etcd}
KUBECTL=${KUBECTL:-${BIN_DIR}/kubectl}
KUBE_APISERVER=${KUBE_APISERVER:-${BIN_DIR}/intree/kube-apiserver}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/intree-smoke.XXXXXX")
PIDS=()
cleanup() {
  local i
  # Newest first: kube-apiserver stops quickly only while etcd is up.
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    kill "${PIDS[i]}" 2>/dev/null || true
    wait "${PIDS[i]}" 2>/dev/null || true
  done
  if [[ ${failed:-0} -eq 0 ]]; then rm -rf "${WORK}"; else echo "logs kept in ${WORK}" >&2; fi
}
trap cleanup EXIT

failed=0
check() {
  local what=$1 got=$2 want=$3
  if [[ ${got} == "${want}" ]]; then
    echo "ok   ${what}"
  else
    echo "FAIL ${what}: got ${got@Q}, want ${want@Q}"
    failed=1
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

ETCD_PORT=$(free_port)
PEER_PORT=$(free_port)
API_PORT=$(free_port)

openssl genrsa -out "${WORK}/sa.key" 2048 2>/dev/null
openssl rsa -in "${WORK}/sa.key" -pubout -out "${WORK}/sa.pub" 2>/dev/null
echo "smoke-token,admin,admin,system:masters" >"${WORK}/tokens.csv"
cat >"${WORK}/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:${API_PORT}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: smoke-token}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
EOF
k() { "${KUBECTL}" --kubeconfig "${WORK}/kubeconfig" "$@"; }

"${ETCD}" --data-dir "${WORK}/etcd" --unsafe-no-fsync --log-level warn \
  --listen-client-urls "http://127.0.0.1:${ETCD_PORT}" --advertise-client-urls "http://127.0.0.1:${ETCD_PORT}" \
  --listen-peer-urls "http://127.0.0.1:${PEER_PORT}" --initial-advertise-peer-urls "http://127.0.0.1:${PEER_PORT}" \
  --initial-cluster "default=http://127.0.0.1:${PEER_PORT}" >"${WORK}/etcd.log" 2>&1 &
PIDS+=($!)

APISERVER_PID=
start_apiserver() {
  local gate=$1
  "${KUBE_APISERVER}" --bind-address 127.0.0.1 --secure-port "${API_PORT}" \
    --etcd-servers "http://127.0.0.1:${ETCD_PORT}" --cert-dir "${WORK}/certs" \
    --token-auth-file "${WORK}/tokens.csv" --authorization-mode RBAC \
    --service-account-key-file "${WORK}/sa.pub" --service-account-signing-key-file "${WORK}/sa.key" \
    --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.0.0.0/24 \
    --endpoint-reconciler-type none --feature-gates "HPAExternalMetricFallback=${gate},HPAMetricSource=${gate},HPAConfigurableSyncPeriod=${gate}" \
    >"${WORK}/kube-apiserver-gate-${gate}.log" 2>&1 &
  APISERVER_PID=$!
  PIDS+=("${APISERVER_PID}")
  local i
  for i in $(seq 1 120); do
    if k get --raw /readyz >/dev/null 2>&1; then return; fi
    sleep 1
  done
  echo "kube-apiserver (HPAExternalMetricFallback=${gate}) did not become ready; see ${WORK}" >&2
  failed=1
  exit 1
}

# hpa NAME REPLICAS [FAILURE_DURATION] prints a native autoscaling/v2 HPA.
hpa() {
  cat <<EOF
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: $1, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: External
    external:
      metric: {name: queue_length}
      target: {type: AverageValue, averageValue: "30"}
      fallback:
        replicas: $2
EOF
  if [[ $# -gt 2 ]]; then echo "        failureDurationSeconds: $3"; fi
}

fallback_of() { k get hpa "$1" -o jsonpath='{.spec.metrics[0].external.fallback}'; }

# sourced NAME GROUP SECONDS is an HPA whose External metric is read from
# GROUP, reconciled every SECONDS.
sourced() {
  cat <<EOF
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: $1, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  maxReplicas: 10
  syncPeriodSeconds: $3
  metrics:
  - type: External
    external:
      metric: {name: queue_length, source: {apiGroup: "$2"}}
      target: {type: AverageValue, averageValue: "30"}
EOF
}

source_and_period_of() { k get hpa "$1" -o jsonpath='{.spec.metrics[0].external.metric.source.apiGroup} {.spec.syncPeriodSeconds}'; }

# v1_read NAME keeps the autoscaling/v1 form of HPA NAME in v1_file NAME;
# v1_write NAME writes that form back through autoscaling/v1.
v1_path() { echo "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/$1"; }
v1_file() { echo "${WORK}/$1-v1.json"; }
v1_read() { k get --raw "$(v1_path "$1")" >"$(v1_file "$1")"; }
v1_write() { k replace --raw "$(v1_path "$1")" -f "$(v1_file "$1")" >/dev/null; }

status_patch() {
  echo '{"status":{"desiredReplicas":1,"currentMetrics":[{"type":"External","external":{"metric":{"name":"queue_length"},"current":{"averageValue":"1"},"fallbackStatus":"'"$1"'","firstFailureTime":"2026-01-02T03:04:05Z"}}]}}'
}

echo "--- HPAExternalMetricFallback=true"
start_apiserver true
hpa client 5 | k apply -f - >/dev/null
check "client-side apply keeps the fallback and defaults failureDurationSeconds" \
  "$(fallback_of client)" '{"failureDurationSeconds":180,"replicas":5}'
hpa ssa 3 600 | k apply --server-side -f - >/dev/null
check "server-side apply keeps the fallback" "$(fallback_of ssa)" '{"failureDurationSeconds":600,"replicas":3}'
hpa ssa 4 600 | k apply --server-side -f - >/dev/null
check "an update changes the fallback" "$(fallback_of ssa)" '{"failureDurationSeconds":600,"replicas":4}'
v1_read ssa
check "an autoscaling/v1 read carries the fallback on its metric in upstream's metrics annotation" \
  "$(grep -o '\\"fallback\\":{[^}]*}' "$(v1_file ssa)")" \
  '\"fallback\":{\"failureDurationSeconds\":600,\"replicas\":4}'
v1_write ssa
check "an autoscaling/v1 write of what it read keeps the fallback" "$(fallback_of ssa)" '{"failureDurationSeconds":600,"replicas":4}'
check "kubectl explain knows the field" \
  "$(k explain hpa.spec.metrics.external.fallback.replicas --api-version=autoscaling/v2 | grep -c 'FIELD: *replicas')" 1
check "too short a failure duration and zero replicas are refused with their paths" \
  "$(hpa bad 0 100 | k apply -f - 2>&1 | grep -o 'spec.metrics\[0\].external.fallback.[a-zA-Z]*' | sort | tr '\n' ' ')" \
  'spec.metrics[0].external.fallback.failureDurationSeconds spec.metrics[0].external.fallback.replicas '
check "too long a failure duration is refused" \
  "$(hpa bad 1 86401 | k apply -f - 2>&1 | grep -o 'must be between 180 and 86400, inclusive')" 'must be between 180 and 86400, inclusive'
k patch hpa ssa --type=merge -p "$(status_patch Fallback)" >/dev/null
check "the main resource ignores status" "$(k get hpa ssa -o jsonpath='{.status.currentMetrics[*].external.fallbackStatus}')" ''
k patch hpa ssa --subresource=status --type=merge -p "$(status_patch Fallback)" >/dev/null
check "/status writes fallbackStatus and firstFailureTime" \
  "$(k get hpa ssa -o jsonpath='{.status.currentMetrics[0].external.fallbackStatus} {.status.currentMetrics[0].external.firstFailureTime}')" \
  'Fallback 2026-01-02T03:04:05Z'
check "/status refuses an unknown fallbackStatus" \
  "$(k patch hpa ssa --subresource=status --type=merge -p "$(status_patch Bogus)" 2>&1 | grep -o 'Unsupported value: "Bogus"')" 'Unsupported value: "Bogus"'

sourced routed metrics.example.com 30 | k apply -f - >/dev/null
check "metric.source and syncPeriodSeconds are kept" "$(source_and_period_of routed)" 'metrics.example.com 30'
v1_read routed
v1_write routed
check "an autoscaling/v1 write of what it read keeps metric.source and syncPeriodSeconds" "$(source_and_period_of routed)" 'metrics.example.com 30'
check "a default metrics group as the source and a period below 3 s are refused with their paths" \
  "$(sourced bad external.metrics.k8s.io 2 | k apply -f - 2>&1 | grep -o 'spec\.metrics\[0\]\.external\.metric\.source\.apiGroup\|spec\.syncPeriodSeconds' | sort -u | tr '\n' ' ')" \
  'spec.metrics[0].external.metric.source.apiGroup spec.syncPeriodSeconds '

echo "--- HPAExternalMetricFallback=false (same etcd)"
kill "${APISERVER_PID}"
wait "${APISERVER_PID}" 2>/dev/null || true
start_apiserver false
hpa gateoff 5 | k apply -f - >/dev/null
check "create drops the fallback" "$(fallback_of gateoff)" ''
sourced routed-off metrics.example.com 30 | k apply -f - >/dev/null
check "create drops metric.source and syncPeriodSeconds" "$(source_and_period_of routed-off)" ' '
sourced routed metrics.example.com 60 | k apply -f - >/dev/null
check "update keeps metric.source and syncPeriodSeconds the HPA already has" "$(source_and_period_of routed)" 'metrics.example.com 60'
hpa ssa 6 600 | k apply --server-side -f - >/dev/null
check "update keeps a fallback the HPA already has" "$(fallback_of ssa)" '{"failureDurationSeconds":600,"replicas":6}'
k patch hpa gateoff --subresource=status --type=merge -p "$(status_patch Fallback)" >/dev/null
check "/status drops new fallback state" "$(k get hpa gateoff -o jsonpath='{.status.currentMetrics[0].external.fallbackStatus}')" ''
k patch hpa ssa --subresource=status --type=merge -p "$(status_patch Normal)" >/dev/null
check "/status keeps updating fallback state already stored" \
  "$(k get hpa ssa -o jsonpath='{.status.currentMetrics[0].external.fallbackStatus}')" 'Normal'

exit ${failed}
