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
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

func TestParityScaleTarget(t *testing.T) {
	cpuAt100 := threeReplicas(cpuUsage(100, 100, 100))
	failedGetScale := func(cause string) wantCond {
		return wantCond{autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
			"the HPA controller was unable to get the target's current scale: " + cause}
	}
	runParity(t, []parityScenario{
		{
			name: "an invalid API version in scaleTargetRef fails with FailedGetScale and a spec error",
			hpa: edited(newHPA(1, 10, cpuUtilization(50)), func(hpa *v2.HorizontalPodAutoscaler) {
				hpa.Spec.ScaleTargetRef.APIVersion = "apps/v1/beta"
			}),
			setup: cpuAt100,
			want: parityOutcome{
				err:             "invalid API version in scale target reference: unexpected GroupVersion string: apps/v1/beta",
				spec:            true,
				conditions:      []wantCond{failedGetScale("unexpected GroupVersion string: apps/v1/beta")},
				events:          []string{"Warning FailedGetScale unexpected GroupVersion string: apps/v1/beta"},
				reconciliations: []string{"none/spec"},
				statusWrites:    1,
			},
		},
		{
			name: "an unknown target kind fails with FailedGetScale from the REST mapping",
			hpa: edited(newHPA(1, 10, cpuUtilization(50)), func(hpa *v2.HorizontalPodAutoscaler) {
				hpa.Spec.ScaleTargetRef.APIVersion, hpa.Spec.ScaleTargetRef.Kind = "example.com/v1", "Widget"
			}),
			setup: cpuAt100,
			want: parityOutcome{
				err:             `unable to determine resource for scale target reference: no matches for kind "Widget" in group "example.com"`,
				conditions:      []wantCond{failedGetScale(`no matches for kind "Widget" in group "example.com"`)},
				events:          []string{`Warning FailedGetScale no matches for kind "Widget" in group "example.com"`},
				reconciliations: []string{"none/internal"},
				statusWrites:    1,
			},
		},
		{
			name:  "a failing scale read fails with FailedGetScale and an internal error",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), func(h *harness) { h.scales.getErr = errBoom }),
			want: parityOutcome{
				err:             "failed to query scale subresource for " + targetRef + ": adapter unavailable",
				conditions:      []wantCond{failedGetScale("adapter unavailable")},
				events:          []string{"Warning FailedGetScale adapter unavailable"},
				reconciliations: []string{"none/internal"},
				statusWrites:    1,
			},
		},
		{
			name: "a missing target fails with FailedGetScale naming it",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			want: parityOutcome{
				err:             "failed to query scale subresource for " + targetRef + `: deployments.apps "web" not found`,
				conditions:      []wantCond{failedGetScale(`deployments.apps "web" not found`)},
				events:          []string{`Warning FailedGetScale deployments.apps "web" not found`},
				reconciliations: []string{"none/internal"},
				statusWrites:    1,
			},
		},
		{
			name:  "replicas above maxReplicas are brought down to it without asking the metrics",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: []func(*harness){atScale(12, 12), readyPods(3), cpuUsage(100, 100, 100)},
			want: parityOutcome{
				updates: []int32{10},
				current: 12, desired: 10,
				conditions:      []wantCond{condRescaled(10), condNotScaledToZero},
				events:          []string{rescaleEvent(10, "Current number of replicas above Spec.MaxReplicas")},
				reconciliations: []string{"scale_down/none"},
				statusWrites:    1,
				lastScaleTime:   testStart,
			},
			check: noMetricsAsked,
		},
		{
			name:  "replicas below minReplicas are brought up to it without asking the metrics",
			hpa:   newHPA(2, 10, cpuUtilization(50)),
			setup: []func(*harness){atScale(1, 1), readyPods(3), cpuUsage(10, 10, 10)},
			want: parityOutcome{
				updates: []int32{2},
				current: 1, desired: 2,
				conditions:      []wantCond{condRescaled(2), condNotScaledToZero},
				events:          []string{rescaleEvent(2, "Current number of replicas below Spec.MinReplicas")},
				reconciliations: []string{"scale_up/none"},
				statusWrites:    1,
				lastScaleTime:   testStart,
			},
			check: noMetricsAsked,
		},
		{
			name:  "an update conflict is decided again from a fresh read and succeeds",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), func(h *harness) { h.scales.conflicts = 2 }),
			want:  scaledUpFromThree(6, cpuUtilizationName, []string{"scale_up/none/Resource"}, cpuUtilizationStatus(100, 100)),
		},
		{
			name: "a concurrent write between the read and the update is decided again from a fresh read",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), versioned(func(v *versionedScales) {
				v.concurrentWrites = 2
			})),
			want: scaledUpFromThree(6, cpuUtilizationName, []string{"scale_up/none/Resource"}, cpuUtilizationStatus(100, 100)),
		},
		{
			name: "a failed re-read after a conflict ends the pass as a failed read, without writing the decision made before",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(100, 100, 100), versioned(func(v *versionedScales) {
				v.failGetsAfter = 1
				v.f.conflicts = 1
			})),
			want: parityOutcome{
				err:     "failed to query scale subresource for " + targetRef + ": adapter unavailable",
				current: 3, desired: 3,
				conditions: []wantCond{
					{autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: adapter unavailable"},
				},
				events:          []string{"Warning FailedGetScale adapter unavailable"},
				reconciliations: []string{"none/internal"},
				statusWrites:    1,
			},
		},
		{
			name:  "a failing update reports FailedRescale and FailedUpdateScale, writes current replicas and keeps the last desired count",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedStatus(func(st *v2.HorizontalPodAutoscalerStatus) { st.CurrentReplicas, st.DesiredReplicas = 2, 2 }), cpuUsage(100, 100, 100), func(h *harness) { h.scales.updateErr = errBoom }),
			want: parityOutcome{
				err:     "failed to rescale " + targetRef + ": adapter unavailable",
				current: 3, desired: 2,
				metrics: []v2.MetricStatus{cpuUtilizationStatus(100, 100)},
				conditions: []wantCond{
					{autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: adapter unavailable"},
					condValidMetric(cpuUtilizationName), condWithinRange,
				},
				events:          []string{"Warning FailedRescale New size: 6; reason: " + cpuUtilizationName + " above target; error: adapter unavailable"},
				reconciliations: []string{"none/internal"},
				computations:    []string{"scale_up/none/Resource"},
				statusWrites:    1,
			},
		},
		{
			name:  "a target that changes under every decision fails the update after maxDecisions, as upstream fails its one",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(100, 100, 100), func(h *harness) { h.scales.conflicts = 100 }),
			want: parityOutcome{
				err:     "failed to rescale " + targetRef + `: Operation cannot be fulfilled on deployments.apps "web": the object has been modified`,
				current: 3, desired: 3,
				metrics: []v2.MetricStatus{cpuUtilizationStatus(100, 100)},
				conditions: []wantCond{
					{autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale",
						`the HPA controller was unable to update the target scale: Operation cannot be fulfilled on deployments.apps "web": the object has been modified`},
					condValidMetric(cpuUtilizationName), condWithinRange,
				},
				events: []string{"Warning FailedRescale New size: 6; reason: " + cpuUtilizationName +
					` above target; error: Operation cannot be fulfilled on deployments.apps "web": the object has been modified`},
				reconciliations: []string{"none/internal"},
				computations:    []string{"scale_up/none/Resource"},
				statusWrites:    1,
			},
			check: func(t *testing.T, h *harness) {
				if attempts := 100 - h.scales.conflicts; attempts != maxDecisions {
					t.Errorf("update attempts = %d, want one per decision, %d", attempts, maxDecisions)
				}
			},
		},
	})
}

