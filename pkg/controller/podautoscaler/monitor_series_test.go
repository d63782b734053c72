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

package podautoscaler

import (
	"strings"
	"testing"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// TestDesiredReplicasSeriesPerKind: a native and an extended HPA of the same
// namespace and name each have their desired_replicas series, and deleting
// one leaves the other's.
func TestDesiredReplicasSeriesPerKind(t *testing.T) {
	const name = "horizontal_pod_autoscaler_controller_desired_replicas"
	h := newHarness(t, nil, harnessOptions{})
	registry := metrics.NewKubeRegistry()
	h.c.opts.Monitor = monitor.New(registry)
	h.source.name = "autoscaling.kube-hpa.io/v2"
	native := &fakeSource{name: "autoscaling/v2", hpas: map[string]*v2.HorizontalPodAutoscaler{}}
	h.c.opts.Sources = append(h.c.opts.Sources, native)
	h.scales.setScale(3, 3, testSelector)

	extended, twin := newHPA(4, 10, cpuUtilization(50)), newHPA(2, 10, cpuUtilization(50))
	twin.Spec.ScaleTargetRef.Name = "other"
	addScale(h, testNamespace, "other", 1, "app=other")
	h.source.set(extended)
	native.set(twin)
	_, _, _ = h.c.reconcileKey(h.ctx, hpaKey{source: 0, namespace: testNamespace, name: testHPAName})
	_, _, _ = h.c.reconcileKey(h.ctx, hpaKey{source: 1, namespace: testNamespace, name: testHPAName})
	header := "# HELP " + name + " [ALPHA] Replica count the controller last wanted for each HPA's target.\n# TYPE " + name + " gauge\n"
	extendedSeries := name + `{hpa_api_version="autoscaling.kube-hpa.io/v2",hpa_name="web",namespace="default"} 4` + "\n"
	if err := testutil.GatherAndCompare(registry, strings.NewReader(header+extendedSeries+
		name+`{hpa_api_version="autoscaling/v2",hpa_name="web",namespace="default"} 2`+"\n"), name); err != nil {
		t.Errorf("before the delete: %v", err)
	}

	native.delete(testNamespace, testHPAName)
	if _, deleted, _ := h.c.reconcileKey(h.ctx, hpaKey{source: 1, namespace: testNamespace, name: testHPAName}); !deleted {
		t.Fatal("the native HPA was not taken as deleted")
	}
	if err := testutil.GatherAndCompare(registry, strings.NewReader(header+extendedSeries), name); err != nil {
		t.Errorf("after deleting the native HPA: %v", err)
	}
}

// TestReplicaSeriesOfAnHPA: a pass records the target's current replicas
// as it read them and the spec's bounds (the series kubernetes-mixin's
// KubeHpaMaxedOut and KubeHpaReplicasMismatch read), and deleting the HPA
// drops them.
func TestReplicaSeriesOfAnHPA(t *testing.T) {
	h := newHarness(t, nil, harnessOptions{})
	registry := metrics.NewKubeRegistry()
	h.c.opts.Monitor = monitor.New(registry)
	h.source.name = "autoscaling.kube-hpa.io/v2"
	h.scales.setScale(3, 3, testSelector)
	h.source.set(newHPA(2, 10, cpuUtilization(50)))
	_, _, _ = h.c.reconcileKey(h.ctx, hpaKey{source: 0, namespace: testNamespace, name: testHPAName})

	labels := `{hpa_api_version="` + h.source.name + `",hpa_name="web",namespace="default"}`
	want := map[string]string{
		"current_replicas": "Replica count of each HPA's target when the controller last read it.",
		"min_replicas":     "Each HPA's spec.minReplicas, as the controller last read it.",
		"max_replicas":     "Each HPA's spec.maxReplicas, as the controller last read it.",
	}
	values := map[string]string{"current_replicas": "3", "min_replicas": "2", "max_replicas": "10"}
	for short, help := range want {
		name := "horizontal_pod_autoscaler_controller_" + short
		expected := "# HELP " + name + " [ALPHA] " + help + "\n# TYPE " + name + " gauge\n" + name + labels + " " + values[short] + "\n"
		if err := testutil.GatherAndCompare(registry, strings.NewReader(expected), name); err != nil {
			t.Errorf("%s: %v", short, err)
		}
	}

	h.source.delete(testNamespace, testHPAName)
	if _, deleted, _ := h.c.reconcileKey(h.ctx, hpaKey{source: 0, namespace: testNamespace, name: testHPAName}); !deleted {
		t.Fatal("the HPA was not taken as deleted")
	}
	for short := range want {
		name := "horizontal_pod_autoscaler_controller_" + short
		if err := testutil.GatherAndCompare(registry, strings.NewReader(""), name); err != nil {
			t.Errorf("%s after the delete: %v", short, err)
		}
	}
}
