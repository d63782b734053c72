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

package shardwatch

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// filteredWatch passes on the events of incoming that keep accepts.
//
// It is watch.Filter with a way out: watch.Filter's loop blocks forever
// sending an event that no one reads once the reflector has stopped the
// watch (it stops without draining), and a shard's informers stop at every
// handover, on busy watches. Here Stop also ends a pending send.
type filteredWatch struct {
	incoming watch.Interface
	result   chan watch.Event
	keep     func(watch.Event) bool

	stopOnce sync.Once
	stopped  chan struct{}
}

func newFilteredWatch(ctx context.Context, incoming watch.Interface, keep func(watch.Event) bool) watch.Interface {
	w := &filteredWatch{
		incoming: incoming,
		result:   make(chan watch.Event),
		keep:     keep,
		stopped:  make(chan struct{}),
	}
	goroutine.Go(ctx, "shard watch filter", w.loop)
	return w
}

func (w *filteredWatch) ResultChan() <-chan watch.Event { return w.result }

// Stop stops incoming, whose channel then closes, and any send under way.
func (w *filteredWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.incoming.Stop()
	})
}

func (w *filteredWatch) loop() {
	defer close(w.result)
	for {
		select {
		case <-w.stopped:
			return
		case e, ok := <-w.incoming.ResultChan():
			if !ok {
				return
			}
			if !w.keep(e) {
				continue
			}
			select {
			case w.result <- e:
			case <-w.stopped:
				return
			}
		}
	}
}
