# kube-hpa: the two commands a newcomer needs are `make run` and `make test`.

SHELL := /usr/bin/env bash
GO ?= go
# Unit tests: every package of the main module but the two that need a control plane (the
# integration tests and the e2e suite, which have targets of their own), so that a new package is
# tested without being added here. Expanded only by the targets that use it.
UNIT_PKGS = $(shell $(GO) list ./... | grep -v -e '/test/integration$$' -e '/test/e2e/autoscaling$$')
# Modules of their own, kept out of the main module's dependencies.
SUBMODULES := test/metrics-adapter test/bench/plot

.PHONY: all
all: build

## build: compile every package, and _output/bin/hpa-controller-manager stamped with its version
## (git describe; --version and kubernetes_build_info print it, hack/version.sh).
.PHONY: build
build:
	$(GO) build ./...
	$(GO) build -ldflags "$$(hack/version.sh)" -o _output/bin/hpa-controller-manager ./cmd/hpa-controller-manager

## release: the artifacts of VERSION (vX.Y.Z) in dist/: the multi-arch image as an OCI layout tarball,
## the binaries, the Helm chart, install.yaml and install-cert-manager.yaml, an SPDX SBOM, SHA256SUMS
## (hack/release.sh, docs/releasing.md).
.PHONY: release
release:
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=vX.Y.Z" >&2; exit 1; }
	VERSION=$(VERSION) hack/release.sh

## binary-size: what each module adds to hpa-controller-manager (hack/binsize), from a build with
## symbols; the release binary is the same less its symbol table (-s -w). docs/performance.md.
.PHONY: binary-size
binary-size:
	CGO_ENABLED=0 $(GO) build -trimpath -o _output/binsize/hpa-controller-manager ./cmd/hpa-controller-manager
	$(GO) run ./hack/binsize _output/binsize/hpa-controller-manager

## memory-floor: the resident memory of a program that links only the libraries the controller cannot
## do without and runs nothing (hack/memfloor), built as the release is; docs/performance.md.
.PHONY: memory-floor
memory-floor:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o _output/memfloor/memfloor ./hack/memfloor
	_output/memfloor/memfloor

## test-release: the image builder's output unpacked and checked (user, entrypoint, platforms), and the
## amd64 binary taken out of it answers --version (hack/tools/release, a module of its own).
.PHONY: test-release
test-release:
	cd hack/tools/release && $(GO) test -count=1 ./...

## test: everything CI runs: verify, the unit tests, then the integration tests and the e2e suite
## against a local control plane built from source (the first build of the upstream binaries takes
## several minutes; later runs reuse the Go build cache).
## Each stage is a make target of its own, run in this order; the time of each is printed at the end.
## The two e2e suites run in the background (hack/run-stages.sh's "bg:a") as soon as what they run is
## built: they mostly wait, on sync periods and on 180 s failure durations, keeping a CPU a quarter
## busy for a quarter of an hour, so the stages after them (verify, the unit tests, fuzzing, the
## integration tests, ...) run beside them under nice, on the CPUs they leave idle.
## The upstream binaries and the in-tree verify (which builds a patched kube-apiserver) are stages of
## their own, so that a cold run shows what each build costs.
TEST_STAGES := upstream-binaries e2e-controller bg:e2e intree-verify intree intree-e2e-test bg:e2e-intree verify unit test-release test-rules fuzz-short differential-ci integration intree-test-fast differential-intree intree-smoke
.PHONY: test
test:
	MAKE="$(MAKE)" hack/run-stages.sh $(TEST_STAGES)

## unit: the unit tests of every module, and each benchmark run once so that none rots unseen.
.PHONY: unit
unit:
	@test -n "$(strip $(UNIT_PKGS))" || { echo "go list found no packages" >&2; exit 1; }
	$(GO) test -race -count=1 -bench . -benchtime 1x $(UNIT_PKGS)
	for m in $(SUBMODULES); do (cd $$m && $(GO) test -race -count=1 -bench . -benchtime 1x ./...) || exit 1; done

