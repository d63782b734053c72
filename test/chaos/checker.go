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

package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Invariant names a row of the report.
type Invariant string

const (
	InvScaleOverPerson  Invariant = "scales written over a person's scale"
	InvNoPass           Invariant = "HPAs without a pass for more than two periods after recovery"
	InvScaledToZeroLost Invariant = "ScaledToZero lost"
	InvFallbackLate     Invariant = "fallback engaged later than its deadline plus one period (or never, or early)"
	InvPanic            Invariant = "panics (FailedReconcile events, panics in the replicas' logs)"
	InvRestart          Invariant = "replica restarts not caused by the run"
	InvLostStatus       Invariant = "lost status"
	InvWebhookCert      Invariant = "webhook not serving the rotated certificate"
)

// invariants is the order of the report's rows.
func invariants() []Invariant {
	return []Invariant{InvScaleOverPerson, InvNoPass, InvScaledToZeroLost, InvFallbackLate, InvPanic, InvRestart, InvLostStatus, InvWebhookCert}
}

// Violation is one breach of an invariant.
type Violation struct {
	Invariant Invariant
	At        time.Time
	Object    string
	Detail    string
}

// checker watches HPAs, Deployments and Events through the API server
// (informers, which list again after every lost watch) and records
// violations as they happen.
type checker struct {
	opts   Options
	groups map[string]Group

	mu         sync.Mutex
	violations []Violation
	// allowed are the replica counts a Deployment scaled by hand may have:
	// the person's last, and the next while that write is in flight.
	allowed map[string]map[int32]bool
	// replicas is the last spec.replicas seen of each Deployment.
	replicas map[string]int32
	// zeroSince is when an HPA was first seen ScaledToZero=True.
	zeroSince map[string]time.Time
	// hadStatus marks HPAs seen with conditions.
	hadStatus map[string]bool
	// lastScaleTime and observedGeneration, to see them go backwards.
	lastScaleTime map[string]time.Time
	observedGen   map[string]int64
	// fallbackSince is the lastTransitionTime of an HPA's
	// ExternalMetricFallbackActive=True already checked.
	fallbackSince map[string]time.Time
	// fallbackEngaged lists every engagement seen, per HPA.
	fallbackEngaged map[string][]time.Time
	// deferred are fallback deadlines that fell into a disruption: checked
	// at the end, once every window is known.
	deferred []fallbackCheck
	// events counts Warning events by reason.
	events map[string]int
	hpas   map[string]*v2.HorizontalPodAutoscaler
	deps   map[string]*appsv1.Deployment
	// windows is read by the fallback check.
	windows func() []window
}

type fallbackCheck struct {
	hpa              string
	engaged, first   time.Time
	deadline, latest time.Time
}

func newChecker(o Options, windows func() []window) *checker {
	c := &checker{
		opts: o, groups: map[string]Group{}, windows: windows,
		allowed: map[string]map[int32]bool{}, replicas: map[string]int32{}, zeroSince: map[string]time.Time{},
		hadStatus: map[string]bool{}, lastScaleTime: map[string]time.Time{}, observedGen: map[string]int64{},
		fallbackSince: map[string]time.Time{}, fallbackEngaged: map[string][]time.Time{}, events: map[string]int{},
		hpas: map[string]*v2.HorizontalPodAutoscaler{}, deps: map[string]*appsv1.Deployment{},
	}
	for i := range o.HPAs {
		name := workloadName(i)
		c.groups[name] = groupOf(i, o)
		c.allowed[name] = map[int32]bool{1: true}
	}
	return c
}

func (c *checker) violate(inv Invariant, object, format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violateLocked(inv, object, format, args...)
}

func (c *checker) violateLocked(inv Invariant, object, format string, args ...any) {
	c.violations = append(c.violations, Violation{Invariant: inv, At: time.Now(), Object: object, Detail: fmt.Sprintf(format, args...)})
}

