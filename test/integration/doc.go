/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package integration holds tests that run against a real local control
// plane (test/localcluster) started once for the package by TestMain.
//
// Without the upstream binaries in _output/bin the tests skip, so that a
// plain `go test ./...` stays usable; with KUBE_HPA_INTEGRATION=1 (as `make
// integration` sets) missing binaries fail the run instead.
package integration
