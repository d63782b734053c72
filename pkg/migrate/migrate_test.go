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

package migrate

import (
	"context"
	"errors"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// fakeExtended is an in-memory kube-hpa HPA client.
type fakeExtended struct {
	hpas      map[string]*v2.HorizontalPodAutoscaler
	createErr error
	deleteErr error
}

func (f *fakeExtended) Get(_ context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error) {
	if hpa, ok := f.hpas[namespace+"/"+name]; ok {
		return hpa.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: v2.GroupName, Resource: v2.Resource}, name)
}

func (f *fakeExtended) Create(_ context.Context, hpa *v2.HorizontalPodAutoscaler) (*v2.HorizontalPodAutoscaler, error) {
	if f.createErr != nil {
		return nil, f.createErr
	}
	out := hpa.DeepCopy()
	out.UID = types.UID("new-" + hpa.Name)
	f.hpas[hpa.Namespace+"/"+hpa.Name] = out
	return out.DeepCopy(), nil
}

func (f *fakeExtended) Delete(_ context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	if f.deleteErr != nil {
		return f.deleteErr
	}
	hpa, ok := f.hpas[namespace+"/"+name]
	if !ok || (opts.Preconditions != nil && *opts.Preconditions.UID != hpa.UID) {
		return apierrors.NewConflict(schema.GroupResource{Group: v2.GroupName, Resource: v2.Resource}, name, errors.New("precondition failed"))
	}
	delete(f.hpas, namespace+"/"+name)
	return nil
}

func minOne() *int32 { one := int32(1); return &one }

func nativeHPA() *autoscalingv2.HorizontalPodAutoscaler {
	window := int32(60)
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "old-web", Labels: map[string]string{"app": "web"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    minOne(), MaxReplicas: 10,
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}},
		},
	}
}

func TestToExtended(t *testing.T) {
	cases := []struct {
		name             string
		dryRun           bool
		createErr        error
		nativeDeleteErr  error
		wantErr          bool
		wantNativeLeft   bool
		wantExtendedLeft bool
	}{
		{name: "the native HPA is replaced by a kube-hpa HPA of the same spec", wantExtendedLeft: true},
		{name: "a dry run writes nothing", dryRun: true, wantNativeLeft: true},
		{name: "a refused create leaves the native HPA", createErr: errors.New("denied"), wantErr: true, wantNativeLeft: true},
		{name: "a failed delete of the native HPA removes the new one again", nativeDeleteErr: errors.New("forbidden"),
			wantErr: true, wantNativeLeft: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			kube := fake.NewClientset(nativeHPA())
			if tc.nativeDeleteErr != nil {
				kube.PrependReactor("delete", "horizontalpodautoscalers", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, tc.nativeDeleteErr
				})
			}
			extended := &fakeExtended{hpas: map[string]*v2.HorizontalPodAutoscaler{}, createErr: tc.createErr}
			got, err := ToExtended(ctx, Options{Native: kube.AutoscalingV2().HorizontalPodAutoscalers("ns"), Extended: extended,
				Namespace: "ns", Name: "web", DryRun: tc.dryRun})
			if !expectLeft(t, kube, extended, err, left{tc.wantErr, tc.wantNativeLeft, tc.wantExtendedLeft}) {
				return
			}
			want := v2.FromNative(nativeHPA()).Spec
			if !apiequality.Semantic.DeepEqual(got.Spec, want) {
				t.Errorf("spec = %+v, want the native one's %+v", got.Spec, want)
			}
			if got.Annotations[webhook.ReplacesAnnotation] != "web" || got.Labels["app"] != "web" {
				t.Errorf("metadata = %+v, want the labels kept and the replaced HPA named", got.ObjectMeta)
			}
		})
	}
}

// left is what a migration should leave: an error, and which HPAs.
type left struct{ err, native, extended bool }

// expectLeft checks what a migration left against want, and says whether
// it succeeded (so that its result is worth checking further).
func expectLeft(t *testing.T, kube *fake.Clientset, extended *fakeExtended, err error, want left) bool {
	t.Helper()
	if (err != nil) != want.err {
		t.Fatalf("err = %v, want an error: %v", err, want.err)
	}
	_, nerr := kube.AutoscalingV2().HorizontalPodAutoscalers("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if nativeLeft := nerr == nil; nativeLeft != want.native {
		t.Errorf("native HPA left = %v, want %v", nativeLeft, want.native)
	}
	if extendedLeft := len(extended.hpas) == 1; extendedLeft != want.extended {
		t.Errorf("kube-hpa HPA left = %v, want %v", extendedLeft, want.extended)
	}
	return err == nil
}

func TestToNative(t *testing.T) {
	withFallback := func(hpa *v2.HorizontalPodAutoscaler) {
		hpa.Spec.Metrics = []v2.MetricSpec{{Type: autoscalingv2.ExternalMetricSourceType, External: &v2.ExternalMetricSource{
			Metric:   v2.MetricIdentifier{Name: "queue"},
			Target:   autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: resourceQuantity("10")},
			Fallback: &v2.ExternalMetricFallback{FailureDurationSeconds: ptr.To[int64](180), Replicas: 3},
		}}}
	}
	cases := []struct {
		name             string
		change           func(*v2.HorizontalPodAutoscaler)
		dryRun           bool
		deleteErr        error
		wantErr          bool
		wantNativeLeft   bool
		wantExtendedLeft bool
	}{
		{name: "the kube-hpa HPA is replaced by a native HPA of the same spec", wantNativeLeft: true},
		{name: "a dry run writes nothing", dryRun: true, wantExtendedLeft: true},
		{name: "an HPA with a fallback is refused, the native kind lacking it", change: withFallback, wantErr: true, wantExtendedLeft: true},
		{name: "a failed delete of the kube-hpa HPA removes the native one again", deleteErr: errors.New("forbidden"),
			wantErr: true, wantExtendedLeft: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			old := v2.FromNative(nativeHPA())
			old.UID = "old-web"
			old.Annotations = map[string]string{webhook.ReplacesAnnotation: "web"}
			if tc.change != nil {
				tc.change(old)
			}
			extended := &fakeExtended{hpas: map[string]*v2.HorizontalPodAutoscaler{"ns/web": old}, deleteErr: tc.deleteErr}
			kube := fake.NewClientset()
			got, err := ToNative(ctx, Options{Native: kube.AutoscalingV2().HorizontalPodAutoscalers("ns"), Extended: extended,
				Namespace: "ns", Name: "web", DryRun: tc.dryRun})
			if !expectLeft(t, kube, extended, err, left{tc.wantErr, tc.wantNativeLeft, tc.wantExtendedLeft}) {
				return
			}
			if !apiequality.Semantic.DeepEqual(got.Spec, nativeHPA().Spec) {
				t.Errorf("spec = %+v, want %+v", got.Spec, nativeHPA().Spec)
			}
			if _, kept := got.Annotations[webhook.ReplacesAnnotation]; kept {
				t.Errorf("annotations = %v, want the handover's annotation dropped", got.Annotations)
			}
		})
	}
}

func resourceQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}
