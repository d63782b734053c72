package podstrip

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
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

func TestStripKeepsWhatTheControllerReads(t *testing.T) {
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "uid-1", ResourceVersion: "42",
			Labels: map[string]string{"app": "web"}, DeletionTimestamp: &deleted},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: quantities("250m", "64Mi")}}},
			InitContainers: []corev1.Container{
				{Name: "migrate", Resources: corev1.ResourceRequirements{Requests: quantities("2", "1Gi")}},
				{Name: "proxy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways), Resources: corev1.ResourceRequirements{Requests: quantities("100m", "32Mi")}},
			},
			Resources: &corev1.ResourceRequirements{Requests: quantities("500m", "256Mi"), Limits: quantities("2", "512Mi")},
			Overhead:  quantities("10m", "8Mi"),
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: readyAt}}},
	}
	got, err := Strip(fullPod())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stripped pod (-want +got):\n%s", diff)
	}
}

func TestStripPassesOtherObjects(t *testing.T) {
	cases := []struct {
		name string
		obj  any
	}{
		{"a tombstone of a deleted pod passes unchanged", cache.DeletedFinalStateUnknown{Key: "shop/web-1", Obj: fullPod()}},
		{"an object of another kind passes unchanged", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"a": "b"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Strip(tc.obj)
			if err != nil || !cmp.Equal(got, tc.obj) {
				t.Errorf("Strip changed %T (err %v)", tc.obj, err)
			}
		})
	}
}

// The requests the calculator divides by come from the same helper as the
// scheduler's; a stripped pod must give it the same answer as the whole
// pod, whichever of the pod's resources are set.
func TestStrippedPodHasTheSameRequests(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*corev1.Pod)
	}{
		{"pod-level requests with overhead", func(*corev1.Pod) {}},
		{"container requests, sidecars and init containers with overhead", func(p *corev1.Pod) { p.Spec.Resources = nil }},
		{"container requests alone", func(p *corev1.Pod) { p.Spec.Resources, p.Spec.Overhead, p.Spec.InitContainers = nil, nil, nil }},
		{"a sidecar that is the largest init container", func(p *corev1.Pod) {
			p.Spec.Resources = nil
			p.Spec.InitContainers[1].Resources.Requests = quantities("4", "2Gi")
		}},
		{"pod-level requests of CPU only", func(p *corev1.Pod) {
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := fullPod()
			tc.modify(pod)
			stripped, err := Strip(pod.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			want := resourcehelpers.PodRequests(pod, resourcehelpers.PodResourcesOptions{})
			got := resourcehelpers.PodRequests(stripped.(*corev1.Pod), resourcehelpers.PodResourcesOptions{})
			if !cmp.Equal(want, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })) {
				t.Errorf("requests of the stripped pod %v, of the whole pod %v", got, want)
			}
		})
	}
}