// start runs the informers until ctx ends and waits for their first list.
func (c *checker) start(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface) error {
	f := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(Namespace))
	deps := f.Apps().V1().Deployments().Informer()
	if _, err := deps.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onDeployment(nil, obj.(*appsv1.Deployment)) },
		UpdateFunc: func(old, obj any) { c.onDeployment(old.(*appsv1.Deployment), obj.(*appsv1.Deployment)) },
	}); err != nil {
		return err
	}
	events := f.Core().V1().Events().Informer()
	if _, err := events.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onEvent(obj.(*corev1.Event)) },
		UpdateFunc: func(_, obj any) { c.onEvent(obj.(*corev1.Event)) },
	}); err != nil {
		return err
	}
	df := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, Namespace, nil)
	hpas := df.ForResource(v2.GroupVersionResource()).Informer()
	if _, err := hpas.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onHPA(obj) },
		UpdateFunc: func(_, obj any) { c.onHPA(obj) },
	}); err != nil {
		return err
	}
	f.Start(ctx.Done())
	df.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), deps.HasSynced, events.HasSynced, hpas.HasSynced) {
		return fmt.Errorf("the checker's informers did not sync")
	}
	return nil
}

// onDeployment checks a scale by hand: a Deployment scaled by hand may
// only take the replica counts the person gave it.
func (c *checker) onDeployment(old, d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		return
	}
	n := *d.Spec.Replicas
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deps[d.Name] = d
	prev, seen := c.replicas[d.Name]
	c.replicas[d.Name] = n
	if !seen || prev == n || !scaledByHand(c.groups[d.Name]) {
		return
	}
	if !c.allowed[d.Name][n] {
		c.violateLocked(InvScaleOverPerson, d.Name, "replicas %d -> %d, the person's scale was %v (resourceVersion %s, generation %d)",
			prev, n, keys(c.allowed[d.Name]), d.ResourceVersion, d.Generation)
	}
}

func keys(m map[int32]bool) []int32 {
	var out []int32
	for k := range m {
		out = append(out, k)
	}
	return out
}

// handScale records that the person is about to set name to n.
func (c *checker) handScaleBegin(name string, n int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.allowed[name][n] = true
}

// handScaleDone records that the person's write of n went through: from
// now on only n stands.
func (c *checker) handScaleDone(name string, n int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.allowed[name] = map[int32]bool{n: true}
}

// currentReplicas is the last spec.replicas seen of name.
func (c *checker) currentReplicas(name string) (int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.replicas[name]
	return n, ok
}

