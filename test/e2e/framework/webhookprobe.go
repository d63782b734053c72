package framework

import (
	"context"
	"fmt"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// waitWebhook waits until creating an HPA goes through the webhook: a
// valid one is accepted and one that only the webhook can refuse is
// refused. The CRD schema refuses nearly every invalid HPA itself, before
// the webhook is called; it leaves the qualified-name syntax of a
// ContainerResource metric's resource name to the webhook (beyondTheCELBudget
// in test/integration/crd_schema_test.go, which fails once the schema
// refuses it too). Both are server-side dry runs, which run admission but
// store nothing.
func (e *Environment) waitWebhook(ctx context.Context) error {
	valid := ExternalHPA("e2e-webhook-probe", "probe", "probe", autoscalingv2.ValueMetricType, "1", 1, 2)
	invalid := valid.DeepCopy()
	invalid.Spec.Metrics = []v2.MetricSpec{{
		Type: autoscalingv2.ContainerResourceMetricSourceType,
		ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
			Name:      corev1.ResourceName("example.com/gpu!"),
			Container: "app",
			Target:    autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
		},
	}}
	var last error
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if last = e.dryRunCreate(ctx, valid); last != nil {
			return false, nil
		}
		last = e.dryRunCreate(ctx, invalid)
		if last == nil {
			last = fmt.Errorf("an HPA with an unqualified container resource name was accepted: the webhook is not called")
			return false, nil
		}
		if !strings.Contains(last.Error(), "spec.metrics[0].containerResource.name") {
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the admission webhook: %w (last: %v)", err, last)
	}
	return nil
}

func (e *Environment) dryRunCreate(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) error {
	hpa = hpa.DeepCopy()
	hpa.TypeMeta = metav1.TypeMeta{APIVersion: v2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hpa)
	if err != nil {
		return err
	}
	_, err = e.Dynamic.Resource(v2.GroupVersionResource()).Namespace(metav1.NamespaceDefault).
		Create(ctx, unstructuredOf(obj), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}
