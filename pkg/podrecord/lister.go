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

package podrecord

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/cache"
)

// labelIndex indexes records by each of their labels, within their
// namespace: "<namespace>/<key>=<value>", which no other triple spells (a
// namespace has no "/", a key no "=").
const labelIndex = "podrecord.kube-hpa.io/label"

// Indexers are the indexes a Lister narrows a selector's pods by; add them
// to the pod informer before it starts. Without them a Lister reads the
// whole namespace, which at tens of thousands of pods in one namespace
// costs every reconcile a copy of the namespace and a match per pod.
func Indexers() cache.Indexers {
	return cache.Indexers{labelIndex: indexLabels}
}

// AddIndexers adds Indexers to informer, before it starts, leaving those
// it has already (a second controller on one informer, as tests build).
func AddIndexers(informer cache.SharedIndexInformer) error {
	missing := cache.Indexers{}
	for name, f := range Indexers() {
		if _, ok := informer.GetIndexer().GetIndexers()[name]; !ok {
			missing[name] = f
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return informer.AddIndexers(missing)
}

// unindexed are the labels that workload controllers set to a value per
// revision or per pod: an HPA's selector narrows by the workload's own
// labels, and an entry per revision would cost more than it saves.
var unindexed = map[string]bool{
	appsv1.DefaultDeploymentUniqueLabelKey: true,
	appsv1.ControllerRevisionHashLabelKey:  true,
	appsv1.StatefulSetPodNameLabel:         true,
	appsv1.PodIndexLabel:                   true,
}

func indexLabels(obj any) ([]string, error) {
	pod, ok := obj.(*Pod)
	if !ok {
		return nil, nil
	}
	values := make([]string, 0, len(pod.Labels))
	for k, v := range pod.Labels {
		if !unindexed[k] {
			values = append(values, labelIndexValue(pod.Namespace, k, v))
		}
	}
	return values, nil
}

func labelIndexValue(namespace, key, value string) string {
	return namespace + "/" + key + "=" + value
}

// Lister lists the records of an informer whose transform is a
// Transformer's.
type Lister struct {
	indexer cache.Indexer
}

// NewLister returns a Lister over indexer, which must have the namespace
// index (cache.NamespaceIndex) that informer factories add, and should
// have Indexers.
func NewLister(indexer cache.Indexer) Lister { return Lister{indexer: indexer} }

// List returns the records in namespace (every namespace when it is empty)
// whose labels selector matches. An object in the cache that is not a
// record is an error: it means the informer runs without the transform.
func (l Lister) List(namespace string, selector labels.Selector) ([]*Pod, error) {
	objs, err := l.candidates(namespace, selector)
	if err != nil {
		return nil, err
	}
	var out []*Pod
	for _, obj := range objs {
		pod, ok := obj.(*Pod)
		if !ok {
			return nil, fmt.Errorf("pod cache holds a %T, not a pod record: its informer has no podrecord transform", obj)
		}
		if selector.Matches(labels.Set(pod.Labels)) {
			out = append(out, pod)
		}
	}
	return out, nil
}

// candidates returns records among which are all those selector matches:
// the records carrying one of the values of an equality the selector
// requires, when the label index is there, else the whole namespace.
func (l Lister) candidates(namespace string, selector labels.Selector) ([]any, error) {
	if namespace == metav1.NamespaceAll {
		return l.indexer.List(), nil
	}
	key, values, narrows := narrowing(selector)
	if _, indexed := l.indexer.GetIndexers()[labelIndex]; !narrows || !indexed {
		return l.indexer.ByIndex(cache.NamespaceIndex, namespace)
	}
	var out []any
	for _, v := range values {
		// A pod has one value per key: the values' records are disjoint.
		objs, err := l.indexer.ByIndex(labelIndex, labelIndexValue(namespace, key, v))
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// narrowing returns a label key and values, one of which every set of
// labels selector matches has: those of its first requirement of =, == or
// in on an indexed label. A selector with none (only !=, notin, exists or
// !, or empty, or only unindexed labels) does not narrow.
func narrowing(selector labels.Selector) (key string, values []string, ok bool) {
	reqs, selectable := selector.Requirements()
	if !selectable {
		return "", nil, false
	}
	for _, r := range reqs {
		if unindexed[r.Key()] {
			continue
		}
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			return r.Key(), r.ValuesUnsorted(), true
		}
	}
	return "", nil, false
}
