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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// ListWatch returns the ListerWatcher of a typed client's List and Watch,
// with tweak (when set) applied to the options of each, as client-go's
// generated informers build theirs: an informer that Keep filters cannot
// come from those constructors, which build their ListerWatcher inside.
// client is the clientset the functions belong to; it says whether it
// supports watch-list semantics (a fake clientset does not).
func ListWatch[L runtime.Object](
	client any,
	tweak func(*metav1.ListOptions),
	list func(context.Context, metav1.ListOptions) (L, error),
	watchFunc func(context.Context, metav1.ListOptions) (watch.Interface, error),
) cache.ListerWatcher {
	tweaked := func(opts metav1.ListOptions) metav1.ListOptions {
		if tweak != nil {
			tweak(&opts)
		}
		return opts
	}
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return list(ctx, tweaked(opts))
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return watchFunc(ctx, tweaked(opts))
		},
	}, client)
}
