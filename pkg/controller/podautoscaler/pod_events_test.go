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
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

func TestPodEventsKeepOwnersTrue(t *testing.T) {
	// Events carry records: the informer's transform made them.
	pod := func(podLabels map[string]string, phase corev1.PodPhase) *podrecord.Pod {
		return &podrecord.Pod{Namespace: worldNS, Name: "p", Labels: podLabels, Phase: phase}
	}
	selected := map[string]string{"app": "a"}
	cases := []struct {
		name      string
		event     func(c *Controller)
		wantStale bool // whether the kept answer must be dropped
	}{
		{name: "a selected pod added drops the answer",
			event: func(c *Controller) { c.onPodAdd(pod(selected, corev1.PodPending)) }, wantStale: true},
		{name: "an unselected pod added keeps the answer",
			event: func(c *Controller) { c.onPodAdd(pod(map[string]string{"app": "b"}, corev1.PodPending)) }},
		{name: "a status update keeps the answer",
			event: func(c *Controller) {
				c.onPodUpdate(pod(selected, corev1.PodPending), pod(selected, corev1.PodRunning))
			}},
		{name: "a relabel out of the selection drops the answer",
			event: func(c *Controller) {
				c.onPodUpdate(pod(selected, corev1.PodRunning), pod(map[string]string{"app": "b"}, corev1.PodRunning))
			}, wantStale: true},
		{name: "a relabel into the selection drops the answer",
			event: func(c *Controller) {
				c.onPodUpdate(pod(map[string]string{"app": "b"}, corev1.PodRunning), pod(selected, corev1.PodRunning))
			}, wantStale: true},
		{name: "a selected pod deleted drops the answer",
			event: func(c *Controller) { c.onPodDelete(pod(selected, corev1.PodRunning)) }, wantStale: true},
		{name: "a selected pod's missed deletion drops the answer",
			event: func(c *Controller) {
				c.onPodDelete(cache.DeletedFinalStateUnknown{Key: worldNS + "/p", Obj: pod(selected, corev1.PodRunning)})
			}, wantStale: true},
		{name: "objects that are not pods are ignored",
			event: func(c *Controller) {
				c.onPodAdd("not a pod")
				c.onPodUpdate("not a pod", pod(selected, corev1.PodRunning))
				c.onPodUpdate(pod(selected, corev1.PodRunning), "not a pod")
				c.onPodDelete(cache.DeletedFinalStateUnknown{Key: worldNS + "/p", Obj: "not a pod"})
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Controller{selectors: newSelectorIndex()}
			key := worldKey("a")
			c.selectors.register(key)
			if _, err := c.selectors.parse(key, "app=a"); err != nil {
				t.Fatal(err)
			}
			listed := 0
			ask := func() {
				_, _ = c.selectors.owners(key, func() ([]*podrecord.Pod, error) { listed++; return nil, nil })
			}
			ask()
			tc.event(c)
			ask()
			if stale := listed == 2; stale != tc.wantStale {
				t.Errorf("answer dropped = %v, want %v", stale, tc.wantStale)
			}
		})
	}
}
