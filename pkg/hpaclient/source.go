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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Source gives the controller the HPAs of the extended kind: an informer to
// watch them and the status writes. It satisfies the controller's HPA
// source interface.
type Source struct {
	client   *Client
	informer cache.SharedIndexInformer
}

// NewSource pairs a client with an informer built on it.
func NewSource(client *Client, informer cache.SharedIndexInformer) *Source {
	return &Source{client: client, informer: informer}
}

// Name tells this source's HPAs apart from native ones.
func (s *Source) Name() string { return v2.SchemeGroupVersion.String() }

// Informer returns the informer whose events drive the controller.
func (s *Source) Informer() cache.SharedIndexInformer { return s.informer }

// Get returns the cached HPA. The result is shared with the cache: callers
// must deep-copy it before changing it.
func (s *Source) Get(namespace, name string) (*v2.HorizontalPodAutoscaler, bool, error) {
	obj, exists, err := s.informer.GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil || !exists {
		return nil, exists, err
	}
	hpa, ok := obj.(*v2.HorizontalPodAutoscaler)
	if !ok {
		return nil, false, fmt.Errorf("unexpected object %T in the HPA cache", obj)
	}
	return hpa, true, nil
}

// Latest reads the HPA from the API server.
func (s *Source) Latest(ctx context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error) {
	return s.client.Get(ctx, namespace, name)
}

// UpdateStatus writes hpa's status and returns the resourceVersion written.
func (s *Source) UpdateStatus(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) (string, error) {
	written, err := s.client.UpdateStatus(ctx, hpa)
	if err != nil {
		return "", err
	}
	return written.ResourceVersion, nil
}

// SeenVersion is the resourceVersion up to which the informer's cache has
// applied the API server's changes.
func (s *Source) SeenVersion() string { return s.informer.GetStore().LastStoreSyncResourceVersion() }

// EventObject returns the object events about hpa refer to. Objects from
// the cache lack the TypeMeta that an event reference needs; only the
// identifying fields are kept, since that is all a reference reads.
func (s *Source) EventObject(hpa *v2.HorizontalPodAutoscaler) runtime.Object {
	return &v2.HorizontalPodAutoscaler{
		TypeMeta: metav1.TypeMeta{APIVersion: v2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       hpa.Namespace,
			Name:            hpa.Name,
			UID:             hpa.UID,
			ResourceVersion: hpa.ResourceVersion,
		},
	}
}
