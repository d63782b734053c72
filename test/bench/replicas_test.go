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

package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScalingSizesMeasureTheShardedReplicasAfterTheOthers(t *testing.T) {
	o := NewOptions()
	o.Scaling, o.ScalingSizes, o.ScalingReplicas = true, []int{1000, 5000}, []int{2, 3}
	for _, sc := range o.scalingScenarios() {
		want := []string{Upstream, KubeHPA, "kube-hpa-x2", "kube-hpa-x3"}
		if !slices.Equal(sc.opts.Controllers, want) {
			t.Errorf("size %d measures %v, want %v", sc.opts.HPAs, sc.opts.Controllers, want)
		}
		if err := sc.opts.Validate(); err != nil {
			t.Errorf("size %d: %v", sc.opts.HPAs, err)
		}
	}
	for _, sc := range o.scenarios() {
		if slices.ContainsFunc(sc.opts.Controllers, func(c string) bool { return strings.HasPrefix(c, "kube-hpa-x") }) {
			t.Errorf("scenario %s measures the sharded replicas, which are the scaling scenario's", sc.name)
		}
	}
}

func TestShardedSpecRunsReplicasWithTheirOwnLeases(t *testing.T) {
	o := NewOptions()
	o.ScalingReplicas = []int{3}
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(admin, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	specs, err := controllerSpecs(o, admin, dir)
	if err != nil {
		t.Fatal(err)
	}
	spec, ok := specs["kube-hpa-x3"]
	if !ok {
		t.Fatalf("no spec for kube-hpa-x3 among %d", len(specs))
	}
	if spec.replicas != 3 || specs[KubeHPA].replicas > 1 {
		t.Errorf("replicas: sharded %d, single %d", spec.replicas, specs[KubeHPA].replicas)
	}
	args := spec.args(10999, 15*time.Second)
	for _, want := range []string{"--sharded", "--shards=16", "--leader-elect-resource-name=kube-hpa-x3", "--leader-elect-resource-namespace=default", "--port=10999"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %v lack %s", args, want)
		}
	}
	// The last --leader-elect wins: the run's flags turn it off for the
	// single controllers, sharding needs it on.
	last := ""
	for _, a := range args {
		if strings.HasPrefix(a, "--leader-elect=") {
			last = a
		}
	}
	if last != "--leader-elect=true" {
		t.Errorf("the last --leader-elect is %q, want --leader-elect=true", last)
	}
}

func TestReplicaFigures(t *testing.T) {
	a := controllerMetrics{reconciles: 100, queueWait: 1, queueWaits: 10, queueDepth: 2}
	b := controllerMetrics{reconciles: 50, queueWait: 0.5, queueWaits: 5, queueDepth: 1}
	if got := a.plus(b); got != (controllerMetrics{reconciles: 150, queueWait: 1.5, queueWaits: 15, queueDepth: 3}) {
		t.Errorf("two replicas' metrics add to %+v", got)
	}

	s0 := snapshot{at: time.Unix(0, 0), controllerCPU: 3 * time.Second, replicaCPU: []time.Duration{time.Second, 2 * time.Second}, watchBytes: 1000}
	s1 := snapshot{at: time.Unix(10, 0), controllerCPU: 9 * time.Second, replicaCPU: []time.Duration{3 * time.Second, 6 * time.Second}, watchBytes: 51000,
		controllerMetrics: controllerMetrics{reconciles: 1000}}
	base := delta{elapsed: 10 * time.Second, watchBytes: 10000}
	p := phaseOf(s0.until(s1).lessBaseline(base), 15*time.Second)
	if !slices.Equal(p.ReplicaCores, []float64{0.2, 0.4}) {
		t.Errorf("replica cores %v, want 0.2 and 0.4", p.ReplicaCores)
	}
	if p.WatchBytesPerSecond != 4000 {
		t.Errorf("watch egress %v B/s, want 4000 (5000 less the idle 1000)", p.WatchBytesPerSecond)
	}
	if got := busiestReplicaCores(p); got != 0.4 {
		t.Errorf("busiest replica %v cores, want 0.4", got)
	}
	single := phaseOf(snapshot{at: time.Unix(0, 0)}.until(snapshot{at: time.Unix(10, 0), controllerCPU: 5 * time.Second,
		replicaCPU: []time.Duration{5 * time.Second}, controllerMetrics: controllerMetrics{reconciles: 1000}}), 15*time.Second)
	if single.ReplicaCores != nil || busiestReplicaCores(single) != 0.5 {
		t.Errorf("one process: replica cores %v, busiest %v; want none listed and 0.5", single.ReplicaCores, busiestReplicaCores(single))
	}
}

func TestClusterGateForShardedReplicas(t *testing.T) {
	o := NewOptions()
	if gates := o.clusterOptions().FeatureGates; gates != nil {
		t.Errorf("without sharded replicas the cluster gets gates %v", gates)
	}
	o.Scaling, o.ScalingReplicas = true, []int{2}
	for _, sc := range o.scalingScenarios() {
		if !sc.opts.clusterOptions().FeatureGates["ShardedListAndWatch"] {
			t.Errorf("size %d: kube-apiserver without ShardedListAndWatch for the sharded replicas", sc.opts.HPAs)
		}
	}
}

func TestNamespacesOfTheWorkload(t *testing.T) {
	o := NewOptions()
	o.HPAs = 1000
	if got := o.namespaces(); !slices.Equal(got, []string{Namespace}) || o.namespaceOf(999) != Namespace || o.spreadNamespaces() != 0 {
		t.Errorf("one namespace: %v, HPA 999 in %s", got, o.namespaceOf(999))
	}
	o.Namespaces = 50
	got := o.namespaces()
	if len(got) != 50 || got[0] != "t00-hpa-bench" || got[49] != "t49-hpa-bench" || o.spreadNamespaces() != 50 {
		t.Fatalf("50 namespaces: %d, from %s to %s", len(got), got[0], got[len(got)-1])
	}
	// Blocks of 20 consecutive HPAs: a shared metric's group (every other
	// HPA, ten of them) stays in one namespace.
	if o.namespaceOf(19) != "t00-hpa-bench" || o.namespaceOf(20) != "t01-hpa-bench" || o.namespaceOf(999) != "t49-hpa-bench" {
		t.Errorf("blocks: 19 in %s, 20 in %s, 999 in %s", o.namespaceOf(19), o.namespaceOf(20), o.namespaceOf(999))
	}
	if d := deployment(20, o); d.Namespace != "t01-hpa-bench" || hpa(20, o).Namespace != "t01-hpa-bench" {
		t.Errorf("Deployment 20 in %s, its HPA in %s", d.Namespace, hpa(20, o).Namespace)
	}
	for _, bad := range []int{-1, 1001} {
		o.Namespaces = bad
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "namespaces must be from 0") {
			t.Errorf("%d namespaces: %v", bad, err)
		}
	}
}
