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

# Builds the binaries of the local control plane (test/localcluster) from
# source into _output/bin: kube-apiserver, kube-controller-manager,
# kube-scheduler and kubectl of Kubernetes, etcd, kwok, and Prometheus and
# Helm (for the e2e suite and make verify), and promtool (make test-rules).
# Each one is rebuilt only when the pins of its module changed, so a second
# run takes a second. Nothing is downloaded prebuilt; the Go module proxy
# fills an empty module cache on the first run.
#
# NAME skew builds kube-apiserver, kube-controller-manager and kube-scheduler
# of the previous Kubernetes minor pinned in hack/tools/skew into
# _output/bin/<version> (v1.36.3), for make e2e-skew.
#
# NAME kubernetes builds kube-apiserver, kube-controller-manager,
# kube-scheduler and kubectl with one go build (build_kubernetes).
#
# Usage: hack/build-upstream.sh [NAME...]   (default: all of them but
# promtool, which only make test-rules needs, and skew, which only make
# e2e-skew needs)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOOLS_DIR="${REPO_ROOT}/hack/tools"
SKEW_DIR="${REPO_ROOT}/hack/tools/skew"
KWOK_DIR="${REPO_ROOT}/hack/tools/kwok"
METRICS_SERVER_DIR="${REPO_ROOT}/hack/tools/metrics-server"
PROMETHEUS_DIR="${REPO_ROOT}/hack/tools/prometheus"
HELM_DIR="${REPO_ROOT}/hack/tools/helm"

# Builds of one checkout may be started at once (make integration beside
# make run); one lock keeps them from compiling the same binary twice and
# from fighting over its stamp.
mkdir -p "${BIN_DIR}"
exec 9>"${BIN_DIR}/.build-upstream.lock"
flock 9

# Kubernetes binaries report the version they were built from (kubectl
# version, /version of the apiserver, version skew checks of clients), which
# `go build` alone leaves at v0.0.0-master; set it from the pin of the module
# in DIR (default hack/tools).
k8s_version() {
  (cd "${1:-${TOOLS_DIR}}" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
}

k8s_ldflags() {
  local version major minor
  version=$(k8s_version "${1:-${TOOLS_DIR}}")
  major=${version#v}
  major=${major%%.*}
  minor=${version#v*.}
  minor=${minor%%.*}
  # No symbol table or DWARF: these binaries are run, never debugged here,
  # and linking kube-apiserver without them takes noticeably less time.
  printf -- '-s -w '
  local v
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf -- '-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean ' \
      "${v}" "${version}" "${v}" "${major}" "${v}" "${minor}" "${v}"
  done
}

# Prometheus reports the version it was built from (prometheus --version,
# /api/v1/status/buildinfo); its module's v0.MNN.P stands for release M.NN.P.
prometheus_ldflags() {
  local version minor patch
  version=$(cd "${PROMETHEUS_DIR}" && go list -m -f '{{.Version}}' github.com/prometheus/prometheus)
  version=${version#v0.}
  minor=${version%%.*}
  patch=${version#*.}
  printf -- '-s -w -X github.com/prometheus/common/version.Version=%d.%d.%s' $((10#${minor} / 100)) $((10#${minor} % 100)) "${patch}"
}

# Helm reports its version, and defaults the Kubernetes version of helm
# template and of lint's deprecation checks to the client-go it links (as
# Helm's own Makefile sets it; unset, it would be 1.20).
helm_ldflags() {
  local version k8s major minor v
  version=$(cd "${HELM_DIR}" && go list -m -f '{{.Version}}' helm.sh/helm/v3)
  k8s=$(cd "${HELM_DIR}" && go list -m -f '{{.Version}}' k8s.io/client-go)
  k8s=${k8s#v0.}
  major=1
  minor=${k8s%%.*}
  printf -- '-s -w -X helm.sh/helm/v3/internal/version.version=%s -X helm.sh/helm/v3/internal/version.gitTreeState=clean' "${version}"
  for v in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
    printf -- ' -X %s.k8sVersionMajor=%s -X %s.k8sVersionMinor=%s' "${v}" "${major}" "${v}" "${minor}"
  done
}

metrics_server_ldflags() {
  local version
  version=$(cd "${METRICS_SERVER_DIR}" && go list -m -f '{{.Version}}' sigs.k8s.io/metrics-server)
  printf -- '-s -w -X k8s.io/client-go/pkg/version.gitVersion=%s' "${version}"
}

# build_kubernetes NAME... builds those of the Kubernetes commands named
# (kube-apiserver, kubectl, ...) that are out of date, with one go build.
build_kubernetes() {
  local specs=() name
  for name in "$@"; do
    specs+=("${name}=k8s.io/kubernetes/cmd/${name}")
  done
  module_bins "${TOOLS_DIR}" -ldflags="$(k8s_ldflags)" -- "${specs[@]}"
}

build_one() {
  case $1 in
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl) build_kubernetes "$1" ;;
    etcd) module_bin "${TOOLS_DIR}" etcd ./cmd/etcd ;;
    skew)
      local version cmd specs=()
      version=$(k8s_version "${SKEW_DIR}")
      for cmd in kube-apiserver kube-controller-manager kube-scheduler; do
        specs+=("${version}/${cmd}=k8s.io/kubernetes/cmd/${cmd}")
      done
      module_bins "${SKEW_DIR}" -ldflags="$(k8s_ldflags "${SKEW_DIR}")" -- "${specs[@]}"
      ;;
    kwok) module_bin "${KWOK_DIR}" kwok sigs.k8s.io/kwok/cmd/kwok ;;
    metrics-server) module_bin "${METRICS_SERVER_DIR}" metrics-server sigs.k8s.io/metrics-server/cmd/metrics-server -ldflags="$(metrics_server_ldflags)" ;;
    # remove_all_sd leaves out every service discovery but file and HTTP
    # (Prometheus's plugins/ registers each one behind a build tag): the
    # local Prometheus scrapes static targets, and the cloud SDKs are a
    # third of the build.
    prometheus) module_bin "${PROMETHEUS_DIR}" prometheus github.com/prometheus/prometheus/cmd/prometheus \
      -tags=remove_all_sd -ldflags="$(prometheus_ldflags)" ;;
    # promtool of the same release, for `make test-rules` (promtool test
    # rules); the same tag leaves out the service discoveries it never reads.
    promtool) module_bin "${PROMETHEUS_DIR}" promtool github.com/prometheus/prometheus/cmd/promtool \
      -tags=remove_all_sd -ldflags="$(prometheus_ldflags)" ;;
    helm) module_bin "${HELM_DIR}" helm helm.sh/helm/v3/cmd/helm -ldflags="$(helm_ldflags)" ;;
    metrics-adapter) build_metrics_adapter ;;
    *)
      echo "unknown binary $1" >&2
      return 1
      ;;
  esac
}

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  # Smallest first, so a broken toolchain shows up in seconds; the
  # Kubernetes commands together (build_kubernetes).
  names=(etcd kubernetes kwok metrics-server metrics-adapter helm prometheus)
fi
for name in "${names[@]}"; do
  if [[ ${name} == kubernetes ]]; then
    build_kubernetes kubectl kube-scheduler kube-controller-manager kube-apiserver
  else
    build_one "${name}" >/dev/null
  fi
done
