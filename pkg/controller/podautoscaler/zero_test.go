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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// Conditions that a pass leaves on every HPA it rescales through the
// metrics without a limit applying.
var (
	rescaled     = condTrue(autoscalingv2.AbleToScale, "SucceededRescale")
	gotScale     = condTrue(autoscalingv2.AbleToScale, "SucceededGetScale")
	validMetric  = condTrue(autoscalingv2.ScalingActive, "ValidMetricFound")
	withinRange  = condFalse(autoscalingv2.ScalingLimited, "DesiredWithinRange")
	disabled     = condFalse(autoscalingv2.ScalingActive, "ScalingDisabled")
	scaledToZero = condTrue(v2.ScaledToZero, "ScaledToZero")
	notScaledTo0 = condFalse(v2.ScaledToZero, "NotScaledToZero")
)

// zeroCase is one pass over an HPA whose target is at, or goes to, zero.
type zeroCase struct {
	name string
	// gate is HPAScaleToZero.
	gate bool
	hpa  *v2.HorizontalPodAutoscaler
	// spec and status are the target's spec.replicas and status.replicas;
	// readyPods is how many ready pods it has.
	spec, status int32
	readyPods    int
	external     map[string]metricstest.ExternalAnswer
	object       map[string]metricstest.ObjectAnswer

	// wantErr, when set, is a substring of the pass's error; the pass must
	// succeed when it is empty.
	wantErr      string
	wantUpdates  []int32
	wantDesired  int32
	wantConds    []wantCond
	wantEvents   []string
	wantNoFetch  bool
	wantReconcil string
	check        func(t *testing.T, hpa *v2.HorizontalPodAutoscaler)
}

func (tc zeroCase) run(t *testing.T) {
	h := newHarness(t, tc.hpa, noDownscaleWindow(withGates(features.HPAScaleToZero, tc.gate)))
	h.scales.setScale(tc.spec, tc.status, testSelector)
	h.addPods(tc.readyPods, 100)
	for name, a := range tc.external {
		h.metrics.SetExternal(name, a)
	}
	for name, a := range tc.object {
		h.metrics.SetObject(name, a)
	}

	err := h.reconcile(testHPAName)
	switch {
	case tc.wantErr == "" && err != nil:
		t.Fatalf("reconcile: %v", err)
	case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
		t.Fatalf("reconcile error = %v, want one containing %q", err, tc.wantErr)
	}
	h.assertUpdates(tc.wantUpdates...)
	hpa := h.hpa(testHPAName)
	if hpa.Status.CurrentReplicas != tc.spec || hpa.Status.DesiredReplicas != tc.wantDesired {
		t.Errorf("status current/desired = %d/%d, want %d/%d",
			hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas, tc.spec, tc.wantDesired)
	}
	assertConditions(t, hpa, tc.wantConds...)
	h.assertEvents(tc.wantEvents...)
	if reqs := h.metrics.Requests(); tc.wantNoFetch && len(reqs) != 0 {
		t.Errorf("metrics fetched %d times (%+v), want none", len(reqs), reqs)
	}
	if tc.wantReconcil != "" {
		if got := h.monitor.reconciliations; len(got) != 1 || got[0] != tc.wantReconcil {
			t.Errorf("reconciliations = %v, want [%s]", got, tc.wantReconcil)
		}
	}
	if tc.check != nil {
		tc.check(t, hpa)
	}
}

func scaledToZeroHPA(minReplicas, maxReplicas int32, metrics ...v2.MetricSpec) *v2.HorizontalPodAutoscaler {
	return withConditions(newHPA(minReplicas, maxReplicas, metrics...), scaledToZeroStatus(testStart.Add(-time.Hour)))
}

