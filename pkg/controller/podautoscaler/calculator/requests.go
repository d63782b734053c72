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

package calculator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-hpa/kube-hpa/pkg/milli"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// podRequests returns each pod's request of resource, as a milli-value, by
// pod name. A pod that requests none of it is an error: utilization is
// relative to the request.
func (c *Calculator) podRequests(pods []*podrecord.Pod, container string, resource corev1.ResourceName) (map[string]int64, error) {
	requests := make(map[string]int64, len(pods))
	for _, pod := range pods {
		var request int64
		var err error
		if c.usesPodLevelRequests(pod, container) {
			request, err = podLevelRequest(pod, resource)
		} else {
			request, err = containerRequests(pod, container, resource)
		}
		if err != nil {
			return nil, err
		}
		requests[pod.Name] = request
	}
	return requests, nil
}

// usesPodLevelRequests tells whether the pod's own requests (KEP-2837)
// stand for its containers'. A container named by the HPA takes precedence.
func (c *Calculator) usesPodLevelRequests(pod *podrecord.Pod, container string) bool {
	return !c.ignorePodLevelResources && container == "" && pod.PodLevel != nil
}

// podLevelRequest returns the pod's effective request of resource, as the
// scheduler sees it: pod-level where set, else aggregated from containers,
// plus overhead.
func podLevelRequest(pod *podrecord.Pod, resource corev1.ResourceName) (int64, error) {
	request, found := pod.PodLevel.Get(resource)
	if !found {
		return 0, fmt.Errorf("missing pod-level request for %s in Pod %s", resource, pod.Name)
	}
	return request, nil
}

// containerRequests returns the request of resource by the named container,
// or summed over the containers that run alongside each other (regular
// containers and sidecars) when container is empty.
func containerRequests(pod *podrecord.Pod, container string, resource corev1.ResourceName) (int64, error) {
	var sum int64
	matched := false
	for _, c := range pod.Containers {
		if container != "" && c.Name != container {
			continue
		}
		request, found := c.Requests.Get(resource)
		if !found {
			return 0, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, pod.Name)
		}
		sum = milli.Add(sum, request)
		matched = true
	}
	if container != "" && !matched {
		return 0, fmt.Errorf("container %s not found in Pod %s", container, pod.Name)
	}
	return sum, nil
}