func noMetricsAsked(t *testing.T, h *harness) {
	t.Helper()
	if reqs := h.metrics.Requests(); len(reqs) != 0 {
		t.Errorf("metrics asked %+v, want none", reqs)
	}
}

func TestParitySelectors(t *testing.T) {
	selectorFailure := func(reason, event, condMessage, err string) parityOutcome {
		return parityOutcome{
			err:     "failed to compute desired number of replicas based on listed metrics for " + targetRef + ": " + err,
			current: 3, desired: 3,
			conditions: []wantCond{
				condGotScale,
				{autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, condMessage},
			},
			events:          []string{event, "Warning FailedComputeMetricsReplicas " + err},
			reconciliations: []string{"none/internal"},
			statusWrites:    1,
		}
	}
	const unparsable = "couldn't convert selector into a corresponding internal selector object: unable to parse requirement: found '', expected: ',' or ')'"
	const ambiguous = "pods by selector app=web are controlled by more than one HPA (e.g. [default/web default/web-canary])"
	const ambiguousAll = "pods by selector app=web are controlled by more than one HPA (e.g. [default/web default/web-canary default/web-shadow])"
	threeOwners := func(h *harness) {
		for _, name := range []string{"web-canary", "web-shadow"} {
			addOtherHPA(h, testNamespace, name, testTarget, 1, 10, cpuUtilization(50))
			reconcileOther(h, testNamespace, name)
		}
		forgetObservations(h)
	}
	const sameNameAmbiguous = "pods by selector app=web are controlled by more than one HPA (e.g. [default/web default/web])"
	held := parityOutcome{
		current: 3, desired: 3,
		metrics:         []v2.MetricStatus{cpuUtilizationStatus(50, 50)},
		conditions:      []wantCond{condReadyForNewScale, condValidMetric(cpuUtilizationName), condWithinRange},
		reconciliations: []string{"none/none"},
		computations:    []string{"none/none/Resource"},
		statusWrites:    1,
	}

	runParity(t, []parityScenario{
		{
			name:  "a scale without a selector reports SelectorRequired and InvalidSelector",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: []func(*harness){atScaleWithSelector(3, 3, ""), readyPods(3), cpuUsage(100, 100, 100), storedReplicas(3)},
			want: selectorFailure("InvalidSelector", "Warning SelectorRequired selector is required",
				"the HPA target's scale is missing a selector", "selector is required"),
			check: noMetricsAsked,
		},
		{
			name:  "an unparsable selector reports InvalidSelector",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: []func(*harness){atScaleWithSelector(3, 3, "app in (web"), readyPods(3), cpuUsage(100, 100, 100), storedReplicas(3)},
			want:  selectorFailure("InvalidSelector", "Warning InvalidSelector "+unparsable, unparsable, unparsable),
			check: noMetricsAsked,
		},
		{
			name: "two HPAs of one namespace selecting the same pods are refused with AmbiguousSelector",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), func(h *harness) {
				addOtherHPA(h, testNamespace, "web-canary", testTarget, 1, 10, cpuUtilization(50))
				reconcileOther(h, testNamespace, "web-canary")
				forgetObservations(h)
			}),
			want:  selectorFailure("AmbiguousSelector", "Warning AmbiguousSelector "+ambiguous, ambiguous, ambiguous),
			check: noMetricsAsked,
		},
		{
			name: "a native HPA of the same name is listed as namespace/name, as upstream lists HPAs",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), func(h *harness) {
				native := newFakeSource()
				h.c.opts.Sources = append(h.c.opts.Sources, native)
				twin := newHPA(1, 10, cpuUtilization(50))
				native.set(twin)
				h.c.onAdd(1, twin)
				_, _, _ = h.c.reconcileKey(h.ctx, hpaKey{source: 1, namespace: testNamespace, name: testHPAName})
				forgetObservations(h)
			}),
			want:  selectorFailure("AmbiguousSelector", "Warning AmbiguousSelector "+sameNameAmbiguous, sameNameAmbiguous, sameNameAmbiguous),
			check: noMetricsAsked,
		},
		{
			name:  "three HPAs on the same pods: the optimized store names two of them (v1.37, gate on)",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), threeOwners),
			want:  selectorFailure("AmbiguousSelector", "Warning AmbiguousSelector "+ambiguous, ambiguous, ambiguous),
			check: noMetricsAsked,
		},
		{
			name:  "three HPAs on the same pods: the legacy store names them all (gate off)",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			opts:  withGates(features.HPAOptimizedSelectorStore, false),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), threeOwners),
			want:  selectorFailure("AmbiguousSelector", "Warning AmbiguousSelector "+ambiguousAll, ambiguousAll, ambiguousAll),
			check: noMetricsAsked,
		},
		{
			name: "an HPA whose selector matches only some of the pods is ambiguous too",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), func(h *harness) {
				pod := readyPod("web-3", 100, testStart.Add(-time.Hour))
				pod.Labels["track"] = "canary"
				h.addPod(pod)
				addScale(h, testNamespace, "canary", 1, "track=canary")
				addOtherHPA(h, testNamespace, "web-canary", "canary", 1, 10, cpuUtilization(50))
				reconcileOther(h, testNamespace, "web-canary")
				forgetObservations(h)
			}),
			want:  selectorFailure("AmbiguousSelector", "Warning AmbiguousSelector "+ambiguous, ambiguous, ambiguous),
			check: noMetricsAsked,
		},
		{
			name: "HPAs of one namespace with disjoint selectors are not ambiguous",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), func(h *harness) {
				addScale(h, testNamespace, "api", 1, "app=api")
				addOtherHPA(h, testNamespace, "api", "api", 1, 10, cpuUtilization(50))
				reconcileOther(h, testNamespace, "api")
				forgetObservations(h)
			}),
			want: held,
		},
		{
			name: "an HPA of another namespace with the same selector is not ambiguous",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), func(h *harness) {
				addScale(h, "staging", testTarget, 3, testSelector)
				addOtherHPA(h, "staging", testHPAName, testTarget, 1, 10, cpuUtilization(50))
				reconcileOther(h, "staging", testHPAName)
				forgetObservations(h)
			}),
			want: held,
		},
		{
			name: "a deleted HPA no longer makes the selector ambiguous",
			hpa:  newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50), func(h *harness) {
				addOtherHPA(h, testNamespace, "web-canary", testTarget, 1, 10, cpuUtilization(50))
				reconcileOther(h, testNamespace, "web-canary")
				other, _, _ := h.source.Get(testNamespace, "web-canary")
				h.source.delete(testNamespace, "web-canary")
				h.c.onDelete(0, other)
				forgetObservations(h)
			}),
			want: held,
		},
	})
}