func TestScaleToZero(t *testing.T) {
	cases := []zeroCase{}
	for _, gate := range []bool{true, false} {
		// Scaling down to zero happens with the gate on or off (minReplicas 0
		// is the user's choice); only the condition depends on the gate.
		downConds := []wantCond{rescaled, validMetric, withinRange}
		if gate {
			downConds = append(downConds, scaledToZero)
		}
		cases = append(cases,
			zeroCase{
				name: "scales down to zero on an Object metric at zero",
				gate: gate, hpa: newHPA(0, 6, objectValue("qps", "20")),
				spec: 5, status: 5, readyPods: 5,
				object:      map[string]metricstest.ObjectAnswer{"qps": objOK(0)},
				wantUpdates: []int32{0}, wantDesired: 0, wantConds: downConds,
				wantEvents:   []string{"Normal SuccessfulRescale New size: 0; reason: All metrics below target"},
				wantReconcil: "scale_down/none",
			},
			zeroCase{
				name: "scales down to zero on an External Value metric at zero",
				gate: gate, hpa: newHPA(0, 6, externalValue("queue", "14400m")),
				spec: 5, status: 5, readyPods: 5,
				external:    map[string]metricstest.ExternalAnswer{"queue": extOK(0)},
				wantUpdates: []int32{0}, wantDesired: 0, wantConds: downConds,
				wantEvents: []string{"Normal SuccessfulRescale New size: 0; reason: All metrics below target"},
			},
			zeroCase{
				name: "scales down to zero on an External AverageValue metric at zero",
				gate: gate, hpa: newHPA(0, 6, externalAverage("queue", "3")),
				spec: 5, status: 5,
				external:    map[string]metricstest.ExternalAnswer{"queue": extOK(0)},
				wantUpdates: []int32{0}, wantDesired: 0, wantConds: downConds,
				wantEvents: []string{"Normal SuccessfulRescale New size: 0; reason: All metrics below target"},
			},
		)
	}
	for _, gate := range []bool{true, false} {
		// Rows where a person scaled the workload to zero (no condition):
		// paused whatever the gate and whatever the metrics say.
		cases = append(cases,
			zeroCase{
				name: "a manual scale to zero without the condition pauses the HPA with minReplicas 0",
				gate: gate, hpa: newHPA(0, 6, objectValue("qps", "15")),
				object:      map[string]metricstest.ObjectAnswer{"qps": objOK(20000)},
				wantDesired: 0, wantConds: []wantCond{gotScale, disabled}, wantNoFetch: true,
				wantReconcil: "none/none",
			},
			zeroCase{
				name: "a manual scale to zero without the condition pauses the HPA with minReplicas 1",
				gate: gate, hpa: newHPA(1, 6, cpuUtilization(50)),
				wantDesired: 0, wantConds: []wantCond{gotScale, disabled}, wantNoFetch: true,
			},
			zeroCase{
				name: "ScaledToZero=False at zero pauses the HPA",
				gate: gate,
				hpa: withConditions(newHPA(0, 6, externalValue("queue", "10")), autoscalingv2.HorizontalPodAutoscalerCondition{
					Type: v2.ScaledToZero, Status: corev1.ConditionFalse, Reason: "NotScaledToZero"}),
				external:    map[string]metricstest.ExternalAnswer{"queue": extOK(100000)},
				wantDesired: 0, wantNoFetch: true,
				wantConds: func() []wantCond {
					if gate {
						return []wantCond{gotScale, disabled, notScaledTo0}
					}
					return []wantCond{gotScale, disabled}
				}(),
			},
		)
	}
	cases = append(cases,
		zeroCase{
			name: "scales up from zero on an Object metric when ScaledToZero is True",
			gate: true, hpa: scaledToZeroHPA(0, 6, objectValue("qps", "15")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(20000)},
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds:    []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents:   []string{"Normal SuccessfulRescale New size: 2; reason: Deployment metric qps above target"},
			wantReconcil: "scale_up/none",
		},
		zeroCase{
			name: "scales up from zero on an External Value metric when ScaledToZero is True",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalValue("queue", "10")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(25000)},
			wantUpdates: []int32{3}, wantDesired: 3,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 3; reason: external metric queue(nil) above target"},
		},
		zeroCase{
			name: "gate off: the ScaledToZero condition is removed and the workload at zero stays paused",
			gate: false, hpa: scaledToZeroHPA(0, 6, objectValue("qps", "15")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(20000)},
			wantDesired: 0, wantConds: []wantCond{gotScale, disabled}, wantNoFetch: true,
			wantReconcil: "none/none",
		},
		zeroCase{
			name: "scale up from zero ignores tolerance: a ratio of exactly 1 brings one pod back",
			gate: true, hpa: scaledToZeroHPA(0, 6, objectValue("qps", "1")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(1000)},
			wantUpdates: []int32{1}, wantDesired: 1,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 1; reason: Deployment metric qps above target"},
		},
		zeroCase{
			name: "scale up from zero ignores tolerance: a tiny positive value brings one pod back",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalValue("queue", "10")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(1)},
			wantUpdates: []int32{1}, wantDesired: 1,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 1; reason: external metric queue(nil) above target"},
		},
		zeroCase{
			name: "scale up from zero ignores tolerance on an AverageValue target",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalAverage("queue", "10")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(1)},
			wantUpdates: []int32{1}, wantDesired: 1,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 1; reason: external metric queue(nil) above target"},
		},
		zeroCase{
			name: "scaled to zero with no demand stays at zero and keeps ScaledToZero",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalValue("queue", "10")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(0)},
			wantDesired: 0,
			// No rescale, so the condition keeps its status; stabilization
			// and limits report as for any pass that keeps the count.
			wantConds: []wantCond{scaledToZero, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, withinRange},
		},
		zeroCase{
			name: "one metric invalid at zero: the valid one scales up and the pass reports the error",
			gate: true, hpa: scaledToZeroHPA(0, 6, objectValue("qps", "15"), externalValue("queue", "10")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(20000)},
			wantErr:     "invalid metrics (1 invalid out of 2), first error is: failed to get object metric value",
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds: []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{
				`Warning FailedGetObjectMetric ~no metrics returned for Object metric "qps"`,
				"Normal SuccessfulRescale New size: 2; reason: external metric queue(nil) above target",
			},
			wantReconcil: "scale_up/internal",
		},
		zeroCase{
			name: "every metric invalid at zero: stays at zero, ScaledToZero kept",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalValue("queue", "10")),
			external: map[string]metricstest.ExternalAnswer{"queue": {Err: errBoom}},
			wantErr:  "failed to compute desired number of replicas based on listed metrics for Deployment/default/web: invalid metrics (1 invalid out of 1)",
			// The pass stops before the rescale step: desiredReplicas keeps
			// its last value (none yet).
			wantDesired: 0,
			wantConds:   []wantCond{scaledToZero, gotScale, condFalse(autoscalingv2.ScalingActive, "FailedGetExternalMetric")},
			wantEvents: []string{
				"Warning FailedGetExternalMetric ~adapter unavailable",
				"Warning FailedComputeMetricsReplicas ~invalid metrics (1 invalid out of 1), first error is: failed to get queue external metric value",
			},
		},
		zeroCase{
			name: "minReplicas raised from 0 to 2 while scaled to zero scales to 2",
			gate: true, hpa: scaledToZeroHPA(2, 6, objectValue("qps", "15")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(10000)},
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "TooFewReplicas")},
			wantEvents: []string{"Normal SuccessfulRescale New size: 2; reason: Deployment metric qps above target"},
		},
		zeroCase{
			name: "minReplicas raised from 0 to 2 while scaled to zero scales to 2 with no demand",
			gate: true, hpa: scaledToZeroHPA(2, 6, objectValue("qps", "15")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(0)},
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds: []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "TooFewReplicas")},
			// As upstream: the legacy rules already clamp to minReplicas,
			// so no step gives a reason.
			wantEvents: []string{"Normal SuccessfulRescale New size: 2; reason: "},
		},
		zeroCase{
			name: "minReplicas raised from 0 to 2 with the gate off stays paused",
			gate: false, hpa: scaledToZeroHPA(2, 6, objectValue("qps", "15")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(10000)},
			wantDesired: 0, wantConds: []wantCond{gotScale, disabled}, wantNoFetch: true,
		},
		zeroCase{
			name: "a normal rescale records ScaledToZero=False over a stale True",
			gate: true, hpa: scaledToZeroHPA(1, 6, externalAverage("queue", "10")),
			spec: 3, status: 3,
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(50000)},
			wantUpdates: []int32{5}, wantDesired: 5,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 5; reason: external metric queue(nil) above target"},
		},
		zeroCase{
			name: "gate off: a normal rescale removes a stale ScaledToZero",
			gate: false, hpa: scaledToZeroHPA(1, 6, externalAverage("queue", "10")),
			spec: 3, status: 3,
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(50000)},
			wantUpdates: []int32{5}, wantDesired: 5,
			wantConds:  []wantCond{rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 5; reason: external metric queue(nil) above target"},
		},
		zeroCase{
			name: "a scale down that stops above zero records ScaledToZero=False",
			gate: true, hpa: newHPA(0, 6, externalAverage("queue", "10")),
			spec: 5, status: 5,
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(20000)},
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 2; reason: All metrics below target"},
		},
		zeroCase{
			name: "a scale down to minReplicas 1 is not a scale to zero",
			gate: true, hpa: newHPA(1, 6, externalAverage("queue", "10")),
			spec: 5, status: 5,
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(0)},
			wantUpdates: []int32{1}, wantDesired: 1,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "TooFewReplicas")},
			wantEvents: []string{"Normal SuccessfulRescale New size: 1; reason: All metrics below target"},
		},
		zeroCase{
			name: "an AverageValue External target at zero status replicas reports the total, not 0/0",
			gate: true, hpa: scaledToZeroHPA(0, 6, externalAverage("queue", "10")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(25000)},
			wantUpdates: []int32{3}, wantDesired: 3,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 3; reason: external metric queue(nil) above target"},
			check: func(t *testing.T, hpa *v2.HorizontalPodAutoscaler) {
				got := externalStatusOf(t, hpa, "queue").Current.AverageValue
				if got == nil || got.String() != "25" {
					t.Errorf("status averageValue = %v, want 25 (the total, as one replica would carry it)", got)
				}
			},
		},
		zeroCase{
			name: "an AverageValue External target with pods not yet created (status 0) does not divide by zero",
			gate: true, hpa: newHPA(1, 6, externalAverage("queue", "10")),
			spec: 2, status: 0,
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(40000)},
			wantUpdates: []int32{4}, wantDesired: 4,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 4; reason: external metric queue(nil) above target"},
			check: func(t *testing.T, hpa *v2.HorizontalPodAutoscaler) {
				got := externalStatusOf(t, hpa, "queue").Current.AverageValue
				if got == nil || got.String() != "40" {
					t.Errorf("status averageValue = %v, want 40", got)
				}
			},
		},
		zeroCase{
			name: "an AverageValue Object target at zero status replicas reports the total, not 0/0",
			gate: true, hpa: scaledToZeroHPA(0, 6, objectAverage("qps", "10")),
			object:      map[string]metricstest.ObjectAnswer{"qps": objOK(15000)},
			wantUpdates: []int32{2}, wantDesired: 2,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, withinRange},
			wantEvents: []string{"Normal SuccessfulRescale New size: 2; reason: external metric qps(nil) above target"},
			check: func(t *testing.T, hpa *v2.HorizontalPodAutoscaler) {
				m := hpa.Status.CurrentMetrics
				if len(m) != 1 || m[0].Object == nil || m[0].Object.Current.AverageValue == nil ||
					m[0].Object.Current.AverageValue.String() != "15" {
					t.Errorf("status currentMetrics = %+v, want one Object entry with averageValue 15", m)
				}
			},
		},
		zeroCase{
			name: "the legacy scale-up limit from zero is 4 replicas",
			gate: true, hpa: scaledToZeroHPA(0, 20, externalValue("queue", "1")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(10000)},
			wantUpdates: []int32{4}, wantDesired: 4,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit")},
			wantEvents: []string{"Normal SuccessfulRescale New size: 4; reason: external metric queue(nil) above target"},
		},
		zeroCase{
			name: "maxReplicas bounds a scale up from zero",
			gate: true, hpa: scaledToZeroHPA(0, 3, externalValue("queue", "1")),
			external:    map[string]metricstest.ExternalAnswer{"queue": extOK(10000)},
			wantUpdates: []int32{3}, wantDesired: 3,
			wantConds:  []wantCond{notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "TooManyReplicas")},
			wantEvents: []string{"Normal SuccessfulRescale New size: 3; reason: external metric queue(nil) above target"},
		},
	)
	for _, tc := range cases {
		name := tc.name
		if !strings.Contains(name, "gate") {
			name += map[bool]string{true: " (HPAScaleToZero on)", false: " (HPAScaleToZero off)"}[tc.gate]
		}
		t.Run(name, tc.run)
	}
}

