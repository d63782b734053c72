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

package adapter

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// ObjectLister finds the names of the objects of a resource that a label
// selector picks in a namespace ("" for a cluster-scoped resource).
type ObjectLister interface {
	ListNames(ctx context.Context, gr schema.GroupResource, namespace string, selector labels.Selector) ([]string, error)
}

// MetadataLister is an ObjectLister that asks the API server, through a
// metadata-only client, for each query: the adapter serves tests, where a
// fresh answer matters more than the cost of a list.
type MetadataLister struct {
	client metadata.Interface
	mapper meta.RESTMapper
}

// NewMetadataLister lists through client, resolving resources with mapper.
func NewMetadataLister(client metadata.Interface, mapper meta.RESTMapper) *MetadataLister {
	return &MetadataLister{client: client, mapper: mapper}
}

// ListNames lists the names of the objects of gr that selector picks.
func (l *MetadataLister) ListNames(ctx context.Context, gr schema.GroupResource, namespace string, selector labels.Selector) ([]string, error) {
	gvr, err := l.mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", gr, err)
	}
	opts := metav1.ListOptions{}
	if selector != nil {
		opts.LabelSelector = selector.String()
	}
	var list *metav1.PartialObjectMetadataList
	if namespace == "" {
		list, err = l.client.Resource(gvr).List(ctx, opts)
	} else {
		list, err = l.client.Resource(gvr).Namespace(namespace).List(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, item := range list.Items {
		names = append(names, item.Name)
	}
	return names, nil
}
