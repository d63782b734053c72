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

// Package bench measures kube-hpa's controller side by side with the HPA
// controller of upstream kube-controller-manager (hack/tools' pin), on one local
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
// reconcile rate; and every HPA on its pods' CPU utilization (cpu.go),
// read through metrics-server from kwok's emulated kubelets, as most
// clusters' HPAs are.
//
// Where every HPA has a metric of its own, a pass over an HPA is one fetch
// of its metric, and the adapter records when each metric was fetched
// (its /debug/fetch-times): the distinct-metrics scenario reports the
// largest and the p99 gap between two passes over one HPA (passgap.go).
// The slow-tenants scenario (slowtenants.go, -slow-tenants, off by
// default) makes a few of those metrics slow, answered only after 30 s,
// and reports the share of the healthy HPAs each controller reconciled in
// each sync period; its other modes (slowmode.go) have the provider start
// hanging, or flap between fast errors and hangs, once the controller
// runs, and also report the healthy HPAs' metric-to-scale latency before
// and after, and how late kube-hpa's fallback comes for the slow HPAs
// (slowfaults.go). The ramp (ramp.go, on by default, about 2 minutes per
// controller) raises the metric of a few Deployments at a known time,
// under different scale-up behaviors, and reports when each new replica
// count appeared. The scaling scenario (scaling.go, -scaling, off by
// default, about an hour) runs the default workload at growing sizes,
// 1,000 to 10,000 HPAs on Deployments of five pods each, and reports how
// each controller's memory and CPU per reconcile grow with them;
// PlotScaling draws them with the plot module (test/bench/plot, a Go
// module of its own).
//
// cmd/hpa-bench is the command line; `make bench` runs it.
package bench
