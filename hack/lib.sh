#!/usr/bin/env bash
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