// TestScaleToZeroAndBack drives one HPA down to zero and back up through
// consecutive passes, as the metric falls to nothing and comes back.
func TestScaleToZeroAndBack(t *testing.T) {
	h := newHarness(t, newHPA(0, 10, externalAverage("queue", "10")), noDownscaleWindow(withGates(features.HPAScaleToZero, true)))
	h.scales.setScale(3, 3, testSelector)
	h.metrics.SetExternal("queue", extOK(0))

	h.mustReconcile()
	h.assertUpdates(0)
	hpa := h.hpa(testHPAName)
	assertConditions(t, hpa, scaledToZero, rescaled, validMetric, withinRange)
	if c := conditionOf(t, hpa, v2.ScaledToZero); c.Message != "the HPA controller scaled the workload to zero" || !c.LastTransitionTime.Time.Equal(testStart) {
		t.Errorf("ScaledToZero = %+v, want upstream's message at %v", c, testStart)
	}
	h.assertEvents("Normal SuccessfulRescale New size: 0; reason: All metrics below target")

	// The workload's pods are gone; nothing to do while the queue is empty.
	h.scales.setScale(0, 0, testSelector)
	h.clock.Step(15 * time.Second)
	h.mustReconcile()
	h.assertUpdates(0)
	assertConditions(t, h.hpa(testHPAName), scaledToZero, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, withinRange)
	h.assertEvents()

	// Work arrives: the HPA brings the workload back.
	h.metrics.SetExternal("queue", extOK(20000))
	h.clock.Step(15 * time.Second)
	h.mustReconcile()
	h.assertUpdates(0, 2)
	hpa = h.hpa(testHPAName)
	assertConditions(t, hpa, notScaledTo0, rescaled, validMetric, withinRange)
	if c := conditionOf(t, hpa, v2.ScaledToZero); c.Message != "the HPA controller did not scale the workload to zero" ||
		!c.LastTransitionTime.Time.Equal(testStart.Add(30*time.Second)) {
		t.Errorf("ScaledToZero = %+v, want upstream's message at the flip", c)
	}
	h.assertEvents("Normal SuccessfulRescale New size: 2; reason: external metric queue(nil) above target")

	// A person now sets the workload to zero: with ScaledToZero=False the
	// HPA is paused and asks no metric. (ScalingLimited is left as the last
	// pass that computed it wrote it, as upstream does.)
	h.scales.setScale(0, 0, testSelector)
	h.metrics.ResetRequests()
	h.clock.Step(15 * time.Second)
	h.mustReconcile()
	h.assertUpdates(0, 2)
	assertConditions(t, h.hpa(testHPAName), notScaledTo0, gotScale, disabled, withinRange)
	if n := len(h.metrics.Requests()); n != 0 {
		t.Errorf("metrics fetched %d times while paused, want none", n)
	}
}

