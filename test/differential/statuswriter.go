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

package differential

import (
	"slices"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// A competing status writer (fault.StatusWriter) is another writer of the
// HPA's status with content of its own: an older replica's pass that ends
// during a handover, a person's `kubectl edit --subresource=status`,
// another controller. It writes the status without the last scale time
// and the metrics, and with a condition of its own. Neither controller
// decides from those, so each must record its pass over that status as it
// records one over any status it reads: upstream over the copy its pass
// read, kube-hpa over the one it reads again when its update conflicts.
// A controller that wrote back the whole status it had read before the
// other writer would drop the other writer's condition.
const (
	// statusWriterRace, in kube-hpa's world: the writer lands between its
	// read and its first status update of the step, which conflicts.
	statusWriterRace = "race"
	// statusWriterBefore, in upstream's world: the writer met kube-hpa's
	// update, and lands before upstream's first pass of the step.
	statusWriterBefore = "before"
	// statusWriterAfter, in both worlds: no status update of kube-hpa's
	// first pass met the writer, which lands right after that pass.
	statusWriterAfter = "after"
)

var hpasGVR = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}

// competingCondition is the condition the other writer sets.
const competingCondition autoscalingv2.HorizontalPodAutoscalerConditionType = "ExampleComPaused"

// competingSince is when the other writer says its condition began: a
// time of its own, the same in both worlds whenever it writes.
var competingSince = metav1.NewTime(time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC))

// writeCompetingStatus stores the other writer's status of the HPA web in
// the world's tracker, as an API server stores a write that is no
// controller's.
func writeCompetingStatus(tracker clienttesting.ObjectTracker, versions *hpaWatch) error {
	obj, err := tracker.Get(hpasGVR, namespace, "web")
	if err != nil {
		return err
	}
	hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler).DeepCopy()
	hpa.Status.LastScaleTime = nil
	hpa.Status.CurrentMetrics = nil
	hpa.Status.Conditions = append(slices.DeleteFunc(hpa.Status.Conditions, func(c autoscalingv2.HorizontalPodAutoscalerCondition) bool {
		return c.Type == competingCondition
	}), autoscalingv2.HorizontalPodAutoscalerCondition{
		Type: competingCondition, Status: corev1.ConditionTrue, Reason: "OtherWriter",
		Message: "set by another writer of the status", LastTransitionTime: competingSince,
	})
	if err := versions.stamp(hpa); err != nil {
		return err
	}
	return tracker.Update(hpasGVR, hpa, namespace)
}

// landStatusWriter makes, right after the step's first pass, the other
// writer's write that no status update of that pass met, and reports
// whether one met it (kube-hpa's world).
func (s seqScenario) landStatusWriter(st step, tracker clienttesting.ObjectTracker, versions *hpaWatch, faults *armedFaults) (bool, error) {
	if faults != nil {
		pending, met := faults.statusWriterLeft()
		if pending {
			return met, writeCompetingStatus(tracker, versions)
		}
		return met, nil
	}
	if st.Fault != nil && st.Fault.StatusWriter == statusWriterAfter {
		return false, writeCompetingStatus(tracker, versions)
	}
	return false, nil
}
