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

package podrecord

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	resourcehelpers "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

var (
	started = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	readyAt = metav1.NewTime(started.Add(20 * time.Second))
	deleted = metav1.NewTime(started.Add(time.Hour))
)

func quantities(cpu, mem string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
}

// fullPod is a pod as the API server sends it, with much that the
// controller never reads.
func fullPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-1", Namespace: "shop", UID: "uid-1", ResourceVersion: "42", Generation: 3,
			Labels:            map[string]string{"app": "web"},
			Annotations:       map[string]string{"kubectl.kubernetes.io/restartedAt": "now"},
			OwnerReferences:   []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-abc"}},
			ManagedFields:     []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager"}},
			CreationTimestamp: started,
			DeletionTimestamp: &deleted,
		},
		Spec: corev1.PodSpec{
			NodeName: "node-1",
			Volumes:  []corev1.Volume{{Name: "data"}},
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.example/web:1", Env: []corev1.EnvVar{{Name: "A", Value: "b"}},
				Resources: corev1.ResourceRequirements{Requests: quantities("250m", "64Mi"), Limits: quantities("1", "128Mi")},
			}},
			InitContainers: []corev1.Container{
				{Name: "migrate", Image: "registry.example/migrate:1", Resources: corev1.ResourceRequirements{Requests: quantities("2", "1Gi")}},
				{Name: "proxy", Image: "registry.example/proxy:1", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
					Resources: corev1.ResourceRequirements{Requests: quantities("100m", "32Mi")}},
			},
			Resources: &corev1.ResourceRequirements{Requests: quantities("500m", "256Mi"), Limits: quantities("2", "512Mi")},
			Overhead:  quantities("10m", "8Mi"),
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, StartTime: &started, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: started},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: readyAt, Reason: "r", Message: "m"},
			},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: "registry.example/web:1"}},
		},
	}
}

// Requests compare as sets (a map's order is not kept), and records by
// their fields (whether the labels map is shared is labels_test's).
var requestsAsSets = cmp.Options{
	cmpopts.SortSlices(func(a, b Request) bool { return a.Resource < b.Resource }),
	cmpopts.IgnoreUnexported(Pod{}),
}

