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
	"errors"
	"slices"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

var (
	errInternal = apierrors.NewInternalError(errors.New("etcd leader changed"))
	errTimeout  = apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
	errConflict = apierrors.NewConflict(schema.GroupResource{Group: v2.GroupName, Resource: v2.Resource}, testHPAName,
		errors.New("the object has been modified"))
)

// zeroHarness is a target at 5 replicas under an HPA with minReplicas 0 on
// an External AverageValue metric: an answer of 0 takes it to zero, one of
// 12 asks for 4 replicas (from zero too).
func zeroHarness(t *testing.T) *harness {
	h := newHarness(t, newHPA(0, 6, externalAverage("queue", "3")), noDownscaleWindow(withGates(features.HPAScaleToZero, true)))
	h.scales.setScale(5, 5, testSelector)
	h.addPods(5, 100)
	return h
}

func (h *harness) queueAt(value int64) { h.metrics.SetExternal("queue", extOK(value*1000)) }

// TestOwnZeroSurvivesAFailedStatusWrite pins that a zero the controller
// made stays its own whatever fails after the scale write: the record of
// it (ScaledToZero) is stored before the zero is written, so a status
// write that fails afterwards loses nothing, and the workload comes back
// when the metric rises, even while status writes still fail.
func TestOwnZeroSurvivesAFailedStatusWrite(t *testing.T) {
	conflicts := make([]error, statusAttempts)
	for i := range conflicts {
		conflicts[i] = errConflict
	}
	for _, tc := range []struct {
		name string
		// afterScale fail the status writes that follow the scale to zero,
		// in turn; the write of the intent before it goes through.
		afterScale []error
	}{
		{name: "a 500 after the scale to zero", afterScale: []error{errInternal, errInternal}},
		{name: "a server time-out after the scale to zero", afterScale: []error{errTimeout, errTimeout}},
		{name: "the client's deadline after the scale to zero", afterScale: []error{context.DeadlineExceeded, context.DeadlineExceeded}},
		{name: "conflicts past the retry bound after the scale to zero", afterScale: conflicts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := zeroHarness(t)
			h.queueAt(0)
			h.source.statusErrs = append([]error{nil}, tc.afterScale...)
			if err := h.reconcile(testHPAName); err == nil {
				t.Fatal("the pass whose status write failed reported no error")
			}
			h.assertUpdates(0)
			if !conditionIsTrue(h.hpa(testHPAName), v2.ScaledToZero) {
				t.Fatalf("ScaledToZero not stored before the zero was written: %+v", h.hpa(testHPAName).Status.Conditions)
			}

			// The metric rises while status writes still fail: the zero is
			// the controller's, so it scales from it.
			h.queueAt(12)
			h.source.statusErrs = []error{errInternal}
			_ = h.reconcile(testHPAName)
			h.assertUpdates(0, 4)
		})
	}
}

// TestNoZeroWithoutItsRecord pins the other half: when the intent cannot
// be stored, no zero is written, and a later pass whose status writes
// work scales to zero as usual.
func TestNoZeroWithoutItsRecord(t *testing.T) {
	for _, tc := range []struct {
		name string
		errs []error
	}{
		{name: "the intent's write fails with a 500", errs: []error{errInternal}},
		{name: "the intent's write conflicts past the retry bound", errs: []error{errConflict, errConflict, errConflict, errConflict, errConflict}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := zeroHarness(t)
			h.queueAt(0)
			h.source.statusErrs = tc.errs
			if err := h.reconcile(testHPAName); err == nil {
				t.Fatal("the pass that could not record its intent reported no error")
			}
			h.assertUpdates()
			if got := h.scales.replicas(); got != 5 {
				t.Errorf("target replicas = %d, want the 5 it had", got)
			}
			if err := h.reconcile(testHPAName); err != nil {
				t.Fatalf("second pass: %v", err)
			}
			h.assertUpdates(0)
			assertConditions(t, h.hpa(testHPAName), rescaled, condTrue(autoscalingv2.ScalingActive, "ValidMetricFound"), withinRange, scaledToZero)
		})
	}
}

