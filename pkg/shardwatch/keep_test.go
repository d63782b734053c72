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
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

func pod(namespace, name string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func inA(namespace string) bool { return namespace == "a" }

// fixedLW answers every list with a copy of list and every watch with w.
type fixedLW struct {
	list        *corev1.PodList
	w           watch.Interface
	unsupported bool
}

func (f *fixedLW) List(metav1.ListOptions) (runtime.Object, error) {
	return f.list.DeepCopy(), nil
}

func (f *fixedLW) Watch(metav1.ListOptions) (watch.Interface, error) { return f.w, nil }

func (f *fixedLW) IsWatchListSemanticsUnSupported() bool { return f.unsupported }

func names(list *corev1.PodList) []string {
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

func TestKeepList(t *testing.T) {
	listMeta := metav1.ListMeta{ResourceVersion: "42", Continue: "next-page"}
	cases := []struct {
		name    string
		inScope func(string) bool
		items   []corev1.Pod
		want    []string
	}{
		{name: "other namespaces dropped", inScope: inA,
			items: []corev1.Pod{pod("a", "1"), pod("b", "2"), pod("a", "3"), pod("", "cluster")},
			want:  []string{"a/1", "a/3"}},
		{name: "all in scope", inScope: inA,
			items: []corev1.Pod{pod("a", "1"), pod("a", "2")},
			want:  []string{"a/1", "a/2"}},
		{name: "none in scope", inScope: inA,
			items: []corev1.Pod{pod("b", "1")}},
		{name: "no filter", inScope: nil,
			items: []corev1.Pod{pod("a", "1"), pod("b", "2")},
			want:  []string{"a/1", "b/2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lw := &fixedLW{list: &corev1.PodList{ListMeta: listMeta, Items: tc.items}}
			for _, withContext := range []bool{false, true} {
				var got runtime.Object
				var err error
				if withContext {
					got, err = cache.ToListerWatcherWithContext(Keep(lw, tc.inScope)).ListWithContext(context.Background(), metav1.ListOptions{})
				} else {
					got, err = Keep(lw, tc.inScope).List(metav1.ListOptions{})
				}
				if err != nil {
					t.Fatal(err)
				}
				list := got.(*corev1.PodList)
				if g := names(list); !slices.Equal(g, tc.want) {
					t.Errorf("withContext=%v: items %v, want %v", withContext, g, tc.want)
				}
				if list.ListMeta != listMeta {
					t.Errorf("withContext=%v: list metadata %+v, want %+v", withContext, list.ListMeta, listMeta)
				}
			}
		})
	}
}

func TestKeepWithoutAFilterIsTheListerWatcherItself(t *testing.T) {
	lw := &fixedLW{}
	if got := Keep(lw, nil); got != cache.ListerWatcher(lw) {
		t.Errorf("Keep(lw, nil) = %v, want lw itself", got)
	}
}

func TestKeepListPassesErrorsOn(t *testing.T) {
	boom := errors.New("boom")
	lw := &cache.ListWatch{ListFunc: func(metav1.ListOptions) (runtime.Object, error) { return nil, boom }}
	if _, err := Keep(lw, inA).List(metav1.ListOptions{}); !errors.Is(err, boom) {
		t.Errorf("List error %v, want %v", err, boom)
	}
}

func TestKeepWatch(t *testing.T) {
	bookmark := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "7"}}
	status := &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonExpired}
	a1, b1, a2, b2 := pod("a", "1"), pod("b", "1"), pod("a", "2"), pod("b", "2")
	events := []watch.Event{
		{Type: watch.Added, Object: &a1},
		{Type: watch.Added, Object: &b1},
		{Type: watch.Bookmark, Object: bookmark},
		{Type: watch.Modified, Object: &b1},
		{Type: watch.Modified, Object: &a2},
		{Type: watch.Deleted, Object: &b2},
		{Type: watch.Deleted, Object: &a1},
		{Type: watch.Error, Object: status},
	}
	cases := []struct {
		name    string
		inScope func(string) bool
		want    []watch.Event
	}{
		{name: "other namespaces dropped, bookmarks and errors kept", inScope: inA,
			want: []watch.Event{events[0], events[2], events[4], events[6], events[7]}},
		{name: "no filter", inScope: nil, want: events},
	}
	for _, tc := range cases {
		for _, withContext := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				upstream := watch.NewFakeWithChanSize(len(events), false)
				for _, e := range events {
					upstream.Action(e.Type, e.Object)
				}
				upstream.Stop()
				lw := &fixedLW{w: upstream}
				var w watch.Interface
				var err error
				if withContext {
					w, err = cache.ToListerWatcherWithContext(Keep(lw, tc.inScope)).WatchWithContext(context.Background(), metav1.ListOptions{})
				} else {
					w, err = Keep(lw, tc.inScope).Watch(metav1.ListOptions{})
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []watch.Event
				for e := range w.ResultChan() {
					got = append(got, e)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("withContext=%v: %d events %v, want %d %v", withContext, len(got), got, len(tc.want), tc.want)
				}
				for i := range got {
					if got[i].Type != tc.want[i].Type || got[i].Object != tc.want[i].Object {
						t.Errorf("withContext=%v: event %d is %s %v, want %s %v", withContext, i, got[i].Type, got[i].Object, tc.want[i].Type, tc.want[i].Object)
					}
				}
			})
		}
	}
}