func (c *checker) onEvent(e *corev1.Event) {
	if e.Type != corev1.EventTypeWarning {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events[e.Reason]++
	if e.Reason == "FailedReconcile" {
		c.violateLocked(InvPanic, e.InvolvedObject.Name, "event FailedReconcile: %s", e.Message)
	}
}

func condition(h *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range h.Status.Conditions {
		if h.Status.Conditions[i].Type == t {
			return &h.Status.Conditions[i]
		}
	}
	return nil
}

func (c *checker) onHPA(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	h := &v2.HorizontalPodAutoscaler{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, h); err != nil {
		return
	}
	name := h.Name
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hpas[name] = h
	// Lost status: conditions that were there and are gone, a last scale
	// time or an observed generation that goes back.
	if len(h.Status.Conditions) > 0 {
		c.hadStatus[name] = true
	} else if c.hadStatus[name] {
		c.violateLocked(InvLostStatus, name, "status lost its conditions (resourceVersion %s)", h.ResourceVersion)
	}
	if h.Status.LastScaleTime != nil {
		t := h.Status.LastScaleTime.Time
		if prev, ok := c.lastScaleTime[name]; ok && t.Before(prev) {
			c.violateLocked(InvLostStatus, name, "lastScaleTime went back from %s to %s", prev.Format(time.RFC3339), t.Format(time.RFC3339))
		}
		c.lastScaleTime[name] = t
	} else if _, ok := c.lastScaleTime[name]; ok {
		c.violateLocked(InvLostStatus, name, "lastScaleTime lost")
	}
	if g := h.Status.ObservedGeneration; g != nil {
		if prev, ok := c.observedGen[name]; ok && *g < prev {
			c.violateLocked(InvLostStatus, name, "observedGeneration went back from %d to %d", prev, *g)
		}
		c.observedGen[name] = *g
	}
	switch c.groups[name] {
	case GroupZero:
		c.checkZero(h)
	case GroupFallback:
		c.checkFallback(h)
	}
}

// checkZero: once the controller scaled the HPA to zero (ScaledToZero
// True), the condition stays while the metric stays at zero, which it does
// for the whole run.
func (c *checker) checkZero(h *v2.HorizontalPodAutoscaler) {
	cond := condition(h, v2.ScaledToZero)
	on := cond != nil && cond.Status == "True"
	if since, ok := c.zeroSince[h.Name]; ok && !on {
		state := "absent"
		if cond != nil {
			state = fmt.Sprintf("%s (%s: %s)", cond.Status, cond.Reason, cond.Message)
		}
		c.violateLocked(InvScaledToZeroLost, h.Name, "ScaledToZero True since %s is now %s, currentReplicas %d", since.Format(time.RFC3339), state, h.Status.CurrentReplicas)
		delete(c.zeroSince, h.Name)
		return
	}
	if on {
		if _, ok := c.zeroSince[h.Name]; !ok {
			c.zeroSince[h.Name] = cond.LastTransitionTime.Time
		}
	}
}

// checkFallback: when ExternalMetricFallbackActive turns True, that is no
// earlier than the metric's firstFailureTime plus failureDurationSeconds,
// and no later than that deadline plus one period (a deadline within a
// disruption moves to two periods after its recovery).
func (c *checker) checkFallback(h *v2.HorizontalPodAutoscaler) {
	cond := condition(h, v2.ExternalMetricFallbackActive)
	if cond == nil || cond.Status != "True" {
		return
	}
	engaged := cond.LastTransitionTime.Time
	if prev, ok := c.fallbackSince[h.Name]; ok && prev.Equal(engaged) {
		return
	}
	c.fallbackSince[h.Name] = engaged
	c.fallbackEngaged[h.Name] = append(c.fallbackEngaged[h.Name], engaged)
	var first time.Time
	for _, m := range h.Status.CurrentMetrics {
		if m.External != nil && m.External.FirstFailureTime != nil {
			first = m.External.FirstFailureTime.Time
		}
	}
	if first.IsZero() {
		c.violateLocked(InvFallbackLate, h.Name, "fallback engaged at %s without a firstFailureTime", engaged.Format(time.RFC3339))
		return
	}
	deadline := first.Add(c.opts.FallbackAfter)
	// Times in the API have whole seconds.
	if engaged.Before(deadline.Add(-time.Second)) {
		c.violateLocked(InvFallbackLate, h.Name, "fallback engaged early at %s, first failure %s + %v", engaged.Format(time.RFC3339), first.Format(time.RFC3339), c.opts.FallbackAfter)
		return
	}
	latest := deadline.Add(c.opts.SyncPeriod + time.Second)
	if engaged.After(latest) {
		// Whether a disruption excuses it is known only once it has
		// recovered: look again at the end.
		c.deferred = append(c.deferred, fallbackCheck{hpa: h.Name, engaged: engaged, first: first, deadline: deadline, latest: latest})
	}
}

// finishFallback checks the deferred engagements against the disruption
// windows, now complete.
func (c *checker) finishFallback(ws []window) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.deferred {
		latest := excusedDeadline(d.latest, ws, 2*c.opts.SyncPeriod)
		if d.engaged.After(latest) {
			c.violateLocked(InvFallbackLate, d.hpa, "fallback engaged at %s, first failure %s, deadline %s, latest allowed %s (%v late)",
				d.engaged.Format(time.RFC3339), d.first.Format(time.RFC3339), d.deadline.Format(time.RFC3339), latest.Format(time.RFC3339), d.engaged.Sub(latest))
		}
	}
}

// excusedDeadline moves a deadline that falls within a disruption window
// (or before its recovery) to grace after the window's recovery.
func excusedDeadline(deadline time.Time, ws []window, grace time.Duration) time.Time {
	for changed := true; changed; {
		changed = false
		for _, w := range ws {
			if !w.start.After(deadline) && w.end.Add(grace).After(deadline) {
				deadline = w.end.Add(grace)
				changed = true
			}
		}
	}
	return deadline
}
