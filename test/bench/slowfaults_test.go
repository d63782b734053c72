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
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// failingWorkload is a small workload of the mid-run mode, with its
// adapter's ConfigMap in a fake cluster.
func failingWorkload(t *testing.T) (Options, *fake.Clientset) {
	t.Helper()
	o := NewOptions()
	o.HPAs, o.LatencyHPAs, o.DistinctMetrics, o.SlowHPAs, o.SlowMode = 40, 10, true, 3, SlowModeMidRun
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: metricsConfigMap, Namespace: Namespace}, Data: metricsData(o)})
	return o, kube
}

func configData(t *testing.T, kube *fake.Clientset) map[string]string {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(Namespace).Get(context.Background(), metricsConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

func TestSetSlowFaultRewritesTheSlowMetricAlone(t *testing.T) {
	steps := []struct {
		name       string
		fault      string
		wantPrefix string
	}{
		{name: "the provider starts hanging", fault: faultHang, wantPrefix: "fault: hang\nseries:\n"},
		{name: "then fails fast", fault: faultError, wantPrefix: "fault: error\nseries:\n"},
		{name: "then answers again, for the next controller", fault: "", wantPrefix: "series:\n"},
	}
	o, kube := failingWorkload(t)
	before := configData(t, kube)
	for _, step := range steps {
		if err := setSlowFault(context.Background(), kube, o, step.fault); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		data := configData(t, kube)
		if got := data["external."+metricSlow]; !strings.HasPrefix(got, step.wantPrefix) || strings.Count(got, "- {value") != o.SlowHPAs {
			t.Errorf("%s: slow metric %q, want it to start with %q and keep its %d series", step.name, got, step.wantPrefix, o.SlowHPAs)
		}
		for key, value := range before {
			if key != "external."+metricSlow && data[key] != value {
				t.Errorf("%s: key %s changed to %q", step.name, key, data[key])
			}
		}
	}
}

func TestSecondLatencyChangeRaisesAboveTheFirst(t *testing.T) {
	o, kube := failingWorkload(t)
	first, second := firstLatencyChange(kube, o), secondLatencyChange(kube, o)
	if second.replicas != first.replicas+latencyStep || second.replicas > hpa(0, o).Spec.MaxReplicas {
		t.Fatalf("second change to %d replicas after the first's %d (max %d): want %d more, within the HPA's bounds",
			second.replicas, first.replicas, hpa(0, o).Spec.MaxReplicas, latencyStep)
	}
	ctx := context.Background()
	for _, change := range []latencyChange{first, second} {
		if err := change.raise(ctx, 1); err != nil {
			t.Fatal(err)
		}
		data := configData(t, kube)
		// An AverageValue target asks for value/target replicas.
		want := `value: "` + strconv.Itoa(int(change.replicas)*steadyValue) + `"`
		if got := data["external."+latencyMetric(1)]; strings.Count(got, want) != strings.Count(got, "- {value") || !strings.Contains(got, want) {
			t.Errorf("trial 1's metric %q, want every series at %s", got, want)
		}
		if got := data["external."+latencyMetric(0)]; strings.Contains(got, want) {
			t.Errorf("trial 0's metric raised with trial 1's: %q", got)
		}
	}
}

func TestStoppingNoFaultRunDoesNothing(t *testing.T) {
	var f *faultRun
	if err := f.stop(context.Background()); err != nil {
		t.Errorf("stopping no fault run: %v", err)
	}
}

func TestFaultRunStopsOnce(t *testing.T) {
	o, kube := failingWorkload(t)
	// No second fault within the test.
	o.FlapPeriod = time.Hour
	r := &runner{opts: o, kube: kube}
	f := &faultRun{r: r, start: time.Now()}
	if err := f.flap(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := configData(t, kube)["external."+metricSlow]; !strings.HasPrefix(got, "fault: error\n") {
		t.Errorf("the flap did not start with a fast error: %q", got)
	}
	for range 2 {
		if err := f.stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := configData(t, kube)["external."+metricSlow]; strings.HasPrefix(got, "fault:") {
			t.Errorf("the slow metric still fails after stop: %q", got)
		}
	}
}

func TestFlapTurnsToAHangAfterOnePeriod(t *testing.T) {
	o, kube := failingWorkload(t)
	o.SlowMode, o.FlapPeriod = SlowModeFlap, 20*time.Millisecond
	f := &faultRun{r: &runner{opts: o, kube: kube}, start: time.Now()}
	if err := f.flap(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.stop(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasPrefix(configData(t, kube)["external."+metricSlow], "fault: hang\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no hang 5s after a flap of 20ms began: %q", configData(t, kube)["external."+metricSlow])
		}
		time.Sleep(5 * time.Millisecond)
	}
}
