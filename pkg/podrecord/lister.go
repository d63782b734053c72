package podrecord

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// Lister lists the records of an informer whose transform is a
// Transformer's.
type Lister struct {
	indexer cache.Indexer
}

// NewLister returns a Lister over indexer, which must have the namespace
// index (cache.NamespaceIndex) that informer factories add.
func NewLister(indexer cache.Indexer) Lister { return Lister{indexer: indexer} }

// List returns the records in namespace (every namespace when it is empty)
// whose labels selector matches. An object in the cache that is not a
// record is an error: it means the informer runs without the transform.
func (l Lister) List(namespace string, selector labels.Selector) ([]*Pod, error) {
	var objs []any
	if namespace == metav1.NamespaceAll {
		objs = l.indexer.List()
	} else {
		var err error
		if objs, err = l.indexer.ByIndex(cache.NamespaceIndex, namespace); err != nil {
			return nil, err
		}
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