func TestParityStatusWrites(t *testing.T) {
	held := func(writes int, reconciliations ...string) parityOutcome {
		computations := make([]string, len(reconciliations))
		for i := range computations {
			computations[i] = "none/none/Resource"
		}
		return parityOutcome{
			current: 3, desired: 3,
			metrics:         []v2.MetricStatus{cpuUtilizationStatus(50, 50)},
			conditions:      []wantCond{condReadyForNewScale, condValidMetric(cpuUtilizationName), condWithinRange},
			reconciliations: reconciliations,
			computations:    computations,
			statusWrites:    writes,
		}
	}
	runParity(t, []parityScenario{
		{
			name:  "a second identical pass writes no status",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50)),
			run:   passesEvery(2, 15*time.Second),
			want:  held(1, "none/none", "none/none"),
		},
		{
			name:  "a pass after a rescale writes status again only when something changed",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50)),
			run: func(h *harness) error {
				if err := passesEvery(3, 15*time.Second)(h); err != nil {
					return err
				}
				h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(60, 60, 60))
				h.clock.Step(15 * time.Second)
				if err := h.reconcile(testHPAName); err != nil {
					return err
				}
				h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(50, 50, 50))
				h.clock.Step(15 * time.Second)
				return h.reconcile(testHPAName)
			},
			// Passes 1-3 hold at 50% (one write); the fourth sees 60%, beyond
			// the tolerance, and scales to 4 (a write); the fifth sees 50%
			// again and holds at 4, but current replicas and the metric
			// changed (a write). Its proposal of 4 is above the stored
			// currentReplicas of 3, hence its scale_up computation label.
			want: parityOutcome{
				updates: []int32{4},
				current: 4, desired: 4,
				metrics: []v2.MetricStatus{cpuUtilizationStatus(50, 50)},
				conditions: []wantCond{condReadyForNewScale, condValidMetric(cpuUtilizationName), condWithinRange,
					condNotScaledToZero},
				events:          []string{rescaleEvent(4, cpuUtilizationName+" above target")},
				reconciliations: []string{"none/none", "none/none", "none/none", "scale_up/none", "none/none"},
				computations:    []string{"none/none/Resource", "none/none/Resource", "none/none/Resource", "scale_up/none/Resource", "scale_up/none/Resource"},
				statusWrites:    3,
				lastScaleTime:   afterStart(45 * time.Second),
			},
		},
		{
			name:  "a failing status write reports FailedUpdateStatus after scaling",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), func(h *harness) { h.source.updateErr = errBoom }),
			want: parityOutcome{
				err:     "failed to update status for web: adapter unavailable",
				updates: []int32{6},
				events: []string{
					rescaleEvent(6, cpuUtilizationName+" above target"),
					"Warning FailedUpdateStatus adapter unavailable",
				},
				reconciliations: []string{"scale_up/internal"},
				computations:    []string{"scale_up/none/Resource"},
			},
		},
		{
			name:  "a failing status write after a failed metric joins both errors",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuFails(errBoom), func(h *harness) { h.source.updateErr = errBoom }),
			want: parityOutcome{
				err: metricsFailureMsg(1, 1, "failed to get cpu resource metric value: "+cpuCause) +
					"\nfailed to update status for web: adapter unavailable",
				events: []string{
					"Warning FailedGetResourceMetric " + cpuCause,
					// Upstream writes status before it records the failure.
					"Warning FailedUpdateStatus adapter unavailable",
					"Warning FailedComputeMetricsReplicas " + invalidMetricsMsg(1, 1, "failed to get cpu resource metric value: "+cpuCause),
				},
				reconciliations: []string{"none/internal"},
				computations:    []string{"none/internal/Resource"},
			},
		},
		{
			name:  "a condition keeps its transition time while its status holds and moves it on a flip",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(storedReplicas(3), cpuUsage(50, 50, 50)),
			run: func(h *harness) error {
				_ = passesEvery(2, 15*time.Second)(h)
				cpuFails(errBoom)(h)
				h.clock.Step(15 * time.Second)
				return h.reconcile(testHPAName)
			},
			want: parityOutcome{
				err:     metricsFailureMsg(1, 1, "failed to get cpu resource metric value: "+cpuCause),
				current: 3, desired: 3,
				metrics:    []v2.MetricStatus{{}},
				conditions: []wantCond{condGotScale, condUnableToCompute("FailedGetResourceMetric", cpuCause), condWithinRange},
				events: []string{
					"Warning FailedGetResourceMetric " + cpuCause,
					"Warning FailedComputeMetricsReplicas " + invalidMetricsMsg(1, 1, "failed to get cpu resource metric value: "+cpuCause),
				},
				reconciliations: []string{"none/none", "none/none", "none/internal"},
				computations:    []string{"none/none/Resource", "none/none/Resource", "none/internal/Resource"},
				statusWrites:    2,
			},
			check: func(t *testing.T, h *harness) {
				hpa := h.hpa(testHPAName)
				if got := conditionOf(t, hpa, autoscalingv2.AbleToScale).LastTransitionTime.Time; !got.Equal(testStart) {
					t.Errorf("AbleToScale lastTransitionTime = %v, want the first pass's %v", got, testStart)
				}
				if got := conditionOf(t, hpa, autoscalingv2.ScalingActive).LastTransitionTime.Time; !got.Equal(afterStart(30 * time.Second)) {
					t.Errorf("ScalingActive lastTransitionTime = %v, want the flip's %v", got, afterStart(30*time.Second))
				}
			},
		},
	})
}