## differential: upstream v1.37.2's HPA code and ours on DIFFERENTIAL_N generated scenarios (and as
## many reconcile sequences) from DIFFERENTIAL_SEED; fails on a difference outside the allow-list
## (test/differential/allowlist.go). differential-ci is the seeded subset `make test` runs.
DIFFERENTIAL_N ?= 100000
DIFFERENTIAL_SEED ?= $(shell date +%s)
.PHONY: differential differential-ci
# -v for the reports (allowed and excused counts per entry, the liveness table), without the lines of
# each passing case.
DIFFERENTIAL_REPORT = | grep -v -e '^=== ' -e '^ *--- PASS'
differential:
	set -o pipefail; cd test/differential && DIFFERENTIAL_N=$(DIFFERENTIAL_N) DIFFERENTIAL_SEED=$(DIFFERENTIAL_SEED) \
		$(GO) test -count=1 -timeout 120m -v . $(DIFFERENTIAL_REPORT)
differential-ci:
	set -o pipefail; cd test/differential && DIFFERENTIAL_N=5000 DIFFERENTIAL_SEED=1 $(GO) test -count=1 -timeout 10m -v . $(DIFFERENTIAL_REPORT)

## differential-intree: the oracle's harness against the in-tree series of v1.37.2 (make intree):
## with HPAExternalMetricFallback off the patched controller gives exactly what stock v1.37.2 gives on
## DIFFERENTIAL_INTREE_N sequences; with it on, the patched controller and kube-hpa agree on
## DIFFERENTIAL_FALLBACK_N fallback sequences (hack/differential-intree.sh). The defaults are the
## short form `make test` runs.
DIFFERENTIAL_INTREE_N ?= 1000
DIFFERENTIAL_FALLBACK_N ?= 300
.PHONY: differential-intree
differential-intree: intree
	DIFFERENTIAL_SEED=1 DIFFERENTIAL_INTREE_N=$(DIFFERENTIAL_INTREE_N) DIFFERENTIAL_FALLBACK_N=$(DIFFERENTIAL_FALLBACK_N) \
		hack/differential-intree.sh

## verify: formatting, vet, generated code and CRD drift, go.mod tidiness, and the default in-tree
## series (it applies with git am and upstream's generators reproduce its generated code).
.PHONY: verify
verify: verify-boilerplate verify-links verify-gofmt verify-vet verify-codegen verify-tidy verify-chart verify-monitoring intree-verify

## verify-boilerplate: every Go and shell file opens with the license header (hack/boilerplate.*.txt).
.PHONY: verify-boilerplate
verify-boilerplate:
	hack/verify-boilerplate.sh

## verify-links: every *.md's relative links name files that exist and its #anchors headings that exist
## (as GitHub renders heading anchors).
.PHONY: verify-links
verify-links:
	go run ./hack/verify-links .

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

## verify-tidy: every module's go.mod is tidy, and the modules that can build on the Kubernetes libraries
## of the upstream binaries pin them as hack/tools does (hack/verify-shared-pins.sh: compiled once).
.PHONY: verify-tidy
verify-tidy:
	hack/verify-tidy.sh
	hack/verify-shared-pins.sh

## verify-chart: the Helm chart renders deploy/crd's CRD (kept on uninstall), helm lint and helm
## template pass on every switch of its values (Helm built from the module proxy, minutes the first time).
.PHONY: verify-chart
verify-chart:
	hack/verify-chart.sh

## verify-monitoring: deploy/prometheusrule.yaml is the chart's PrometheusRule with its default values,
## deploy/grafana's dashboard is what hack/dashboards generates (Grafana's foundation SDK, a module of its
## own), and every metric they name is exported (TestMonitoringMetricsAreExported); update-monitoring
## writes both files. test-rules: promtool's unit tests of the alerts (test/prometheus/rules_test.yaml),
## promtool built from hack/tools/prometheus (minutes the first time, seconds after).
.PHONY: verify-monitoring update-monitoring test-rules
verify-monitoring:
	hack/update-monitoring.sh --verify

update-monitoring:
	hack/update-monitoring.sh

test-rules:
	hack/test-rules.sh

