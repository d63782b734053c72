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

package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
	customapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	customfake "k8s.io/metrics/pkg/client/custom_metrics/fake"
	externalfake "k8s.io/metrics/pkg/client/external_metrics/fake"
)

const testNamespace = "test-namespace"

var (
	t0          = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	podSelector = labels.SelectorFromSet(labels.Set{"app": "web"})
	errAdapter  = errors.New("adapter exploded")
)

// fakes holds the three fake API clients behind a RESTClient, so that a
// test case can program them and look at what was asked.
type fakes struct {
	resource *metricsfake.Clientset
	custom   *customfake.FakeCustomMetricsClient
	external *externalfake.FakeExternalMetricsClient
}

func newFakes() *fakes {
	return &fakes{
		resource: &metricsfake.Clientset{},
		custom:   &customfake.FakeCustomMetricsClient{},
		external: &externalfake.FakeExternalMetricsClient{},
	}
}

func (f *fakes) client(t *testing.T, timeout time.Duration) *RESTClient {
	t.Helper()
	c, err := NewRESTClient(Options{
		ResourceClient: f.resource.MetricsV1beta1(),
		CustomClient:   f.custom,
		ExternalClient: f.external,
		FetchTimeout:   timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// answer returns a reactor that answers with obj, or with err alone when
// err is set.
func answer(obj runtime.Object, err error) clienttesting.ReactionFunc {
	if err != nil {
		obj = nil
	}
	return func(clienttesting.Action) (bool, runtime.Object, error) { return true, obj, err }
}

// hang returns a reactor that never answers before the test ends, as an
// adapter that accepted the connection and went quiet.
func hang(t *testing.T) clienttesting.ReactionFunc {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(clienttesting.Action) (bool, runtime.Object, error) {
		<-release
		return true, nil, errors.New("released")
	}
}

func testContext(t *testing.T) context.Context {
	_, ctx := ktesting.NewTestContext(t)
	return ctx
}

func usage(cpu, memory string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return l
}

// podMetrics builds a PodMetrics labelled to match podSelector. containers
// alternate name and usage.
func podMetrics(name string, ts time.Time, containers ...any) metricsapi.PodMetrics {
	m := metricsapi.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Labels: map[string]string{"app": "web"}},
		Timestamp:  metav1.Time{Time: ts},
		Window:     metav1.Duration{Duration: 30 * time.Second},
	}
	for i := 0; i < len(containers); i += 2 {
		m.Containers = append(m.Containers, metricsapi.ContainerMetrics{Name: containers[i].(string), Usage: containers[i+1].(corev1.ResourceList)})
	}
	return m
}

func checkErr(t *testing.T, err error, wantErr string, wantErrIs error) bool {
	t.Helper()
	if wantErr == "" && wantErrIs == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return false
	}
	if err == nil {
		t.Fatalf("got no error, want one containing %q", wantErr)
	}
	if !strings.Contains(err.Error(), wantErr) {
		t.Errorf("got error %q, want it to contain %q", err, wantErr)
	}
	if wantErrIs != nil && !errors.Is(err, wantErrIs) {
		t.Errorf("got error %q, want it to wrap %v", err, wantErrIs)
	}
	return true
}

