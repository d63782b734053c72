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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pod is the record of one pod.
type Pod struct {
	Name            string
	Namespace       string
	ResourceVersion string
	Labels          map[string]string
	Phase           corev1.PodPhase
	// Deleting is set once the pod has a deletion timestamp.
	Deleting bool
	// Started tells whether the kubelet has set the start time.
	Started   bool
	StartTime time.Time
	// Ready is the status of the Ready condition, empty when the pod has
	// none; ReadySince is that condition's last transition.
	Ready      corev1.ConditionStatus
	ReadySince time.Time
	// Containers are the ones that run for the pod's life: the regular
	// containers, then the sidecars (restartable init containers), in
	// spec order. Plain init containers have finished before the pod
	// serves and are left out.
	Containers []Container
	// PodLevel is the pod's effective requests, as the scheduler sums
	// them, when the pod sets pod-level requests (KEP-2837); nil when it
	// does not.
	PodLevel Requests

	// labels is the shared set Labels comes from, if any: holding it
	// keeps the set, and its entry in the Transformer, alive.
	labels *labelSet
}

// Container is one long-running container's requests.
type Container struct {
	Name     string
	Requests Requests
}

// Requests are resource requests as milli-values, in no particular order.
type Requests []Request

// Request is one resource's request.
type Request struct {
	Resource corev1.ResourceName
	Milli    int64
}

// Get returns the request of resource, and whether there is one.
func (r Requests) Get(resource corev1.ResourceName) (int64, bool) {
	for _, q := range r {
		if q.Resource == resource {
			return q.Milli, true
		}
	}
	return 0, false
}

// RunningAndReady tells whether the pod serves: running, with its Ready
// condition true.
func (p *Pod) RunningAndReady() bool {
	return p.Phase == corev1.PodRunning && p.Ready == corev1.ConditionTrue
}

// GetObjectMeta makes a record an object to client-go's caches, which key,
// index and compare resource versions through meta.Accessor. The metadata
// is built on each call: the caches ask for it once per event, and keeping
// a whole ObjectMeta in every record would cost more than the record.
func (p *Pod) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, ResourceVersion: p.ResourceVersion, Labels: p.Labels}
}

var _ metav1.ObjectMetaAccessor = (*Pod)(nil)