## update: regenerate deepcopy code and the CRD from the Go types.
.PHONY: update
update:
	hack/update-codegen.sh

## fuzz: run every fuzz target of the repository, in any module (each func Fuzz* of a _test.go file),
## for FUZZTIME each (default 30s). An input that fails is written to the package's testdata/fuzz:
## commit it with the fix, and it stays a seed that every `go test` runs. A run that only hit Go 1.26's
## -fuzztime deadline race (golang/go#75804, no failing input) is retried once (hack/fuzz-target.sh).
FUZZTIME ?= 30s
.PHONY: fuzz
fuzz:
	@set -o errexit -o nounset -o pipefail; \
	targets=$$(grep -rE --include='*_test.go' --exclude-dir=_output --exclude-dir=.git \
		'^func Fuzz[A-Za-z0-9_]*\(' . | sed -E 's/^([^:]*):func (Fuzz[A-Za-z0-9_]*)\(.*/\1 \2/' | sort); \
	test -n "$$targets" || { echo "no fuzz targets found" >&2; exit 1; }; \
	while read -r file name; do \
		dir=$$(dirname "$$file"); \
		echo "fuzzing $$name in $$dir for $(FUZZTIME)"; \
		GO=$(GO) hack/fuzz-target.sh "$$dir" "$$name" $(FUZZTIME) || exit 1; \
	done <<< "$$targets"

## fuzz-short: every fuzz target for FUZZ_SHORT_TIME (default 10s), as part of `make test`: a smoke run that
## keeps `make test` within its hour; `make fuzz` (FUZZTIME, 30s) is the real search.
FUZZ_SHORT_TIME ?= 10s
.PHONY: fuzz-short
fuzz-short:
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZ_SHORT_TIME)