// TestIntentWithoutItsZeroIsUndone pins that an intent whose zero was not
// written never outlives the pass that knows it, or the pass after: a
// person's zero that follows is a pause.
func TestIntentWithoutItsZeroIsUndone(t *testing.T) {
	for _, tc := range []struct {
		name string
		// fault makes the pass's scale write fail, after the intent.
		fault func(h *harness)
		// putBackFails fails the pass's last status write as well, so that
		// the intent stays stored until the next pass.
		putBackFails bool
		// personAt is the replicas a person's write leaves on the target.
		personAt int32
	}{
		{
			name:     "the scale write fails: the intent is put back in the same pass",
			fault:    func(h *harness) { h.scales.updateErr = errInternal },
			personAt: 5,
		},
		{
			name:         "the scale write and the put-back fail: the next pass sees replicas and clears it",
			fault:        func(h *harness) { h.scales.updateErr = errInternal },
			putBackFails: true,
			personAt:     5,
		},
		{
			name: "a person scales to zero between the read and the scale write: the intent is put back",
			fault: versioned(func(v *versionedScales) {
				v.concurrentWrites, v.concurrentReplicas = 1, ptr.To[int32](0)
			}),
			personAt: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := zeroHarness(t)
			if err := h.reconcile(testHPAName); err == nil {
				// The first pass has no metric answer: it stores a status
				// without ScaledToZero, as most HPAs have.
				t.Log("first pass without metrics succeeded")
			}
			before := findCondition(&h.hpa(testHPAName).Status, v2.ScaledToZero)
			h.queueAt(0)
			tc.fault(h)
			if tc.putBackFails {
				h.source.statusErrs = []error{nil, errInternal}
			}
			_ = h.reconcile(testHPAName)
			h.scales.updateErr = nil
			stored := findCondition(&h.hpa(testHPAName).Status, v2.ScaledToZero)
			if tc.putBackFails {
				if stored == nil || stored.Status != "True" {
					t.Fatalf("the fault did not leave the intent stored: %+v", stored)
				}
			} else if !sameCondition(stored, before) {
				t.Fatalf("ScaledToZero after the pass = %+v, want it as the pass found it, %+v", stored, before)
			}
			if tc.personAt == 0 && !conditionIsFalse(h.hpa(testHPAName), autoscalingv2.ScalingActive, "ScalingDisabled") {
				// Decided again from the fresh read, the person's zero is a
				// pause at once, not a zero the intent made the pass's own.
				t.Errorf("the pass did not find the person's zero paused: %+v", h.hpa(testHPAName).Status.Conditions)
			}

			// A person takes the workload to zero (or already did), then
			// the metric rises: a person's zero is a pause.
			h.scales.setScale(0, 0, testSelector)
			h.queueAt(12)
			h.resetUpdates()
			if tc.putBackFails {
				// The pass in between sees replicas and clears the intent.
				h.scales.setScale(tc.personAt, tc.personAt, testSelector)
				h.queueAt(15)
				if err := h.reconcile(testHPAName); err != nil {
					t.Fatalf("pass that sees replicas: %v", err)
				}
				h.scales.setScale(0, 0, testSelector)
				h.queueAt(12)
				h.resetUpdates()
			}
			if err := h.reconcile(testHPAName); err != nil {
				t.Fatalf("pass over the person's zero: %v", err)
			}
			h.assertUpdates()
			hpa := h.hpa(testHPAName)
			if conditionIsTrue(hpa, v2.ScaledToZero) || !conditionIsFalse(hpa, autoscalingv2.ScalingActive, "ScalingDisabled") {
				t.Errorf("a person's zero was not a pause: %+v", hpa.Status.Conditions)
			}
		})
	}
}

func conditionIsTrue(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, c := range hpa.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func conditionIsFalse(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType, reason string) bool {
	c := findCondition(&hpa.Status, t)
	return c != nil && c.Status == "False" && c.Reason == reason
}

// TestPersonsPauseStandsWhileStatusWritesFail: a person's zero writes no
// intent, so failing status writes cannot make it the controller's.
func TestPersonsPauseStandsWhileStatusWritesFail(t *testing.T) {
	h := zeroHarness(t)
	h.queueAt(15)
	if err := h.reconcile(testHPAName); err != nil {
		t.Fatalf("steady pass: %v", err)
	}
	h.resetUpdates()
	h.scales.setScale(0, 0, testSelector)
	for range 3 {
		h.source.statusErrs = []error{errInternal, errTimeout}
		_ = h.reconcile(testHPAName)
	}
	h.assertUpdates()
	if got := h.scales.replicas(); got != 0 {
		t.Errorf("target replicas = %d, want the person's 0", got)
	}
}

// TestOwnZeroKeepsUpstreamsConditionOrder: the intent written before the
// zero puts ScaledToZero in a status that had none; the pass's own write
// then lists it after the conditions the pass sets, where upstream, which
// sets it last, lists it (kubectl describe shows them in that order;
// -seed 20261201 -case 4167 of the oracle).
func TestOwnZeroKeepsUpstreamsConditionOrder(t *testing.T) {
	h := newHarness(t, newHPA(0, 6, objectValue("qps", "20")), noDownscaleWindow(withGates(features.HPAScaleToZero, true)))
	h.scales.setScale(5, 5, testSelector)
	h.addPods(5, 100)
	h.metrics.SetObject("qps", objOK(0))
	if err := h.reconcile(testHPAName); err != nil {
		t.Fatal(err)
	}
	h.assertUpdates(0)
	var got []autoscalingv2.HorizontalPodAutoscalerConditionType
	for _, c := range h.hpa(testHPAName).Status.Conditions {
		got = append(got, c.Type)
	}
	want := []autoscalingv2.HorizontalPodAutoscalerConditionType{autoscalingv2.AbleToScale, autoscalingv2.ScalingActive, autoscalingv2.ScalingLimited, v2.ScaledToZero}
	if !slices.Equal(got, want) {
		t.Errorf("conditions in the order %v, want upstream's %v", got, want)
	}
}
