#!/usr/bin/env bash
# Builds the binaries of the local control plane (test/localcluster) from
# source into _output/bin: kube-apiserver, kube-controller-manager,
# kube-scheduler and kubectl of Kubernetes, etcd, and kwok. Each one is
# rebuilt only when the pins of its module changed, so a second run takes
# a second. Nothing is downloaded prebuilt; the Go module proxy fills an empty
# module cache on the first run.
#
# Usage: hack/build-upstream.sh [NAME...]   (default: all of them)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOOLS_DIR="${REPO_ROOT}/hack/tools"
KWOK_DIR="${REPO_ROOT}/hack/tools/kwok"

# Builds of one checkout may be started at once (make integration beside
# make run); one lock keeps them from compiling the same binary twice and
# from fighting over its stamp.
mkdir -p "${BIN_DIR}"
exec 9>"${BIN_DIR}/.build-upstream.lock"
flock 9

# Kubernetes binaries report the version they were built from (kubectl
# version, /version of the apiserver, version skew checks of clients), which
# `go build` alone leaves at v0.0.0-master; set it from the pin.
k8s_ldflags() {
  local version major minor
  version=$(cd "${TOOLS_DIR}" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
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

build_one() {
  case $1 in
    kube-apiserver | kube-controller-manager | kube-scheduler | kubectl)
      module_bin "${TOOLS_DIR}" "$1" "k8s.io/kubernetes/cmd/$1" -ldflags="$(k8s_ldflags)" ;;
    etcd) module_bin "${TOOLS_DIR}" etcd ./cmd/etcd ;;
    kwok) module_bin "${KWOK_DIR}" kwok sigs.k8s.io/kwok/cmd/kwok ;;
    metrics-adapter) build_metrics_adapter ;;
    *)
      echo "unknown binary $1" >&2
      return 1
      ;;
  esac
}

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  # Smallest first, so a broken toolchain shows up in seconds.
  names=(etcd kubectl kube-scheduler kube-controller-manager kwok kube-apiserver metrics-adapter)
fi
for name in "${names[@]}"; do
  build_one "${name}" >/dev/null
done
