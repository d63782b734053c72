package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Latency is the time from a metric change to the scale update of the
// Deployments whose HPA reads that metric.
type Latency struct {
	// Measured is how many Deployments were scaled before the time-out;
	// Missed how many were not.
	Measured int     `json:"measured"`
	Missed   int     `json:"missed"`
	P50      float64 `json:"p50Seconds"`
	P99      float64 `json:"p99Seconds"`
	Max      float64 `json:"maxSeconds"`
}

// setLatencyMetric writes the latency metric's value into the adapter's
// ConfigMap; the adapter sees it through its informer within moments.
func setLatencyMetric(ctx context.Context, kube kubernetes.Interface, o Options, value int) error {
	data := metricsData(o, value)
	key := "external." + metricLatency
	patch, err := json.Marshal(map[string]any{"data": map[string]string{key: data[key]}})
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().ConfigMaps(Namespace).Patch(ctx, metricsConfigMap, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// measureLatency raises the latency metric at a known moment and times
// each latency Deployment until its spec.replicas reaches latencyReplicas,
// as seen by a watch. It waits at most timeout.
func measureLatency(ctx context.Context, kube kubernetes.Interface, o Options, timeout time.Duration) (Latency, error) {
	watched := map[string]bool{}
	for i := range o.LatencyHPAs {
		watched[workloadName(i)] = true
	}
	var (
		mu      sync.Mutex
		changed time.Time // zero until the metric is changed
		seen    = map[string]time.Duration{}
		done    = make(chan struct{})
	)
	observe := func(obj any) {
		d, ok := obj.(*appsv1.Deployment)
		if !ok || !watched[d.Name] || d.Spec.Replicas == nil || *d.Spec.Replicas < latencyReplicas {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, dup := seen[d.Name]; dup || changed.IsZero() {
			return
		}
		seen[d.Name] = time.Since(changed)
		if len(seen) == len(watched) {
			close(done)
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(Namespace))
	informer := factory.Apps().V1().Deployments().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, cur any) { observe(cur) },
	}); err != nil {
		return Latency{}, err
	}
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return Latency{}, fmt.Errorf("the Deployment cache did not sync: %w", ctx.Err())
	}
	if len(watched) == 0 {
		return Latency{}, nil
	}

	mu.Lock()
	changed = time.Now()
	mu.Unlock()
	if err := setLatencyMetric(ctx, kube, o, latencyValue); err != nil {
		return Latency{}, fmt.Errorf("changing the latency metric: %w", err)
	}
	select {
	case <-done:
	case <-time.After(timeout):
	case <-ctx.Done():
		return Latency{}, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	samples := make([]time.Duration, 0, len(seen))
	for _, d := range seen {
		samples = append(samples, d)
	}
	return summarize(samples, len(watched)), nil
}

// summarize computes nearest-rank percentiles of samples out of want.
func summarize(samples []time.Duration, want int) Latency {
	l := Latency{Measured: len(samples), Missed: want - len(samples)}
	if len(samples) == 0 {
		return l
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	l.P50 = percentile(samples, 50).Seconds()
	l.P99 = percentile(samples, 99).Seconds()
	l.Max = samples[len(samples)-1].Seconds()
	return l
}

// percentile is the nearest-rank percentile p of sorted samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
