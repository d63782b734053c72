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

package hpaclient

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// NewInformer returns a shared informer over the HPAs of the extended kind
// in namespace, or in every namespace with metav1.NamespaceAll, as the
// binary runs it. resync is the informer's resync period; the controller's
// own sync period drives reconciles, so 0 is a fine value.
func NewInformer(c *Client, namespace string, resync time.Duration) cache.SharedIndexInformer {
	return NewFilteredInformer(c, namespace, resync, nil)
}

// NewFilteredInformer is NewInformer with tweak, when set, changing the
// options of every list and watch (a sharded replica's shardSelector).
func NewFilteredInformer(c *Client, namespace string, resync time.Duration, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	tweaked := func(opts metav1.ListOptions) metav1.ListOptions {
		if tweak != nil {
			tweak(&opts)
		}
		return opts
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx, namespace, tweaked(opts))
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, namespace, tweaked(opts))
		},
	}
	return cache.NewSharedIndexInformer(lw, &v2.HorizontalPodAutoscaler{}, resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
