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
	"k8s.io/apimachinery/pkg/types"
	scalefake "k8s.io/client-go/scale/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

var deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// scaleStore is the target's scale subresource, with the resourceVersion
// and UID checks of the API server: an update must carry the version of the
// latest write, and the UID, when it carries one, of the object there now.
// faults, in kube-hpa's world, are the step's writers that land between
// its read and its update.
//
// Every change is also published as the Deployment it is the scale of,
// resourceVersion and UID included, in the world's object tracker, so that
// a watch of Deployments (kube-hpa's scale cache) sees what the scale
// subresource serves, unless the store holds it back (a watch lagging).
type scaleStore struct {
	// name is the Deployment's, app the label of its pods.
	name, app string
	mu        sync.Mutex
	replicas  int32
	version   int
	faults    *armedFaults
	// landed, when set, is told the replicas of every update that landed.
	landed func(int32)
	// exists: the target has been created (by the first step).
	exists bool
	// uid is the target's UID; each creation gives it a new one.
	uid       types.UID
	creations int
	tracker   clienttesting.ObjectTracker
	// held: changes stay out of the tracker until release, so that the
	// watch runs behind the scale subresource.
	held bool
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
	s.newUID()
	s.version++
	return s.publish()
}

func (s *scaleStore) newUID() {
	s.creations++
	s.uid = types.UID(fmt.Sprintf("uid-%s-%d", s.name, s.creations))
}

// publish puts the Deployment of the current scale in the tracker: an
// update, or a deletion and a creation when the target was created again
// since the tracker last saw it.
func (s *scaleStore) publish() error {
	if s.tracker == nil || !s.exists || s.held {
		return nil
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: s.name, UID: s.uid, ResourceVersion: fmt.Sprint(s.version)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(s.replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": s.app}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": s.app}}},
		},
		Status: appsv1.DeploymentStatus{Replicas: s.replicas},
	}
	old, err := s.tracker.Get(deploymentsGVR, namespace, s.name)
	switch {
	case apierrors.IsNotFound(err):
		return s.tracker.Add(d)
	case err != nil:
		return err
	case old.(metav1.Object).GetUID() != s.uid:
		if err := s.tracker.Delete(deploymentsGVR, namespace, s.name); err != nil {
			return err
		}
		return s.tracker.Add(d)
	}
	return s.tracker.Update(deploymentsGVR, d, namespace)
}

// hold keeps the changes from now on out of the watch, until release.
func (s *scaleStore) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = true
}

// release lets the watch see the target as it is now.
func (s *scaleStore) release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.held {
		return nil
	}
	s.held = false
	return s.publish()
}

func (s *scaleStore) get() int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replicas
}

// set is a person's change of the target: a scale to n replicas, or with
// recreate the target deleted and created again under its name with n
// replicas (a new UID, and two writes as the API server counts them).
func (s *scaleStore) set(n int32, recreate bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.change(n, recreate)
	return s.publish()
}

// change is set with s.mu held and nothing published.
func (s *scaleStore) change(n int32, recreate bool) {
	if recreate {
		s.newUID()
		s.version++
	}
	s.replicas = n
	s.version++
}

// update writes obj's replicas when it carries the latest version (and the
// UID of the object there now, when it carries one).
func (s *scaleStore) update(obj *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults != nil {
		var published error
		err := s.faults.beforeScaleUpdate(func(c *personsChange) {
			if c != nil {
				s.change(c.replicas, c.recreate)
			} else {
				// Another writer's change that keeps the replicas.
				s.version++
			}
			published = s.publish()
		})
		if published != nil {
			return nil, published
		}
		if err != nil {
			return nil, err
		}
	}
	if obj.UID != "" && obj.UID != s.uid {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, obj.Name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", obj.UID, s.uid))
	}
	if obj.ResourceVersion != fmt.Sprint(s.version) {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, obj.Name, errors.New("the object has been modified"))
	}
	s.replicas = obj.Spec.Replicas
	s.version++
	if err := s.publish(); err != nil {
		return nil, err
	}
	if s.landed != nil {
		s.landed(s.replicas)
	}
	out := obj.DeepCopy()
	out.ResourceVersion = fmt.Sprint(s.version)
	return out, nil
}

// read is a GET of the scale subresource.
func (s *scaleStore) read() (*autoscalingv1.Scale, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	if !s.exists {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, s.name)
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: s.name, UID: s.uid, ResourceVersion: fmt.Sprint(s.version)},
		Spec:       autoscalingv1.ScaleSpec{Replicas: s.replicas},
		Status:     autoscalingv1.ScaleStatus{Replicas: s.replicas, Selector: "app=" + s.app},
	}, nil
}

// readCount is how many times the scale subresource was read.
func (s *scaleStore) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// scaleClient is the scale subresource of the world's Deployments, each
// served by its store.
func scaleClient(stores ...*scaleStore) *scalefake.FakeScaleClient {
	named := func(name string) (*scaleStore, error) {
		for _, s := range stores {
			if s.name == name {
				return s, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, name)
	}
	c := &scalefake.FakeScaleClient{}
	c.AddReactor("get", "deployments", func(a clienttesting.Action) (bool, runtime.Object, error) {
		s, err := named(a.(clienttesting.GetAction).GetName())
		if err != nil {
			return true, nil, err
		}
		out, err := s.read()
		return true, out, err
	})
	c.AddReactor("update", "deployments", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.UpdateAction).GetObject().(*autoscalingv1.Scale)
		s, err := named(obj.Name)
		if err != nil {
			return true, nil, err
		}
		out, err := s.update(obj)
		return true, out, err
	})
	return c
}
