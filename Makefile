# kube-hpa: the two commands a newcomer needs are `make run` and `make test`.

SHELL := /usr/bin/env bash
GO ?= go
# Unit tests that need no API server; every package under pkg/ and api/.
UNIT_PKGS := ./api/... ./pkg/... ./cmd/...
# Modules of their own, kept out of the main module's dependencies.
SUBMODULES := test/metrics-adapter

.PHONY: all
all: build

.PHONY: build
build:
	$(GO) build ./...

## test: everything CI runs: verify, the unit tests, then the integration tests and the e2e suite
## against a local control plane built from source (the first build of the upstream binaries takes
## several minutes; later runs reuse the Go build cache).
.PHONY: test
test: verify unit differential-ci integration e2e

.PHONY: unit
unit:
	$(GO) test -race -count=1 $(UNIT_PKGS)
	for m in $(SUBMODULES); do (cd $$m && $(GO) test -race -count=1 ./...) || exit 1; done

## differential: upstream v1.36.3's HPA code and ours on DIFFERENTIAL_N generated scenarios (and as
## many reconcile sequences) from DIFFERENTIAL_SEED; fails on a difference outside the allow-list
## (test/differential/allowlist.go). differential-ci is the seeded subset `make test` runs.
DIFFERENTIAL_N ?= 100000
DIFFERENTIAL_SEED ?= $(shell date +%s)
.PHONY: differential differential-ci
differential:
	cd test/differential && DIFFERENTIAL_N=$(DIFFERENTIAL_N) DIFFERENTIAL_SEED=$(DIFFERENTIAL_SEED) $(GO) test -count=1 -timeout 120m .
differential-ci:
	cd test/differential && DIFFERENTIAL_N=5000 DIFFERENTIAL_SEED=1 $(GO) test -count=1 -timeout 10m .

## verify: formatting, vet, generated code and CRD drift, go.mod tidiness.
.PHONY: verify
verify: verify-gofmt verify-vet verify-codegen verify-tidy

.PHONY: verify-gofmt
verify-gofmt:
	hack/verify-gofmt.sh

.PHONY: verify-vet
verify-vet:
	$(GO) vet ./...
	for m in $(SUBMODULES); do (cd $$m && $(GO) vet ./...) || exit 1; done
	cd test/differential && $(GO) vet ./...

.PHONY: verify-codegen
verify-codegen:
	hack/verify-codegen.sh

.PHONY: verify-tidy
verify-tidy:
	hack/verify-tidy.sh

## update: regenerate deepcopy code and the CRD from the Go types.
.PHONY: update
update:
	hack/update-codegen.sh

## fuzz: run each fuzz target for a while (FUZZTIME, default 30s).
FUZZTIME ?= 30s
.PHONY: fuzz
fuzz:
	$(GO) test ./pkg/apis/autoscaling/validation -run '^$$' -fuzz FuzzValidate -fuzztime $(FUZZTIME)
	$(GO) test ./api/autoscaling/v2 -run '^$$' -fuzz FuzzNativeRoundTrip -fuzztime $(FUZZTIME)

.PHONY: clean
clean:
	rm -rf _output

## run: a local control plane of the upstream binaries, the test metrics adapter, two replicas of
## hpa-controller-manager and the example HPAs; prints the kubeconfig and what to try. Ctrl-C stops it.
.PHONY: run
run: upstream-binaries e2e-controller
	$(GO) build -o _output/bin/local-up ./hack/local-up
	_output/bin/local-up

## upstream-binaries: build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and kwok
## from source into _output/bin (minutes the first time, a second when up to date).
.PHONY: upstream-binaries
upstream-binaries:
	hack/build-upstream.sh

## integration: tests against a local control plane of the upstream binaries (test/localcluster).
INTEGRATION_TIMEOUT ?= 15m
.PHONY: integration
integration: upstream-binaries
	KUBE_HPA_INTEGRATION=1 $(GO) test -count=1 -timeout $(INTEGRATION_TIMEOUT) ./test/integration/...

## e2e: the ginkgo e2e suite (test/e2e/autoscaling). Without KUBECONFIG it starts and stops its own
## local environment (control plane, test metrics adapter, two hpa-controller-manager replicas); logs
## stay in _output/localcluster/<run>/logs, reports go to _output/e2e. E2E_PROCS parallel processes,
## E2E_TIMEOUT for the whole run, E2E_FLAGS for more ginkgo flags (--label-filter='!Disruptive', --focus=...).
E2E_PROCS ?= 12
E2E_TIMEOUT ?= 20m
E2E_FLAGS ?=
.PHONY: e2e
e2e: upstream-binaries e2e-controller
	mkdir -p _output/e2e
	$(GO) tool ginkgo -procs=$(E2E_PROCS) --timeout=$(E2E_TIMEOUT) --fail-on-empty \
		--output-dir=_output/e2e --junit-report=junit.xml --json-report=report.json \
		$(E2E_FLAGS) ./test/e2e/autoscaling

# upstream-binaries builds the test metrics adapter with the control plane; the controller comes from
# this module.
.PHONY: e2e-controller
e2e-controller:
	$(GO) build -o _output/bin/hpa-controller-manager ./cmd/hpa-controller-manager

## bench: the Go benchmarks of the controller packages and of its reconcile loop on in-memory seams
## (test/bench BenchmarkReconcile, for -cpuprofile), then the side-by-side run of kube-hpa and
## upstream kube-controller-manager's HPA controller on a local cluster (test/bench): BENCH_HPAS
## HPAs (default 1000, about 6 minutes on 2 cores; 200 for a quick run), BENCH_FLAGS for more
## (go run ./test/bench/cmd/hpa-bench -help). BENCH_PERF=1 also records a perf profile of each
## saturated controller. Results in _output/bench (latest.txt, latest.json). Not part of `make test`.
BENCH_HPAS ?= 1000
BENCH_FLAGS ?=
BENCH_PERF ?=
# perf needs symbols, which the Kubernetes binaries of _output/bin are linked without.
BENCH_KCM := _output/bench/bin/kube-controller-manager
BENCH_PERF_DEPS = $(if $(filter 1,$(BENCH_PERF)),$(BENCH_KCM))
BENCH_PERF_FLAGS = $(if $(filter 1,$(BENCH_PERF)),-perf -upstream-binary=$(BENCH_KCM))
.PHONY: bench
bench: upstream-binaries $(BENCH_PERF_DEPS)
	$(GO) test -run '^$$' -bench . -benchmem ./pkg/controller/podautoscaler/... ./test/bench/
	$(GO) build -o _output/bench/bin/hpa-controller-manager ./cmd/hpa-controller-manager
	$(GO) run ./test/bench/cmd/hpa-bench -hpas=$(BENCH_HPAS) \
		-controller-binary=_output/bench/bin/hpa-controller-manager $(BENCH_PERF_FLAGS) $(BENCH_FLAGS)

$(BENCH_KCM): hack/tools/go.mod hack/tools/go.sum
	cd hack/tools && $(GO) build -o $(CURDIR)/$@ k8s.io/kubernetes/cmd/kube-controller-manager
