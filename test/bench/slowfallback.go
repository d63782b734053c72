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
	"fmt"
	"maps"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// The slow HPAs' fallback (KEP-5679) exists on kube-hpa's extended kind
// alone, which upstream does not read. So in the slow-tenants modes that
// fail mid-run, the slow HPAs are native while upstream runs and extended,
// with the fallback, while kube-hpa runs: one kind at a time, as two HPAs
// on one Deployment would be an ownership conflict. The healthy HPAs stay
// native for both.

// slowExtendedHPA is slow HPA i as the extended kind, its External metric
// with a fallback after Options.FallbackAfter to its steady replicas: the
// condition tells when the fallback applies, and no Deployment scales for
// it while the healthy HPAs are measured.
func slowExtendedHPA(i int, o Options) *v2.HorizontalPodAutoscaler {
	h := v2.FromNative(hpa(i, o))
	h.APIVersion, h.Kind = v2.SchemeGroupVersion.String(), "HorizontalPodAutoscaler"
	h.Spec.Metrics[0].External.Fallback = &v2.ExternalMetricFallback{
		FailureDurationSeconds: ptr.To(int64(o.FallbackAfter / time.Second)),
		Replicas:               int32(o.podsPerHPA()),
		Strategy:               v2.FallbackStrategyStatic,
	}
	return h
}

// useExtendedSlowHPAs replaces the slow HPAs with their extended kind, or
// with extended false back with native ones. Neither controller runs
// meanwhile.
func (r *runner) useExtendedSlowHPAs(ctx context.Context, extended bool) error {
	o := r.opts
	client, err := hpaclient.New(r.cluster.RESTConfig())
	if err != nil {
		return err
	}
	for _, i := range slowHPAIndexes(o) {
		ns, name := o.namespaceOf(i), workloadName(i)
		natives := r.kube.AutoscalingV2().HorizontalPodAutoscalers(ns)
		if extended {
			err = ignoreNotFound(natives.Delete(ctx, name, metav1.DeleteOptions{}))
			if err == nil {
				_, err = client.Create(ctx, slowExtendedHPA(i, o))
			}
		} else {
			err = ignoreNotFound(client.Delete(ctx, ns, name, metav1.DeleteOptions{}))
			if err == nil {
				_, err = natives.Create(ctx, hpa(i, o), metav1.CreateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("replacing slow HPA %s/%s (extended %t): %w", ns, name, extended, err)
		}
	}
	return nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// fallbackWatch records when a watch first saw each slow HPA's
// ExternalMetricFallbackActive condition True.
type fallbackWatch struct {
	want     map[string]bool // the slow HPAs, by name
	mu       sync.Mutex
	seen     map[string]time.Time
	all      chan struct{} // closed once every one was seen
	stopCh   chan struct{}
	stopOnce sync.Once
}

// startFallbackWatch watches the extended HPAs of o's slow HPAs until
// stop.
func startFallbackWatch(ctx context.Context, cfg *rest.Config, o Options) (*fallbackWatch, error) {
	client, err := hpaclient.New(cfg)
	if err != nil {
		return nil, err
	}
	w := &fallbackWatch{want: map[string]bool{}, seen: map[string]time.Time{}, all: make(chan struct{}), stopCh: make(chan struct{})}
	for _, i := range slowHPAIndexes(o) {
		w.want[workloadName(i)] = true
	}
	// HPA names are unique across the workload's namespaces.
	informer := hpaclient.NewInformer(client, latencyNamespace(o), 0)
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.observe,
		UpdateFunc: func(_, cur any) { w.observe(cur) },
	}); err != nil {
		return nil, err
	}
	go informer.Run(w.stopCh)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		w.stop()
		return nil, fmt.Errorf("the extended HPA cache did not sync: %w", ctx.Err())
	}
	return w, nil
}

func (w *fallbackWatch) observe(obj any) {
	h, ok := obj.(*v2.HorizontalPodAutoscaler)
	if !ok || !fallbackActive(h.Status.Conditions) {
		return
	}
	at := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, dup := w.seen[h.Name]; !w.want[h.Name] || dup {
		return
	}
	w.seen[h.Name] = at
	if len(w.seen) == len(w.want) {
		close(w.all)
	}
}

// wait returns when each slow HPA was first seen in fallback, once every
// one was or at deadline.
func (w *fallbackWatch) wait(ctx context.Context, deadline time.Time) (map[string]time.Time, error) {
	select {
	case <-w.all:
	case <-time.After(time.Until(deadline)):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.seen), nil
}

func (w *fallbackWatch) stop() { w.stopOnce.Do(func() { close(w.stopCh) }) }

// fallbackActive says whether conditions say an External metric proposes
// its fallback.
func fallbackActive(conditions []autoscalingv2.HorizontalPodAutoscalerCondition) bool {
	for _, c := range conditions {
		if c.Type == v2.ExternalMetricFallbackActive {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// fallbackLateness sums up, out of want slow HPAs, how long after due
// each was seen in fallback (seen); one seen before due is early, and
// counts as negative.
func fallbackLateness(due time.Time, seen map[string]time.Time, want int) Latency {
	samples := make([]time.Duration, 0, len(seen))
	for _, at := range seen {
		samples = append(samples, at.Sub(due))
	}
	return summarize(samples, want)
}