func TestGetResourceMetric(t *testing.T) {
	tests := []struct {
		name      string
		resource  corev1.ResourceName
		container string
		items     []metricsapi.PodMetrics
		err       error
		hang      bool
		want      PodMetricsInfo
		wantTime  time.Time
		wantErr   string
		wantErrIs error
	}{
		{
			name:     "sums the usage of every container of a pod",
			resource: corev1.ResourceCPU,
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("300m", "1Mi"), "proxy", usage("50m", "1Mi")),
				podMetrics("web-1", t0, "app", usage("500m", "1Mi"), "proxy", usage("70m", "1Mi")),
			},
			want: PodMetricsInfo{
				"web-0": {Timestamp: t0, Window: 30 * time.Second, Value: 350},
				"web-1": {Timestamp: t0, Window: 30 * time.Second, Value: 570},
			},
			wantTime: t0,
		},
		{
			name:      "a named container's usage stands alone",
			resource:  corev1.ResourceMemory,
			container: "proxy",
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("300m", "1k"), "proxy", usage("50m", "2k")),
			},
			want:     PodMetricsInfo{"web-0": {Timestamp: t0, Window: 30 * time.Second, Value: 2000000}},
			wantTime: t0,
		},
		{
			name:      "a pod without the named container is left out",
			resource:  corev1.ResourceCPU,
			container: "proxy",
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("300m", ""), "proxy", usage("50m", "")),
				podMetrics("web-1", t0, "app", usage("500m", "")),
			},
			want:     PodMetricsInfo{"web-0": {Timestamp: t0, Window: 30 * time.Second, Value: 50}},
			wantTime: t0,
		},
		{
			name:      "a pod whose named container lacks the resource is left out",
			resource:  corev1.ResourceMemory,
			container: "app",
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("300m", "")),
				podMetrics("web-1", t0, "app", usage("300m", "1k")),
			},
			want:     PodMetricsInfo{"web-1": {Timestamp: t0, Window: 30 * time.Second, Value: 1000000}},
			wantTime: t0,
		},
		{
			name:     "a pod with a container lacking the resource is left out rather than under-counted",
			resource: corev1.ResourceMemory,
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("", "1k"), "proxy", usage("50m", "")),
				podMetrics("web-1", t0, "app", usage("", "1k"), "proxy", usage("", "1k")),
			},
			want:     PodMetricsInfo{"web-1": {Timestamp: t0, Window: 30 * time.Second, Value: 2000000}},
			wantTime: t0,
		},
		{
			name:     "a pod reporting no containers is left out",
			resource: corev1.ResourceCPU,
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0),
				podMetrics("web-1", t0, "app", usage("1", "")),
			},
			want:     PodMetricsInfo{"web-1": {Timestamp: t0, Window: 30 * time.Second, Value: 1000}},
			wantTime: t0,
		},
		{
			name:     "the oldest reading's time is returned",
			resource: corev1.ResourceCPU,
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("1", "")),
				podMetrics("web-1", t0.Add(-time.Minute), "app", usage("1", "")),
				podMetrics("web-2", t0.Add(time.Minute), "app", usage("1", "")),
			},
			want: PodMetricsInfo{
				"web-0": {Timestamp: t0, Window: 30 * time.Second, Value: 1000},
				"web-1": {Timestamp: t0.Add(-time.Minute), Window: 30 * time.Second, Value: 1000},
				"web-2": {Timestamp: t0.Add(time.Minute), Window: 30 * time.Second, Value: 1000},
			},
			wantTime: t0.Add(-time.Minute),
		},
		{
			name:     "a huge usage saturates at max int64 milli, and so does a pod's sum over its containers",
			resource: corev1.ResourceCPU,
			items: []metricsapi.PodMetrics{
				podMetrics("web-0", t0, "app", usage("1e16", "")),
				podMetrics("web-1", t0, "app", usage("9223372036854775", ""), "proxy", usage("9223372036854775", "")),
			},
			want: PodMetricsInfo{
				"web-0": {Timestamp: t0, Window: 30 * time.Second, Value: math.MaxInt64},
				"web-1": {Timestamp: t0, Window: 30 * time.Second, Value: math.MaxInt64},
			},
			wantTime: t0,
		},
		{
			name:      "a named container's huge usage saturates at max int64 milli",
			resource:  corev1.ResourceMemory,
			container: "app",
			items:     []metricsapi.PodMetrics{podMetrics("web-0", t0, "app", usage("", "8Ei"))},
			want:      PodMetricsInfo{"web-0": {Timestamp: t0, Window: 30 * time.Second, Value: math.MaxInt64}},
			wantTime:  t0,
		},
		{
			name:      "an empty list is an error wrapping ErrNoMetrics",
			resource:  corev1.ResourceCPU,
			wantErr:   "no metrics returned from resource metrics API",
			wantErrIs: ErrNoMetrics,
		},
		{
			name:      "an API error is wrapped",
			resource:  corev1.ResourceCPU,
			err:       errAdapter,
			wantErr:   "unable to fetch metrics from resource metrics API",
			wantErrIs: errAdapter,
		},
		{
			name:      "a hanging API times out",
			resource:  corev1.ResourceCPU,
			hang:      true,
			wantErr:   "no answer within 50ms",
			wantErrIs: context.DeadlineExceeded,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakes()
			if tc.hang {
				f.resource.AddReactor("list", "pods", hang(t))
			} else {
				f.resource.AddReactor("list", "pods", answer(&metricsapi.PodMetricsList{Items: tc.items}, tc.err))
			}
			got, ts, err := f.client(t, 50*time.Millisecond).GetResourceMetric(testContext(t), tc.resource, testNamespace, podSelector, tc.container)
			if checkErr(t, err, tc.wantErr, tc.wantErrIs) {
				return
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if !ts.Equal(tc.wantTime) {
				t.Errorf("got time %v, want %v", ts, tc.wantTime)
			}
			actions := f.resource.Actions()
			if len(actions) != 1 {
				t.Fatalf("got %d actions, want 1", len(actions))
			}
			list := actions[0].(clienttesting.ListAction)
			if list.GetNamespace() != testNamespace || list.GetListRestrictions().Labels.String() != podSelector.String() {
				t.Errorf("listed %s with %q, want %s with %q", list.GetNamespace(), list.GetListRestrictions().Labels, testNamespace, podSelector)
			}
		})
	}
}

