package podautoscaler

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// condition is a condition to set, without its transition time: the time
// is stamped when it is applied, and only when the status changes.
type condition struct {
	Type    autoscalingv2.HorizontalPodAutoscalerConditionType
	Status  corev1.ConditionStatus
	Reason  string
	Message string
}

func newCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, format string, args ...any) condition {
	return condition{Type: t, Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// setCondition adds or replaces the condition of cond's type. The
// transition time moves only when the status flips, so that a condition
// that keeps its status keeps the time it started.
func setCondition(hpa *v2.HorizontalPodAutoscaler, cond condition, now metav1.Time) {
	conds := hpa.Status.Conditions
	for i := range conds {
		if conds[i].Type != cond.Type {
			continue
		}
		if conds[i].Status != cond.Status {
			conds[i].LastTransitionTime = now
		}
		conds[i].Status, conds[i].Reason, conds[i].Message = cond.Status, cond.Reason, cond.Message
		return
	}
	hpa.Status.Conditions = append(conds, autoscalingv2.HorizontalPodAutoscalerCondition{
		Type:               cond.Type,
		Status:             cond.Status,
		Reason:             cond.Reason,
		Message:            cond.Message,
		LastTransitionTime: now,
	})
}

func removeCondition(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) {
	kept := hpa.Status.Conditions[:0]
	for _, c := range hpa.Status.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	hpa.Status.Conditions = kept
}

func conditionIsTrue(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, c := range hpa.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
