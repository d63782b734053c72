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
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

// eventFence lets the process's one event broadcaster send an event only
// while a run of the controller works the shard of its namespace and may
// still write. The broadcaster sends events after the pass that recorded
// them, from a queue that outlives the shards' runs: without the fence, an
// event recorded by a run that was then stopped (its shard given away) or
// fenced (a process resumed past its renewal deadline) would land after
// another replica took the shard. It asks the fence right before each
// event write, as a pass does before its own writes.
type eventFence struct {
	shards int

	mu sync.Mutex
	// runs is the context of the run working each shard: its
	// shardlease.Check says whether it may still write.
	runs map[int]context.Context
}

func newEventFence(shards int) *eventFence {
	return &eventFence{shards: shards, runs: map[int]context.Context{}}
}

// register has events of shard i's namespaces follow the fence of the run
// of ctx until the returned func is called.
func (f *eventFence) register(i int, ctx context.Context) (unregister func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs[i] = ctx
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.runs[i] == ctx {
			delete(f.runs, i)
		}
	}
}

// allow returns nil while an event of namespace may be written.
func (f *eventFence) allow(namespace string) error {
	if namespace == "" {
		return nil
	}
	i := shard.Index(shard.NamespaceHash(namespace), f.shards)
	f.mu.Lock()
	ctx, ok := f.runs[i]
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: no run works shard %d", shardlease.ErrFenced, i)
	}
	return shardlease.Check(ctx)
}

// events wraps the events client with the fence; a nil fence (not
// sharded) returns it as it is.
func (f *eventFence) events(ctx context.Context, events typedcorev1.EventsGetter) typedcorev1.EventsGetter {
	if f == nil {
		return events
	}
	return fencedEventsGetter{EventsGetter: events, fence: f, logger: klog.FromContext(ctx)}
}

type fencedEventsGetter struct {
	typedcorev1.EventsGetter
	fence  *eventFence
	logger klog.Logger
}

func (g fencedEventsGetter) Events(namespace string) typedcorev1.EventInterface {
	return fencedEvents{EventInterface: g.EventsGetter.Events(namespace), fence: g.fence, logger: g.logger}
}

// fencedEvents drops a refused event as if it had been written: an error
// would have the broadcaster retry it, and send it if this replica worked
// the shard again by then, after another replica's turn.
type fencedEvents struct {
	typedcorev1.EventInterface
	fence  *eventFence
	logger klog.Logger
}

func (e fencedEvents) refused(event *corev1.Event) bool {
	err := e.fence.allow(event.Namespace)
	if err != nil {
		e.logger.V(2).Info("Not writing an event", "event", klog.KObj(event), "object", event.InvolvedObject.Name, "reason", event.Reason, "err", err)
	}
	return err != nil
}

func (e fencedEvents) CreateWithEventNamespace(event *corev1.Event) (*corev1.Event, error) {
	if e.refused(event) {
		return event, nil
	}
	return e.EventInterface.CreateWithEventNamespace(event)
}

func (e fencedEvents) UpdateWithEventNamespace(event *corev1.Event) (*corev1.Event, error) {
	if e.refused(event) {
		return event, nil
	}
	return e.EventInterface.UpdateWithEventNamespace(event)
}

func (e fencedEvents) PatchWithEventNamespace(event *corev1.Event, data []byte) (*corev1.Event, error) {
	if e.refused(event) {
		return event, nil
	}
	return e.EventInterface.PatchWithEventNamespace(event, data)
}
