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

# Runs the unit tests of kube-hpa's alerting rules (test/prometheus/rules_test.yaml)
# with promtool, built from source (hack/tools/prometheus) like Prometheus. promtool
# reads plain rule files, so the rules are the spec of deploy/prometheusrule.yaml,
# written beside a copy of the test file, which names them kube-hpa.rules.yaml.
# The chart renders KubeHPAShardsUnheld in place of KubeHPANoLeader with
# sharding.enabled: that rendering is tested by rules_sharded_test.yaml.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"${REPO_ROOT}/hack/build-upstream.sh" promtool helm
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
export HELM_CACHE_HOME="${work}/helm/cache" HELM_CONFIG_HOME="${work}/helm/config" HELM_DATA_HOME="${work}/helm/data"

# The PrometheusRule's spec is its rule file, indented two spaces.
sed -n '/^spec:$/,$p' "${REPO_ROOT}/deploy/prometheusrule.yaml" | sed '1d; s/^  //' >"${work}/kube-hpa.rules.yaml"
cp "${REPO_ROOT}/test/prometheus/rules_test.yaml" "${work}/"
"${BIN_DIR}/promtool" check rules "${work}/kube-hpa.rules.yaml"
"${BIN_DIR}/promtool" test rules "${work}/rules_test.yaml"

"${BIN_DIR}/helm" template kube-hpa "${REPO_ROOT}/charts/kube-hpa" --namespace kube-hpa-system \
  --set prometheusRule.enabled=true --set sharding.enabled=true --set sharding.shards=4 \
  --show-only templates/prometheusrule.yaml | sed -n '/^spec:$/,$p' | sed '1d; s/^  //' >"${work}/kube-hpa-sharded.rules.yaml"
cp "${REPO_ROOT}/test/prometheus/rules_sharded_test.yaml" "${work}/"
"${BIN_DIR}/promtool" check rules "${work}/kube-hpa-sharded.rules.yaml"
"${BIN_DIR}/promtool" test rules "${work}/rules_sharded_test.yaml"
