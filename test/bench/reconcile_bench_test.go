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
	"flag"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	componentmetrics "k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// BenchmarkReconcile runs kube-hpa's controller loop, one worker, on the
// side-by-side workload (one namespace, half the HPAs sharing external
// metrics), with in-memory seams instead of an API server: a fake
// clientset behind the informers, and scale and metrics clients that
// answer at once. One op is one reconcile of one HPA, so ns/op and
// allocs/op are the controller's own cost per reconcile, without HTTP or
// JSON; -cpuprofile shows where it goes. The HPA count matters because
// every HPA's pods live in the one namespace.
func BenchmarkReconcile(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, window := range []time.Duration{0, 15 * time.Second} {
			b.Run(fmt.Sprintf("hpas=%d/sharing=%v", n, window), func(b *testing.B) {
				benchmarkReconcile(b, n, window)
			})
		}
	}
}

func benchmarkReconcile(b *testing.B, hpas int, sharingWindow time.Duration) {
	quietKlog(b)
	o := NewOptions()
	o.HPAs, o.LatencyHPAs = hpas, 0
	objects := make([]runtime.Object, 0, 2*hpas)
	for i := range hpas {
		objects = append(objects, readyPod(i), hpa(i, o))
	}
	// The simple clientset: the field-managed one builds a REST mapper for
	// every object it stores, which would take most of the profile.
	client := fake.NewSimpleClientset(objects...) //nolint:staticcheck // see above
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory := informers.NewSharedInformerFactory(client, 0)
	hpaInformer := factory.Autoscaling().V2().HorizontalPodAutoscalers().Informer()
	counter := &countingMonitor{Monitor: monitor.New(componentmetrics.NewKubeRegistry())}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{appsv1.SchemeGroupVersion})
	mapper.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	c, err := podautoscaler.New(podautoscaler.Options{
		Sources:       []podautoscaler.HPASource{cacheWritingSource{hpaclient.NewNativeSource(client.AutoscalingV2(), hpaInformer)}},
		PodInformer:   factory.Core().V1().Pods(),
		ScaleClient:   instantScales{},
		Mapper:        mapper,
		MetricsClient: metrics.NewSharedExternal(steadyMetrics{}, sharingWindow, clock.RealClock{}),
		EventRecorder: &record.FakeRecorder{},
		Monitor:       counter,
		Clock:         clock.RealClock{},
		Gates:         features.NewFeatureGate(),
		// As short as the queue allows: every HPA is always due, so the
		// worker never waits and the loop measures reconciles alone.
		SyncPeriod:                   time.Microsecond,
		Tolerance:                    0.1,
		DownscaleStabilizationWindow: 5 * time.Minute,
		CPUInitializationPeriod:      5 * time.Minute,
		InitialReadinessDelay:        30 * time.Second,
	})
	if err != nil {
		b.Fatal(err)
	}
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), hpaInformer.HasSynced)
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx, 1) }()
	defer func() { cancel(); <-done }()

	// Two passes first: the first writes every status.
	counter.waitFor(int64(2 * hpas))
	b.ReportAllocs()
	b.ResetTimer()
	counter.waitFor(counter.n.Load() + int64(b.N))
	b.StopTimer()
}

// quietKlog discards klog's output for the benchmark: nothing the
// controller logs helps here (errors come only from the shutdown), and
// writing it would be measured.
func quietKlog(b *testing.B) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			b.Fatal(err)
		}
	}
	klog.SetOutput(io.Discard)
	b.Cleanup(func() {
		_ = fs.Set("logtostderr", "true")
		klog.SetOutput(os.Stderr)
	})
}

// cacheWritingSource writes statuses straight into the informer's cache, as
// the watch would a moment later. Through the fake clientset, the first
// pass's burst of status updates overflows its watch channel (a panic);
// and later passes write nothing either way, their status being unchanged.
type cacheWritingSource struct {
	*hpaclient.NativeSource
}

func (s cacheWritingSource) UpdateStatus(_ context.Context, hpa *v2.HorizontalPodAutoscaler) (string, error) {
	return "", s.Informer().GetIndexer().Update(v2.ToNative(hpa))
}

// countingMonitor counts reconciles for the benchmark's clock.
type countingMonitor struct {
	monitor.Monitor
	n atomic.Int64
}

func (m *countingMonitor) ObserveReconciliationResult(a monitor.ActionLabel, e monitor.ErrorLabel, d time.Duration) {
	m.Monitor.ObserveReconciliationResult(a, e, d)
	m.n.Add(1)
}

// waitFor polls rather than signals, so the count costs the loop nothing.
func (m *countingMonitor) waitFor(n int64) {
	for m.n.Load() < n {
		time.Sleep(100 * time.Microsecond)
	}
}

func readyPod(i int) *corev1.Pod {
	name := workloadName(i)
	started := metav1.NewTime(time.Now().Add(-time.Hour))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-pod", Namespace: Namespace, Labels: map[string]string{"app": name}},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			StartTime:  &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started}},
		},
	}
}

// instantScales answers every Get with one replica selected by app=<name>,
// a new object each time as a decoded answer would be.
type instantScales struct{}

func (instantScales) Scales(namespace string) scale.ScaleInterface { return instantScale{namespace} }

type instantScale struct{ namespace string }

func (s instantScale) Get(_ context.Context, _ schema.GroupResource, name string, _ metav1.GetOptions) (*autoscalingv1.Scale, error) {
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.namespace},
		Spec:       autoscalingv1.ScaleSpec{Replicas: 1},
		Status:     autoscalingv1.ScaleStatus{Replicas: 1, Selector: "app=" + name},
	}, nil
}

func (s instantScale) Update(_ context.Context, _ schema.GroupResource, sc *autoscalingv1.Scale, _ metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	return sc, nil
}

func (s instantScale) Patch(context.Context, schema.GroupVersionResource, string, types.PatchType, []byte, metav1.PatchOptions) (*autoscalingv1.Scale, error) {
	return nil, fmt.Errorf("not supported")
}

// steadyMetrics answers every external metric with the steady value.
type steadyMetrics struct{}

func (steadyMetrics) GetResourceMetric(context.Context, corev1.ResourceName, string, labels.Selector, string) (metrics.PodMetricsInfo, time.Time, error) {
	return nil, time.Time{}, fmt.Errorf("not in the workload")
}

func (steadyMetrics) GetRawMetric(context.Context, string, string, labels.Selector, labels.Selector, string) (metrics.PodMetricsInfo, time.Time, error) {
	return nil, time.Time{}, fmt.Errorf("not in the workload")
}

func (steadyMetrics) GetObjectMetric(context.Context, string, string, *autoscalingv2.CrossVersionObjectReference, labels.Selector, string) (int64, time.Time, error) {
	return 0, time.Time{}, fmt.Errorf("not in the workload")
}

func (steadyMetrics) GetExternalMetric(context.Context, string, string, labels.Selector, string) ([]int64, time.Time, error) {
	return []int64{steadyValue * 1000}, time.Now(), nil
}
