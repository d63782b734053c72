// Package integration holds tests that run against a real local control
// plane (test/localcluster) started once for the package by TestMain.
//
// Without the upstream binaries in _output/bin the tests skip, so that a
// plain `go test ./...` stays usable; with KUBE_HPA_INTEGRATION=1 (as `make
// integration` sets) missing binaries fail the run instead.
package integration
