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
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kube-hpa/kube-hpa/pkg/shardwatch"
)

// kind is one workload kind whose scale can be read from a watch.
type kind struct {
	groupKind schema.GroupKind
	// object is an empty object of the kind, the informer's type.
	object runtime.Object
	// listWatch lists and watches the kind in namespace ("" for all),
	// with tweak applied to the options of each.
	listWatch func(kube kubernetes.Interface, namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher
	// toScale builds the scale the API server's /scale would return for
	// an object of the kind; false for anything else.
	toScale func(obj any) (*autoscalingv1.Scale, bool)
}

var (
	deploymentsResource  = schema.GroupResource{Group: "apps", Resource: "deployments"}
	replicaSetsResource  = schema.GroupResource{Group: "apps", Resource: "replicasets"}
	statefulSetsResource = schema.GroupResource{Group: "apps", Resource: "statefulsets"}
	rcsResource          = schema.GroupResource{Group: "", Resource: "replicationcontrollers"}

	deploymentKind  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	replicaSetKind  = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	statefulSetKind = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	rcKind          = schema.GroupKind{Group: "", Kind: "ReplicationController"}
)

// namespaceIndex lets a lister list one namespace without a scan.
var namespaceIndex = cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}

// watchedKinds returns the four workload kinds whose objects carry their
// scale in their own fields.
func watchedKinds() map[schema.GroupResource]kind {
	return map[schema.GroupResource]kind{
		deploymentsResource: {
			groupKind: deploymentKind,
			object:    &appsv1.Deployment{},
			listWatch: func(kube kubernetes.Interface, ns string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
				c := kube.AppsV1().Deployments(ns)
				return shardwatch.ListWatch(kube, tweak, c.List, c.Watch)
			},
			toScale: func(obj any) (*autoscalingv1.Scale, bool) {
				d, ok := obj.(*appsv1.Deployment)
				if !ok {
					return nil, false
				}
				return scaleOf(d.ObjectMeta, d.Spec.Replicas, d.Status.Replicas, d.Spec.Selector)
			},
		},
		replicaSetsResource: {
			groupKind: replicaSetKind,
			object:    &appsv1.ReplicaSet{},
			listWatch: func(kube kubernetes.Interface, ns string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
				c := kube.AppsV1().ReplicaSets(ns)
				return shardwatch.ListWatch(kube, tweak, c.List, c.Watch)
			},
			toScale: func(obj any) (*autoscalingv1.Scale, bool) {
				rs, ok := obj.(*appsv1.ReplicaSet)
				if !ok {
					return nil, false
				}
				return scaleOf(rs.ObjectMeta, rs.Spec.Replicas, rs.Status.Replicas, rs.Spec.Selector)
			},
		},
		statefulSetsResource: {
			groupKind: statefulSetKind,
			object:    &appsv1.StatefulSet{},
			listWatch: func(kube kubernetes.Interface, ns string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
				c := kube.AppsV1().StatefulSets(ns)
				return shardwatch.ListWatch(kube, tweak, c.List, c.Watch)
			},
			toScale: func(obj any) (*autoscalingv1.Scale, bool) {
				s, ok := obj.(*appsv1.StatefulSet)
				if !ok {
					return nil, false
				}
				return scaleOf(s.ObjectMeta, s.Spec.Replicas, s.Status.Replicas, s.Spec.Selector)
			},
		},
		rcsResource: {
			groupKind: rcKind,
			object:    &corev1.ReplicationController{},
			listWatch: func(kube kubernetes.Interface, ns string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
				c := kube.CoreV1().ReplicationControllers(ns)
				return shardwatch.ListWatch(kube, tweak, c.List, c.Watch)
			},
			toScale: func(obj any) (*autoscalingv1.Scale, bool) {
				rc, ok := obj.(*corev1.ReplicationController)
				if !ok {
					return nil, false
				}
				s := scaleWith(rc.ObjectMeta, rc.Spec.Replicas, rc.Status.Replicas)
				s.Status.Selector = labels.SelectorFromSet(rc.Spec.Selector).String()
				return s, true
			},
		},
	}
}

// ResourceOf returns the resource of a scale target's kind when it is one
// of the kinds the cache watches: how the caller tells the cache which
// kinds its HPAs target without a discovery round trip.
func ResourceOf(apiVersion, kindName string) (schema.GroupResource, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupResource{}, false
	}
	// A switch, not a search of watchedKinds: it is asked for every HPA at
	// every sweep, and watchedKinds builds its table (objects, closures)
	// anew at each call.
	switch (schema.GroupKind{Group: gv.Group, Kind: kindName}) {
	case deploymentKind:
		return deploymentsResource, true
	case replicaSetKind:
		return replicaSetsResource, true
	case statefulSetKind:
		return statefulSetsResource, true
	case rcKind:
		return rcsResource, true
	}
	return schema.GroupResource{}, false
}

// scaleOf is the scale of an object with a label selector, as the API
// server's /scale renders it; false when the selector does not parse,
// which the API server's validation makes unreachable for stored objects.
func scaleOf(meta metav1.ObjectMeta, specReplicas *int32, statusReplicas int32, selector *metav1.LabelSelector) (*autoscalingv1.Scale, bool) {
	s := scaleWith(meta, specReplicas, statusReplicas)
	sel, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return nil, false
	}
	s.Status.Selector = sel.String()
	return s, true
}
func scaleWith(meta metav1.ObjectMeta, specReplicas *int32, statusReplicas int32) *autoscalingv1.Scale {
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              meta.Name,
			Namespace:         meta.Namespace,
			UID:               meta.UID,
			ResourceVersion:   meta.ResourceVersion,
			CreationTimestamp: meta.CreationTimestamp,
		},
		// The API server defaults spec.replicas to 1; a stored object
		// always has it.
		Spec:   autoscalingv1.ScaleSpec{Replicas: ptr.Deref(specReplicas, 1)},
		Status: autoscalingv1.ScaleStatus{Replicas: statusReplicas},
	}
}

// transform is the transform of a kind's informer: each object becomes
// its scale, which is all the cache answers, so that a cache of thousands
// of Deployments holds neither pod templates nor the rest of their
// objects. A tombstone passes unchanged (its object comes from the cache,
// already a scale), and so does an object without a scale, which a read
// then takes to the API.
func (k kind) transform(obj any) (any, error) {
	if s, ok := k.toScale(obj); ok {
		return s, nil
	}
	return obj, nil
}

// newInformer returns the kind's informer over opts' namespace, with opts'
// tweak on every list and watch, keeping only the objects of the
// namespaces opts.InScope matches (a shard's, when the API server ignores
// its selector).
func (k kind) newInformer(opts Options) cache.SharedIndexInformer {
	lw := shardwatch.Keep(k.listWatch(opts.Kube, opts.Namespace, opts.TweakListOptions), opts.InScope)
	return cache.NewSharedIndexInformer(lw, k.object, 0, namespaceIndex)
}
