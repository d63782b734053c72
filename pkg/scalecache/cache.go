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

package scalecache

import (
	"context"
	"strconv"
	"sync"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/scale"
)

// Options configure a Cache.
type Options struct {
	// Client reads the scale of what the watches cannot answer, and
	// carries every write.
	Client scale.ScalesGetter
	// Kube lists and watches the workload kinds.
	Kube kubernetes.Interface
	// Namespace limits the watches to one namespace; empty watches all.
	Namespace string
	// TweakListOptions, when set, changes the list and watch options of
	// every watch.
	TweakListOptions func(*metav1.ListOptions)
	// InScope, when set, keeps in the watches only the objects of the
	// namespaces it matches, whatever the API server did with the
	// options: one that ignores a shardSelector sends every namespace's.
	InScope func(namespace string) bool
	// Targeted returns the watched kinds that some HPA targets (see
	// ResourceOf); the watch of any other kind is stopped at the next
	// sweep. Nil keeps every watch that started.
	Targeted func() sets.Set[schema.GroupResource]
	// SweepPeriod is how often watches are swept; zero means
	// DefaultSweepPeriod.
	SweepPeriod time.Duration
}

// Cache is a scale.ScalesGetter that reads the scale of the four workload
// kinds from watches of them and everything else from the API. A kind is
// watched from its first read while Run runs, and no longer once no HPA
// targets it.
type Cache struct {
	client  scale.ScalesGetter
	kinds   map[schema.GroupResource]kind
	watches *watches

	mu sync.Mutex
	// written holds the scale each of the controller's own writes
	// returned, until the informer has caught up with it.
	written map[objectKey]*autoscalingv1.Scale
	// fresh marks objects whose next read goes to the API: a write of
	// theirs conflicted, so the cache is behind the object.
	fresh map[objectKey]bool
}

type objectKey struct {
	resource  schema.GroupResource
	namespace string
	name      string
}

var _ scale.ScalesGetter = (*Cache)(nil)

// New returns a Cache; until Run is called every read goes to the API.
func New(opts Options) *Cache {
	if opts.SweepPeriod <= 0 {
		opts.SweepPeriod = DefaultSweepPeriod
	}
	kinds := watchedKinds()
	return &Cache{
		client:  opts.Client,
		kinds:   kinds,
		watches: &watches{opts: opts, kinds: kinds, running: map[schema.GroupResource]*watch{}},
		written: map[objectKey]*autoscalingv1.Scale{},
		fresh:   map[objectKey]bool{},
	}
}

// Run lets the watches start, and sweeps those no HPA needs, until ctx
// ends; then it stops them all and returns.
func (c *Cache) Run(ctx context.Context) { c.watches.run(ctx) }

// Watching reports whether the watch of resource runs.
func (c *Cache) Watching(resource schema.GroupResource) bool {
	return c.watches.runningKinds().Has(resource)
}

// HasSynced reports whether every running watch has synced: the kinds not
// watched yet are read from the API, which is never behind.
func (c *Cache) HasSynced() bool { return c.watches.synced() }

// Scales returns the scale interface of namespace.
func (c *Cache) Scales(namespace string) scale.ScaleInterface {
	return namespaced{cache: c, namespace: namespace}
}

type namespaced struct {
	cache     *Cache
	namespace string
}

// Get answers from the informer of resource when it has one, has synced
// and holds the object, and nothing newer is known; otherwise from the API.
func (n namespaced) Get(ctx context.Context, resource schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	key := objectKey{resource: resource, namespace: n.namespace, name: name}
	if s, ok := n.cache.cached(key); ok {
		return s, nil
	}
	return n.cache.client.Scales(n.namespace).Get(ctx, resource, name, opts)
}

// Update writes through the API and remembers the result, so that a read
// before the informer sees the write returns the written scale.
func (n namespaced) Update(ctx context.Context, resource schema.GroupResource, s *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	key := objectKey{resource: resource, namespace: n.namespace, name: s.Name}
	updated, err := n.cache.client.Scales(n.namespace).Update(ctx, resource, s, opts)
	n.cache.afterWrite(key, updated, err)
	return updated, err
}

// Patch writes through the API like Update.
func (n namespaced) Patch(ctx context.Context, gvr schema.GroupVersionResource, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (*autoscalingv1.Scale, error) {
	key := objectKey{resource: gvr.GroupResource(), namespace: n.namespace, name: name}
	patched, err := n.cache.client.Scales(n.namespace).Patch(ctx, gvr, name, pt, data, opts)
	n.cache.afterWrite(key, patched, err)
	return patched, err
}

func (c *Cache) afterWrite(key objectKey, result *autoscalingv1.Scale, err error) {
	if _, ok := c.kinds[key.resource]; !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err == nil && result != nil:
		c.written[key] = result.DeepCopy()
		delete(c.fresh, key)
	case apierrors.IsConflict(err):
		c.fresh[key] = true
		delete(c.written, key)
	}
}

// cached returns the scale of key from the informer, or the controller's
// own newer write, and false when the read must go to the API.
func (c *Cache) cached(key objectKey) (*autoscalingv1.Scale, bool) {
	if _, ok := c.kinds[key.resource]; !ok {
		return nil, false
	}
	informer, ok := c.watches.informer(key.resource)
	if !ok || !informer.HasSynced() {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fresh[key] {
		delete(c.fresh, key)
		return nil, false
	}
	obj, exists, err := informer.GetIndexer().GetByKey(key.namespace + "/" + key.name)
	if err != nil || !exists {
		// Perhaps created after the last event: the API knows.
		return nil, false
	}
	stored, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		// The transform found no scale in it: the API knows.
		return nil, false
	}
	// The caller may change the scale it gets; the cache's must stay.
	s := stored.DeepCopy()
	written, ok := c.written[key]
	if !ok {
		return s, true
	}
	switch stale, comparable := olderThan(s.ResourceVersion, written.ResourceVersion); {
	case !comparable:
		delete(c.written, key)
		return nil, false
	case stale:
		return written.DeepCopy(), true
	default:
		// The informer has seen the write, or something after it.
		delete(c.written, key)
		return s, true
	}
}

// olderThan reports whether resource version a is older than b. Versions
// are opaque to clients, but those of an etcd-backed API server are the
// store's revision numbers, whose order is the order of the writes; when
// either is not a number the two cannot be compared, and the caller reads
// from the API instead.
func olderThan(a, b string) (older, comparable bool) {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil {
		return false, false
	}
	return x < y, true
}
