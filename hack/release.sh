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

# Writes the release artifacts of VERSION into dist/ (docs/releasing.md),
# from this repository alone, without a Docker daemon or a registry:
#   hpa-controller-manager-<version>.oci.tar   multi-arch image (OCI image layout tarball)
#   hpa-controller-manager-<version>-linux-<arch>   the static binaries
#   hpa-controller-manager-<version>.spdx.json   SBOM of the binary, from its build info
#   kube-hpa-<chart version>.tgz               the Helm chart
#   install.yaml, install-cert-manager.yaml    the manifests of deploy/ at this version
#   SHA256SUMS
#
# Usage: VERSION=v0.x.y hack/release.sh   (make release VERSION=v0.x.y)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=${VERSION:-}
if [[ ! "${VERSION}" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "VERSION must be a semantic version vX.Y.Z[-pre], got '${VERSION}'" >&2
  exit 1
fi
export VERSION
IMAGE=${IMAGE:-ghcr.io/kube-hpa/hpa-controller-manager}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64}
CA_CERTIFICATES=${CA_CERTIFICATES:-/etc/ssl/certs/ca-certificates.crt}
if [[ ! -s "${CA_CERTIFICATES}" ]]; then
  echo "${CA_CERTIFICATES} is missing: apt-get install ca-certificates (Debian's bundle goes into the image)" >&2
  exit 1
fi
# Times in the artifacts are the commit's, so that a rebuild of the same
# commit gives the same image digests.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "${REPO_ROOT}" log -1 --format=%ct)}

dist="${REPO_ROOT}/dist"
rm -rf "${dist}"
mkdir -p "${dist}"
work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT

ldflags="-s -w $("${REPO_ROOT}/hack/version.sh")"
binaries=()
for platform in ${PLATFORMS}; do
  os=${platform%/*}
  arch=${platform#*/}
  bin="${dist}/hpa-controller-manager-${VERSION}-${os}-${arch}"
  echo "building ${bin#"${REPO_ROOT}/"}" >&2
  (cd "${REPO_ROOT}" && CGO_ENABLED=0 GOOS=${os} GOARCH=${arch} go build -trimpath -ldflags "${ldflags}" -o "${bin}" ./cmd/hpa-controller-manager)
  binaries+=("${platform}=${bin}")
done
first_bin=${binaries[0]#*=}

release_tools="${REPO_ROOT}/hack/tools/release"
(cd "${release_tools}" && go build -o "${work}/release-image" ./cmd/release-image && go build -o "${work}/release-sbom" ./cmd/release-sbom)

echo "writing the image ${IMAGE}:${VERSION}" >&2
"${work}/release-image" -binaries "$(IFS=,; echo "${binaries[*]}")" -ca-certificates "${CA_CERTIFICATES}" \
  -version "${VERSION}" -ref "${IMAGE}:${VERSION}" -source-date-epoch "${SOURCE_DATE_EPOCH}" \
  -out "${dist}/hpa-controller-manager-${VERSION}.oci.tar"

# Every platform's binary is built from the same modules: one SBOM.
"${work}/release-sbom" -binary "${first_bin}" -version "${VERSION}" -source-date-epoch "${SOURCE_DATE_EPOCH}" \
  -out "${dist}/hpa-controller-manager-${VERSION}.spdx.json"

"${REPO_ROOT}/hack/build-upstream.sh" helm kubectl
echo "packaging the chart" >&2
"${BIN_DIR}/helm" package "${REPO_ROOT}/charts/kube-hpa" --version "${VERSION#v}" --app-version "${VERSION}" \
  --destination "${dist}" >/dev/null

# install.yaml is deploy/ (kubectl apply -k deploy) with the release's image;
# install-cert-manager.yaml adds deploy/cert-manager's issuer and certificate.
# Each is rendered from an overlay in a scratch directory, so that deploy/
# stays as it is.
render() {
  local out=$1
  shift
  local overlay="${work}/overlay-$(basename "${out}" .yaml)"
  mkdir -p "${overlay}"
  {
    echo "apiVersion: kustomize.config.k8s.io/v1beta1"
    echo "kind: Kustomization"
    echo "resources:"
    for r in "$@"; do
      echo "- $(realpath --relative-to="${overlay}" "${REPO_ROOT}/${r}")"
    done
    echo "images:"
    echo "- name: ghcr.io/kube-hpa/hpa-controller-manager"
    echo "  newName: ${IMAGE}"
    echo "  newTag: ${VERSION}"
  } >"${overlay}/kustomization.yaml"
  {
    echo "# kube-hpa ${VERSION}: kubectl apply --server-side -f $(basename "${out}")"
    "${BIN_DIR}/kubectl" kustomize "${overlay}"
  } >"${out}"
}
render "${dist}/install.yaml" deploy
render "${dist}/install-cert-manager.yaml" deploy deploy/cert-manager

(cd "${dist}" && sha256sum -- * >SHA256SUMS)
echo "release ${VERSION} written to dist/:" >&2
ls -l "${dist}" >&2
