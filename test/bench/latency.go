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

// setLatencyMetrics writes the adapter's ConfigMap keys of the given latency
// metrics, raised or steady; the adapter sees them through its informer
// within moments.
func setLatencyMetrics(ctx context.Context, kube kubernetes.Interface, o Options, raised bool, names ...string) error {
	var data map[string]string
	if raised {
		data = metricsData(o, names...)
	} else {
		data = metricsData(o)
	}
	patch := map[string]string{}
	for _, name := range names {
		patch["external."+name] = data["external."+name]
	}
	return patchMetricsConfig(ctx, kube, patch)
}

// patchMetricsConfig writes the given keys of the adapter's ConfigMap,
// leaving the others as they are; the adapter sees them through its
// informer within moments.
func patchMetricsConfig(ctx context.Context, kube kubernetes.Interface, data map[string]string) error {
	body, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		return err
	}
	_, err = kube.CoreV1().ConfigMaps(Namespace).Patch(ctx, metricsConfigMap, types.MergePatchType, body, metav1.PatchOptions{})
	return err
}

// latencyMetrics names every latency metric of the workload.
func latencyMetrics(o Options) []string {
	names := make([]string, o.latencyTrials())
	for t := range names {
		names[t] = latencyMetric(t)
	}
	return names
}

// latencyClock records when each trial's metric changed and when each
// watched Deployment reached replicas (the latency change's) after it.
type latencyClock struct {
	replicas int32
	mu       sync.Mutex
	trialOf  map[string]int // Deployment -> trial
	changed  []time.Time    // per trial; zero until changed
	seen     map[string]time.Duration
	done     chan struct{}
}

func (l *latencyClock) observe(obj any) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok || d.Spec.Replicas == nil || *d.Spec.Replicas < l.replicas {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	trial, watched := l.trialOf[d.Name]
	if _, dup := l.seen[d.Name]; !watched || dup || l.changed[trial].IsZero() {
		return
	}
	l.seen[d.Name] = time.Since(l.changed[trial])
	if len(l.seen) == len(l.trialOf) {
		close(l.done)
	}
}

// latencyNamespace is where the latency phase watches Deployments: the
// workload's namespace, or every namespace when the workload spreads.
func latencyNamespace(o Options) string {
	if o.Namespaces > 1 {
		return metav1.NamespaceAll
	}
	return Namespace
}

// latencyChange is what one latency phase does: raise the metric of one
// trial, so that its Deployments ask for replicas.
type latencyChange struct {
	replicas int32
	raise    func(ctx context.Context, trial int) error
}

// firstLatencyChange raises the latency metrics from steady to
// Options.latencyReplicas: the latency phase of every scenario.
func firstLatencyChange(kube kubernetes.Interface, o Options) latencyChange {
	return latencyChange{replicas: o.latencyReplicas(), raise: func(ctx context.Context, trial int) error {
		return setLatencyLoad(ctx, kube, o, true, trial)
	}}
}

// measureLatency makes change one trial after another, spread over one
// sync period, and times each latency Deployment from its trial's change
// until a watch sees its spec.replicas reach the change's. It waits at
// most timeout after the last change.
func measureLatency(ctx context.Context, kube kubernetes.Interface, o Options, change latencyChange, timeout time.Duration) (Latency, error) {
	if o.LatencyHPAs == 0 {
		return Latency{}, nil
	}
	trials := o.latencyTrials()
	clock := &latencyClock{replicas: change.replicas, trialOf: map[string]int{}, changed: make([]time.Time, trials),
		seen: map[string]time.Duration{}, done: make(chan struct{})}
	for i := range o.LatencyHPAs {
		clock.trialOf[workloadName(i)] = i % trials
	}
	// Deployment names are unique across the workload's namespaces.
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(latencyNamespace(o)))
	informer := factory.Apps().V1().Deployments().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    clock.observe,
		UpdateFunc: func(_, cur any) { clock.observe(cur) },
	}); err != nil {
		return Latency{}, err
	}
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return Latency{}, fmt.Errorf("the Deployment cache did not sync: %w", ctx.Err())
	}

	for t := range trials {
		if t > 0 {
			if err := sleep(ctx, o.SyncPeriod/time.Duration(trials), nil); err != nil {
				return Latency{}, err
			}
		}
		clock.mu.Lock()
		clock.changed[t] = time.Now()
		clock.mu.Unlock()
		if err := change.raise(ctx, t); err != nil {
			return Latency{}, fmt.Errorf("changing latency metric %d: %w", t, err)
		}
	}
	select {
	case <-clock.done:
	case <-time.After(timeout):
	case <-ctx.Done():
		return Latency{}, ctx.Err()
	}
	clock.mu.Lock()
	defer clock.mu.Unlock()
	samples := make([]time.Duration, 0, len(clock.seen))
	for _, d := range clock.seen {
		samples = append(samples, d)
	}
	return summarize(samples, len(clock.trialOf)), nil
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
