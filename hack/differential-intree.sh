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

# differential-intree.sh runs the oracle's harness (test/differential)
# against hack/intree's patched upstream, the in-tree implementation of
# KEP-5679, in two ways:
#
#   1. gate off: the upstream world of the patched tree must give, on every
#      sequence, exactly what stock v1.37.2 gives (digests of the whole
#      observations, TestUpstreamTrace);
#   2. gate on: the patched upstream and kube-hpa play fallback sequences
#      and must agree as the oracle requires (TestInTreeFallback).
#
# The intree build is the same package compiled with -tags intree against a
# go.mod (generated here, from test/differential's) whose k8s.io/kubernetes,
# k8s.io/api and k8s.io/client-go are the patched tree of `make intree`.
#
# DIFFERENTIAL_SEED, DIFFERENTIAL_INTREE_N (sequences of the gate-off
# equality) and DIFFERENTIAL_FALLBACK_N (fallback sequences) size the run.
# DIFFERENTIAL_INTREE_SERIES=S checks the tree of series S alone instead
# of the stack (hack/build-intree.sh --series S builds it): the gate-off
# equality always, the fallback sequences when S has KEP-5679. The build
# tags say what such a tree lacks (test/differential/doc.go).
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIFF_DIR="${REPO_ROOT}/test/differential"
SEED=${DIFFERENTIAL_SEED:-1}
N=${DIFFERENTIAL_INTREE_N:-1000}
FALLBACK_N=${DIFFERENTIAL_FALLBACK_N:-500}

# The series whose tree the harness can link is the release the harness
# itself compares with.
RELEASE=$(cd "${DIFF_DIR}" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
SERIES=${DIFFERENTIAL_INTREE_SERIES:-}
SRC="${REPO_ROOT}/_output/intree/${RELEASE}${SERIES:+-${SERIES}}/src"
build="make intree INTREE_RELEASE=${RELEASE}"
if [[ -n ${SERIES} ]]; then
  build="hack/build-intree.sh --release ${RELEASE} --series ${SERIES} --tree"
fi
if [[ ! -d ${SRC}/staging/src/k8s.io/api ]]; then
  echo "no patched tree at ${SRC}: run '${build}' first" >&2
  exit 1
fi
if ! git -C "${SRC}" diff --quiet HEAD; then
  echo "${SRC} has changes outside the series: run '${build}' to rebuild it" >&2
  exit 1
fi

# What the tree lacks of the stack, read from the tree itself.
tags=intree
fallback=yes
if [[ ! -f ${SRC}/pkg/controller/podautoscaler/external_metric_fallback.go ]]; then
  tags+=,nofallback
  fallback=
fi
if ! grep -q 'apiGroup string' "${SRC}/pkg/controller/podautoscaler/metrics/interfaces.go"; then
  tags+=,nosource
fi

OUT="${REPO_ROOT}/_output/differential-intree${SERIES:+-${SERIES}}"
mkdir -p "${OUT}"
cp "${DIFF_DIR}/go.mod" "${OUT}/go.mod"
cp "${DIFF_DIR}/go.sum" "${OUT}/go.sum"
replaces=(-replace "github.com/kube-hpa/kube-hpa=${REPO_ROOT}" -replace "k8s.io/kubernetes=${SRC}")
for name in api client-go kubectl; do
  replaces+=(-replace "k8s.io/${name}=${SRC}/staging/src/k8s.io/${name}")
done
go mod edit "${replaces[@]}" "${OUT}/go.mod"
intree=(-modfile="${OUT}/go.mod" -tags "${tags}")

trace="${OUT}/upstream-${RELEASE}-seed${SEED}-n${N}.trace"
cd "${DIFF_DIR}"
echo "gate off: stock ${RELEASE}'s upstream world on ${N} sequences (seed ${SEED})" >&2
DIFFERENTIAL_SEED=${SEED} DIFFERENTIAL_N=${N} DIFFERENTIAL_TRACE_OUT=${trace} \
  go test -count=1 -run '^TestUpstreamTrace$' .
echo "gate off: the patched upstream world${SERIES:+ of ${SERIES} alone} (tags ${tags}) on the same sequences must equal it" >&2
DIFFERENTIAL_SEED=${SEED} DIFFERENTIAL_N=${N} DIFFERENTIAL_TRACE_WANT=${trace} \
  GOFLAGS=-mod=mod go test -trimpath "${intree[@]}" -count=1 -v -run '^TestUpstreamTrace$' . | grep -v -e '^=== RUN' -e '^--- PASS'
if [[ -z ${fallback} ]]; then
  exit 0
fi
echo "gate on: the patched upstream and kube-hpa on ${FALLBACK_N} fallback sequences" >&2
DIFFERENTIAL_SEED=${SEED} DIFFERENTIAL_N=${FALLBACK_N} \
  GOFLAGS=-mod=mod go test -trimpath "${intree[@]}" -count=1 -timeout 30m -run '^TestInTreeFallback$' .
