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

// The fake API server's reactors: how it stores HPAs and names events as
// kube-apiserver does, and the status conflicts a fault makes.

import (
	"encoding/json"
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// loseStatusUpdates has kube-hpa's status update lose to another writer of
// the HPA when the step's fault says so.
func loseStatusUpdates(client *fake.Clientset, faults *armedFaults, versions *hpaWatch) {
	client.PrependReactor("update", "horizontalpodautoscalers", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" || a.(clienttesting.UpdateAction).GetObject().(metav1.Object).GetName() != "web" {
			return false, nil, nil
		}
		lost, competing := faults.beforeStatusUpdate()
		if !lost {
			return false, nil, nil
		}
		if competing {
			if err := writeCompetingStatus(client.Tracker(), versions); err != nil {
				return true, nil, err
			}
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}, "web", errors.New("the object has been modified"))
	})
}

// storeHPAsAsTheAPIServer has the fake API store an HPA as the API server
// does, through its wire form: times to the second, where the fake would
// keep what a controller wrote, to the nanosecond. A controller that reads
// a time back from the stored status (the first failure of a fallback,
// whose deadline it computes) must read what it would read in a cluster.
func storeHPAsAsTheAPIServer(client *fake.Clientset, versions *hpaWatch) {
	store := clienttesting.ObjectReaction(client.Tracker())
	client.PrependReactor("update", "horizontalpodautoscalers", func(a clienttesting.Action) (bool, runtime.Object, error) {
		update, ok := a.(clienttesting.UpdateActionImpl)
		if !ok {
			return false, nil, nil
		}
		data, err := json.Marshal(update.Object)
		if err != nil {
			return true, nil, err
		}
		stored := &autoscalingv2.HorizontalPodAutoscaler{}
		if err := json.Unmarshal(data, stored); err != nil {
			return true, nil, err
		}
		if err := versions.stamp(stored); err != nil {
			return true, nil, err
		}
		update.Object = stored
		return store(update)
	})
}

// uniqueEventNames makes the fake API server give every new event a name of
// its own. The recorder names an event after its object and the time in
// nanoseconds, which a real clock never repeats but the bubble's, standing
// still during a reconcile, does: the second event of a pass would be
// refused as a duplicate, and the recorder retry after a random sleep.
func uniqueEventNames(client *fake.Clientset) {
	var n int
	client.PrependReactor("create", "events", func(a clienttesting.Action) (bool, runtime.Object, error) {
		n++
		e := a.(clienttesting.CreateAction).GetObject().(*corev1.Event)
		e.Name = fmt.Sprintf("%s.%d", e.Name, n)
		return false, nil, nil
	})
}
