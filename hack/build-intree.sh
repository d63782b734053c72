#!/usr/bin/env bash
# Builds the in-tree mode: kube-apiserver v1.36.3 serving the KEP-5679
# fallback of External metrics in native autoscaling/v2, behind the
# HPAExternalMetricFallback feature gate, and kube-controller-manager v1.36.3
# whose horizontalpodautoscaling controller is this repository's
# (pkg/intree), switched by the same gate.
#
# 1. copies k8s.io/kubernetes, k8s.io/api and k8s.io/client-go at the pinned versions from the
#    Go module cache (the proxy fills it) into _output/intree/src;
# 2. applies hack/intree/patches/<module>/*.patch there (hand-written code,
#    tests and test fixtures; readable as an upstream PR would be);
# 3. regenerates the generated code with upstream's own generators at the
#    versions Kubernetes v1.36.3 pins (hack/intree/go.mod): deepcopy,
#    conversion, defaults, protobuf, swagger docs, OpenAPI, model names and
#    client-go's apply configurations;
# 4. builds kube-apiserver and kube-controller-manager from hack/intree (a
#    module whose replace directives point at the patched copies and at this
#    repository, whose HPA controller kube-controller-manager runs) into
#    _output/bin/intree, and kube-scheduler (unpatched) from the same tree:
#    a newer kube-scheduler than kube-apiserver is outside Kubernetes' skew
#    policy, and v1.37's never syncs its caches against v1.36 (it watches
#    resource.k8s.io/v1 DeviceTaintRules, which v1.36 does not serve).
#
# Every step is skipped when its inputs are unchanged, so a second run takes
# a second. protoc is not a Go program: when it is missing the script
# installs Debian's protobuf-compiler with apt-get and says so.
#
# Usage: hack/build-intree.sh [--verify | --test | --test-fast]
#   --verify  do steps 1-3 unless the tree is current for the inputs, and
#             fail when a patch no longer applies or the generated code
#             differs from hack/intree/generated.sha256 (without building).
#   --test    after the build, run upstream's own tests of every package the
#             patch touches, in the patched tree (INTREE_TEST_FLAGS adds go
#             test flags).
#   --test-fast  the same without the round-trip suites of every API group
#             (k8s.io/api and pkg/api/testing), whose build takes minutes:
#             what `make test` runs.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBE_VERSION=v1.36.3
STAGING_VERSION=v0.36.3
MODULES=(kubernetes api client-go)

INTREE_DIR="${REPO_ROOT}/hack/intree"
OUT_DIR="${REPO_ROOT}/_output/intree"
INTREE_BIN="${BIN_DIR}/intree"

mkdir -p "${OUT_DIR}" "${INTREE_BIN}"
exec 8>"${OUT_DIR}/.lock"
flock 8

module_version() {
  case $1 in
    kubernetes) echo "${KUBE_VERSION}" ;;
    *) echo "${STAGING_VERSION}" ;;
  esac
}

# module_cache_dir NAME prints the module cache directory of k8s.io/NAME at
# its pinned version, downloading it through the Go module proxy if needed.
module_cache_dir() {
  local json
  json=$(cd / && GOFLAGS=-mod=mod go mod download -json "k8s.io/$1@$(module_version "$1")")
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"${json}"
}

# inputs_digest hashes everything the patched, regenerated tree depends on.
inputs_digest() {
  {
    echo "${KUBE_VERSION} ${STAGING_VERSION}"
    go env GOVERSION
    cat "${BASH_SOURCE[0]}" "${INTREE_DIR}/go.mod" "${INTREE_DIR}/go.sum" "${INTREE_DIR}/tools.go"
    find "${INTREE_DIR}/patches" -type f -name '*.patch' -print0 | LC_ALL=C sort -z | xargs -0 cat
  } | sha256sum | cut -d' ' -f1
}