func TestFromPodKeepsWhatTheControllerReads(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*corev1.Pod)
		want   *Pod
	}{
		{
			name: "a whole pod keeps labels, phase, deletion, start, readiness, long-running containers and pod-level requests",
			want: &Pod{
				Name: "web-1", Namespace: "shop", ResourceVersion: "42", Labels: map[string]string{"app": "web"},
				Phase: corev1.PodRunning, Deleting: true, Started: true, StartTime: started.Time,
				Ready: corev1.ConditionTrue, ReadySince: readyAt.Time,
				Containers: []Container{
					{Name: "app", Requests: Requests{{corev1.ResourceCPU, 250}, {corev1.ResourceMemory, 64 << 20 * 1000}}},
					{Name: "proxy", Requests: Requests{{corev1.ResourceCPU, 100}, {corev1.ResourceMemory, 32 << 20 * 1000}}},
				},
				// Pod-level requests plus the overhead.
				PodLevel: Requests{{corev1.ResourceCPU, 510}, {corev1.ResourceMemory, (256 + 8) << 20 * 1000}},
			},
		},
		{
			name: "a pending pod has no start time, no readiness and no pod-level requests",
			modify: func(p *corev1.Pod) {
				p.DeletionTimestamp, p.Spec.Resources = nil, nil
				p.Status = corev1.PodStatus{Phase: corev1.PodPending}
			},
			want: &Pod{
				Name: "web-1", Namespace: "shop", ResourceVersion: "42", Labels: map[string]string{"app": "web"},
				Phase: corev1.PodPending,
				Containers: []Container{
					{Name: "app", Requests: Requests{{corev1.ResourceCPU, 250}, {corev1.ResourceMemory, 64 << 20 * 1000}}},
					{Name: "proxy", Requests: Requests{{corev1.ResourceCPU, 100}, {corev1.ResourceMemory, 32 << 20 * 1000}}},
				},
			},
		},
		{
			name: "a container without requests keeps its name, so that a missing request is told from a missing container",
			modify: func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
				p.Spec.InitContainers = nil
			},
			want: &Pod{
				Name: "web-1", Namespace: "shop", ResourceVersion: "42", Labels: map[string]string{"app": "web"},
				Phase: corev1.PodRunning, Deleting: true, Started: true, StartTime: started.Time,
				Ready: corev1.ConditionTrue, ReadySince: readyAt.Time,
				Containers: []Container{{Name: "app"}},
				PodLevel:   Requests{{corev1.ResourceCPU, 510}, {corev1.ResourceMemory, (256 + 8) << 20 * 1000}},
			},
		},
		{
			name: "a request beyond int64 milli-values saturates instead of wrapping",
			modify: func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1E")}
				p.Spec.InitContainers, p.Spec.Resources = nil, nil
			},
			want: &Pod{
				Name: "web-1", Namespace: "shop", ResourceVersion: "42", Labels: map[string]string{"app": "web"},
				Phase: corev1.PodRunning, Deleting: true, Started: true, StartTime: started.Time,
				Ready: corev1.ConditionTrue, ReadySince: readyAt.Time,
				Containers: []Container{{Name: "app", Requests: Requests{{corev1.ResourceCPU, math.MaxInt64}}}},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := fullPod()
			if tc.modify != nil {
				tc.modify(pod)
			}
			got := FromPod(pod)
			if diff := cmp.Diff(tc.want, got, requestsAsSets); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

// The pod-level requests the calculator divides by come from the
// scheduler's helper; the record must hold its answer for the whole pod,
// whichever of the pod's resources are set.
func TestPodLevelRequestsAreTheSchedulers(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*corev1.Pod)
	}{
		{"pod-level requests with overhead", func(*corev1.Pod) {}},
		{"pod-level requests of CPU only, memory from the containers", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}
		}},
		{"pod-level requests with a sidecar larger than the init containers", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}
			p.Spec.InitContainers[1].Resources.Requests = quantities("4", "2Gi")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := fullPod()
			tc.modify(pod)
			want := Requests{}
			for name, q := range resourcehelpers.PodRequests(pod, resourcehelpers.PodResourcesOptions{}) {
				want = append(want, Request{Resource: name, Milli: q.MilliValue()})
			}
			if diff := cmp.Diff(want, FromPod(pod).PodLevel, requestsAsSets); diff != "" {
				t.Errorf("pod-level requests (-scheduler's +record's):\n%s", diff)
			}
		})
	}
}

func TestTransform(t *testing.T) {
	tombstone := cache.DeletedFinalStateUnknown{Key: "shop/web-1", Obj: FromPod(fullPod())}
	configMap := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"a": "b"}}}
	cases := []struct {
		name string
		obj  any
		want any
	}{
		{"a pod becomes its record", fullPod(), FromPod(fullPod())},
		{"a tombstone passes unchanged: its object comes from the cache", tombstone, tombstone},
		{"an object of another kind passes unchanged", configMap, configMap},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewTransformer().Transform(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, requestsAsSets); diff != "" {
				t.Errorf("transformed (-want +got):\n%s", diff)
			}
		})
	}
}

// client-go's caches key, index and compare records through meta.Accessor.
func TestRecordIsAnObjectToTheCaches(t *testing.T) {
	r := FromPod(fullPod())
	key, err := cache.MetaNamespaceKeyFunc(r)
	if err != nil || key != "shop/web-1" {
		t.Errorf("key = %q, %v; want shop/web-1", key, err)
	}
	m, err := meta.Accessor(r)
	if err != nil {
		t.Fatal(err)
	}
	if m.GetResourceVersion() != "42" || m.GetNamespace() != "shop" || m.GetLabels()["app"] != "web" {
		t.Errorf("metadata %+v, want the record's", m)
	}
}

func TestRequestsGet(t *testing.T) {
	r := Requests{{corev1.ResourceCPU, 250}, {corev1.ResourceMemory, 0}}
	cases := []struct {
		name      string
		resource  corev1.ResourceName
		want      int64
		wantFound bool
	}{
		{"a request is found", corev1.ResourceCPU, 250, true},
		{"a zero request is found, not missing", corev1.ResourceMemory, 0, true},
		{"a resource not requested is missing", corev1.ResourceEphemeralStorage, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, found := r.Get(tc.resource)
			if got != tc.want || found != tc.wantFound {
				t.Errorf("Get(%s) = %d, %v; want %d, %v", tc.resource, got, found, tc.want, tc.wantFound)
			}
		})
	}
}
