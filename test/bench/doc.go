// Package bench measures kube-hpa's controller side by side with the HPA
// controller of upstream kube-controller-manager v1.36.3, on one local
// cluster (test/localcluster) and one workload: N Deployments of one kwok
// pod each and N native autoscaling/v2 HPAs on External metrics served by
// the test metrics adapter.
//
// The controllers run one after the other, each alone, with the same HPA
// flags. For each it measures CPU per reconcile (from /proc), peak RSS,
// reconciles per second when the queue is saturated, API server requests
// per reconcile (from kube-apiserver's apiserver_request_total, less an idle
// baseline), external metric fetches per reconcile (from the adapter's
// counters) and the latency from a metric change to the scale update.
//
// A run has scenarios, one table each, each on a cluster of its own
// (scenario.go): the workload above; every HPA with a metric of its own,
// where no fetch can be shared; and more HPAs at kube-controller-manager's
// default client limits, where a request made on every reconcile caps the
// reconcile rate.
//
// cmd/hpa-bench is the command line; `make bench` runs it.
package bench
