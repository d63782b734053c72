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
	corev1 "k8s.io/api/core/v1"
	resourcehelpers "k8s.io/component-helpers/resource"

	"github.com/kube-hpa/kube-hpa/pkg/milli"
)

// Transformer makes the records of one informer, whose records with equal
// labels share one labels map.
type Transformer struct {
	labels *labelSets
}

// NewTransformer returns a Transformer; use one per informer.
func NewTransformer() *Transformer {
	return &Transformer{labels: newLabelSets()}
}

// Transform is the pod informer's transform: a Pod becomes its record.
// Anything else, a tombstone included (its object is already a record, from
// the cache), passes unchanged.
func (t *Transformer) Transform(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	r := FromPod(pod)
	if set := t.labels.intern(r.Labels); set != nil {
		r.Labels, r.labels = set.m, set
	}
	return r, nil
}

// FromPod returns the record of pod. It keeps references to pod's labels
// map and strings, not copies: the informer drops the pod right after.
func FromPod(pod *corev1.Pod) *Pod {
	r := &Pod{
		Name:            pod.Name,
		Namespace:       pod.Namespace,
		ResourceVersion: pod.ResourceVersion,
		Labels:          pod.Labels,
		Phase:           pod.Status.Phase,
		Deleting:        pod.DeletionTimestamp != nil,
		Containers:      longRunningContainers(&pod.Spec),
	}
	if pod.Status.StartTime != nil {
		r.Started, r.StartTime = true, pod.Status.StartTime.Time
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			r.Ready, r.ReadySince = c.Status, c.LastTransitionTime.Time
			break
		}
	}
	if resourcehelpers.IsPodLevelRequestsSet(pod) {
		// The helper is the scheduler's: pod-level requests where set,
		// the containers' sum (with sidecars and the largest init
		// container) for the rest, plus the overhead.
		r.PodLevel = requests(resourcehelpers.PodRequests(pod, resourcehelpers.PodResourcesOptions{}))
		if r.PodLevel == nil {
			r.PodLevel = Requests{}
		}
	}
	return r
}

func longRunningContainers(spec *corev1.PodSpec) []Container {
	var out []Container
	for i := range spec.Containers {
		out = append(out, container(&spec.Containers[i]))
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = append(out, container(c))
		}
	}
	return out
}

func container(c *corev1.Container) Container {
	return Container{Name: c.Name, Requests: requests(c.Resources.Requests)}
}

func requests(list corev1.ResourceList) Requests {
	if len(list) == 0 {
		return nil
	}
	out := make(Requests, 0, len(list))
	for name, q := range list {
		// Saturated at the int64 bounds rather than wrapped, as the
		// calculator divides by it.
		out = append(out, Request{Resource: resourceName(name), Milli: milli.Value(q)})
	}
	return out
}

// resourceName returns the package constant for the common resources, so
// that a decoded "cpu" in every record does not keep a string of its own.
func resourceName(name corev1.ResourceName) corev1.ResourceName {
	switch name {
	case corev1.ResourceCPU:
		return corev1.ResourceCPU
	case corev1.ResourceMemory:
		return corev1.ResourceMemory
	default:
		return name
	}
}
