#!/usr/bin/env bash
# Regenerates everything derived from the Go types of api/: the deepcopy
# functions and the CRD under deploy/crd. Run it after changing a type.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# OUTPUT_ROOT lets verify-codegen.sh generate into a scratch copy.
OUTPUT_ROOT=${OUTPUT_ROOT:-${REPO_ROOT}}
gen=$(controller_gen)

cd "${OUTPUT_ROOT}"
"${gen}" object:headerFile="${REPO_ROOT}/hack/boilerplate.go.txt" paths=./api/...
"${gen}" crd:crdVersions=v1 paths=./api/... output:crd:artifacts:config=deploy/crd