func metricValue(kind, name string, ts time.Time, milli int64, windowSeconds *int64) customapi.MetricValue {
	return customapi.MetricValue{
		DescribedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: testNamespace},
		Metric:          customapi.MetricIdentifier{Name: "qps"},
		Timestamp:       metav1.Time{Time: ts},
		WindowSeconds:   windowSeconds,
		Value:           *resource.NewMilliQuantity(milli, resource.DecimalSI),
	}
}

// withValue gives m a value written as a quantity string.
func withValue(m customapi.MetricValue, value string) customapi.MetricValue {
	m.Value = resource.MustParse(value)
	return m
}

func TestGetRawMetric(t *testing.T) {
	ten := int64(10)
	metricSelector := labels.SelectorFromSet(labels.Set{"verb": "GET"})
	tests := []struct {
		name      string
		items     []customapi.MetricValue
		err       error
		hang      bool
		want      PodMetricsInfo
		wantTime  time.Time
		wantErr   string
		wantErrIs error
	}{
		{
			name: "readings are keyed by pod with the adapter's window, a minute when it gives none",
			items: []customapi.MetricValue{
				metricValue("Pod", "web-0", t0, 1500, &ten),
				metricValue("Pod", "web-1", t0.Add(-time.Second), 2500, nil),
			},
			want: PodMetricsInfo{
				"web-0": {Timestamp: t0, Window: 10 * time.Second, Value: 1500},
				"web-1": {Timestamp: t0.Add(-time.Second), Window: time.Minute, Value: 2500},
			},
			wantTime: t0.Add(-time.Second),
		},
		{
			name: "a huge pod reading saturates at the int64 milli bounds",
			items: []customapi.MetricValue{
				withValue(metricValue("Pod", "web-0", t0, 0, &ten), "1e30"),
				withValue(metricValue("Pod", "web-1", t0, 0, &ten), "-1e30"),
			},
			want: PodMetricsInfo{
				"web-0": {Timestamp: t0, Window: 10 * time.Second, Value: math.MaxInt64},
				"web-1": {Timestamp: t0, Window: 10 * time.Second, Value: math.MinInt64},
			},
			wantTime: t0,
		},
		{
			name:      "an empty list is an error wrapping ErrNoMetrics",
			wantErr:   "no metrics returned from custom metrics API",
			wantErrIs: ErrNoMetrics,
		},
		{
			name:      "an API error is wrapped",
			err:       errAdapter,
			wantErr:   "unable to fetch metrics from custom metrics API",
			wantErrIs: errAdapter,
		},
		{
			name:      "a hanging API times out",
			hang:      true,
			wantErr:   "no answer within 50ms",
			wantErrIs: context.DeadlineExceeded,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakes()
			if tc.hang {
				f.custom.AddReactor("get", "*", hang(t))
			} else {
				f.custom.AddReactor("get", "*", answer(&customapi.MetricValueList{Items: tc.items}, tc.err))
			}
			got, ts, err := f.client(t, 50*time.Millisecond).GetRawMetric(testContext(t), "qps", testNamespace, podSelector, metricSelector, "")
			if checkErr(t, err, tc.wantErr, tc.wantErrIs) {
				return
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if !ts.Equal(tc.wantTime) {
				t.Errorf("got time %v, want %v", ts, tc.wantTime)
			}
			get := f.custom.Actions()[0].(customfake.GetForAction)
			if get.GetResource().Resource != "pods" || get.GetName() != "*" || get.GetMetricName() != "qps" ||
				get.GetNamespace() != testNamespace || get.GetLabelSelector().String() != podSelector.String() {
				t.Errorf("asked for %s %s/%s metric %s selecting %q", get.GetResource().Resource, get.GetNamespace(), get.GetName(), get.GetMetricName(), get.GetLabelSelector())
			}
		})
	}
}

