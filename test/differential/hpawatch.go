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

package differential

import (
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
)

// hpaWatch gives the world's HPAs what the stale-cache skip needs
// (StaleControllerConsistencyHPA, on in both controllers as shipped): a
// resourceVersion on every write, which the fake API server does not
// store in the object, and a watch that can run behind (fault.HPALag).
// With it held, a controller's own status write reaches its cache late,
// and its next pass, finding the cache older than that write, is skipped
// and comes back a period later, in both worlds.
type hpaWatch struct {
	mu      sync.Mutex
	version int64
	held    bool
	// changed is closed, and replaced, when the watch is released.
	changed chan struct{}
}

func newHPAWatch() *hpaWatch { return &hpaWatch{changed: make(chan struct{})} }

// stamp gives obj the next resourceVersion, as the API server does on
// each write.
func (w *hpaWatch) stamp(obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.version++
	m.SetResourceVersion(strconv.FormatInt(w.version, 10))
	return nil
}

// hold keeps every HPA event from now on out of the watchers, until
// release.
func (w *hpaWatch) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = true
}

// release delivers what hold kept back, in order.
func (w *hpaWatch) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.held {
		return
	}
	w.held = false
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *hpaWatch) state() (held bool, changed <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held, w.changed
}

// install stamps the HPAs the world's clients create and routes their
// watches through w.
func (w *hpaWatch) install(client *fake.Clientset) {
	client.PrependReactor("create", "horizontalpodautoscalers", func(a clienttesting.Action) (bool, runtime.Object, error) {
		// The fake drops the error of a reactor that does not handle the
		// action: a failed stamp handles it, with its error.
		if err := w.stamp(a.(clienttesting.CreateAction).GetObject()); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
	tracker := client.Tracker()
	client.PrependWatchReactor("horizontalpodautoscalers", func(a clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := a.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		in, err := tracker.Watch(a.GetResource(), a.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		g := &gatedWatch{gate: w, in: in, out: make(chan watch.Event), stop: make(chan struct{})}
		go g.run()
		return true, g, nil
	})
}

// gatedWatch passes a tracker's watch on, holding its events while the
// gate is held.
type gatedWatch struct {
	gate     *hpaWatch
	in       watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (g *gatedWatch) run() {
	defer close(g.out)
	var buffered []watch.Event
	for {
		held, changed := g.gate.state()
		var out chan<- watch.Event
		var next watch.Event
		if len(buffered) > 0 && !held {
			out, next = g.out, buffered[0]
		}
		select {
		case e, ok := <-g.in.ResultChan():
			if !ok {
				return
			}
			buffered = append(buffered, e)
		case out <- next:
			buffered = buffered[1:]
		case <-changed:
		case <-g.stop:
			return
		}
	}
}

func (g *gatedWatch) Stop() {
	g.stopOnce.Do(func() {
		close(g.stop)
		g.in.Stop()
	})
}

func (g *gatedWatch) ResultChan() <-chan watch.Event { return g.out }

// skipCounter counts the passes kube-hpa skipped as stale, for the run's
// table; upstream's, whose monitor is the process's, are counted by the
// scale reads its skipped passes do not make (staleSkipsOf).
type skipCounter struct {
	monitor.Monitor
	skips *atomic.Int64
}

func (c skipCounter) ObserveStaleSyncSkip(group, resource string) {
	c.skips.Add(1)
	c.Monitor.ObserveStaleSyncSkip(group, resource)
}

// staleSkipsOf counts the passes of upstream's world skipped while the
// HPA watch was held: every pass of upstream reads the scale subresource
// of its target, a skipped one reads nothing. reads are the stores' read
// counts at the first pass's end, now theirs after the second pass.
func staleSkipsOf(stores []*scaleStore, reads []int) int {
	n := 0
	for i, st := range stores {
		if st.readCount() == reads[i] {
			n++
		}
	}
	return n
}

func readCounts(stores []*scaleStore) []int {
	out := make([]int, len(stores))
	for i, st := range stores {
		out[i] = st.readCount()
	}
	return out
}
