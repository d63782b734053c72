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

# Fails when a module that builds on the Kubernetes libraries pins one of
# the modules those libraries are made of at another version than hack/tools
# (the upstream binaries) does. A package compiles once for every module
# whose build asks for it with the same dependency versions; one module
# apart (a newer gnostic-models, cbor or x/text) compiles client-go,
# apimachinery and apiserver again, minutes of a cold `make test` on two
# cores. The modules checked are those that can follow hack/tools: the
# project itself, the differential tests and kwok. Not checked: Helm,
# Prometheus and the test metrics adapter, whose releases need newer
# versions of such modules (grpc, x/net, x/text) than Kubernetes v1.37.2
# pins, and the skew binaries, which are another release.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# pins DIR prints "module version" for every module of DIR's build list.
pins() {
  (cd "$1" && go list -m -f '{{.Path}} {{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}' all) | sort
}

# The modules the packages of the Kubernetes libraries that the checked
# modules build come from, as hack/tools resolves them.
shared=$(cd "${REPO_ROOT}/hack/tools" && go list -deps -f '{{with .Module}}{{.Path}}{{end}}' \
  k8s.io/client-go/kubernetes k8s.io/client-go/tools/leaderelection k8s.io/apiserver/pkg/server \
  k8s.io/component-base/metrics/legacyregistry k8s.io/metrics/pkg/client/custom_metrics | sort -u)

tools=$(pins "${REPO_ROOT}/hack/tools")
status=0
for mod in "${REPO_ROOT}" "${REPO_ROOT}/test/differential" "${REPO_ROOT}/hack/tools/kwok"; do
  while read -r path want got; do
    if grep -qxF "${path}" <<<"${shared}"; then
      echo "${mod#"${REPO_ROOT}"/}: ${path} ${got}, hack/tools pins ${want}: 'go get ${path}@${want}' there" >&2
      status=1
    fi
  done < <(join <(echo "${tools}") <(pins "${mod}") | awk '$2 != $3')
done
exit ${status}