// TestScaleFromZeroBehavior pins what spec.behavior allows in the step from
// zero, as upstream v1.36: a Percent policy counts from zero replicas and so
// allows none; a Pods policy adds its value; a recent scale-down to zero
// within the policy's period gives the base.
func TestScaleFromZeroBehavior(t *testing.T) {
	percent := func(value, period int32) []autoscalingv2.HPAScalingPolicy {
		return []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: value, PeriodSeconds: period}}
	}
	cases := []struct {
		name        string
		scaleUp     *autoscalingv2.HPAScalingRules
		want        int32
		wantLimited wantCond
	}{
		{
			name:        "a 100 percent policy alone keeps the workload at zero, as upstream",
			scaleUp:     &autoscalingv2.HPAScalingRules{Policies: percent(100, 15)},
			want:        0,
			wantLimited: condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"),
		},
		{
			name:        "a 900 percent policy alone keeps the workload at zero, as upstream",
			scaleUp:     &autoscalingv2.HPAScalingRules{Policies: percent(900, 15)},
			want:        0,
			wantLimited: condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"),
		},
		{
			name: "a Pods policy beside a Percent policy brings the workload back",
			scaleUp: &autoscalingv2.HPAScalingRules{Policies: append(percent(100, 15),
				autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: 8, PeriodSeconds: 15})},
			want:        8,
			wantLimited: withinRange,
		},
		{
			name: "a Pods policy adds its value to zero",
			scaleUp: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{
				{Type: autoscalingv2.PodsScalingPolicy, Value: 3, PeriodSeconds: 15}}},
			want:        3,
			wantLimited: condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"),
		},
		{
			name:        "upstream's default scale-up rules allow 4 from zero",
			scaleUp:     nil,
			want:        4,
			wantLimited: condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"),
		},
		{
			name:        "a Disabled scale-up keeps the workload at zero",
			scaleUp:     &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(autoscalingv2.DisabledPolicySelect), Policies: percent(100, 15)},
			want:        0,
			wantLimited: condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hpa := withBehavior(scaledToZeroHPA(0, 10, externalValue("queue", "1")),
				&v2.HorizontalPodAutoscalerBehavior{ScaleUp: tc.scaleUp})
			h := newHarness(t, hpa, withGates(features.HPAScaleToZero, true))
			h.scales.setScale(0, 0, testSelector)
			h.metrics.SetExternal("queue", extOK(8000))

			h.mustReconcile()
			got := h.hpa(testHPAName)
			if tc.want == 0 {
				h.assertUpdates()
				assertConditions(t, got, scaledToZero, condTrue(autoscalingv2.AbleToScale, "ReadyForNewScale"), validMetric, tc.wantLimited)
				return
			}
			h.assertUpdates(tc.want)
			assertConditions(t, got, notScaledTo0, rescaled, validMetric, tc.wantLimited)
		})
	}

	t.Run("a recent scale-down to zero within the policy period gives the percent base", func(t *testing.T) {
		hpa := withBehavior(newHPA(0, 10, externalAverage("queue", "1")), &v2.HorizontalPodAutoscalerBehavior{
			ScaleUp:   &autoscalingv2.HPAScalingRules{Policies: percent(100, 60)},
			ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Policies: percent(100, 60)},
		})
		h := newHarness(t, hpa, withGates(features.HPAScaleToZero, true))
		h.scales.setScale(3, 3, testSelector)
		h.metrics.SetExternal("queue", extOK(0))
		h.mustReconcile()
		h.assertUpdates(0)

		h.scales.setScale(0, 0, testSelector)
		h.metrics.SetExternal("queue", extOK(10000))
		h.clock.Step(15 * time.Second)
		h.mustReconcile()
		// 3 replicas 15 s ago, +100% over 60 s: 6.
		h.assertUpdates(0, 6)
		assertConditions(t, h.hpa(testHPAName), notScaledTo0, rescaled, validMetric, condTrue(autoscalingv2.ScalingLimited, "ScaleUpLimit"))
	})
}

// TestHasObjectOrExternalMetric pins which metrics can take a workload to
// and from zero (KEP-2021): Object and External only.
func TestHasObjectOrExternalMetric(t *testing.T) {
	cases := []struct {
		name    string
		metrics []v2.MetricSpec
		want    bool
	}{
		{name: "an Object metric", metrics: []v2.MetricSpec{objectValue("qps", "1")}, want: true},
		{name: "an External metric", metrics: []v2.MetricSpec{externalValue("queue", "1")}, want: true},
		{name: "an External metric after a Resource metric", metrics: []v2.MetricSpec{cpuUtilization(50), externalAverage("queue", "1")}, want: true},
		{name: "a Resource metric only", metrics: []v2.MetricSpec{cpuUtilization(50)}},
		{name: "no metrics", metrics: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := newHPA(0, 5, tc.metrics...).Spec.HasObjectOrExternalMetric(); got != tc.want {
				t.Errorf("hasObjectOrExternalMetric = %v, want %v", got, tc.want)
			}
		})
	}
}
