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
	"context"
	"reflect"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
)

// The fake clock moves while the resource metrics answer and while a
// scale is written, so that the times in the behavior history tell when
// each record was stamped.
const (
	metricsTook = 2 * time.Second
	writeTook   = 3 * time.Second
)

// historyCase is a pass over an HPA on a target at three replicas with
// pods at 100% of a 50% CPU target (the metrics ask for 6), and the
// behavior history it leaves, its times counted from the pass's start.
type historyCase struct {
	name     string
	behavior *v2.HorizontalPodAutoscalerBehavior
	spread   bool
	// setup changes the world before the pass.
	setup func(h *harness)
	want  wantHistory
}

// wantHistory is a behavior.History with times as offsets from the start
// of the pass.
type wantHistory struct {
	recommendations []recordedAt
	scaleUps        []recordedAt
	scaleDowns      []recordedAt
}

// recordedAt is a recommendation (replicas) or a scale event (change) and
// its offset from the start of the pass.
type recordedAt struct {
	n  int64
	at time.Duration
}

func (w wantHistory) at(start time.Time) behavior.History {
	var h behavior.History
	for _, r := range w.recommendations {
		h.Recommendations = append(h.Recommendations, behavior.Recommendation{Replicas: int32(r.n), At: start.Add(r.at)})
	}
	events := func(rs []recordedAt) []behavior.ScaleEvent {
		var out []behavior.ScaleEvent
		for _, r := range rs {
			out = append(out, behavior.ScaleEvent{Change: r.n, At: start.Add(r.at)})
		}
		return out
	}
	h.ScaleUps, h.ScaleDowns = events(w.scaleUps), events(w.scaleDowns)
	return h
}

func (tc historyCase) run(t *testing.T) {
	t.Helper()
	var h *harness
	opts := harnessOptions{spread: tc.spread, wrapMetrics: func(c metrics.Client) metrics.Client {
		return slowResourceMetrics{Client: c, step: func() { h.clock.Step(metricsTook) }}
	}}
	h = newHarness(t, withBehavior(newHPA(1, 10, cpuUtilization(50)), tc.behavior), opts)
	for _, step := range threeReplicas(cpuUsage(100, 100, 100)) {
		step(h)
	}
	if tc.setup != nil {
		tc.setup(h)
	}
	h.c.opts.ScaleClient = slowScaleWrites{ScalesGetter: h.c.opts.ScaleClient, step: func() { h.clock.Step(writeTook) }}
	start := h.clock.Now()

	// Some passes end in an error (failing metrics, an unreadable scale):
	// what they leave in the history is the point here.
	_ = h.reconcile(testHPAName)
	got := h.c.behavior.History(h.key(testHPAName).String())
	if want := tc.want.at(start); !reflect.DeepEqual(got, want) {
		t.Errorf("behavior history =\n  %+v\nwant\n  %+v", got, want)
	}
}

// TestAbandonedDecisionLeavesNoHistory pins that a decision abandoned on a
// scale update conflict writes nothing to the behavior history: the
// history holds the first recommendation and the recommendation and scale
// event of the decision that stands, stamped when that decision made them
// (after the abandoned one's write), as if the pass had read the fresh
// state in the first place.
func TestAbandonedDecisionLeavesNoHistory(t *testing.T) {
	conflict := func(writes int, person *int32) func(*harness) {
		return versioned(func(v *versionedScales) { v.concurrentWrites, v.concurrentReplicas = writes, person })
	}
	for _, tc := range []historyCase{
		{
			name: "without behavior: the person's 8 is the first recommendation, the fresh decision's 6 the only other",
			// The abandoned decision took 3 as the first recommendation and
			// recommended 6 at 2s; its write conflicted at 5s. The fresh
			// one reuses the metrics' answers and is stamped then.
			setup: conflict(1, ptr.To[int32](8)),
			want:  wantHistory{recommendations: []recordedAt{{8, 0}, {6, 5 * time.Second}}},
		},
		{
			name:     "with behavior: the fresh decision from the person's 4 is the only scale event",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			setup:    conflict(1, ptr.To[int32](4)),
			want: wantHistory{
				recommendations: []recordedAt{{4, 0}, {6, 5 * time.Second}},
				scaleUps:        []recordedAt{{2, 8 * time.Second}},
			},
		},
		{
			name:     "a conflict on every decision: the last one stands, with its recommendation alone",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			setup:    conflict(maxDecisions, nil),
			want:     wantHistory{recommendations: []recordedAt{{3, 0}, {6, 8 * time.Second}}},
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestPassCommitsItsHistory pins what a pass that is not abandoned leaves
// in the behavior history, and when: upstream's records (the first
// recommendation when the scale is read, even if the pass then ends; the
// recommendation once normalized; the scale event once written), stamped
// with the pass's start when reconciles are spread, else when each was
// made (reconcile.go's stamp).
func TestPassCommitsItsHistory(t *testing.T) {
	for _, tc := range []historyCase{
		{
			name:     "unspread: the recommendation when the metrics answered, the scale event when it was written",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			want: wantHistory{
				recommendations: []recordedAt{{3, 0}, {6, metricsTook}},
				scaleUps:        []recordedAt{{3, metricsTook + writeTook}},
			},
		},
		{
			name:     "spread: every record at the pass's start",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			spread:   true,
			want: wantHistory{
				recommendations: []recordedAt{{3, 0}, {6, 0}},
				scaleUps:        []recordedAt{{3, 0}},
			},
		},
		{
			name: "without behavior no scale event is recorded",
			want: wantHistory{recommendations: []recordedAt{{3, 0}, {6, metricsTook}}},
		},
		{
			name:     "failing metrics: the first recommendation alone, as upstream records it on reading the scale",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			setup:    cpuFails(errBoom),
			want:     wantHistory{recommendations: []recordedAt{{3, 0}}},
		},
		{
			name:     "an unreadable scale: nothing",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			setup:    func(h *harness) { h.scales.getErr = errBoom },
		},
		{
			name:     "above maxReplicas: the first recommendation and the clamp's scale event, without a recommendation",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			setup:    atScale(12, 12),
			want: wantHistory{
				recommendations: []recordedAt{{12, 0}},
				scaleDowns:      []recordedAt{{2, writeTook}},
			},
		},
		{
			name:     "paused at zero: the first recommendation alone",
			behavior: &v2.HorizontalPodAutoscalerBehavior{},
			setup:    atScale(0, 0),
			want:     wantHistory{recommendations: []recordedAt{{0, 0}}},
		},
	} {
		t.Run(tc.name, tc.run)
	}
}

// slowResourceMetrics calls step before each resource metric fetch.
type slowResourceMetrics struct {
	metrics.Client
	step func()
}

func (s slowResourceMetrics) GetResourceMetric(ctx context.Context, resource corev1.ResourceName, namespace string, selector labels.Selector, container string) (metrics.PodMetricsInfo, time.Time, error) {
	s.step()
	return s.Client.GetResourceMetric(ctx, resource, namespace, selector, container)
}

// slowScaleWrites calls step before each scale update.
type slowScaleWrites struct {
	scale.ScalesGetter
	step func()
}

func (s slowScaleWrites) Scales(namespace string) scale.ScaleInterface {
	return slowScaleWriter{ScaleInterface: s.ScalesGetter.Scales(namespace), step: s.step}
}

type slowScaleWriter struct {
	scale.ScaleInterface
	step func()
}

func (s slowScaleWriter) Update(ctx context.Context, gr schema.GroupResource, sc *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	s.step()
	return s.ScaleInterface.Update(ctx, gr, sc, opts)
}
