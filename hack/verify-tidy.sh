#!/usr/bin/env bash
# Fails when go.mod or go.sum of the project or of a module of its own is not what
# `go mod tidy` would write.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

status=0
for mod in "${REPO_ROOT}" "${REPO_ROOT}/hack/tools" "${REPO_ROOT}/hack/tools/skew" "${REPO_ROOT}/hack/tools/kwok" "${REPO_ROOT}/hack/tools/prometheus" "${REPO_ROOT}/hack/tools/helm" "${REPO_ROOT}/hack/dashboards" "${REPO_ROOT}/test/metrics-adapter" "${REPO_ROOT}/test/bench/plot" "${REPO_ROOT}/test/differential"; do
  if ! (cd "${mod}" && go mod tidy -diff); then
    echo "go.mod/go.sum in ${mod} are not tidy: run 'go mod tidy' there" >&2
    status=1
  fi
done
exit ${status}