func TestParityStoredSpecs(t *testing.T) {
	invalidSpec := func(message string) parityOutcome {
		return parityOutcome{
			err:  "invalid HPA spec: " + message,
			spec: true,
			conditions: []wantCond{{autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSpec",
				"the HPA spec is invalid: " + message}},
			events:          []string{"Warning InvalidSpec " + message},
			reconciliations: []string{"none/spec"},
			statusWrites:    1,
		}
	}
	fallbackMetric := withFallback(externalValue("queue", "10"), 180, 7)

	runParity(t, []parityScenario{
		{
			name:  "a stored HPA with maxReplicas below minReplicas is not scaled and says why",
			hpa:   newHPA(5, 2, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100)),
			want:  invalidSpec("spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"),
			check: noMetricsAsked,
		},
		{
			name:  "a stored invalid HPA whose status cannot be written reports both errors",
			hpa:   newHPA(5, 2, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), func(h *harness) { h.source.updateErr = errBoom }),
			want: parityOutcome{
				err: "invalid HPA spec: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`" +
					"\nfailed to update status for web: adapter unavailable",
				spec: true,
				events: []string{
					"Warning InvalidSpec spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`",
					"Warning FailedUpdateStatus adapter unavailable",
				},
				reconciliations: []string{"none/spec"},
			},
		},
		{
			name:  "a stored HPA with an unknown metric type is not scaled and says why",
			hpa:   newHPA(1, 10, v2.MetricSpec{Type: "CheddarCheese"}),
			setup: threeReplicas(cpuUsage(100, 100, 100)),
			want:  invalidSpec(`spec.metrics[0].type: Unsupported value: "CheddarCheese": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"`),
			check: noMetricsAsked,
		},
		{
			name: "a stored HPA with a pods metric lacking its target is not scaled and says why",
			hpa: newHPA(1, 10, v2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &v2.PodsMetricSource{
				Metric: v2.MetricIdentifier{Name: "qps"},
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType},
			}}),
			setup: threeReplicas(podsMetricValues("qps", 1000, 1000, 1000)),
			want:  invalidSpec("spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue"),
			check: noMetricsAsked,
		},
		{
			name:  "a stored HPA whose fallback the gate no longer allows is still scaled, ignoring the fallback",
			hpa:   newHPA(1, 10, fallbackMetric),
			setup: threeReplicas(externalSeries("queue", 20000)),
			want:  scaledUpFromThree(6, externalQueueName, []string{"scale_up/none/External"}, externalValueStatus("queue", 20000)),
		},
		{
			name:  "a stored HPA whose fallback the gate no longer allows fails as upstream when its metric fails",
			hpa:   newHPA(1, 10, fallbackMetric),
			setup: threeReplicas(storedReplicas(3), externalFails("queue", errBoom)),
			want: onlyMetricFailed(autoscalingv2.ExternalMetricSourceType, "FailedGetExternalMetric", externalCause,
				"failed to get queue external metric value: failed to get external metric queue: "+externalCause),
		},
	})
}

