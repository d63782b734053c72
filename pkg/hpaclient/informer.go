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
	"github.com/kube-hpa/kube-hpa/pkg/shardwatch"
)

// NewInformer returns a shared informer over the HPAs of the extended kind
// in namespace, or in every namespace with metav1.NamespaceAll, as the
// binary runs it. resync is the informer's resync period; the controller's
// own sync period drives reconciles, so 0 is a fine value.
func NewInformer(c *Client, namespace string, resync time.Duration) cache.SharedIndexInformer {
	return NewInformerWithOptions(c, InformerOptions{Namespace: namespace, Resync: resync})
}

// InformerOptions configure NewInformerWithOptions.
type InformerOptions struct {
	// Namespace limits the informer to one namespace; empty for all.
	Namespace string
	// Resync is the informer's resync period.
	Resync time.Duration
	// TweakListOptions, when set, changes the options of every list and
	// watch (a sharded replica's shardSelector).
	TweakListOptions func(*metav1.ListOptions)
	// InScope, when set, keeps only the HPAs of the namespaces it
	// matches, whatever the API server did with the options: one that
	// ignores the shardSelector sends every namespace's (shardwatch.Keep).
	InScope func(namespace string) bool
}

// NewInformerWithOptions is NewInformer with the options of a sharded
// replica's informers.
func NewInformerWithOptions(c *Client, opts InformerOptions) cache.SharedIndexInformer {
	tweaked := func(o metav1.ListOptions) metav1.ListOptions {
		if opts.TweakListOptions != nil {
			opts.TweakListOptions(&o)
		}
		return o
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return c.List(ctx, opts.Namespace, tweaked(o))
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, opts.Namespace, tweaked(o))
		},
	}
	return cache.NewSharedIndexInformer(shardwatch.Keep(lw, opts.InScope), &v2.HorizontalPodAutoscaler{}, opts.Resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
