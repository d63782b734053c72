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
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// watchPods makes the pod informer keep records (podrecord), which is all
// the calculator and the selector index read, indexed by label so that a
// reconcile lists its own pods rather than its namespace's, and keeps the
// selector index's answers true as pods come, go and change labels.
func (c *Controller) watchPods(informer cache.SharedIndexInformer) error {
	if err := informer.SetTransform(podrecord.NewTransformer().Transform); err != nil {
		// Only a started informer refuses: its cache may hold whole pods.
		return err
	}
	if err := podrecord.AddIndexers(informer); err != nil {
		return err
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.onPodAdd,
		UpdateFunc: c.onPodUpdate,
		DeleteFunc: c.onPodDelete,
	})
	return err
}

func (c *Controller) onPodAdd(obj any) {
	if pod, ok := obj.(*podrecord.Pod); ok {
		c.selectors.podChanged(pod.Namespace, nil, labels.Set(pod.Labels))
	}
}

// onPodUpdate ignores updates that keep the labels: status updates, by far
// the most frequent, then cost one comparison.
func (c *Controller) onPodUpdate(old, cur any) {
	oldPod, ok := old.(*podrecord.Pod)
	if !ok {
		return
	}
	curPod, ok := cur.(*podrecord.Pod)
	if !ok || labels.Equals(oldPod.Labels, curPod.Labels) {
		return
	}
	c.selectors.podChanged(curPod.Namespace, labels.Set(oldPod.Labels), labels.Set(curPod.Labels))
}

func (c *Controller) onPodDelete(obj any) {
	// A deletion the watch missed comes as a tombstone.
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if pod, ok := obj.(*podrecord.Pod); ok {
		c.selectors.podChanged(pod.Namespace, labels.Set(pod.Labels), nil)
	}
}
