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
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/shardwatch"
)

// scopeInformers are the informers of one run, carrying its scope's
// selector and, when it has a namespace filter, keeping only the objects
// of its namespaces: an API server that ignores the selector sends every
// namespace's, and a replica with one run per shard would otherwise hold
// one copy of the cluster per shard.
type scopeInformers struct {
	// factory runs native and pods; factory.Start starts them.
	factory informers.SharedInformerFactory
	// crd, the extended kind's informer, is not one of the factory's: it
	// is run on its own.
	crd    cache.SharedIndexInformer
	native cache.SharedIndexInformer
	pods   coreinformers.PodInformer
}

func newScopeInformers(c *clients, sc scope) scopeInformers {
	factory := informers.NewSharedInformerFactoryWithOptions(c.kube, 0, informers.WithTweakListOptions(sc.tweak))
	keepScope(factory, sc)
	return scopeInformers{
		factory: factory,
		crd: hpaclient.NewInformerWithOptions(c.hpa, hpaclient.InformerOptions{
			Namespace:        metav1.NamespaceAll,
			TweakListOptions: sc.tweak,
			InScope:          sc.inScope(),
		}),
		native: factory.Autoscaling().V2().HorizontalPodAutoscalers().Informer(),
		pods:   factory.Core().V1().Pods(),
	}
}

// keepScope puts in factory pod and native HPA informers that keep only
// sc's namespaces (shardwatch.Keep), when sc has a filter. The factory's
// own informers build their ListerWatcher inside, where no filter can go;
// registered first, these are the ones every later request of the factory
// for the kind returns. With no filter the factory's own stay.
func keepScope(factory informers.SharedInformerFactory, sc scope) {
	inScope := sc.inScope()
	if inScope == nil {
		return
	}
	factory.InformerFor(&corev1.Pod{}, func(kube kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		pods := kube.CoreV1().Pods(metav1.NamespaceAll)
		return keptInformer(shardwatch.ListWatch(kube, sc.tweak, pods.List, pods.Watch), &corev1.Pod{}, resync, inScope)
	})
	factory.InformerFor(&autoscalingv2.HorizontalPodAutoscaler{}, func(kube kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		hpas := kube.AutoscalingV2().HorizontalPodAutoscalers(metav1.NamespaceAll)
		return keptInformer(shardwatch.ListWatch(kube, sc.tweak, hpas.List, hpas.Watch), &autoscalingv2.HorizontalPodAutoscaler{}, resync, inScope)
	})
}

// keptInformer is the informer of lw's objects in scope, with the
// namespace index the factory's informers have (the listers' per-namespace
// reads use it).
func keptInformer(lw cache.ListerWatcher, object runtime.Object, resync time.Duration, inScope func(string) bool) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(shardwatch.Keep(lw, inScope), object, resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