func TestGetObjectMetric(t *testing.T) {
	deployment := &autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Name: "web"}
	namespace := &autoscalingv2.CrossVersionObjectReference{Kind: "Namespace", APIVersion: "v1", Name: "some-other-namespace"}
	tests := []struct {
		name          string
		objectRef     *autoscalingv2.CrossVersionObjectReference
		items         []customapi.MetricValue
		err           error
		hang          bool
		want          int64
		wantNamespace string
		wantResource  string
		wantName      string
		wantErr       string
		wantErrIs     error
	}{
		{
			name:          "reads the metric of the described object in the HPA's namespace",
			objectRef:     deployment,
			items:         []customapi.MetricValue{metricValue("Deployment", "web", t0, 4200, nil)},
			want:          4200,
			wantNamespace: testNamespace,
			wantResource:  "deployments.apps",
			wantName:      "web",
		},
		{
			name:          "a namespace is read at the root, and only the HPA's own",
			objectRef:     namespace,
			items:         []customapi.MetricValue{metricValue("Namespace", testNamespace, t0, 7, nil)},
			want:          7,
			wantNamespace: "",
			wantResource:  "namespaces",
			wantName:      testNamespace,
		},
		{
			name:          "a huge object value saturates at max int64 milli instead of reading as -1000",
			objectRef:     deployment,
			items:         []customapi.MetricValue{withValue(metricValue("Deployment", "web", t0, 0, nil), "9223372036854775807")},
			want:          math.MaxInt64,
			wantNamespace: testNamespace,
			wantResource:  "deployments.apps",
			wantName:      "web",
		},
		{
			name:      "an API error is wrapped",
			objectRef: deployment,
			err:       errAdapter,
			wantErr:   "unable to fetch metrics from custom metrics API",
			wantErrIs: errAdapter,
		},
		{
			name:      "no value for the object is an error",
			objectRef: deployment,
			wantErr:   "returned 0 results",
		},
		{
			name:      "a hanging API times out",
			objectRef: deployment,
			hang:      true,
			wantErr:   "no answer within 50ms",
			wantErrIs: context.DeadlineExceeded,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakes()
			if tc.hang {
				f.custom.AddReactor("get", "*", hang(t))
			} else {
				f.custom.AddReactor("get", "*", answer(&customapi.MetricValueList{Items: tc.items}, tc.err))
			}
			got, ts, err := f.client(t, 50*time.Millisecond).GetObjectMetric(testContext(t), "qps", testNamespace, tc.objectRef, labels.Everything(), "")
			if checkErr(t, err, tc.wantErr, tc.wantErrIs) {
				return
			}
			if got != tc.want || !ts.Equal(t0) {
				t.Errorf("got %d at %v, want %d at %v", got, ts, tc.want, t0)
			}
			get := f.custom.Actions()[0].(customfake.GetForAction)
			if get.GetNamespace() != tc.wantNamespace || get.GetResource().Resource != tc.wantResource || get.GetName() != tc.wantName {
				t.Errorf("asked for %q in %q named %q, want %q in %q named %q",
					get.GetResource().Resource, get.GetNamespace(), get.GetName(), tc.wantResource, tc.wantNamespace, tc.wantName)
			}
		})
	}
}
