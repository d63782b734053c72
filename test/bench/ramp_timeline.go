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
	"math"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// RampResult is the ramp: the cases and each controller's timelines.
type RampResult struct {
	SyncPeriod string `json:"syncPeriod"`
	// HoldSeconds is the longest the metrics stayed raised; a controller's
	// ramp ends sooner once every Deployment has its target.
	HoldSeconds float64          `json:"holdSeconds"`
	Cases       []RampCase       `json:"cases"`
	Controllers []RampController `json:"controllers"`
}

// RampCase is one Deployment of the ramp as the result describes it.
type RampCase struct {
	Name        string `json:"name"`
	Behavior    string `json:"behavior"`
	MinReplicas int32  `json:"minReplicas"`
	Target      int32  `json:"targetReplicas"`
	// UpstreamSteps are the counts upstream's rules allow, one per pass.
	UpstreamSteps []int32 `json:"upstreamSteps"`
}

// RampController is one controller's ramp: a timeline per case, in the
// order of Cases.
type RampController struct {
	Name      string         `json:"name"`
	Timelines []RampTimeline `json:"timelines"`
}

// RampTimeline is one Deployment's climb after the metric change.
type RampTimeline struct {
	Name string `json:"name"`
	// Steps are the replica counts the Deployment took after the change,
	// in order, each with the time it first appeared.
	Steps []RampStep `json:"steps"`
	// Reached says it got to its target, FinalSeconds after the change.
	Reached      bool    `json:"reached"`
	FinalSeconds float64 `json:"finalSeconds"`
}

// RampStep is one replica count and the seconds from the metric change to
// the watch seeing it in spec.replicas.
type RampStep struct {
	Replicas int32   `json:"replicas"`
	Seconds  float64 `json:"seconds"`
}

// At is the seconds from the change to count n, NaN when the Deployment
// never took it.
func (t RampTimeline) At(n int32) float64 {
	for _, s := range t.Steps {
		if s.Replicas == n {
			return s.Seconds
		}
	}
	return math.NaN()
}

// Final is FinalSeconds, NaN when the target was not reached.
func (t RampTimeline) Final() float64 {
	if !t.Reached {
		return math.NaN()
	}
	return t.FinalSeconds
}

// Climb is the time from the first step to the target: the pace of the
// ramp without the wait for the first pass after the change.
func (t RampTimeline) Climb() float64 {
	if !t.Reached || len(t.Steps) == 0 {
		return math.NaN()
	}
	return t.FinalSeconds - t.Steps[0].Seconds
}

// replicaEvent is spec.replicas of one Deployment as a watch saw it.
type replicaEvent struct {
	at       time.Time
	replicas int32
}

// rampTimeline reads one Deployment's events: every new count after
// changed, in order, and when the target first appeared.
func rampTimeline(name string, events []replicaEvent, changed time.Time, target int32) RampTimeline {
	t := RampTimeline{Name: name}
	seen := map[int32]bool{}
	for _, e := range events {
		if e.at.Before(changed) || seen[e.replicas] {
			continue
		}
		seen[e.replicas] = true
		secs := e.at.Sub(changed).Seconds()
		t.Steps = append(t.Steps, RampStep{Replicas: e.replicas, Seconds: secs})
		if e.replicas == target && !t.Reached {
			t.Reached, t.FinalSeconds = true, secs
		}
	}
	return t
}

// replicaWatch records every change of spec.replicas of the Deployments
// of the namespace.
type replicaWatch struct {
	mu     sync.Mutex
	events map[string][]replicaEvent
	stop   func()
}

func (w *replicaWatch) observe(obj any) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok || d.Spec.Replicas == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	events := w.events[d.Name]
	if n := len(events); n > 0 && events[n-1].replicas == *d.Spec.Replicas {
		return
	}
	w.events[d.Name] = append(events, replicaEvent{at: now, replicas: *d.Spec.Replicas})
}

// watchReplicas starts a replicaWatch and waits until it has seen every
// Deployment once.
func watchReplicas(ctx context.Context, kube kubernetes.Interface) (*replicaWatch, error) {
	w := &replicaWatch{events: map[string][]replicaEvent{}}
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(Namespace))
	informer := factory.Apps().V1().Deployments().Informer()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    w.observe,
		UpdateFunc: func(_, cur any) { w.observe(cur) },
	}); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	w.stop = func() { close(done); factory.Shutdown() }
	factory.Start(done)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		w.stop()
		return nil, fmt.Errorf("the Deployment cache did not sync: %w", ctx.Err())
	}
	return w, nil
}

// timelines reads every case's timeline from the change on.
func (w *replicaWatch) timelines(changed time.Time) []RampTimeline {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]RampTimeline, len(rampCases))
	for i, c := range rampCases {
		out[i] = rampTimeline(c.name, w.events[c.name], changed, c.target)
	}
	return out
}

// allReached says whether every case got to its target after the change.
func (w *replicaWatch) allReached(changed time.Time) bool {
	for _, t := range w.timelines(changed) {
		if !t.Reached {
			return false
		}
	}
	return true
}
