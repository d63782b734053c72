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

package integration

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// TestObservedGenerationFollowsTheSpec runs v1.37's HPAGeneration against the
// real API server, which counts an HPA's spec changes in
// metadata.generation: the status says which generation it was computed
// from, and a spec change is reconciled at once, with the fake clock
// standing still.
func TestObservedGenerationFollowsTheSpec(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "gen", 1)
	fake := metricstest.NewClient().SetExternal("queue_gen", metricstest.ExternalAnswer{Values: []int64{10000}})
	startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	if _, err := hpas.Create(ctx, externalHPA(ns, "gen", 5, nil)); err != nil {
		t.Fatal(err)
	}
	observed := func(want int64) func() (string, bool) {
		return func() (string, bool) {
			hpa, err := hpas.Get(ctx, ns, "gen")
			if err != nil {
				return err.Error(), false
			}
			return fmt.Sprintf("generation %d, observedGeneration %v", hpa.Generation, ptr.Deref(hpa.Status.ObservedGeneration, -1)),
				hpa.Generation == want && ptr.Deref(hpa.Status.ObservedGeneration, -1) == want
		}
	}
	// A new HPA is reconciled at once: no clock step.
	waitReal(t, "the new HPA's status observes generation 1", observed(1))

	patch := []byte(`{"spec":{"maxReplicas":6}}`)
	gvr := v2.SchemeGroupVersion.WithResource("horizontalpodautoscalers")
	if _, err := dynamic.NewForConfigOrDie(cluster.RESTConfig()).Resource(gvr).Namespace(ns).Patch(ctx, "gen", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReal(t, "the changed spec is reconciled at once and observed", observed(2))
}

// TestStaleCacheSkipsAreCounted runs v1.37's StaleControllerConsistencyHPA
// against the real API server: once the watch of HPAs stops delivering (a
// lagging watch), the controller's own next status write is newer than its
// cache, so the passes after it are skipped and counted, and no status is
// written from that cache, whatever the metric says.
func TestStaleCacheSkipsAreCounted(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "stale", 1)
	fake := metricstest.NewClient().SetExternal("queue_stale", metricstest.ExternalAnswer{Values: []int64{10000}})
	env := startController(ctx, t, cluster, controllerOptions{namespace: ns, clock: clockAtSecond(), metrics: fake, gates: features.NewFeatureGate()})
	if _, err := hpas.Create(ctx, externalHPA(ns, "stale", 5, nil)); err != nil {
		t.Fatal(err)
	}
	metricValue := func(want int64) func() (string, bool) {
		return func() (string, bool) {
			hpa, err := hpas.Get(ctx, ns, "stale")
			if err != nil || len(hpa.Status.CurrentMetrics) != 1 || hpa.Status.CurrentMetrics[0].External == nil {
				return fmt.Sprintf("%v %+v", err, hpa), false
			}
			got := hpa.Status.CurrentMetrics[0].External.Current.Value.MilliValue()
			return fmt.Sprintf("status value %dm", got), got == want
		}
	}
	env.until(t, "the first status is written", metricValue(10000))
	// Give the watch time to deliver that write, then stop it.
	time.Sleep(time.Second)
	env.stopHPAWatch()

	fake.SetExternal("queue_stale", metricstest.ExternalAnswer{Values: []int64{11000}})
	env.until(t, "a status over the stopped watch's cache is written once", metricValue(11000))
	env.until(t, "the next pass is skipped and counted", func() (string, bool) {
		n := staleSkips(t, env)
		return fmt.Sprintf("stale_sync_skips_total %v", n), n >= 1
	})
	fake.SetExternal("queue_stale", metricstest.ExternalAnswer{Values: []int64{12000}})
	for range 4 {
		env.clock.Step(syncPeriod)
		time.Sleep(200 * time.Millisecond)
	}
	if msg, ok := metricValue(11000)(); !ok {
		t.Errorf("a pass wrote status from a cache older than the controller's own write: %s", msg)
	}
}

// staleSkips reads the controller's stale_sync_skips_total for the extended
// kind.
func staleSkips(t *testing.T, env *controllerEnv) float64 {
	t.Helper()
	families, err := env.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "horizontal_pod_autoscaler_controller_stale_sync_skips_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["group"] == "autoscaling.kube-hpa.io" && labels["resource"] == "horizontalpodautoscalers" {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// waitReal waits in real time, the fake clock standing still, until check
// holds.
func waitReal(t *testing.T, what string, check func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		last, ok := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s of real time with the clock still; last: %s", what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
