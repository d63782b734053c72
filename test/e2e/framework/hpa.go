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
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// HPAKind says which API an HPA lives in. Specs hold every HPA as the
// extended type, whose JSON is a superset of native autoscaling/v2.
type HPAKind string

const (
	// Extended is autoscaling.kube-hpa.io/v2, the CRD.
	Extended HPAKind = "autoscaling.kube-hpa.io/v2"
	// Native is autoscaling/v2, which hpa-controller-manager manages with
	// --manage-native-hpas, and kube-controller-manager in in-tree mode.
	Native HPAKind = "autoscaling/v2"
)

// ExternalHPA is an HPA of Deployment target on one External metric.
// target is a Value or AverageValue quantity, by targetType.
func ExternalHPA(name, target, metric string, targetType autoscalingv2.MetricTargetType, value string, minReplicas, maxReplicas int32) *v2.HorizontalPodAutoscaler {
	q := resource.MustParse(value)
	mt := autoscalingv2.MetricTarget{Type: targetType}
	switch targetType {
	case autoscalingv2.ValueMetricType:
		mt.Value = &q
	case autoscalingv2.AverageValueMetricType:
		mt.AverageValue = &q
	default:
		panic(fmt.Sprintf("ExternalHPA takes a Value or AverageValue target, not %s", targetType))
	}
	return &v2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			MinReplicas:    ptr.To(minReplicas),
			MaxReplicas:    maxReplicas,
			Metrics: []v2.MetricSpec{{
				Type: autoscalingv2.ExternalMetricSourceType,
				External: &v2.ExternalMetricSource{
					Metric: v2.MetricIdentifier{Name: metric},
					Target: mt,
				},
			}},
		},
	}
}

// NoScaleDownStabilization sets a zero scale-down window: without a
// behavior the controller's --horizontal-pod-autoscaler-downscale-
// stabilization (5 minutes) holds every scale-down back, longer than a
// spec should wait.
func NoScaleDownStabilization(hpa *v2.HorizontalPodAutoscaler) *v2.HorizontalPodAutoscaler {
	if hpa.Spec.Behavior == nil {
		hpa.Spec.Behavior = &v2.HorizontalPodAutoscalerBehavior{}
	}
	if hpa.Spec.Behavior.ScaleDown == nil {
		hpa.Spec.Behavior.ScaleDown = &autoscalingv2.HPAScalingRules{}
	}
	hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds = ptr.To[int32](0)
	return hpa
}

// GroupVersionResource is the resource of HPAs of kind.
func (k HPAKind) GroupVersionResource() schema.GroupVersionResource {
	if k == Native {
		return autoscalingv2.SchemeGroupVersion.WithResource(v2.Resource)
	}
	return v2.GroupVersionResource()
}

// unstructuredHPA is hpa as an object of kind: the extended type's JSON
// with kind's apiVersion, which a native API server reads as its own
// (the JSON is a superset of native autoscaling/v2).
func unstructuredHPA(kind HPAKind, hpa *v2.HorizontalPodAutoscaler) (*unstructured.Unstructured, error) {
	hpa = hpa.DeepCopy()
	hpa.TypeMeta = metav1.TypeMeta{APIVersion: string(kind), Kind: "HorizontalPodAutoscaler"}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(hpa)
	if err != nil {
		return nil, err
	}
	return unstructuredOf(obj), nil
}

// hpaFromUnstructured reads an HPA of either kind as the extended type;
// fields the extended type lacks are ignored.
func hpaFromUnstructured(obj *unstructured.Unstructured) (*v2.HorizontalPodAutoscaler, error) {
	hpa := &v2.HorizontalPodAutoscaler{}
	return hpa, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, hpa)
}

// NativeManifest is the YAML manifest of hpa as a native autoscaling/v2
// HPA, as a user would write it: its spec with the fallback (an API server
// of make intree keeps it; a stock one refuses the unknown field), without
// status, creationTimestamp or an unset fallback strategy (which native
// autoscaling/v2 does not have).
func NativeManifest(hpa *v2.HorizontalPodAutoscaler) ([]byte, error) {
	u, err := unstructuredHPA(Native, hpa)
	if err != nil {
		return nil, err
	}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	metrics, _, _ := unstructured.NestedSlice(u.Object, "spec", "metrics")
	for _, m := range metrics {
		if mm, ok := m.(map[string]any); ok {
			if strategy, found, _ := unstructured.NestedString(mm, "external", "fallback", "strategy"); found && strategy == "" {
				unstructured.RemoveNestedField(mm, "external", "fallback", "strategy")
			}
		}
	}
	if metrics != nil {
		if err := unstructured.SetNestedSlice(u.Object, metrics, "spec", "metrics"); err != nil {
			return nil, err
		}
	}
	return yaml.Marshal(u.Object)
}

