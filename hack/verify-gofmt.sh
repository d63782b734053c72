#!/usr/bin/env bash
# Fails when any Go file of the repository is not gofmt-formatted.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "${REPO_ROOT}"
files=$(gofmt -l $(git ls-files --cached --others --exclude-standard '*.go'))
if [[ -n "${files}" ]]; then
  echo "these files need gofmt -w:" >&2
  echo "${files}" >&2
  exit 1
fi
