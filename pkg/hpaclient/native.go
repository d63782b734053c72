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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	autoscalingclient "k8s.io/client-go/kubernetes/typed/autoscaling/v2"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// NativeSource gives the controller the native autoscaling/v2 HPAs, seen
// through the extended type (their fallback fields are simply unset).
type NativeSource struct {
	client   autoscalingclient.HorizontalPodAutoscalersGetter
	informer cache.SharedIndexInformer
}

// NewNativeSource pairs a native client with a native HPA informer.
func NewNativeSource(client autoscalingclient.HorizontalPodAutoscalersGetter, informer cache.SharedIndexInformer) *NativeSource {
	return &NativeSource{client: client, informer: informer}
}

// Name tells this source's HPAs apart from the extended kind's.
func (s *NativeSource) Name() string { return "autoscaling/v2" }

// Informer returns the native HPA informer.
func (s *NativeSource) Informer() cache.SharedIndexInformer { return s.informer }

// Get returns the cached native HPA converted to the extended type. The
// conversion copies, so the result may be changed freely.
func (s *NativeSource) Get(namespace, name string) (*v2.HorizontalPodAutoscaler, bool, error) {
	obj, exists, err := s.informer.GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil || !exists {
		return nil, exists, err
	}
	native, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok {
		return nil, false, fmt.Errorf("unexpected object %T in the native HPA cache", obj)
	}
	return v2.FromNative(native), true, nil
}

// Latest reads the native HPA from the API server, converted to the
// extended type.
func (s *NativeSource) Latest(ctx context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error) {
	native, err := s.client.HorizontalPodAutoscalers(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return v2.FromNative(native), nil
}

// UpdateStatus writes the status through the native API. Extension fields
// have no native field and are dropped. It returns the resourceVersion
// written.
func (s *NativeSource) UpdateStatus(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) (string, error) {
	written, err := s.client.HorizontalPodAutoscalers(hpa.Namespace).UpdateStatus(ctx, v2.ToNative(hpa), metav1.UpdateOptions{})
	if err != nil {
		return "", err
	}
	return written.ResourceVersion, nil
}

// SeenVersion is the resourceVersion up to which the informer's cache has
// applied the API server's changes.
func (s *NativeSource) SeenVersion() string {
	return s.informer.GetStore().LastStoreSyncResourceVersion()
}

// EventObject returns a native reference to hpa for events.
func (s *NativeSource) EventObject(hpa *v2.HorizontalPodAutoscaler) runtime.Object {
	return &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta: metav1.TypeMeta{APIVersion: autoscalingv2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       hpa.Namespace,
			Name:            hpa.Name,
			UID:             hpa.UID,
			ResourceVersion: hpa.ResourceVersion,
		},
	}
}