## fuzz-keep: copy the inputs that the fuzzing runs of this machine found interesting (the Go build
## cache's corpus) into each package's testdata/fuzz, so that they become seeds for everyone.
.PHONY: fuzz-keep
fuzz-keep:
	@set -o errexit -o nounset -o pipefail; \
	cache=$$($(GO) env GOCACHE)/fuzz; \
	grep -rE --include='*_test.go' --exclude-dir=_output --exclude-dir=.git \
		'^func Fuzz[A-Za-z0-9_]*\(' . | sed -E 's/^([^:]*):func (Fuzz[A-Za-z0-9_]*)\(.*/\1 \2/' | sort | \
	while read -r file name; do \
		dir=$$(dirname "$$file"); \
		pkg=$$(cd "$$dir" && $(GO) list .); \
		test -d "$$cache/$$pkg/$$name" || continue; \
		mkdir -p "$$dir/testdata/fuzz/$$name"; \
		cp -n "$$cache/$$pkg/$$name"/* "$$dir/testdata/fuzz/$$name/"; \
		echo "$$dir/testdata/fuzz/$$name: $$(ls "$$dir/testdata/fuzz/$$name" | wc -l) seeds"; \
	done

.PHONY: clean
clean:
	rm -rf _output

## run: a local control plane of the upstream binaries, the test metrics adapter, two replicas of
## hpa-controller-manager and the example HPAs; prints the kubeconfig and what to try. Ctrl-C stops it.
## INTREE=1: the in-tree mode instead: the kube-apiserver and kube-controller-manager of make intree
## (its own HPA controller with the KEP's patch, HPAExternalMetricFallback on), no hpa-controller-manager, and the
## native autoscaling/v2 examples of deploy/examples/native.
## METRICS=prometheus: the examples' metric from a local Prometheus (a PromQL query over an exporter's
## gauges) instead of the metrics adapter's ConfigMap values; it prints how to stop Prometheus.
INTREE ?=
METRICS ?=
.PHONY: run
run: upstream-binaries $(if $(filter 1,$(INTREE)),intree,e2e-controller)
	$(GO) build -o _output/bin/local-up ./hack/local-up
	_output/bin/local-up $(if $(filter 1,$(INTREE)),-intree) $(if $(METRICS),-metrics=$(METRICS))

## upstream-binaries: build etcd 3.7.0, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl
## v1.37.2 (hack/tools, the four Kubernetes commands with one go build), kwok (hack/tools/kwok), metrics-server v0.8.0
## (hack/tools/metrics-server), the test metrics adapter, Helm and Prometheus, from source into _output/bin (minutes
## the first time, a second when up to date).
.PHONY: upstream-binaries
upstream-binaries:
	hack/build-upstream.sh

## intree: the in-tree mode, three KEPs as patch series to Kubernetes itself (hack/intree/patches/<release>:
## one series per pull request, stacked in the order of its `series` file, git am to the release's tag
## assembled from the Go module proxy): kube-apiserver serving the new fields in native autoscaling/v2 and
## kube-controller-manager whose own HPA controller applies them, each behind its gate, with kube-scheduler
## and kubectl of the same tree, into _output/bin/intree (INTREE_RELEASE, default v1.37.2; another release
## goes to _output/bin/intree-<release>); seconds when up to date. intree-verify: the stack applies, each
## series' alone form has its commits, and upstream's generators reproduce the generated code at the tip.
## intree-test: upstream's tests of the touched packages in the patched tree, gates off and on
## (intree-test-fast, in `make test`: without the round-trip suites of every API group). intree-series:
## for every release, each series alone and the stack: applied, generated code verified at each of its
## generated-code commits, tested, every commit built and tested on its own (--each); the differential
## test of each series alone of the default release (gate off equal to stock; the fallback sequences where
## the series has KEP-5679); then each older release's kube-controller-manager against the default
## release's kube-apiserver (the upgrade skew).
## intree-smoke: the patched kube-apiserver with kubectl, gates on and off.
INTREE_RELEASE ?= v1.37.2
INTREE_RELEASES = $(notdir $(wildcard hack/intree/patches/v*))
.PHONY: intree intree-verify intree-test intree-test-fast intree-series intree-smoke
intree:
	hack/build-intree.sh --release $(INTREE_RELEASE)

# etcd of upstream-binaries serves the patched kube-apiserver whose OpenAPI documents the series holds.
intree-verify: upstream-binaries
	hack/build-intree.sh --release $(INTREE_RELEASE) --verify-tip

intree-test:
	hack/build-intree.sh --release $(INTREE_RELEASE) --test

intree-test-fast:
	hack/build-intree.sh --release $(INTREE_RELEASE) --test-fast

intree-series: upstream-binaries
	for r in $(INTREE_RELEASES); do \
		for s in $$(hack/build-intree.sh --release $$r --series alone); do \
			for m in --verify --test --each; do \
				hack/build-intree.sh --release $$r --series $$s $$m || exit 1; \
			done; \
		done; \
		for m in --verify --test --each; do hack/build-intree.sh --release $$r $$m || exit 1; done; \
	done
	for s in $$(hack/build-intree.sh --release $(INTREE_RELEASE) --series alone); do \
		DIFFERENTIAL_INTREE_SERIES=$$s DIFFERENTIAL_SEED=1 DIFFERENTIAL_INTREE_N=$(DIFFERENTIAL_INTREE_N) \
			DIFFERENTIAL_FALLBACK_N=$(DIFFERENTIAL_FALLBACK_N) hack/differential-intree.sh || exit 1; \
	done
	for r in $(filter-out $(INTREE_RELEASE),$(INTREE_RELEASES)); do \
		KUBE_HPA_INTEGRATION=1 KUBE_HPA_INTREE_SKEW_BIN_DIR=$(CURDIR)/_output/bin/intree-$$r \
			$(GO) test -count=1 -run TestInTreeVersionSkew ./test/localcluster || exit 1; \
	done

intree-smoke: intree upstream-binaries
	hack/intree/smoke-test.sh

## integration: tests against a local control plane of the upstream binaries (test/localcluster, v1.37.2),
## and of the hpa-controller-manager binary where a test runs it as separate processes (sharded replicas).
INTEGRATION_TIMEOUT ?= 15m
.PHONY: integration
integration: upstream-binaries intree e2e-controller
	KUBE_HPA_INTEGRATION=1 $(GO) test -count=1 -timeout $(INTEGRATION_TIMEOUT) ./test/integration/... ./test/localcluster/...

## e2e: the ginkgo e2e suite (test/e2e/autoscaling). Without KUBECONFIG it starts and stops its own
## local environment (control plane, test metrics adapter, two hpa-controller-manager replicas); logs
## stay in _output/localcluster/<run>/logs, reports go to _output/e2e. E2E_PROCS parallel processes,
## E2E_TIMEOUT for the whole run, E2E_FLAGS for more ginkgo flags (--label-filter='!Disruptive', --focus=...).
## One process per long spec (the 15 that wait through a real 180 s failure), so that they run in one
## wave: with fewer, the last ones start after the first wave and the run takes three minutes more.
E2E_PROCS ?= 15
E2E_TIMEOUT ?= 20m
E2E_FLAGS ?=
.PHONY: e2e
e2e: upstream-binaries e2e-controller
	mkdir -p _output/e2e
	$(GO) tool ginkgo -procs=$(E2E_PROCS) --timeout=$(E2E_TIMEOUT) --fail-on-empty \
		--output-dir=_output/e2e --junit-report=junit.xml --json-report=report.json \
		$(E2E_FLAGS) ./test/e2e/autoscaling

## e2e-intree: the e2e suite in in-tree mode (E2E_MODE=intree, see test/e2e/README.md): the kube-apiserver
## and kube-controller-manager of make intree with HPAExternalMetricFallback on, kube-controller-manager's
## own HPA controller with the KEP's patch (and a ServiceAccount per controller, as kubeadm runs it), the
## test metrics adapter, no hpa-controller-manager; the KEP
## specs create native autoscaling/v2 HPAs with kubectl apply. Specs of hpa-controller-manager itself
## (label CRDMode) are left out. The series' own specs in upstream's test/e2e/autoscaling run too, by
## upstream's e2e.test built from the patched tree (hack/build-intree.sh --e2e) against the same
## environment (one spec of the suite). Reports go to _output/e2e-intree; E2E_PROCS, E2E_TIMEOUT and E2E_FLAGS as
## for e2e (a --label-filter there replaces '!CRDMode'; those specs then skip).
# intree-e2e-test: upstream's e2e.test of the patched tree; a stage of its own in `make test`, built before
# e2e-intree starts in the background (no stage may rebuild what a background suite runs).
.PHONY: intree-e2e-test
intree-e2e-test:
	hack/build-intree.sh --release $(INTREE_RELEASE) --e2e

.PHONY: e2e-intree
e2e-intree: intree upstream-binaries intree-e2e-test
	mkdir -p _output/e2e-intree
	E2E_MODE=intree $(GO) tool ginkgo -procs=$(E2E_PROCS) --timeout=$(E2E_TIMEOUT) --fail-on-empty \
		--label-filter='!CRDMode' --output-dir=_output/e2e-intree --junit-report=junit.xml --json-report=report.json \
		$(E2E_FLAGS) ./test/e2e/autoscaling

## e2e-skew: the e2e suite in CRD mode, as make e2e, against the previous Kubernetes minor: an unmodified
## kube-apiserver, kube-controller-manager and kube-scheduler v1.36.3 (hack/tools/skew, built by
## `hack/build-upstream.sh skew` into _output/bin/v1.36.3, minutes the first time; etcd, kubectl and kwok
## stay those of make upstream-binaries), for clusters a minor behind. Reports go to _output/e2e-skew;
## E2E_PROCS, E2E_TIMEOUT and E2E_FLAGS as for e2e. As long as make e2e, so not part of `make test`.
SKEW_BIN_DIR = $(CURDIR)/_output/bin/$(shell cd hack/tools/skew && $(GO) list -m -f '{{.Version}}' k8s.io/kubernetes)
.PHONY: e2e-skew
e2e-skew: upstream-binaries e2e-controller
	hack/build-upstream.sh skew
	mkdir -p _output/e2e-skew
	E2E_CONTROL_PLANE_BIN_DIR=$(SKEW_BIN_DIR) $(GO) tool ginkgo -procs=$(E2E_PROCS) --timeout=$(E2E_TIMEOUT) \
		--fail-on-empty --output-dir=_output/e2e-skew --junit-report=junit.xml --json-report=report.json \
		$(E2E_FLAGS) ./test/e2e/autoscaling

# upstream-binaries builds the test metrics adapter with the control plane; the controller comes from
# this module.
.PHONY: e2e-controller
e2e-controller:
	$(GO) build -o _output/bin/hpa-controller-manager ./cmd/hpa-controller-manager

## bench: the Go benchmarks of the controller packages and of its reconcile loop on in-memory seams
## (test/bench BenchmarkReconcile, for -cpuprofile), then the side-by-side runs of kube-hpa and
## upstream kube-controller-manager's HPA controller, each scenario on a local cluster of its own
## (test/bench): BENCH_HPAS HPAs (default 1000) and the sync period mix, 1000 HPAs of distinct
## metrics (with the gaps between two passes over one HPA), 2000 HPAs at the default client limits
## (qps 20, burst 30), 500 HPAs on their pods' CPU utilization through metrics-server (-cpu-hpas), then
## the ramp (a few Deployments scaled up under different behaviors);
## about 30 minutes on 2 cores. BENCH_FLAGS=-slow-tenants adds 1000 HPAs, 5% of them on a metric
## answered after 30 s (the share of healthy HPAs reconciled per sync period). BENCH_FLAGS=-scaling adds
## the scaling scenario, last (about an hour more on 2 cores): 1,000, 5,000 and 10,000 HPAs on Deployments of
## five kwok pods each, each size on a cluster of its own (-scaling-sizes, -scaling-pods-per-hpa); hpa-bench
## then draws scaling.svg beside latest.json (memory and CPU per 1,000 reconciles against the HPAs) by
## `go run` of test/bench/plot, a module of its own that keeps its plotting library out of go.mod.
## BENCH_HPAS=200 BENCH_FLAGS='-distinct-hpas=0 -throttled-hpas=0 -throttled-shared-hpas=0 -cpu-hpas=0 -sync-period-mix=false -ramp=false'
## for a quick run; BENCH_FLAGS='-default-scenario=false -throttled-hpas=0 -throttled-shared-hpas=0 -cpu-hpas=0 -slow-tenants'
## for the pass gaps, the slow tenants and the ramp alone; BENCH_FLAGS for more
## (go run ./test/bench/cmd/hpa-bench -help). BENCH_PERF=1 also records
## a perf profile of each saturated controller. Results in _output/bench (latest.txt, latest.json).
## Not part of `make test`.
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

## chaos: CHAOS_DURATION (default 10m) of faults on the local environment with 500 HPAs on kwok nodes,
## Prometheus, the test metrics adapter and two hpa-controller-manager replicas (test/chaos): kill -9 of
## kube-apiserver, of the leader replica and of the adapter, etcd stopped for 20 s, the webhook
## certificate rotated, scales by hand throughout; an invariant checker prints a table and fails on any
## violation. About 15 minutes in all. CHAOS_FLAGS for more (go run ./test/chaos/cmd/hpa-chaos -help);
## the report goes to _output/chaos (latest.txt, latest.json). Not part of `make test`.
CHAOS_DURATION ?= 10m
CHAOS_FLAGS ?=
.PHONY: chaos
chaos: upstream-binaries
	$(GO) build -o _output/chaos/bin/hpa-controller-manager ./cmd/hpa-controller-manager
	$(GO) build -o _output/chaos/bin/hpa-chaos ./test/chaos/cmd/hpa-chaos
	E2E_HPA_CONTROLLER_MANAGER=$(CURDIR)/_output/chaos/bin/hpa-controller-manager \
		_output/chaos/bin/hpa-chaos -duration=$(CHAOS_DURATION) $(CHAOS_FLAGS)

## update-chart-files: copy deploy/crd's CRDs and deploy/grafana's dashboard into charts/kube-hpa/files
## (update-codegen and update-monitoring do it too; verify-chart fails when a copy drifts).
.PHONY: update-chart-files
update-chart-files:
	hack/update-chart-files.sh
