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

// webhookOnlyField is the field of AdmissionProbeHPAs' invalid HPA, which
// the webhook's refusal names.
const webhookOnlyField = "spec.metrics[0].containerResource.name"

// AdmissionProbeHPAs are two HPAs called name of the extended kind: a
// valid one, and an invalid one that only the webhook can refuse. The CRD
// schema refuses nearly every invalid HPA itself, before the webhook is
// called; it leaves the qualified-name syntax of a ContainerResource
// metric's resource name to the webhook (beyondTheCELBudget in
// test/integration/crd_schema_test.go, which fails once the schema
// refuses it too).
func AdmissionProbeHPAs(name string) (valid, invalid *v2.HorizontalPodAutoscaler) {
	valid = ExternalHPA(name, "probe", "probe", autoscalingv2.ValueMetricType, "1", 1, 2)
	invalid = valid.DeepCopy()
	invalid.Spec.Metrics = []v2.MetricSpec{{
		Type: autoscalingv2.ContainerResourceMetricSourceType,
		ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
			Name:      corev1.ResourceName("example.com/gpu!"),
			Container: "app",
			Target:    autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)},
		},
	}}
	return valid, invalid
}

// IsWebhookRefusal tells whether err is the webhook's refusal of
// AdmissionProbeHPAs' invalid HPA, naming its field, rather than a
// failure to call the webhook.
func IsWebhookRefusal(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "denied the request") && strings.Contains(msg, webhookOnlyField) &&
		!strings.Contains(msg, "failed calling webhook")
}

// waitWebhook waits until creating an HPA goes through the webhook: a
// valid one is accepted and one that only the webhook can refuse is
// refused. Both are server-side dry runs, which run admission but store
// nothing.
func (e *Environment) waitWebhook(ctx context.Context) error {
	valid, invalid := AdmissionProbeHPAs("e2e-webhook-probe")
	var last error
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if last = e.TryCreateHPA(ctx, metav1.NamespaceDefault, valid, true); last != nil {
			return false, nil
		}
		last = e.TryCreateHPA(ctx, metav1.NamespaceDefault, invalid, true)
		if last == nil {
			last = fmt.Errorf("an HPA with an unqualified container resource name was accepted: the webhook is not called")
			return false, nil
		}
		if !strings.Contains(last.Error(), webhookOnlyField) {
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the admission webhook: %w (last: %v)", err, last)
	}
	return nil
}

// TryCreateHPA creates hpa, of the extended kind, in namespace (a
// server-side dry run with dryRun, which runs admission but stores
// nothing) and returns the API server's error.
func (e *Environment) TryCreateHPA(ctx context.Context, namespace string, hpa *v2.HorizontalPodAutoscaler, dryRun bool) error {
	hpa = hpa.DeepCopy()
	hpa.TypeMeta = metav1.TypeMeta{APIVersion: v2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hpa)
	if err != nil {
		return err
	}
	var opts metav1.CreateOptions
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err = e.Dynamic.Resource(v2.GroupVersionResource()).Namespace(namespace).Create(ctx, unstructuredOf(obj), opts)
	return err
}
