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

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"k8s.io/client-go/tools/cache"
)

// TestHPAsOutOfScopeAreNeverQueued pins what a sharded replica relies on:
// whatever its informers deliver (an API server that ignores the shard
// selector delivers every namespace), the HPAs of namespaces outside its
// shards are not queued, counted or forgotten by it.
func TestHPAsOutOfScopeAreNeverQueued(t *testing.T) {
	h := newHarness(t, nil, harnessOptions{inScope: func(namespace string) bool { return namespace == testNamespace }})
	in := newHPA(1, 10, cpuUtilization(50))
	out := newHPA(1, 10, cpuUtilization(50))
	out.Namespace = "another-tenant"

	for _, hpa := range []*v2.HorizontalPodAutoscaler{in, out} {
		h.source.set(hpa)
		h.c.onAdd(0, hpa)
	}
	if n := h.c.queue.Len(); n != 1 {
		t.Fatalf("queue holds %d HPAs after adding one in scope and one out, want 1", n)
	}
	if key, _ := h.c.queue.Get(); key != h.key(testHPAName) {
		t.Errorf("queued %v, want the HPA in scope", key)
	}
	if h.monitor.hpaCount != 1 {
		t.Errorf("HPA count = %d, want only the one in scope", h.monitor.hpaCount)
	}

	changed := out.DeepCopy()
	changed.Generation++
	changed.Spec.MaxReplicas = 20
	h.c.onUpdate(0, out, changed)
	h.c.onDelete(0, cache.DeletedFinalStateUnknown{Key: out.Namespace + "/" + out.Name, Obj: out})
	if n := h.c.queue.Len(); n != 0 {
		t.Errorf("an update or delete out of scope queued %d HPAs", n)
	}
	if h.monitor.hpaCount != 1 {
		t.Errorf("HPA count = %d after a delete out of scope, want 1", h.monitor.hpaCount)
	}
}

// TestEveryHPAIsInScopeWithoutAFilter pins the default of one replica for
// all: no InScope means every namespace.
func TestEveryHPAIsInScopeWithoutAFilter(t *testing.T) {
	h := newHarness(t, nil, harnessOptions{})
	for _, ns := range []string{testNamespace, "another-tenant"} {
		hpa := newHPA(1, 10, cpuUtilization(50))
		hpa.Namespace = ns
		h.source.set(hpa)
		h.c.onAdd(0, hpa)
	}
	if n := h.c.queue.Len(); n != 2 {
		t.Errorf("queue holds %d HPAs, want both", n)
	}
}
