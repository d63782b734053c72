#!/usr/bin/env bash
# Runs the unit tests of kube-hpa's alerting rules (test/prometheus/rules_test.yaml)
# with promtool, built from source (hack/tools/prometheus) like Prometheus. promtool
# reads plain rule files, so the rules are the spec of deploy/prometheusrule.yaml,
# written beside a copy of the test file, which names them kube-hpa.rules.yaml.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"${REPO_ROOT}/hack/build-upstream.sh" promtool
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT

# The PrometheusRule's spec is its rule file, indented two spaces.
sed -n '/^spec:$/,$p' "${REPO_ROOT}/deploy/prometheusrule.yaml" | sed '1d; s/^  //' >"${work}/kube-hpa.rules.yaml"
cp "${REPO_ROOT}/test/prometheus/rules_test.yaml" "${work}/"
"${BIN_DIR}/promtool" check rules "${work}/kube-hpa.rules.yaml"
"${BIN_DIR}/promtool" test rules "${work}/rules_test.yaml"
