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

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// TestAHistoryHandedOverKeepsThePolicyPeriods pins Options.History: a
// controller started after another (a sharded replica's next run) on the
// same History counts the scale-ups the first one made against the HPA's
// policy; one whose History forgot the HPA's namespace (a shard that may
// have been another replica's) starts afresh, as a new controller does.
func TestAHistoryHandedOverKeepsThePolicyPeriods(t *testing.T) {
	onePodAMinute := func() *v2.HorizontalPodAutoscaler {
		hpa := newHPA(1, 30, cpuUtilization(50))
		hpa.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(nil, nil, podsPolicy(1, 60))}
		return hpa
	}
	for _, tc := range []struct {
		name string
		// handOver makes the second controller's History from the first's.
		handOver func(*History) *History
		want     []int32
	}{
		{
			name:     "the next controller on the same history holds the scale-up the policy's period already spent",
			handOver: func(h *History) *History { return h },
			want:     nil,
		},
		{
			name:     "a history that kept the HPA's namespace holds it too",
			handOver: func(h *History) *History { h.KeepOnly(func(ns string) bool { return ns == testNamespace }); return h },
			want:     nil,
		},
		{
			name:     "a history that forgot the HPA's namespace lets the next controller scale up again, as a new one",
			handOver: func(h *History) *History { h.KeepOnly(func(string) bool { return false }); return h },
			want:     []int32{5},
		},
		{
			name:     "a controller with a history of its own scales up again",
			handOver: func(*History) *History { return nil },
			want:     []int32{5},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			history := NewHistory(clock.RealClock{}, 5*time.Minute)
			first := newHarness(t, onePodAMinute(), harnessOptions{history: history})
			first.scales.setScale(3, 3, testSelector)
			first.addPods(3, 100)
			first.metrics.SetResource("cpu", cpuMetrics(333, 333, 333))
			if err := first.reconcile(testHPAName); err != nil {
				t.Fatalf("first controller's pass: %v", err)
			}
			first.assertUpdates(4)

			second := newHarness(t, onePodAMinute(), harnessOptions{history: tc.handOver(history)})
			second.clock.Step(15 * time.Second)
			second.scales.setScale(4, 4, testSelector)
			second.addPods(4, 100)
			second.metrics.SetResource("cpu", cpuMetrics(333, 333, 333, 333))
			if err := second.reconcile(testHPAName); err != nil {
				t.Fatalf("second controller's pass: %v", err)
			}
			second.assertUpdates(tc.want...)
		})
	}
}

func TestNewRefusesAHistoryOfAnotherDownscaleWindow(t *testing.T) {
	_, err := New(Options{
		Sources: []HPASource{newFakeSource()}, SyncPeriod: 15 * time.Second, Clock: clocktesting.NewFakeClock(testStart),
		DownscaleStabilizationWindow: 5 * time.Minute, History: NewHistory(clock.RealClock{}, time.Minute),
	})
	if err == nil || !strings.Contains(err.Error(), "downscale stabilization window of 1m0s") {
		t.Errorf("New = %v, want the history's other window refused", err)
	}
}
