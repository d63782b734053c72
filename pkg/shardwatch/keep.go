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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
)

// Keep returns lw with its lists and watches reduced to the objects whose
// namespace inScope matches; lw itself when inScope is nil.
//
// A list keeps its resourceVersion and continue token, so the reflector
// resumes and pages as before. A watch drops the Added, Modified and
// Deleted events of other namespaces (an object never changes namespace, so
// a dropped object is never one the store holds) and passes bookmarks and
// errors unchanged: the reflector needs every bookmark's resourceVersion,
// and the bookmark that ends a watch-list's initial events, to sync. That
// is also why the streaming list (WatchListClient, on by default) is
// filtered too: its initial objects come as the watch's Added events.
//
// The result is a cache.ListerWatcherWithContext and says whether lw's
// client supports watch-list semantics, as lw does, so that the reflector
// streams exactly when it would have without the filter.
func Keep(lw cache.ListerWatcher, inScope func(namespace string) bool) cache.ListerWatcher {
	if inScope == nil {
		return lw
	}
	return &kept{lw: lw, withContext: cache.ToListerWatcherWithContext(lw), inScope: inScope}
}

type kept struct {
	lw          cache.ListerWatcher
	withContext cache.ListerWatcherWithContext
	inScope     func(string) bool
}

var (
	_ cache.ListerWatcher            = (*kept)(nil)
	_ cache.ListerWatcherWithContext = (*kept)(nil)
)

func (k *kept) List(opts metav1.ListOptions) (runtime.Object, error) {
	list, err := k.lw.List(opts)
	if err != nil {
		return list, err
	}
	return k.keepList(list)
}

func (k *kept) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, err := k.withContext.ListWithContext(ctx, opts)
	if err != nil {
		return list, err
	}
	return k.keepList(list)
}

func (k *kept) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	w, err := k.lw.Watch(opts)
	if err != nil {
		return w, err
	}
	return newFilteredWatch(context.Background(), w, k.keepEvent), nil
}

func (k *kept) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := k.withContext.WatchWithContext(ctx, opts)
	if err != nil {
		return w, err
	}
	return newFilteredWatch(ctx, w, k.keepEvent), nil
}

// IsWatchListSemanticsUnSupported repeats lw's answer: a fake clientset's
// says it cannot stream lists, and the reflector must not try.
func (k *kept) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(k.lw)
}

// keepList drops the items of other namespaces from list in place. The
// list's metadata (resourceVersion, continue, remainingItemCount) stays:
// it describes the server's list, which the next page or watch resumes.
// A list whose items all match, as with a server that applied the
// selector, is returned untouched.
func (k *kept) keepList(list runtime.Object) (runtime.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, fmt.Errorf("keeping a shard's namespaces in a list: %w", err)
	}
	inScope := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		if k.keeps(item) {
			inScope = append(inScope, item)
		}
	}
	if len(inScope) == len(items) {
		return list, nil
	}
	if err := meta.SetList(list, inScope); err != nil {
		return nil, fmt.Errorf("keeping a shard's namespaces in a list: %w", err)
	}
	return list, nil
}

// keepEvent keeps every event but the object events of other namespaces.
func (k *kept) keepEvent(e watch.Event) bool {
	switch e.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		return k.keeps(e.Object)
	default:
		return true
	}
}

// keeps reports whether obj is in scope. An object without metadata is
// kept: nothing here can say it is outside, and the store's key function
// rejects it anyway.
func (k *kept) keeps(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	return k.inScope(m.GetNamespace())
}
