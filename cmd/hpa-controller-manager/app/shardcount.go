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

package app

import (
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

// hpaCounter tells the shard manager how many HPAs each shard has, from the
// HPA informers of that shard's run of the controller, so that replicas
// weigh shards by their HPAs rather than count them.
type hpaCounter struct {
	shards int

	mu   sync.Mutex
	runs map[int]countedRun
	// next tells the runs apart, so that a run's stop never clears the
	// stores of a later run on the same shard.
	next int
}

// countedRun is the HPA stores of one run.
type countedRun struct {
	id     int
	stores []cache.Store
	synced func() bool
}

// serve has the counter read the HPA stores of a run on shard i until the
// returned func is called. A nil counter (not sharded) does nothing.
func (c *hpaCounter) serve(i int, stores []cache.Store, synced func() bool) (stop func()) {
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[int]countedRun{}
	}
	c.next++
	mine := c.next
	c.runs[i] = countedRun{id: mine, stores: stores, synced: synced}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.runs[i].id == mine {
			delete(c.runs, i)
		}
	}
}

// count returns the HPAs of shard i, or false while no run serves it or
// its informers have not synced. With an API server that ignores the shard
// selector the stores hold other shards' HPAs too; only i's count.
func (c *hpaCounter) count(i int) (int, bool) {
	c.mu.Lock()
	run, ok := c.runs[i]
	c.mu.Unlock()
	if !ok || !run.synced() {
		return 0, false
	}
	n := 0
	for _, store := range run.stores {
		for _, key := range store.ListKeys() {
			namespace, _, err := cache.SplitMetaNamespaceKey(key)
			if err != nil {
				continue
			}
			if shard.Index(shard.NamespaceHash(namespace), c.shards) == i {
				n++
			}
		}
	}
	return n, true
}
