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
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func crossRef(apiVersion, kind, name string) autoscalingv2.CrossVersionObjectReference {
	return autoscalingv2.CrossVersionObjectReference{APIVersion: apiVersion, Kind: kind, Name: name}
}

func extendedOn(namespace, name string, target autoscalingv2.CrossVersionObjectReference) *v2.HorizontalPodAutoscaler {
	return &v2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target}}
}

func nativeOn(namespace, name string, target autoscalingv2.CrossVersionObjectReference) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target}}
}

func nativeInformer() cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(&cache.ListWatch{}, &autoscalingv2.HorizontalPodAutoscaler{}, 0, cache.Indexers{})
}

// TestOwnershipGuardNamesTheOtherAutoscalers pins which autoscalers count as
// owning the same target as an HPA: any other of either kind on the same
// namespace, group, kind and name, whatever the version.
func TestOwnershipGuardNamesTheOtherAutoscalers(t *testing.T) {
	deploy := crossRef("apps/v1", "Deployment", "web")
	self := autoscalerRef{kind: "fake", namespace: "ns", name: "mine"}
	cases := []struct {
		name     string
		extended []*v2.HorizontalPodAutoscaler
		native   []*autoscalingv2.HorizontalPodAutoscaler
		// nativeIsSource makes the native informer both a source and an
		// observed one, as --manage-native-hpas does.
		nativeIsSource bool
		want           []string
	}{
		{name: "an HPA alone on its target has no other", extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)}},
		{name: "a native HPA on the same target is named",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:   []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("ns", "keda-hpa-web", deploy)},
			want:     []string{"autoscaling/v2 ns/keda-hpa-web"}},
		{name: "a second kube-hpa HPA on the same target is named",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy), extendedOn("ns", "theirs", deploy)},
			want:     []string{"fake ns/theirs"}},
		{name: "a native HPA of the same name as the HPA is another autoscaler",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:   []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("ns", "mine", deploy)},
			want:     []string{"autoscaling/v2 ns/mine"}},
		{name: "another version of the same group names the same object",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:   []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("ns", "old", crossRef("apps/v1beta2", "Deployment", "web"))},
			want:     []string{"autoscaling/v2 ns/old"}},
		{name: "another kind of the same name is another object",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:   []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("ns", "sts", crossRef("apps/v1", "StatefulSet", "web"))}},
		{name: "another group of the same kind and name is another object",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:   []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("ns", "argo", crossRef("argoproj.io/v1alpha1", "Deployment", "web"))}},
		{name: "the same target name in another namespace is another object",
			extended: []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:   []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("other", "web", deploy)}},
		{name: "a native informer that is also a source is counted once",
			extended:       []*v2.HorizontalPodAutoscaler{extendedOn("ns", "mine", deploy)},
			native:         []*autoscalingv2.HorizontalPodAutoscaler{nativeOn("ns", "web", deploy)},
			nativeIsSource: true,
			want:           []string{"autoscaling/v2 ns/web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			extended := newFakeSource()
			native := nativeInformer()
			sources := []HPASource{extended}
			if tc.nativeIsSource {
				ns := newFakeSource()
				ns.name, ns.informer = "autoscaling/v2", native
				sources = append(sources, ns)
			}
			kinds, err := newAutoscalerKinds(sources, []ObservedAutoscalers{{Name: "autoscaling/v2", Informer: native}})
			if err != nil {
				t.Fatalf("newAutoscalerKinds: %v", err)
			}
			for _, hpa := range tc.extended {
				if err := extended.informer.GetIndexer().Add(hpa); err != nil {
					t.Fatal(err)
				}
			}
			for _, hpa := range tc.native {
				if err := native.GetIndexer().Add(hpa); err != nil {
					t.Fatal(err)
				}
			}
			others, err := kinds.others(self, scaleTargetKey("ns", deploy))
			if err != nil {
				t.Fatalf("others: %v", err)
			}
			var got []string
			for _, o := range others {
				got = append(got, o.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("others = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAmbiguousScaleTargetScalesNothingUntilTheOtherGoes pins the pass: with
// a native HPA on its target, a kube-hpa HPA neither reads nor writes the
// scale, reports AbleToScale=False naming the native one, and scales again
// once the native one is gone.
func TestAmbiguousScaleTargetScalesNothingUntilTheOtherGoes(t *testing.T) {
	native := nativeInformer()
	h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{
		observed: []ObservedAutoscalers{{Name: "autoscaling/v2", Informer: native}},
	})
	hpa, _, _ := h.source.Get(testNamespace, testHPAName)
	if err := h.source.informer.GetIndexer().Add(hpa); err != nil {
		t.Fatal(err)
	}
	other := nativeOn(testNamespace, "keda-hpa-web", hpa.Spec.ScaleTargetRef)
	if err := native.GetIndexer().Add(other); err != nil {
		t.Fatal(err)
	}
	h.scales.setScale(3, 3, testSelector)
	h.addPods(3, 100)
	h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(100, 100, 100))

	if err := h.reconcile(testHPAName); err == nil {
		t.Fatal("reconcile succeeded with two autoscalers on the target")
	}
	if got := h.scales.replicas(); got != 3 {
		t.Errorf("replicas = %d, want 3 (nothing scaled)", got)
	}
	c := conditionOf(t, h.hpa(testHPAName), autoscalingv2.AbleToScale)
	if c.Status != corev1.ConditionFalse || c.Reason != reasonAmbiguousScaleTarget || !strings.Contains(c.Message, "autoscaling/v2 "+testNamespace+"/keda-hpa-web") {
		t.Errorf("AbleToScale = %s/%s %q, want False/%s naming the native HPA", c.Status, c.Reason, c.Message, reasonAmbiguousScaleTarget)
	}
	if events := h.events(); len(events) != 1 || !strings.HasPrefix(events[0], "Warning "+reasonAmbiguousScaleTarget) {
		t.Errorf("events = %q", events)
	}

	if err := native.GetIndexer().Delete(other); err != nil {
		t.Fatal(err)
	}
	if err := h.reconcile(testHPAName); err != nil {
		t.Fatalf("reconcile after the native HPA went: %v", err)
	}
	if got := h.scales.replicas(); got != 6 {
		t.Errorf("replicas = %d, want 6 once the target has one autoscaler", got)
	}
}
