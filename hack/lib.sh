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

# Shared helpers of the hack/ scripts: where things are, and how to get the
# code generators pinned in hack/tools without anything installed globally.

set -o errexit -o nounset -o pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN_DIR="${REPO_ROOT}/_output/bin"

# tool_bin NAME PACKAGE builds PACKAGE from the hack/tools module into
# _output/bin/NAME when the pins in hack/tools changed since the last build,
# and prints the binary's path.
tool_bin() {
  local name=$1 pkg=$2
  local bin="${BIN_DIR}/${name}"
  local stamp="${BIN_DIR}/.${name}.pins"
  local pins
  pins=$(cat "${REPO_ROOT}/hack/tools/go.mod" "${REPO_ROOT}/hack/tools/go.sum" | sha256sum | cut -d' ' -f1)
  if [[ ! -x "${bin}" || ! -f "${stamp}" || "$(cat "${stamp}")" != "${pins}" ]]; then
    mkdir -p "${BIN_DIR}"
    echo "building ${name} from hack/tools" >&2
    (cd "${REPO_ROOT}/hack/tools" && go build -o "${bin}" "${pkg}")
    echo "${pins}" >"${stamp}"
  fi
  echo "${bin}"
}

controller_gen() {
  tool_bin controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen
}

# module_bin DIR NAME PACKAGE [GO BUILD FLAGS...] builds PACKAGE of the Go
# module in DIR into _output/bin/NAME and prints the binary's path. Like
# tool_bin it rebuilds only when something the binary depends on changed; here
# that is DIR's go.mod and go.sum, the Go version, the build flags, and the
# package's own files when PACKAGE is local to DIR (./...). The binary is
# written beside its final path and renamed, so a reader never runs half of
# one. NAME may name a subdirectory of _output/bin (v1.36.3/kube-apiserver).
module_bin() {
  local dir=$1 name=$2 pkg=$3
  shift 3
  module_bins "${dir}" "$@" -- "${name}=${pkg}"
  echo "${BIN_DIR}/${name}"
}

# pins_stamp BIN prints where the pins BIN was built from are kept.
pins_stamp() {
  echo "$(dirname "$1")/.$(basename "$1").pins"
}

# module_bins DIR [GO BUILD FLAGS...] -- NAME=PACKAGE... builds, as module_bin
# does, those of the binaries that are out of date, with one go build: the
# compiles of one binary then fill the time that linking another takes on
# one core, where one build after the other leaves the second core idle
# through every link (the Kubernetes binaries, about a minute of a cold
# build on two cores).
module_bins() {
  local dir=$1
  shift
  local flags=()
  while [[ $1 != -- ]]; do
    flags+=("$1")
    shift
  done
  shift
  local spec name pkg pins stale=() stale_pkgs=() stale_pins=() module
  # What every binary of the build shares: the module's pins, the
  # toolchain and the flags, read once.
  module=$(
    cat "${dir}/go.mod" "${dir}/go.sum"
    go env GOVERSION
    echo "${flags[*]}"
  )
  for spec in "$@"; do
    name=${spec%%=*} pkg=${spec#*=}
    pins=$(
      {
        echo "${module}"
        if [[ ${pkg} == ./* ]]; then cat "${dir}/${pkg}"/*.go; fi
      } | sha256sum | cut -d' ' -f1
    )
    local bin="${BIN_DIR}/${name}" stamp
    stamp=$(pins_stamp "${BIN_DIR}/${name}")
    if [[ ! -x "${bin}" || ! -f "${stamp}" || "$(cat "${stamp}")" != "${pins}" ]]; then
      stale+=("${name}") stale_pkgs+=("${pkg}") stale_pins+=("${pins}")
    fi
  done
  ((${#stale[@]} > 0)) || return 0
  echo "building ${stale[*]} from ${dir#"${REPO_ROOT}/"}" >&2
  local start=${SECONDS} i
  mkdir -p "${BIN_DIR}"
  # go build -o DIR/ names each binary after its package's last element;
  # each is renamed into place, so a reader never runs half of one.
  local out
  out=$(mktemp -d "${BIN_DIR}/.build.XXXXXX")
  if ! (cd "${dir}" && go build "${flags[@]}" -o "${out}/" "${stale_pkgs[@]}"); then
    rm -rf "${out}"
    return 1
  fi
  for i in "${!stale[@]}"; do
    mkdir -p "$(dirname "${BIN_DIR}/${stale[i]}")"
    mv -f "${out}/$(basename "${stale_pkgs[i]}")" "${BIN_DIR}/${stale[i]}"
  done
  rm -rf "${out}"
  for i in "${!stale[@]}"; do
    echo "${stale_pins[i]}" >"$(pins_stamp "${BIN_DIR}/${stale[i]}")"
  done
  echo "built ${stale[*]} in $((SECONDS - start))s" >&2
}

# build_metrics_adapter builds the test metrics adapter (test/metrics-adapter,
# a module of its own) into _output/bin/metrics-adapter and prints its path.
# The digest of the module's Go sources goes into the build flags, so that
# module_bin also rebuilds when the adapter package changes, not only its
# main package; the binary logs it at start.
build_metrics_adapter() {
  local dir="${REPO_ROOT}/test/metrics-adapter"
  local digest
  digest=$(cd "${dir}" && find . -name '*.go' ! -name '*_test.go' -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-16)
  module_bin "${dir}" metrics-adapter ./cmd/metrics-adapter -ldflags="-X main.sourceDigest=${digest}"
}
