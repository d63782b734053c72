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
// HPA informers of the run of the controllers under way, so that replicas
// weigh shards by their HPAs rather than count them.
type hpaCounter struct {
	shards int

	mu     sync.Mutex
	stores []cache.Store
	synced func() bool
	// run tells the runs apart, so that a run's stop never clears the
	// stores of the one after it.
	run int
}

// serve has the counter read a run's HPA stores until the returned func is
// called. A nil counter (not sharded) does nothing.
func (c *hpaCounter) serve(stores []cache.Store, synced func() bool) (stop func()) {
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run++
	c.stores, c.synced = stores, synced
	mine := c.run
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.run == mine {
			c.stores, c.synced = nil, nil
		}
	}
}

// count returns the HPAs of each shard that has some, or false while no run
// serves or its informers have not synced. With an API server that ignores
// the shard selector the stores hold other shards' HPAs too; their counts
// are right as well, and only the held shards' are written.
func (c *hpaCounter) count() (map[int]int, bool) {
	c.mu.Lock()
	stores, synced := c.stores, c.synced
	c.mu.Unlock()
	if stores == nil || !synced() {
		return nil, false
	}
	counts := map[int]int{}
	for _, store := range stores {
		for _, key := range store.ListKeys() {
			namespace, _, err := cache.SplitMetaNamespaceKey(key)
			if err != nil {
				continue
			}
			counts[shard.Index(shard.NamespaceHash(namespace), c.shards)]++
		}
	}
	return counts, true
}