# controller_digest TREE_DIGEST adds to the tree's digest what else
# kube-controller-manager is built from: this repository's non-test Go code
# (its HPA controller) and go.mod.
controller_digest() {
  {
    echo "$1"
    (cd "${REPO_ROOT}" && find api pkg -name '*.go' ! -name '*_test.go' -print0 | LC_ALL=C sort -z | xargs -0 cat)
    cat "${REPO_ROOT}/go.mod" "${REPO_ROOT}/go.sum"
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

# use_tree SRC writes SRC.mod, a copy of the hack/intree module whose replace
# directives name the modules in SRC, and sets MODULE_DIR to it; the go
# commands and generators run there, so a scratch tree can be generated
# beside the real one.
use_tree() {
  local src=$1 name
  MODULE_DIR="${src}.mod"
  rm -rf "${MODULE_DIR}"
  mkdir -p "${MODULE_DIR}"
  cp "${INTREE_DIR}/go.mod" "${INTREE_DIR}/go.sum" "${INTREE_DIR}/tools.go" "${MODULE_DIR}/"
  for name in "${MODULES[@]}"; do
    (cd "${MODULE_DIR}" && go mod edit -replace "k8s.io/${name}=${src}/${name}")
  done
  (cd "${MODULE_DIR}" && go mod edit -replace "github.com/kube-hpa/kube-hpa=${REPO_ROOT}")
}

# build_tools builds the generators pinned in hack/intree into BIN.
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

# prepare_tree SRC copies the pristine modules into SRC and applies the
# patches.
prepare_tree() {
  local src=$1 name dir p
  rm -rf "${src}"
  mkdir -p "${src}"
  for name in "${MODULES[@]}"; do
    dir=$(module_cache_dir "${name}")
    cp -r "${dir}" "${src}/${name}"
    chmod -R u+w "${src}/${name}"
    for p in "${INTREE_DIR}/patches/${name}"/*.patch; do
      [[ -e ${p} ]] || continue
      # git apply, as it takes binary diffs (protobuf fixtures); the ceiling
      # keeps it from treating the enclosing checkout as the repository.
      if ! (cd "${src}/${name}" && GIT_CEILING_DIRECTORIES="${src}" git apply -p1 "${p}"); then
        echo "patch ${p#"${REPO_ROOT}/"} does not apply to k8s.io/${name}@$(module_version "${name}")" >&2
        return 1
      fi
    done
  done
}

# generate SRC BIN regenerates the generated code of the patched packages in
# SRC, the way upstream's hack/update-codegen.sh and
# hack/update-generated-protobuf.sh do for them. The generators run in
# MODULE_DIR after use_tree SRC.
generate() {
  local src=$1 bin=$2
  local boilerplate="${src}/kubernetes/hack/boilerplate/boilerplate.generatego.txt"
  local scratch="${src}.scratch"
  rm -rf "${scratch}"
  mkdir -p "${scratch}"
  cd "${MODULE_DIR}"

  "${bin}/deepcopy-gen" --go-header-file "${boilerplate}" --output-file zz_generated.deepcopy.go \
    k8s.io/api/autoscaling/v2 k8s.io/kubernetes/pkg/apis/autoscaling
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
  ln -s "${src}/api" "${gopath}/k8s.io/api"
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
    --proto-import "${src}/kubernetes/third_party/protobuf" \
    --apimachinery-packages "$(printf -- '-%s,' "${apimachinery[@]}" | sed 's/,$//')" \
    --packages -k8s.io/api/core/v1,k8s.io/api/autoscaling/v2

  gen_swagger_doc "${src}/api/autoscaling/v2" "${bin}" "${boilerplate}"

  # OpenAPI of kube-apiserver: every package the upstream file has
  # definitions of (its imports), so the regenerated file differs from
  # upstream's only where the patch changed types.
  local openapi="${src}/kubernetes/pkg/generated/openapi"
  local pkgs
  pkgs=$(awk '/^import \(/{f=1; next} f && /^\)/{exit} f {gsub(/"/, "", $NF); print $NF}' \
    "${openapi}/zz_generated.openapi.go" | grep -v '^k8s.io/kube-openapi/')
  # shellcheck disable=SC2086 # one package per word
  "${bin}/openapi-gen" --go-header-file "${boilerplate}" --output-file zz_generated.openapi.go \
    --output-dir "${openapi}" --output-pkg k8s.io/kubernetes/pkg/generated/openapi \
    --report-filename "${scratch}/api_violations.report" ${pkgs}
  if ! diff -u "${src}/kubernetes/api/api-rules/violation_exceptions.list" "${scratch}/api_violations.report"; then
    echo "the patch adds OpenAPI rule violations (above)" >&2
    return 1
  fi
  # The model names of the patched k8s.io/api package; its OpenAPI output
  # is thrown away (the run above wrote the real one).
  "${bin}/openapi-gen" --go-header-file "${boilerplate}" --output-file zz_generated.openapi.go \
    --output-dir "${scratch}/openapi" --output-pkg k8s.io/kubernetes/pkg/generated/openapi \
    --output-model-name-file zz_generated.model_name.go \
    --report-filename "${scratch}/api_violations.model_name.report" k8s.io/api/autoscaling/v2

  # client-go's apply configurations of every k8s.io/api group, from the
  # models of the OpenAPI just generated, as upstream's codegen::applyconfigs.
  go build -o "${scratch}/models-schema" k8s.io/kubernetes/pkg/generated/openapi/cmd/models-schema
  "${scratch}/models-schema" >"${scratch}/models-schema.json"
  local apis
  apis=$(cd "${src}" && find api -name types.go -printf 'k8s.io/%h\n' | LC_ALL=C sort -u)
  # shellcheck disable=SC2086 # one package per word
  "${bin}/applyconfiguration-gen" --go-header-file "${boilerplate}" \
    --openapi-schema "${scratch}/models-schema.json" \
    --output-dir "${src}/client-go/applyconfigurations" --output-pkg k8s.io/client-go/applyconfigurations \
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

kube_ldflags() {
  local v flags="-s -w"
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X ${v}.gitVersion=${KUBE_VERSION}+intree -X ${v}.gitMajor=1 -X ${v}.gitMinor=36 -X ${v}.gitTreeState=clean"
  done
  echo "${flags}"
}

# build_binary NAME builds k8s.io/kubernetes/cmd/NAME from the patched tree.
build_binary() {
  local name=$1 digest=$2
  local bin="${INTREE_BIN}/${name}" stamp="${INTREE_BIN}/.${name}.pins"
  if [[ -x ${bin} && -f ${stamp} && "$(cat "${stamp}")" == "${digest}" ]]; then
    return
  fi
  echo "building ${name} from the patched tree" >&2
  local start=${SECONDS}
  # -trimpath keeps the checkout's path out of the build cache's keys, so
  # that another clone (as CI makes) reuses what this one compiled.
  (cd "${INTREE_DIR}" && go build -trimpath -ldflags="$(kube_ldflags)" -o "${bin}.tmp" "k8s.io/kubernetes/cmd/${name}")
  mv -f "${bin}.tmp" "${bin}"
  echo "${digest}" >"${stamp}"
  echo "built ${name} in $((SECONDS - start))s" >&2
}

# GENERATED lists the files the generators write in the patched tree, with
# their digests; hack/build-intree.sh writes it and --verify compares a fresh
# generation against it, so a patch or generator change that alters generated
# code shows up in review.
GENERATED="${INTREE_DIR}/generated.sha256"

generated_digests() {
  local src=$1
  (cd "${src}" && generated_files | LC_ALL=C sort | xargs sha256sum)
}

# generated_files lists the generated files of the patched packages, relative
# to the tree.
generated_files() {
  find kubernetes/pkg/apis/autoscaling kubernetes/pkg/generated/openapi api/autoscaling/v2 -type f \
    \( -name 'zz_generated.*.go' -o -name 'generated.pb.go' -o -name 'generated.proto' -o -name 'types_swagger_doc_generated.go' \)
  find client-go/applyconfigurations/autoscaling/v2 client-go/applyconfigurations/internal client-go/applyconfigurations/utils.go \
    -type f -name '*.go'
}

# regenerate SRC prepares SRC from the module cache and the patches and runs
# the generators there.
regenerate() {
  local src=$1
  ensure_protoc
  echo "applying hack/intree/patches and regenerating into ${src#"${REPO_ROOT}/"}" >&2
  prepare_tree "${src}"
  (
    use_tree "${src}"
    build_tools "${OUT_DIR}/bin"
    generate "${src}" "${OUT_DIR}/bin"
  )
}

# ensure_tree brings _output/intree/src up to date with the inputs: the
# pinned modules, patched and regenerated. A tree stamped with the current
# inputs is what a fresh generation would give, so it is reused.
ensure_tree() {
  local src="${OUT_DIR}/src" stamp="${OUT_DIR}/.src.pins"
  if [[ ! -f ${stamp} || "$(cat "${stamp}")" != "$1" ]]; then
    rm -f "${stamp}"
    regenerate "${src}"
    echo "$1" >"${stamp}"
  fi
}

# verify fails when a patch does not apply or the generated code differs
# from hack/intree/generated.sha256. It generates only when the tree is
# not current, so that `make test` generates once for verify and build.
verify() {
  ensure_tree "$(inputs_digest)"
  if ! diff -u "${GENERATED}" <(generated_digests "${OUT_DIR}/src"); then
    echo "generated code differs from hack/intree/generated.sha256: run hack/build-intree.sh and review the change" >&2
    return 1
  fi
  echo "hack/intree/patches apply and the generated code matches" >&2
}

# The packages the patch touches, and upstream's round-trip tests that
# cover them (JSON and protobuf fuzzing, compatibility fixtures).
TEST_PACKAGES=(
  k8s.io/api
  k8s.io/api/autoscaling/...
  k8s.io/kubernetes/pkg/apis/autoscaling/...
  k8s.io/kubernetes/pkg/registry/autoscaling/...
  k8s.io/kubernetes/pkg/features
  k8s.io/kubernetes/pkg/api/testing
  k8s.io/kubernetes/cmd/kube-controller-manager/app
)

# FAST_TEST_PACKAGES leaves out the suites that build every API group.
FAST_TEST_PACKAGES=()
for p in "${TEST_PACKAGES[@]}"; do
  case ${p} in
    k8s.io/api | k8s.io/kubernetes/pkg/api/testing) ;;
    *) FAST_TEST_PACKAGES+=("${p}") ;;
  esac
done

run_upstream_tests() {
  # shellcheck disable=SC2086 # flags are words
  (cd "${INTREE_DIR}" && go test -trimpath -count=1 ${INTREE_TEST_FLAGS:-} "$@")
}

main() {
  if [[ ${1:-} == --verify ]]; then
    verify
    return
  fi
  local digest
  digest=$(inputs_digest)
  ensure_tree "${digest}"
  # A build records what it generated, for review; verify only compares.
  generated_digests "${OUT_DIR}/src" >"${GENERATED}"
  build_binary kube-apiserver "${digest}"
  build_binary kube-controller-manager "$(controller_digest "${digest}")"
  build_binary kube-scheduler "${digest}"
  echo "${INTREE_BIN}/kube-apiserver ${INTREE_BIN}/kube-controller-manager ${INTREE_BIN}/kube-scheduler"
  case ${1:-} in
    --test) run_upstream_tests "${TEST_PACKAGES[@]}" ;;
    --test-fast) run_upstream_tests "${FAST_TEST_PACKAGES[@]}" ;;
  esac
}

main "$@"
