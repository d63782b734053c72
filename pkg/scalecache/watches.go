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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// DefaultSweepPeriod is how often a Cache looks for watches that no HPA
// needs any more.
const DefaultSweepPeriod = time.Minute

// watch is the running informer of one kind.
type watch struct {
	informer cache.SharedIndexInformer
	// stop ends the informer; done is closed once it has returned.
	stop context.CancelFunc
	done chan struct{}
}

// watches starts the informer of a kind on its first read and stops it
// once no HPA targets the kind: a cluster whose HPAs all target
// Deployments lists and holds no ReplicaSets or StatefulSets.
type watches struct {
	opts  Options
	kinds map[schema.GroupResource]kind

	mu sync.Mutex
	// ctx is Run's; nil before Run and after it returned, when no
	// informer starts and every read goes to the API.
	ctx     context.Context
	running map[schema.GroupResource]*watch
}

// informer returns the kind's running informer, starting it when it is
// the kind's first read since Run began or since the kind's last watch was
// stopped. It reports false when resource is not a watched kind or the
// cache is not running.
func (w *watches) informer(resource schema.GroupResource) (cache.SharedIndexInformer, bool) {
	k, ok := w.kinds[resource]
	if !ok {
		return nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if r, ok := w.running[resource]; ok {
		return r.informer, true
	}
	if w.ctx == nil {
		return nil, false
	}
	informer := k.newInformer(w.opts)
	if err := informer.SetTransform(k.transform); err != nil {
		// Only a started informer refuses a transform.
		klog.FromContext(w.ctx).Error(err, "Setting the transform of a new informer", "resource", resource)
		return nil, false
	}
	ctx, cancel := context.WithCancel(w.ctx)
	r := &watch{informer: informer, stop: cancel, done: make(chan struct{})}
	goroutine.Go(ctx, "scale watch", func() {
		defer close(r.done)
		informer.RunWithContext(ctx)
	})
	w.running[resource] = r
	klog.FromContext(w.ctx).V(2).Info("Watching a workload kind for its scale", "resource", resource)
	return informer, true
}

// synced reports whether every running informer has synced.
func (w *watches) synced() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.running {
		if !r.informer.HasSynced() {
			return false
		}
	}
	return true
}

// runningKinds returns the resources whose informers run now.
func (w *watches) runningKinds() sets.Set[schema.GroupResource] {
	w.mu.Lock()
	defer w.mu.Unlock()
	return sets.KeySet(w.running)
}

// sweep starts the watches of the kinds the HPAs target, so that the
// first pass over thousands of HPAs does not read each scale from the API,
// and stops those of the kinds no HPA targets. A read of such a kind
// afterwards goes to the API and starts a new watch, which reads from the
// API until it has synced: a stopped watch never answers.
func (w *watches) sweep(ctx context.Context) {
	if w.opts.Targeted == nil {
		return
	}
	targeted := w.opts.Targeted()
	for resource := range targeted {
		w.informer(resource)
	}
	w.mu.Lock()
	var stopped []*watch
	for resource, r := range w.running {
		if targeted.Has(resource) {
			continue
		}
		delete(w.running, resource)
		r.stop()
		stopped = append(stopped, r)
		klog.FromContext(ctx).V(2).Info("Stopped the watch of a workload kind no HPA targets", "resource", resource)
	}
	w.mu.Unlock()
	for _, r := range stopped {
		<-r.done
	}
}

// run lets informers start until ctx ends, sweeping every period, then
// stops them all and waits for them.
func (w *watches) run(ctx context.Context) {
	w.mu.Lock()
	w.ctx = ctx
	w.mu.Unlock()
	wait.UntilWithContext(ctx, w.sweep, w.opts.SweepPeriod)
	w.mu.Lock()
	w.ctx = nil
	running := w.running
	w.running = map[schema.GroupResource]*watch{}
	w.mu.Unlock()
	for _, r := range running {
		r.stop()
		<-r.done
	}
}