// fixedMapper maps every kind to the given REST mappings, in order.
type fixedMapper struct {
	apimeta.RESTMapper
	mappings []*apimeta.RESTMapping
}

func (m fixedMapper) RESTMappings(schema.GroupKind, ...string) ([]*apimeta.RESTMapping, error) {
	return m.mappings, nil
}

func mappingTo(group, resource string) *apimeta.RESTMapping {
	return &apimeta.RESTMapping{Resource: schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}}
}

func withMappings(mappings ...*apimeta.RESTMapping) func(*harness) {
	return func(h *harness) { h.c.opts.Mapper = fixedMapper{RESTMapper: testMapper(), mappings: mappings} }
}

func TestParityRESTMappings(t *testing.T) {
	failedGetScale := func(cause string) parityOutcome {
		return parityOutcome{
			err: "failed to query scale subresource for " + targetRef + ": " + cause,
			conditions: []wantCond{{autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
				"the HPA controller was unable to get the target's current scale: " + cause}},
			events:          []string{"Warning FailedGetScale " + cause},
			reconciliations: []string{"none/internal"},
			statusWrites:    1,
		}
	}
	runParity(t, []parityScenario{
		{
			name:  "a kind served by several resources uses the first that serves a scale",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), withMappings(mappingTo("example.com", "widgets"), mappingTo("apps", "deployments"))),
			want:  scaledUpFromThree(6, cpuUtilizationName, []string{"scale_up/none/Resource"}, cpuUtilizationStatus(100, 100)),
		},
		{
			name:  "a kind none of whose resources serves a scale reports the first resource's error",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), withMappings(mappingTo("example.com", "widgets"), mappingTo("example.com", "gadgets"))),
			want:  failedGetScale(`widgets.example.com "web" not found`),
		},
		{
			name:  "a kind without resources reports an unrecognized resource",
			hpa:   newHPA(1, 10, cpuUtilization(50)),
			setup: threeReplicas(cpuUsage(100, 100, 100), withMappings()),
			want:  failedGetScale("unrecognized resource"),
		},
	})
}
