package differential

import (
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	scalefake "k8s.io/client-go/scale/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

var deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// scaleStore is the target's scale subresource, with the resourceVersion
// checks of the API server: an update must carry the version of the
// latest write. faults, in kube-hpa's world, are the step's writers that
// land between its read and its update.
//
// Every change is also published as the Deployment it is the scale of,
// resourceVersion included, in the world's object tracker, so that a
// watch of Deployments (kube-hpa's scale cache) sees what the scale
// subresource serves.
type scaleStore struct {
	mu       sync.Mutex
	replicas int32
	version  int
	faults   *armedFaults
	// exists: the target has been created (by the first step).
	exists  bool
	tracker clienttesting.ObjectTracker
	// gets counts the reads of the scale subresource, for the liveness
	// table: kube-hpa's should come from its watch.
	gets int
}

// create makes the target exist.
func (s *scaleStore) create() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exists {
		return nil
	}
	s.exists = true
	s.version++
	return s.publish()
}

// publish puts the Deployment of the current scale in the tracker.
func (s *scaleStore) publish() error {
	if s.tracker == nil || !s.exists {
		return nil
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web", UID: "uid-target", ResourceVersion: fmt.Sprint(s.version)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(s.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": appLabel}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": appLabel}}},
		},
		Status: appsv1.DeploymentStatus{Replicas: s.replicas},
	}
	if _, err := s.tracker.Get(deploymentsGVR, namespace, "web"); apierrors.IsNotFound(err) {
		return s.tracker.Add(d)
	}
	return s.tracker.Update(deploymentsGVR, d, namespace)
}

func (s *scaleStore) get() int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replicas
}

func (s *scaleStore) set(n int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replicas = n
	s.version++
	return s.publish()
}

// update writes obj's replicas when it carries the latest version.
func (s *scaleStore) update(obj *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults != nil {
		var published error
		err := s.faults.beforeScaleUpdate(func(replicas *int32) {
			if replicas != nil {
				s.replicas = *replicas
			}
			s.version++
			published = s.publish()
		})
		if published != nil {
			return nil, published
		}
		if err != nil {
			return nil, err
		}
	}
	if obj.ResourceVersion != fmt.Sprint(s.version) {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, obj.Name, errors.New("the object has been modified"))
	}
	s.replicas = obj.Spec.Replicas
	s.version++
	if err := s.publish(); err != nil {
		return nil, err
	}
	out := obj.DeepCopy()
	out.ResourceVersion = fmt.Sprint(s.version)
	return out, nil
}

func (s *scaleStore) client() *scalefake.FakeScaleClient {
	c := &scalefake.FakeScaleClient{}
	c.AddReactor("get", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.gets++
		if !s.exists {
			return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web")
		}
		return true, &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "web", ResourceVersion: fmt.Sprint(s.version)},
			Spec:       autoscalingv1.ScaleSpec{Replicas: s.replicas},
			Status:     autoscalingv1.ScaleStatus{Replicas: s.replicas, Selector: "app=" + appLabel},
		}, nil
	})
	c.AddReactor("update", "deployments", func(a clienttesting.Action) (bool, runtime.Object, error) {
		out, err := s.update(a.(clienttesting.UpdateAction).GetObject().(*autoscalingv1.Scale))
		return true, out, err
	})
	return c
}
