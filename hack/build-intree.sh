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

# Builds the in-tree mode of one Kubernetes release: three KEPs written as
# patch series to that release's own code (hack/intree/patches/<release>),
# the way their pull requests would be. kube-apiserver serves the new fields
# in native autoscaling/v2 and kube-controller-manager's own HPA controller
# (pkg/controller/podautoscaler) applies them, each behind its feature gate;
# with the gates off both run upstream's code. Nothing of this repository is
# linked into them.
#
# hack/intree/patches/<release>/series lists the series in the order they
# stack: one directory of `git format-patch` files per pull request (each
# KEP, then the kubectl changes that follow them). A series that does not
# apply to the release without the ones above it also has the form it is
# sent in, which does, under alone/<series>: the same commits, rebased.
#
# 1. assembles a checkout of the release's tag from the Go module proxy:
#    k8s.io/kubernetes at the tag, with the staging modules the series
#    touch (k8s.io/api, client-go, kubectl at the matching v0 version)
#    under staging/src/k8s.io, committed as the base of a git repository in
#    _output/intree/<release>/src;
# 2. applies the stack there with `git am` (each patch: subject, a body that
#    says why, one logical change; each series' generated code in a commit
#    of its own right after the API types it follows from);
# 3. builds kube-apiserver, kube-controller-manager, kube-scheduler and
#    kubectl from the patched tree (hack/intree/<release>, a module whose
#    replace directives point into the tree) into _output/bin/intree for the
#    default release and _output/bin/intree-<release> for the others.
#
# Every step is skipped when its inputs are unchanged. protoc is not a Go
# program: when it is missing the script installs Debian's protobuf-compiler
# with apt-get and says so.
#
# Usage: hack/build-intree.sh [--release R] [--series S] [--tree | --verify | --test | --test-fast | --each | --e2e | --update-generated | --export]
#   --release R  the release to use (default v1.37.2; INTREE_RELEASE too).
#   --series S   one series alone on the release (its alone/ form when it
#                has one) instead of the stack, in _output/intree/<release>-S;
#                with --tree, --verify, --test, --test-fast, --each and
#                --export. --series list prints the series in stack order,
#                --series alone those that apply to the release alone.
#   --tree       only assemble the release and apply the patches, to edit
#                them (then --export).
#   --verify     apply the patches, run upstream's generators again at each
#                generated-code commit (and take the static OpenAPI
#                documents from a kube-apiserver built from the tree, with
#                etcd of make upstream-binaries) and fail when they change
#                anything the commit holds (a patch that no longer applies
#                fails too). The stack also checks that each alone/ form has
#                the commits of its stacked form.
#   --test       run upstream's tests of every package the patches touch, in
#                the patched tree, with the gates off and on
#                (INTREE_TEST_FLAGS adds go test flags); the stack builds the
#                binaries first.
#   --test-fast  the same without the round-trip suites of every API group
#                (k8s.io/api and pkg/api/testing), whose build takes minutes:
#                what `make test` runs.
#   --each       check out each commit in turn, as `git rebase --exec` would,
#                and build and test the packages it touches (gates off, and
#                on where the tree has them then; integration packages are
#                vetted, not run).
#   --e2e        build upstream's e2e.test from the patched stack into the
#                directory of its binaries, for the series' specs in
#                test/e2e/autoscaling (make e2e-intree runs them).
#   --update-generated  regenerate the code of every generated-code commit
#                (and the round-trip fixtures of autoscaling), each where it
#                stands, and write the patches again.
#   --export     write the commits of the tree on top of the base back into
#                the series' directories (after editing the tree: `git
#                commit`, `git rebase -i`); each commit goes to the series
#                whose patch has its subject, a new one to the last series.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEFAULT_RELEASE=v1.37.2
RELEASE=${INTREE_RELEASE:-${DEFAULT_RELEASE}}
MODE=build
SERIES=
while [[ $# -gt 0 ]]; do
  case $1 in
    --release) RELEASE=$2; shift 2 ;;
    --series) SERIES=$2; shift 2 ;;
    --tree | --verify | --verify-tip | --test | --test-fast | --each | --e2e | --update-generated | --export | --generated-commit) MODE=${1#--}; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

if [[ ! ${RELEASE} =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "release ${RELEASE} is not of the form v1.MINOR.PATCH" >&2
  exit 2
fi
KUBE_MINOR=${BASH_REMATCH[1]}
KUBE_VERSION=${RELEASE}
STAGING_VERSION=v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
# The staging modules the series may change; the others come from the proxy.
STAGING=(api client-go kubectl)

INTREE_DIR="${REPO_ROOT}/hack/intree/${RELEASE}"
PATCH_ROOT="${REPO_ROOT}/hack/intree/patches/${RELEASE}"
SERIES_FILE="${PATCH_ROOT}/series"
if [[ ${RELEASE} == "${DEFAULT_RELEASE}" ]]; then
  INTREE_BIN="${BIN_DIR}/intree"
else
  INTREE_BIN="${BIN_DIR}/intree-${RELEASE}"
fi
for f in "${INTREE_DIR}" "${SERIES_FILE}"; do
  if [[ ! -e ${f} ]]; then
    echo "no series for ${RELEASE}: ${f#"${REPO_ROOT}/"} is missing" >&2
    exit 2
  fi
done

# list_series prints the series of the release in the order they stack.
list_series() {
  grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "${SERIES_FILE}" | awk '{print $1}'
}

# series_dirs prints the directories whose patches make the selection, in
# the order they apply: every series for the stack, or one series' form
# that applies to the release alone.
series_dirs() {
  local s first
  if [[ -z ${SERIES} ]]; then
    for s in $(list_series); do echo "${PATCH_ROOT}/${s}"; done
    return
  fi
  first=$(list_series | head -1)
  if [[ -d ${PATCH_ROOT}/alone/${SERIES} ]]; then
    echo "${PATCH_ROOT}/alone/${SERIES}"
  elif [[ ${SERIES} == "${first}" ]]; then
    echo "${PATCH_ROOT}/${SERIES}"
  elif list_series | grep -qx "${SERIES}"; then
    echo "series ${SERIES} of ${RELEASE} has no form that applies alone (no alone/${SERIES}): it needs the series above it in ${SERIES_FILE#"${REPO_ROOT}/"}, so the stack is its test" >&2
    return 1
  else
    echo "${RELEASE} has no series ${SERIES}; it has: $(list_series | paste -sd' ')" >&2
    return 1
  fi
}

case ${SERIES} in
  list) list_series; exit 0 ;;
  alone)
    # The series that apply to the release without the others.
    for s in $(list_series); do
      if [[ -d ${PATCH_ROOT}/alone/${s} || ${s} == "$(list_series | head -1)" ]]; then echo "${s}"; fi
    done
    exit 0
    ;;
esac
if [[ -n ${SERIES} ]]; then
  series_dirs >/dev/null
  OUT_DIR="${REPO_ROOT}/_output/intree/${RELEASE}-${SERIES}"
else
  OUT_DIR="${REPO_ROOT}/_output/intree/${RELEASE}"
fi
SRC="${OUT_DIR}/src"

mkdir -p "${OUT_DIR}" "${INTREE_BIN}"
exec 8>"${OUT_DIR}/.lock"
flock 8

# The identity and dates of the base commit and of the commits `git am`
# makes, so that the tree's history is the same on every machine.
export GIT_AUTHOR_NAME="kube-hpa" GIT_AUTHOR_EMAIL="kube-hpa@users.noreply.github.com"
export GIT_COMMITTER_NAME="kube-hpa" GIT_COMMITTER_EMAIL="kube-hpa@users.noreply.github.com"
export GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git_src() {
  GIT_CEILING_DIRECTORIES="${OUT_DIR}" git -C "${SRC}" -c core.autocrlf=false -c advice.detachedHead=false "$@"
}

# module_cache_dir MODULE VERSION prints the module cache directory of MODULE
# at VERSION, downloading it through the Go module proxy if needed.
module_cache_dir() {
  local json
  json=$(cd / && GOFLAGS=-mod=mod go mod download -json "$1@$2")
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"${json}"
}

# dir_patches DIR prints the patches of one series directory in order.
dir_patches() {
  find "$1" -maxdepth 1 -name '*.patch' -print0 | LC_ALL=C sort -z | xargs -0 -r printf '%s\n'
}

patches() {
  local d
  for d in $(series_dirs); do dir_patches "${d}"; done
}

# patch_subject FILE prints the subject of a format-patch file, unfolded.
patch_subject() {
  awk '/^Subject: /{s=$0; f=1; next} f && /^ /{s=s $0; next} f{print s; exit}' "$1" |
    sed -e 's/^Subject: \[PATCH[^]]*\] //' -e 's/  */ /g'
}

# GENERATED matches the subject of a commit that holds generated code only.
GENERATED='update generated code'

# inputs_digest hashes everything the patched tree depends on.
inputs_digest() {
  {
    echo "${KUBE_VERSION} ${STAGING_VERSION} ${STAGING[*]} ${SERIES}"
    cat "${SERIES_FILE}"
    go env GOVERSION
    cat "${BASH_SOURCE[0]}" "${INTREE_DIR}/go.mod" "${INTREE_DIR}/go.sum" "${INTREE_DIR}/tools.go"
    patches | xargs -r cat
  } | sha256sum | cut -d' ' -f1
}

ensure_protoc() {
  if command -v protoc >/dev/null; then
    return
  fi
  echo "protoc is not installed; installing Debian's protobuf-compiler with apt-get (go-to-protobuf runs it)" >&2
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y protobuf-compiler >&2
}

# assemble_base writes the release's tag, as the module proxy serves it,
# into SRC as the first commit of a fresh repository, tagged "base".
assemble_base() {
  local dir name
  rm -rf "${SRC}"
  mkdir -p "${SRC}"
  dir=$(module_cache_dir k8s.io/kubernetes "${KUBE_VERSION}")
  cp -r "${dir}/." "${SRC}/"
  for name in "${STAGING[@]}"; do
    dir=$(module_cache_dir "k8s.io/${name}" "${STAGING_VERSION}")
    mkdir -p "${SRC}/staging/src/k8s.io"
    cp -r "${dir}" "${SRC}/staging/src/k8s.io/${name}"
  done
  chmod -R u+w "${SRC}"
  git_src init -q
  git_src add -A
  GIT_AUTHOR_DATE="${GIT_COMMITTER_DATE}" git_src commit -q -m "Kubernetes ${KUBE_VERSION} (k8s.io/kubernetes ${KUBE_VERSION}; ${STAGING[*]} ${STAGING_VERSION})"
  git_src tag base
}

# apply_series applies the release's series to the base with git am.
apply_series() {
  local p
  git_src checkout -q -B series base
  git_src reset -q --hard base
  while IFS= read -r p; do
    if ! git_src am -q --keep-cr "${p}" >/dev/null; then
      git_src am --abort || true
      echo "${p#"${REPO_ROOT}/"} does not apply to ${KUBE_VERSION} with git am" >&2
      return 1
    fi
  done < <(patches)
}

# use_tree writes ${SRC}.mod, a copy of the release's module whose replace
# directives point into SRC by absolute path, and sets MODULE_DIR to it; the
# generators run there.
use_tree() {
  local name
  MODULE_DIR="${SRC}.mod"
  rm -rf "${MODULE_DIR}"
  mkdir -p "${MODULE_DIR}"
  cp "${INTREE_DIR}/go.mod" "${INTREE_DIR}/go.sum" "${INTREE_DIR}/tools.go" "${MODULE_DIR}/"
  (cd "${MODULE_DIR}" && go mod edit -replace "k8s.io/kubernetes=${SRC}")
  for name in "${STAGING[@]}"; do
    (cd "${MODULE_DIR}" && go mod edit -replace "k8s.io/${name}=${SRC}/staging/src/k8s.io/${name}")
  done
}

# build_tools builds the generators pinned in the release's module into BIN.
build_tools() {
  local bin=$1
  mkdir -p "${bin}"
  (cd "${MODULE_DIR}" && go build -o "${bin}/" \
    golang.org/x/tools/cmd/goimports \
    k8s.io/code-generator/cmd/applyconfiguration-gen \
    k8s.io/code-generator/cmd/conversion-gen \
    k8s.io/code-generator/cmd/deepcopy-gen \
    k8s.io/code-generator/cmd/defaulter-gen \
    k8s.io/code-generator/cmd/go-to-protobuf \
    k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo \
    k8s.io/kube-openapi/cmd/openapi-gen \
    k8s.io/kubernetes/cmd/genswaggertypedocs)
}

# generate regenerates, in SRC, the generated code of the packages the series
# changes, the way upstream's hack/update-codegen.sh and
# hack/update-generated-protobuf.sh do for them. It runs in MODULE_DIR.
generate() {
  local bin=$1
  local api="${SRC}/staging/src/k8s.io/api" clientgo="${SRC}/staging/src/k8s.io/client-go"
  local boilerplate="${SRC}/hack/boilerplate/boilerplate.generatego.txt"
  local scratch="${SRC}.scratch"
  rm -rf "${scratch}"
  mkdir -p "${scratch}"
  cd "${MODULE_DIR}"

  "${bin}/deepcopy-gen" --go-header-file "${boilerplate}" --output-file zz_generated.deepcopy.go \
    k8s.io/api/autoscaling/v1 k8s.io/api/autoscaling/v2 k8s.io/kubernetes/pkg/apis/autoscaling
  "${bin}/conversion-gen" --go-header-file "${boilerplate}" --output-file zz_generated.conversion.go \
    --extra-peer-dirs k8s.io/kubernetes/pkg/apis/core \
    --extra-peer-dirs k8s.io/kubernetes/pkg/apis/core/v1 \
    --extra-peer-dirs k8s.io/api/core/v1 \
    k8s.io/kubernetes/pkg/apis/autoscaling/v1 k8s.io/kubernetes/pkg/apis/autoscaling/v2
  "${bin}/defaulter-gen" --go-header-file "${boilerplate}" --output-file zz_generated.defaults.go \
    k8s.io/kubernetes/pkg/apis/autoscaling/v1 k8s.io/kubernetes/pkg/apis/autoscaling/v2

  # go-to-protobuf works on a GOPATH-like tree: the package it writes and the
  # .proto files it imports, by import path.
  local gopath="${scratch}/gopath/src"
  mkdir -p "${gopath}/k8s.io" "${gopath}/github.com/gogo"
  ln -s "${api}" "${gopath}/k8s.io/api"
  ln -s "$(go list -m -f '{{.Dir}}' k8s.io/apimachinery)" "${gopath}/k8s.io/apimachinery"
  ln -s "$(go list -m -f '{{.Dir}}' github.com/gogo/protobuf)" "${gopath}/github.com/gogo/protobuf"
  local apimachinery=(
    k8s.io/apimachinery/pkg/util/intstr
    k8s.io/apimachinery/pkg/api/resource
    k8s.io/apimachinery/pkg/runtime/schema
    k8s.io/apimachinery/pkg/runtime
    k8s.io/apimachinery/pkg/apis/meta/v1
  )
  PATH="${bin}:${PATH}" "${bin}/go-to-protobuf" --go-header-file "${boilerplate}" \
    --output-dir "${gopath}" --proto-import "${gopath}" \
    --proto-import "${SRC}/third_party/protobuf" \
    --apimachinery-packages "$(printf -- '-%s,' "${apimachinery[@]}" | sed 's/,$//')" \
    --packages -k8s.io/api/core/v1,k8s.io/api/autoscaling/v1,k8s.io/api/autoscaling/v2

  # autoscaling/v1's metric types are those its metrics annotations carry.
  gen_swagger_doc "${api}/autoscaling/v1" "${bin}" "${boilerplate}"
  gen_swagger_doc "${api}/autoscaling/v2" "${bin}" "${boilerplate}"

  # OpenAPI of kube-apiserver: every package the upstream file has
  # definitions of (its imports), so the regenerated file differs from
  # upstream's only where the series changed types.
  local openapi="${SRC}/pkg/generated/openapi"
  local pkgs
  pkgs=$(awk '/^import \(/{f=1; next} f && /^\)/{exit} f {gsub(/"/, "", $NF); print $NF}' \
    "${openapi}/zz_generated.openapi.go" | grep -v '^k8s.io/kube-openapi/')
  # shellcheck disable=SC2086 # one package per word
  "${bin}/openapi-gen" --go-header-file "${boilerplate}" --output-file zz_generated.openapi.go \
    --output-dir "${openapi}" --output-pkg k8s.io/kubernetes/pkg/generated/openapi \
    --report-filename "${scratch}/api_violations.report" ${pkgs}
  if ! diff -u "${SRC}/api/api-rules/violation_exceptions.list" "${scratch}/api_violations.report"; then
    echo "the series adds OpenAPI rule violations (above)" >&2
    return 1
  fi
  # The model names of the patched k8s.io/api packages; their OpenAPI output
  # is thrown away (the run above wrote the real one).
  "${bin}/openapi-gen" --go-header-file "${boilerplate}" --output-file zz_generated.openapi.go \
    --output-dir "${scratch}/openapi" --output-pkg k8s.io/kubernetes/pkg/generated/openapi \
    --output-model-name-file zz_generated.model_name.go \
    --report-filename "${scratch}/api_violations.model_name.report" k8s.io/api/autoscaling/v1 k8s.io/api/autoscaling/v2

  # client-go's apply configurations of every k8s.io/api group, from the
  # models of the OpenAPI just generated, as upstream's codegen::applyconfigs.
  go build -o "${scratch}/models-schema" k8s.io/kubernetes/pkg/generated/openapi/cmd/models-schema
  "${scratch}/models-schema" >"${scratch}/models-schema.json"
  local apis
  apis=$(cd "${SRC}/staging/src" && find k8s.io/api -name types.go -printf '%h\n' | LC_ALL=C sort -u)
  # shellcheck disable=SC2086 # one package per word
  "${bin}/applyconfiguration-gen" --go-header-file "${boilerplate}" \
    --openapi-schema "${scratch}/models-schema.json" \
    --output-dir "${clientgo}/applyconfigurations" --output-pkg k8s.io/client-go/applyconfigurations \
    ${apis} k8s.io/apimachinery/pkg/apis/meta/v1
  rm -rf "${scratch}"
}

# gen_swagger_doc DIR BIN BOILERPLATE writes DIR/types_swagger_doc_generated.go
# as upstream's hack/update-codegen.sh does.
gen_swagger_doc() {
  local dir=$1 bin=$2 boilerplate=$3
  local out="${dir}/types_swagger_doc_generated.go"
  {
    cat "${boilerplate}"
    echo
    echo "package $(basename "${dir}")"
    cat <<'EOF'

// This file contains a collection of methods that can be used from go-restful to
// generate Swagger API documentation for its models. Please read this PR for more
// information on the implementation: https://github.com/emicklei/go-restful/pull/215
//
// TODOs are ignored from the parser (e.g. TODO(andronat):... || TODO:...) if and only if
// they are on one line! For multiple line or blocks that you want to ignore use ---.
// Any context after a --- is ignored.
//
// Those methods can be generated by using hack/update-codegen.sh

// AUTO-GENERATED FUNCTIONS START HERE. DO NOT EDIT.
EOF
    "${bin}/genswaggertypedocs" -s "${dir}/types.go" -f -
    echo "// AUTO-GENERATED FUNCTIONS END HERE"
  } >"${out}.tmp"
  gofmt -s -w "${out}.tmp"
  mv "${out}.tmp" "${out}"
}

# update_fixtures rewrites the round-trip fixtures of the HorizontalPodAutoscaler
# kinds in k8s.io/api as upstream's UPDATE_COMPATIBILITY_FIXTURE_DATA does:
# the HEAD data, which the fuzzer now fills with the new fields, and the
# after_roundtrip files of older releases, whose protobuf gains the new
# non-pointer status field on re-encoding.
update_fixtures() {
  local run='TestCompatibility/autoscaling.v[12].HorizontalPodAutoscaler/'
  (cd "${MODULE_DIR}" && UPDATE_COMPATIBILITY_FIXTURE_DATA=true go test -count=1 k8s.io/api \
    -run "${run}" >/dev/null) || true
  # The first run rewrites and fails by design; the second must pass.
  (cd "${MODULE_DIR}" && go test -count=1 k8s.io/api -run "${run}")
}

# free_port prints a TCP port that nothing listens on.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# openapi_spec writes the static OpenAPI documents the series changes
# (api/openapi-spec/swagger.json and the v3 documents of the autoscaling
# group) from the patched kube-apiserver, started as upstream's
# hack/update-openapi-spec.sh starts it, with etcd of hack/tools.
openapi_spec() {
  local dir="${OUT_DIR}/openapi" etcd="${BIN_DIR}/etcd"
  if [[ ! -x ${etcd} ]]; then
    echo "${etcd} is missing: make upstream-binaries builds it" >&2
    return 1
  fi
  rm -rf "${dir}"
  mkdir -p "${dir}"
  # Built here rather than by build_binaries: the documents must come from
  # the tree as regenerated just now (its OpenAPI Go code included), not
  # from the committed series that the cached binary of build_binaries is. It is
  # built as build_binaries builds, so that verify can keep it as the mode's
  # kube-apiserver when regenerating changed nothing (keep_verified_binary).
  (cd "$(test_module)" && go build -trimpath -ldflags="$(kube_ldflags)" -o "${dir}/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
  local client peer port
  client=$(free_port) peer=$(free_port) port=$(free_port)
  "${etcd}" --data-dir="${dir}/etcd" --listen-client-urls="http://127.0.0.1:${client}" \
    --advertise-client-urls="http://127.0.0.1:${client}" --listen-peer-urls="http://127.0.0.1:${peer}" \
    --initial-advertise-peer-urls="http://127.0.0.1:${peer}" --initial-cluster="default=http://127.0.0.1:${peer}" \
    --unsafe-no-fsync=true --log-level=error >"${dir}/etcd.log" 2>&1 &
  local etcd_pid=$!
  echo "dummy_token,admin,admin" >"${dir}/tokens.csv"
  openssl genrsa -out "${dir}/sa.key" 2048 2>/dev/null
  "${dir}/kube-apiserver" --bind-address=127.0.0.1 --secure-port="${port}" \
    --etcd-servers="http://127.0.0.1:${client}" --advertise-address=10.10.10.10 --cert-dir="${dir}/certs" \
    --feature-gates=AllAlpha=true,AllBeta=true,OpenAPIEnums=false --runtime-config=api/all=true \
    --token-auth-file="${dir}/tokens.csv" --authorization-mode=RBAC \
    --service-account-key-file="${dir}/sa.key" --service-account-lookup=true \
    --service-account-issuer=https://kubernetes.default.svc --service-account-signing-key-file="${dir}/sa.key" \
    --enable-logs-handler=true --service-cluster-ip-range=10.0.0.0/24 >"${dir}/apiserver.log" 2>&1 &
  local apiserver_pid=$!
  local get=(curl -kfsS -H 'Authorization: Bearer dummy_token')
  local i ok=
  for ((i = 0; i < 120; i++)); do
    if "${get[@]}" "https://127.0.0.1:${port}/healthz" >/dev/null 2>&1; then
      ok=1
      break
    fi
    sleep 1
  done
  local status=0
  if [[ -z ${ok} ]]; then
    tail -20 "${dir}/apiserver.log" >&2
    status=1
  else
    local spec="${SRC}/api/openapi-spec" group file
    "${get[@]}" -w "\n" "https://127.0.0.1:${port}/openapi/v2" | jq -S '.info.version="unversioned"' >"${spec}/swagger.json" || status=1
    for group in apis/autoscaling apis/autoscaling/v1 apis/autoscaling/v2; do
      file="${group}_openapi.json"
      "${get[@]}" -w "\n" "https://127.0.0.1:${port}/openapi/v3/${group}" |
        jq -S '.info.version="unversioned"' >"${spec}/v3/${file//\//__}" || status=1
    done
  fi
  kill "${apiserver_pid}" 2>/dev/null || true
  wait "${apiserver_pid}" 2>/dev/null || true
  kill "${etcd_pid}" 2>/dev/null || true
  wait "${etcd_pid}" 2>/dev/null || true
  return ${status}
}

# test_module prints the module directory that builds the patched tree: the
# release's module (relative replace directives, so that the build cache is
# shared between clones) for the stack, a copy pointing at SRC otherwise.
test_module() {
  if [[ -z ${SERIES} ]]; then
    echo "${INTREE_DIR}"
  else
    (use_tree && echo "${MODULE_DIR}")
  fi
}

# regenerate runs the generators over the patched tree in SRC as it stands,
# then writes the static OpenAPI documents from a kube-apiserver built from it.
regenerate() {
  ensure_protoc
  (
    use_tree
    build_tools "${OUT_DIR}/bin"
    generate "${OUT_DIR}/bin"
  )
  openapi_spec
}

# ensure_tree brings SRC up to date with the inputs: the base, with the
# patches applied. A tree stamped with the current inputs is reused.
ensure_tree() {
  local stamp="${OUT_DIR}/.src.pins"
  if [[ -f ${stamp} && "$(cat "${stamp}")" == "$1" ]] && git_src diff --quiet HEAD 2>/dev/null &&
    [[ $(git_src rev-parse -q --abbrev-ref HEAD 2>/dev/null) == series ]]; then
    return
  fi
  rm -f "${stamp}"
  echo "assembling ${KUBE_VERSION} and applying $(series_dirs | sed "s|^${REPO_ROOT}/||" | paste -sd' ') with git am" >&2
  if ! git_src rev-parse -q --verify base >/dev/null 2>&1 || [[ ! -f ${OUT_DIR}/.base.pins || "$(cat "${OUT_DIR}/.base.pins")" != "${KUBE_VERSION} ${STAGING_VERSION} ${STAGING[*]}" ]]; then
    assemble_base
    echo "${KUBE_VERSION} ${STAGING_VERSION} ${STAGING[*]}" >"${OUT_DIR}/.base.pins"
  fi
  apply_series
  echo "$1" >"${stamp}"
}

# generated_commits prints, oldest first, the commits of the tree that hold
# generated code.
generated_commits() {
  git_src log --reverse --format='%H %s' base..series | awk -v g="${GENERATED}" 'index($0, g) {print $1}'
}

# tree_is_clean fails, listing the changes and discarding them, when
# regenerating changed the tree.
tree_is_clean() {
  if git_src diff --quiet HEAD && [[ -z $(git_src status --porcelain) ]]; then
    return 0
  fi
  git_src status --short >&2
  git_src reset -q --hard HEAD
  git_src clean -q -fd
  return 1
}

# verify fails when regenerating changes what the patches committed, as
# upstream's verify-codegen does for a pull request: at each commit that
# holds generated code (the code that follows from the commits before it)
# and at the tip, or at the tip alone with --verify-tip. A tree verified for
# the current inputs is not generated again.
verify() {
  local digest stamp="${OUT_DIR}/.verified.pins" what
  digest=$(inputs_digest)
  what=$(series_dirs | sed "s|^${REPO_ROOT}/||" | paste -sd' ')
  ensure_tree "${digest}"
  if ! (cd "${INTREE_DIR}" && go mod tidy -diff); then
    echo "go.mod/go.sum in hack/intree/${RELEASE} are not tidy: run 'go mod tidy' there" >&2
    return 1
  fi
  if [[ -z ${SERIES} ]]; then
    alone_forms_match || return 1
  fi
  # A full verify also stands for --verify-tip.
  local verified=
  [[ -f ${stamp} ]] && verified=$(cat "${stamp}")
  if [[ ${verified} == "${digest} ${MODE}" || ${verified} == "${digest} verify" ]]; then
    echo "${what} was verified for these inputs" >&2
    return
  fi
  local c
  if [[ ${MODE} == verify ]]; then
    for c in $(generated_commits); do
      [[ ${c} == "$(git_src rev-parse series)" ]] && continue
      echo "regenerating at $(git_src log -1 --format='%h %s' "${c}")" >&2
      git_src checkout -q "${c}"
      regenerate || { git_src checkout -q -f series; return 1; }
      if ! tree_is_clean; then
        git_src checkout -q series
        echo "the generated code of '$(git_src log -1 --format=%s "${c}")' is stale: run hack/build-intree.sh --release ${RELEASE}${SERIES:+ --series ${SERIES}} --update-generated" >&2
        return 1
      fi
    done
    git_src checkout -q series
  fi
  echo "regenerating at the tip" >&2
  regenerate
  if ! tree_is_clean; then
    echo "the generated code of ${what} is stale at its tip: run hack/build-intree.sh --release ${RELEASE}${SERIES:+ --series ${SERIES}} --update-generated" >&2
    return 1
  fi
  echo "${digest} ${MODE}" >"${stamp}"
  if [[ -z ${SERIES} ]]; then
    keep_verified_binary "${digest}"
  fi
  echo "${what} applies with git am and its generated code is current" >&2
}

# alone_forms_match fails when a series' alone/ form and its stacked form
# are not the same commits (subjects, in order): the alone form is the
# stacked one rebased onto the release, and must not drift from it.
alone_forms_match() {
  local s d status=0
  for s in $(list_series); do
    d="${PATCH_ROOT}/alone/${s}"
    [[ -d ${d} ]] || continue
    if ! diff -u --label "${s}" --label "alone/${s}" \
      <(dir_patches "${PATCH_ROOT}/${s}" | while read -r p; do patch_subject "${p}"; done) \
      <(dir_patches "${d}" | while read -r p; do patch_subject "${p}"; done) >&2; then
      echo "alone/${s} of ${RELEASE} does not have the commits of ${s} (above)" >&2
      status=1
    fi
  done
  return ${status}
}

# keep_verified_binary DIGEST installs the kube-apiserver that openapi_spec
# built as the in-tree kube-apiserver for DIGEST: regenerating changed
# nothing, so it was built from the committed series, with build_binaries'
# flags, and linking it again (a minute on two cores) would give the same.
keep_verified_binary() {
  local built="${OUT_DIR}/openapi/kube-apiserver" bin="${INTREE_BIN}/kube-apiserver"
  [[ -x ${built} ]] || return 0
  assert_upstream_only "${built}" kube-apiserver || return 1
  mv -f "${built}" "${bin}"
  echo "$1" >"${INTREE_BIN}/.kube-apiserver.pins"
}

# series_of_subject SUBJECT prints the series directory (relative to
# PATCH_ROOT) whose patch has SUBJECT, if any.
series_of_subject() {
  local d p
  for d in $(series_dirs); do
    for p in $(dir_patches "${d}"); do
      if [[ "$(patch_subject "${p}")" == "$1" ]]; then
        echo "${d#"${PATCH_ROOT}/"}"
        return
      fi
    done
  done
}

# export_series writes the commits after the base back into the series'
# directories: each to the series that had its subject, a new commit to the
# series of the commit before it (the first series for the first commit).
export_series() {
  local dirs=() commits=() c subject dir prev
  prev=$(series_dirs | head -1)
  prev=${prev#"${PATCH_ROOT}/"}
  while read -r c subject; do
    dir=$(series_of_subject "${subject}")
    dir=${dir:-${prev}}
    commits+=("${c}")
    dirs+=("${dir}")
    prev=${dir}
  done < <(git_src log --reverse --format='%H %s' base..HEAD)
  local d i start=0 n=${#commits[@]}
  for d in $(series_dirs); do
    d=${d#"${PATCH_ROOT}/"}
    rm -f "${PATCH_ROOT}/${d}"/*.patch
    mkdir -p "${PATCH_ROOT}/${d}"
    i=${start}
    while ((i < n)) && [[ ${dirs[i]} == "${d}" ]]; do ((i += 1)); done
    if ((i > start)); then
      git_src format-patch -q --zero-commit --no-signature --full-index --binary --no-stat \
        -o "${PATCH_ROOT}/${d}" "${commits[start]}^..${commits[i - 1]}"
      echo "${d}: $(cd "${PATCH_ROOT}/${d}" && ls *.patch | wc -l) patches" >&2
    fi
    start=${i}
  done
  if ((start < n)); then
    echo "commit $(git_src log -1 --format='%h %s' "${commits[start]}") belongs to ${dirs[start]}, which comes earlier in the stack: reorder the commits" >&2
    return 1
  fi
}

# generated_commit regenerates in SRC as it stands and commits the result
# with the message of the commit given as GENERATED_FROM (or amends HEAD when
# it holds generated code): the step `git rebase --exec` runs at each
# generated-code commit for --update-generated.
generated_commit() {
  regenerate
  (use_tree && update_fixtures)
  git_src add -A
  if [[ -n ${GENERATED_FROM:-} ]]; then
    GIT_AUTHOR_DATE="${GIT_COMMITTER_DATE}" git_src commit -q --allow-empty -C "${GENERATED_FROM}"
  elif git_src log -1 --format=%s | grep -q "${GENERATED}"; then
    git_src commit -q --amend --no-edit --allow-empty
  else
    echo "HEAD does not hold generated code and GENERATED_FROM is not set" >&2
    return 1
  fi
}

# update_generated regenerates the code of every generated-code commit where
# it stands: a rebase that replaces each such commit by a new one made by
# generated_commit (so the old generated code never has to merge), then
# writes the patches again.
update_generated() {
  ensure_tree "$(inputs_digest)"
  local c self="${REPO_ROOT}/hack/build-intree.sh" args="--release ${RELEASE}${SERIES:+ --series ${SERIES}}"
  local script="${OUT_DIR}/rebase-todo.sed"
  : >"${script}"
  for c in $(generated_commits); do
    echo "s|^pick ${c:0:7}[0-9a-f]* .*|exec GENERATED_FROM=${c} ${self} ${args} --generated-commit|" >>"${script}"
  done
  if [[ ! -s ${script} ]]; then
    echo "no commit holds generated code (subject '... ${GENERATED} ...')" >&2
    return 1
  fi
  flock -u 8
  GIT_SEQUENCE_EDITOR="sed -i -f ${script}" git_src -c core.abbrev=40 rebase -q -i base
  flock 8
  export_series
  rm -f "${OUT_DIR}/.src.pins"
}

kube_ldflags() {
  local v flags="-s -w"
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${v}.gitVersion=${KUBE_VERSION}+intree -X ${v}.gitMajor=1 -X ${v}.gitMinor=${KUBE_MINOR} -X ${v}.gitTreeState=clean"
  done
  echo "${flags}"
}

# assert_upstream_only FILE NAME fails when the binary FILE links code of
# this repository: the series is Kubernetes' own code.
assert_upstream_only() {
  if go version -m "$1" | grep -q 'github.com/kube-hpa/kube-hpa'; then
    echo "$2 links github.com/kube-hpa/kube-hpa; the in-tree build must not" >&2
    return 1
  fi
}

# build_artifact NAME DIGEST PACKAGE GO_COMMAND... builds PACKAGE from the
# patched tree with `go GO_COMMAND...` into INTREE_BIN/NAME, unless the
# binary there was built for DIGEST.
build_artifact() {
  local name=$1 digest=$2 pkg=$3
  shift 3
  local bin="${INTREE_BIN}/${name}" stamp="${INTREE_BIN}/.${name}.pins"
  if [[ -x ${bin} && -f ${stamp} && "$(cat "${stamp}")" == "${digest}" ]]; then
    return
  fi
  echo "building ${name} from the patched ${KUBE_VERSION} tree" >&2
  local start=${SECONDS}
  mkdir -p "${INTREE_BIN}"
  # -trimpath keeps the checkout's path out of the build cache's keys, so
  # that another clone (as CI makes) reuses what this one compiled.
  (cd "${INTREE_DIR}" && go "$@" -trimpath -ldflags="$(kube_ldflags)" -o "${bin}.tmp" "${pkg}")
  assert_upstream_only "${bin}.tmp" "${name}" || return 1
  mv -f "${bin}.tmp" "${bin}"
  echo "${digest}" >"${stamp}"
  echo "built ${name} in $((SECONDS - start))s" >&2
}

# build_binaries DIGEST NAME... builds k8s.io/kubernetes/cmd/NAME from the
# patched tree for each NAME whose binary was not built for DIGEST, with one
# go build (see module_bins in hack/lib.sh: links overlap compiles).
build_binaries() {
  local digest=$1 name stale=() pkgs=()
  shift
  for name in "$@"; do
    local stamp="${INTREE_BIN}/.${name}.pins"
    if [[ ! -x ${INTREE_BIN}/${name} || ! -f ${stamp} || "$(cat "${stamp}")" != "${digest}" ]]; then
      stale+=("${name}") pkgs+=("k8s.io/kubernetes/cmd/${name}")
    fi
  done
  ((${#stale[@]} > 0)) || return 0
  echo "building ${stale[*]} from the patched ${KUBE_VERSION} tree" >&2
  local start=${SECONDS} out
  mkdir -p "${INTREE_BIN}"
  out=$(mktemp -d "${INTREE_BIN}/.build.XXXXXX")
  if ! (cd "${INTREE_DIR}" && go build -trimpath -ldflags="$(kube_ldflags)" -o "${out}/" "${pkgs[@]}"); then
    rm -rf "${out}"
    return 1
  fi
  for name in "${stale[@]}"; do
    assert_upstream_only "${out}/${name}" "${name}" || { rm -rf "${out}"; return 1; }
  done
  for name in "${stale[@]}"; do
    mv -f "${out}/${name}" "${INTREE_BIN}/${name}"
    echo "${digest}" >"${INTREE_BIN}/.${name}.pins"
  done
  rm -rf "${out}"
  echo "built ${stale[*]} in $((SECONDS - start))s" >&2
}

# build_e2e_test DIGEST builds upstream's e2e.test (go test -c of
# k8s.io/kubernetes/test/e2e) from the patched tree into INTREE_BIN: the
# series' own specs in test/e2e/autoscaling run in it as upstream's CI runs
# them (make e2e-intree).
build_e2e_test() {
  build_artifact e2e.test "$1" k8s.io/kubernetes/test/e2e test -c
}

# The packages the series touches, and upstream's round-trip tests that
# cover them (JSON and protobuf fuzzing, compatibility fixtures).
TEST_PACKAGES=(
  k8s.io/api
  k8s.io/api/autoscaling/...
  k8s.io/kubernetes/pkg/apis/autoscaling/...
  k8s.io/kubernetes/pkg/registry/autoscaling/...
  k8s.io/kubernetes/pkg/controller/podautoscaler/...
  k8s.io/kubernetes/pkg/features
  k8s.io/kubernetes/pkg/api/testing
  k8s.io/kubectl/pkg/describe
)

# FAST_TEST_PACKAGES leaves out the suites that build every API group.
FAST_TEST_PACKAGES=()
for p in "${TEST_PACKAGES[@]}"; do
  case ${p} in
    k8s.io/api | k8s.io/kubernetes/pkg/api/testing) ;;
    *) FAST_TEST_PACKAGES+=("${p}") ;;
  esac
done

# series_gates prints, comma-separated as --feature-gates takes them, the
# gates of the KEPs a series may carry that the patched tree declares:
# HPAExternalMetricFallback (KEP-5679) and, where the series has them,
# HPAMetricSource (KEP-6382) and HPAConfigurableSyncPeriod (KEP-6003).
series_gates() {
  local gate gates=()
  for gate in HPAExternalMetricFallback HPAMetricSource HPAConfigurableSyncPeriod; do
    if grep -q "^[[:space:]]*${gate} featuregate.Feature = " "${SRC}/pkg/features/kube_features.go"; then
      gates+=("${gate}=true")
    fi
  done
  local IFS=,
  echo "${gates[*]}"
}

# gate_on_overlay PACKAGES... writes a go build overlay that adds, to every
# package of k8s.io/kubernetes among PACKAGES, a test file turning the
# series' gates on (series_gates) when the test binary starts, and prints
# its path. The series is left as it is; tests that set a gate themselves
# (featuregatetesting) still do.
gate_on_overlay() {
  local dir="${OUT_DIR}/gate-on" pkgdir name path file gates
  gates=$(series_gates)
  rm -rf "${dir}"
  mkdir -p "${dir}"
  local entries=()
  while read -r pkgdir name path; do
    [[ ${path} == k8s.io/kubernetes/* ]] || continue
    file="${dir}/$(echo "${path}" | tr '/.' '__').go"
    {
      echo "package ${name}"
      echo
      if [[ ${path} == k8s.io/kubernetes/pkg/features ]]; then
        echo 'import utilfeature "k8s.io/apiserver/pkg/util/feature"'
      else
        echo 'import ('
        echo '	utilfeature "k8s.io/apiserver/pkg/util/feature"'
        echo '	_ "k8s.io/kubernetes/pkg/features"'
        echo ')'
      fi
      echo
      echo 'func init() {'
      echo "	if err := utilfeature.DefaultMutableFeatureGate.Set(\"${gates}\"); err != nil {"
      echo '		panic(err)'
      echo '	}'
      echo '}'
    } >"${file}"
    entries+=("\"${pkgdir}/zz_generated_gate_on_test.go\": \"${file}\"")
  done < <(cd "${TEST_MODULE}" && go list -f '{{.Dir}} {{.Name}} {{.ImportPath}}' "$@")
  local IFS=,
  echo "{\"Replace\": {${entries[*]}}}" >"${dir}/overlay.json"
  echo "${dir}/overlay.json"
}

# run_upstream_tests runs the packages in TEST_MODULE with the release's
# default gates (the series' gates off, so every changed path is upstream's),
# then those of k8s.io/kubernetes again with the gates the tree has on.
# Integration packages (test/integration) are vetted, which compiles their
# tests, and not run: they start a kube-apiserver test server that finds its
# files by source path, which -trimpath removes (upstream runs them in
# make test-integration, apart from the unit tests).
run_upstream_tests() {
  local p units=() integration=()
  for p in "$@"; do
    if [[ ${p} == k8s.io/kubernetes/test/integration/* ]]; then
      integration+=("${p}")
    else
      units+=("${p}")
    fi
  done
  if [[ ${#integration[@]} -gt 0 ]]; then
    echo "vetting (integration, not run): ${integration[*]}" >&2
    (cd "${TEST_MODULE}" && go vet -trimpath "${integration[@]}") || return 1
  fi
  if [[ ${#units[@]} -eq 0 ]]; then
    return
  fi
  set -- "${units[@]}"
  # Every step returns its failure itself: under --each this runs in a
  # condition, where errexit does not apply, and a failure with the gates
  # off must not pass for a success with them on.
  # shellcheck disable=SC2086 # flags are words
  (cd "${TEST_MODULE}" && go test -trimpath -count=1 ${INTREE_TEST_FLAGS:-} "$@") || return 1
  local overlay kube=() gates
  for p in "$@"; do
    [[ ${p} == k8s.io/kubernetes/* ]] && kube+=("${p}")
  done
  gates=$(series_gates)
  if [[ ${#kube[@]} -eq 0 || -z ${gates} ]]; then
    return
  fi
  overlay=$(gate_on_overlay "${kube[@]}")
  # Tests that emulate a release without the gates cannot run with them on
  # (hack/intree/<release>/gate-on-skip says which and why).
  local skip=()
  if [[ -f ${INTREE_DIR}/gate-on-skip ]]; then
    skip=(-skip "^($(grep -v -e '^#' -e '^$' "${INTREE_DIR}/gate-on-skip" | paste -sd'|'))\$")
  fi
  echo "again with ${gates}: ${kube[*]}" >&2
  # shellcheck disable=SC2086 # flags are words
  (cd "${TEST_MODULE}" && go test -trimpath -count=1 -overlay "${overlay}" "${skip[@]}" ${INTREE_TEST_FLAGS:-} "${kube[@]}")
}

# touched_packages COMMIT prints the import paths of the packages COMMIT
# changes; a file that is not Go counts for the nearest directory above it
# that is a package (the round-trip fixtures of k8s.io/api for its tests).
touched_packages() {
  local f dir
  git_src diff-tree --no-commit-id --name-only -r "$1" | while read -r f; do
    dir=$(dirname "${f}")
    while [[ ${dir} != . ]] && ! compgen -G "${SRC}/${dir}/*.go" >/dev/null; do
      dir=$(dirname "${dir}")
    done
    [[ ${dir} == . || ! -d ${SRC}/${dir} ]] && continue
    case ${dir} in
      staging/src/*) echo "${dir#staging/src/}" ;;
      *) echo "k8s.io/kubernetes/${dir}" ;;
    esac
  done | LC_ALL=C sort -u
}

# each checks out every commit in turn, as `git rebase --exec` would run a
# check, and builds and tests the packages that commit touches: each commit
# must stand on its own, not only the tip.
each() {
  ensure_tree "$(inputs_digest)"
  local c pkgs status=0
  for c in $(git_src rev-list --reverse base..series); do
    git_src checkout -q "${c}"
    mapfile -t pkgs < <(touched_packages "${c}")
    echo "== $(git_src log -1 --format='%h %s' "${c}"): ${pkgs[*]:-no Go package}" >&2
    if [[ ${#pkgs[@]} -gt 0 ]] && ! (cd "${TEST_MODULE}" && go build -trimpath "${pkgs[@]}" && run_upstream_tests "${pkgs[@]}"); then
      echo "$(git_src log -1 --format='%h %s' "${c}") does not build or pass its packages' tests on its own" >&2
      status=1
      break
    fi
  done
  git_src checkout -q series
  return ${status}
}

main() {
  case ${MODE} in
    tree) ensure_tree "$(inputs_digest)"; echo "${SRC}"; return ;;
    verify | verify-tip) verify; return ;;
    update-generated) update_generated; return ;;
    generated-commit) generated_commit; return ;;
    export) export_series; return ;;
  esac
  local digest
  digest=$(inputs_digest)
  ensure_tree "${digest}"
  TEST_MODULE=$(test_module)
  if [[ ${MODE} == each ]]; then
    each
    return
  fi
  if [[ ${MODE} == e2e ]]; then
    if [[ -n ${SERIES} ]]; then
      echo "--e2e builds the stack's e2e.test; a series alone has none" >&2
      return 2
    fi
    build_e2e_test "${digest}"
    echo "${INTREE_BIN}/e2e.test"
    return
  fi
  if [[ -z ${SERIES} ]]; then
    build_binaries "${digest}" kube-apiserver kube-controller-manager kube-scheduler kubectl
    echo "${INTREE_BIN}/kube-apiserver ${INTREE_BIN}/kube-controller-manager ${INTREE_BIN}/kube-scheduler ${INTREE_BIN}/kubectl"
  elif [[ ${MODE} == build ]]; then
    echo "a series alone builds no binaries (the stack is the in-tree mode): use --verify, --test or --each" >&2
    return 2
  fi
  case ${MODE} in
    test) run_upstream_tests "${TEST_PACKAGES[@]}" ;;
    test-fast) run_upstream_tests "${FAST_TEST_PACKAGES[@]}" ;;
  esac
}

main