func TestKeepSaysWhatItsClientSupports(t *testing.T) {
	for _, unsupported := range []bool{false, true} {
		got := Keep(&fixedLW{unsupported: unsupported}, inA).(interface{ IsWatchListSemanticsUnSupported() bool })
		if got.IsWatchListSemanticsUnSupported() != unsupported {
			t.Errorf("watch-list unsupported = %v, want %v as the wrapped ListerWatcher says", !unsupported, unsupported)
		}
	}
}

// TestAStoppedWatchDoesNotHangOnAnEventNoOneReads pins the difference from
// watch.Filter: the reflector stops a watch without draining it.
func TestAStoppedWatchDoesNotHangOnAnEventNoOneReads(t *testing.T) {
	upstream := watch.NewFakeWithChanSize(1, false)
	filtered := make(chan struct{})
	w := &filteredWatch{
		incoming: upstream,
		result:   make(chan watch.Event),
		keep: func(watch.Event) bool {
			close(filtered)
			return true
		},
		stopped: make(chan struct{}),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.loop()
	}()
	p := pod("a", "1")
	upstream.Add(&p)
	<-filtered
	w.Stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the filter's loop still waits to send an event after Stop")
	}
}

// TestAStreamingListIsFilteredToo runs an informer whose reflector streams
// its initial list (WatchListClient, on by default): the initial objects
// come as the watch's Added events, and the bookmark that ends them must
// pass for the informer to sync.
func TestAStreamingListIsFilteredToo(t *testing.T) {
	endOfInitialEvents := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		ResourceVersion: "10",
		Annotations:     map[string]string{metav1.InitialEventsAnnotationKey: "true"},
	}}
	a1, b1, a2 := pod("a", "1"), pod("b", "1"), pod("a", "2")
	streamed := make(chan bool, 1)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return nil, errors.New("listed: the reflector was expected to stream")
		},
		WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents == nil || !*opts.SendInitialEvents {
				// The watch after the stream: nothing more happens.
				return watch.NewFake(), nil
			}
			select {
			case streamed <- true:
			default:
			}
			w := watch.NewFakeWithChanSize(4, false)
			w.Add(&a1)
			w.Add(&b1)
			w.Add(&a2)
			w.Action(watch.Bookmark, endOfInitialEvents)
			return w, nil
		},
	}
	informer := cache.NewSharedIndexInformer(Keep(lw, inA), &corev1.Pod{}, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.RunWithContext(ctx)
	syncCtx, cancelSync := context.WithTimeout(ctx, 30*time.Second)
	defer cancelSync()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync: the end of the initial events did not pass the filter")
	}
	select {
	case <-streamed:
	default:
		t.Fatal("the reflector did not stream its list")
	}
	got := informer.GetStore().ListKeys()
	slices.Sort(got)
	if want := []string{"a/1", "a/2"}; !slices.Equal(got, want) {
		t.Errorf("store holds %v, want %v", got, want)
	}
}