// CreateHPA creates hpa in the spec's namespace as kind: the extended kind
// through the API, a native HPA with kubectl apply of its NativeManifest,
// as a user of the in-tree mode would.
func (f *Framework) CreateHPA(ctx context.Context, kind HPAKind, hpa *v2.HorizontalPodAutoscaler) {
	ginkgo.GinkgoHelper()
	hpa = hpa.DeepCopy()
	hpa.Namespace = f.Namespace
	if kind == Native {
		manifest, err := NativeManifest(hpa)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		out, err := f.Kubectl(ctx, string(manifest), "apply", "-n", f.Namespace, "-f", "-")
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "kubectl apply of native HPA %s:\n%s\n%s", hpa.Name, manifest, out)
		return
	}
	obj, err := unstructuredHPA(kind, hpa)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	_, err = f.Dynamic.Resource(kind.GroupVersionResource()).Namespace(f.Namespace).Create(ctx, obj, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating %s HPA %s", kind, hpa.Name)
}

// DeleteHPA deletes an HPA of kind from the spec's namespace.
func (f *Framework) DeleteHPA(ctx context.Context, kind HPAKind, name string) {
	ginkgo.GinkgoHelper()
	err := f.Dynamic.Resource(kind.GroupVersionResource()).Namespace(f.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "deleting %s HPA %s", kind, name)
}

// GetHPA reads an HPA of either kind as the extended type. A native HPA is
// read through the dynamic client, not the typed one, so that the fields
// of KEP-5679 that an in-tree API server serves (fallback, fallbackStatus,
// firstFailureTime) are kept.
func (f *Framework) GetHPA(ctx context.Context, kind HPAKind, name string) (*v2.HorizontalPodAutoscaler, error) {
	obj, err := f.Dynamic.Resource(kind.GroupVersionResource()).Namespace(f.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return hpaFromUnstructured(obj)
}

// ListHPAs lists the HPAs of kind of every namespace.
func (e *Environment) ListHPAs(ctx context.Context, kind HPAKind) ([]*v2.HorizontalPodAutoscaler, error) {
	list, err := e.Dynamic.Resource(kind.GroupVersionResource()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*v2.HorizontalPodAutoscaler, 0, len(list.Items))
	for i := range list.Items {
		hpa, err := hpaFromUnstructured(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, hpa)
	}
	return out, nil
}

// UpdateHPA changes an HPA's spec with mutate, retrying on conflicts.
func (f *Framework) UpdateHPA(ctx context.Context, kind HPAKind, name string, mutate func(*v2.HorizontalPodAutoscaler)) {
	ginkgo.GinkgoHelper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		hpa, err := f.GetHPA(ctx, kind, name)
		if err != nil {
			return err
		}
		mutate(hpa)
		obj, err := unstructuredHPA(kind, hpa)
		if err != nil {
			return err
		}
		_, err = f.Dynamic.Resource(kind.GroupVersionResource()).Namespace(f.Namespace).Update(ctx, obj, metav1.UpdateOptions{})
		return err
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "updating %s HPA %s", kind, name)
}

// FindCondition returns the condition of type t, or nil.
func FindCondition(hpa *v2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
	for i := range hpa.Status.Conditions {
		if hpa.Status.Conditions[i].Type == t {
			return &hpa.Status.Conditions[i]
		}
	}
	return nil
}

// ConditionMatcher matches an HPA whose condition t has status and, when
// reason is not empty, reason.
func ConditionMatcher(t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason string) func(*v2.HorizontalPodAutoscaler) bool {
	return func(hpa *v2.HorizontalPodAutoscaler) bool {
		c := FindCondition(hpa, t)
		return c != nil && c.Status == status && (reason == "" || c.Reason == reason)
	}
}

// WaitForHPA waits until match holds for the HPA and returns it; what
// describes match in the failure message, which also shows the last
// status seen.
func (f *Framework) WaitForHPA(ctx context.Context, kind HPAKind, name string, timeout time.Duration, what string, match func(*v2.HorizontalPodAutoscaler) bool) *v2.HorizontalPodAutoscaler {
	ginkgo.GinkgoHelper()
	var last *v2.HorizontalPodAutoscaler
	gomega.Eventually(ctx, func(ctx context.Context) error {
		hpa, err := f.GetHPA(ctx, kind, name)
		if err != nil {
			return err
		}
		last = hpa
		if !match(hpa) {
			return fmt.Errorf("not yet; status: %s", describeStatus(hpa))
		}
		return nil
	}).WithTimeout(timeout).WithPolling(250*time.Millisecond).Should(gomega.Succeed(), "HPA %s/%s: %s", f.Namespace, name, what)
	return last
}

// WaitForCondition waits until the HPA's condition t has status (and
// reason, unless empty) and returns that condition.
func (f *Framework) WaitForCondition(ctx context.Context, kind HPAKind, name string, t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason string, timeout time.Duration) autoscalingv2.HorizontalPodAutoscalerCondition {
	ginkgo.GinkgoHelper()
	hpa := f.WaitForHPA(ctx, kind, name, timeout, fmt.Sprintf("condition %s=%s %s", t, status, reason), ConditionMatcher(t, status, reason))
	return *FindCondition(hpa, t)
}

// describeStatus is a one-line summary of an HPA's status for messages.
func describeStatus(hpa *v2.HorizontalPodAutoscaler) string {
	s := fmt.Sprintf("current=%d desired=%d", hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas)
	for _, c := range hpa.Status.Conditions {
		s += fmt.Sprintf("; %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
	}
	return s
}
