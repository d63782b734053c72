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

package framework

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A scalable custom resource: a kind with a scale subresource that the
// controller does not watch, so that its scale is read by a GET of /scale
// whatever --horizontal-pod-autoscaler-scale-from-watch says. Nothing runs
// pods for it; its scale is its spec.replicas and its selector.
const (
	ScalableGroup         = "e2e.kube-hpa.io"
	ScalableVersion       = "v1"
	ScalableKind          = "Scalable"
	scalableResource      = "scalables"
	scalableServedTimeout = time.Minute
)

var (
	crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	scalableGVR = schema.GroupVersionResource{Group: ScalableGroup, Version: ScalableVersion, Resource: scalableResource}
)

// scalableCRD is the definition: spec.replicas and spec.selector are the
// scale's, status.replicas its status.
func scalableCRD() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": scalableResource + "." + ScalableGroup},
		"spec": map[string]any{
			"group": ScalableGroup,
			"scope": "Namespaced",
			"names": map[string]any{"plural": scalableResource, "singular": "scalable", "kind": ScalableKind, "listKind": ScalableKind + "List"},
			"versions": []any{map[string]any{
				"name": ScalableVersion, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": map[string]any{
							"replicas": map[string]any{"type": "integer", "format": "int32"},
							"selector": map[string]any{"type": "string"},
						}},
						"status": map[string]any{"type": "object", "properties": map[string]any{
							"replicas": map[string]any{"type": "integer", "format": "int32"},
						}},
					},
				}},
				"subresources": map[string]any{
					"status": map[string]any{},
					"scale": map[string]any{
						"specReplicasPath":   ".spec.replicas",
						"statusReplicasPath": ".status.replicas",
						"labelSelectorPath":  ".spec.selector",
					},
				},
			}},
		},
	}}
}

// EnsureScalableCRD creates the scalable kind's definition unless it
// exists, and waits until it is served. It stays for later specs.
func (f *Framework) EnsureScalableCRD(ctx context.Context) {
	ginkgo.GinkgoHelper()
	_, err := f.Dynamic.Resource(crdResource).Create(ctx, scalableCRD(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating the scalable CRD")
	}
	gomega.Eventually(ctx, func(ctx context.Context) error {
		_, err := f.Dynamic.Resource(scalableGVR).Namespace(f.Namespace).List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}).WithTimeout(scalableServedTimeout).WithPolling(250*time.Millisecond).Should(gomega.Succeed(), "the scalable kind to be served")
}

// CreateScalable creates a scalable object of replicas, selecting pods
// labelled app=name.
func (f *Framework) CreateScalable(ctx context.Context, name string, replicas int32) {
	ginkgo.GinkgoHelper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ScalableGroup + "/" + ScalableVersion,
		"kind":       ScalableKind,
		"metadata":   map[string]any{"name": name, "namespace": f.Namespace},
		"spec":       map[string]any{"replicas": int64(replicas), "selector": "app=" + name},
	}}
	_, err := f.Dynamic.Resource(scalableGVR).Namespace(f.Namespace).Create(ctx, obj, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating scalable %s", name)
}

// ScalableReplicas returns a scalable object's spec.replicas.
func (f *Framework) ScalableReplicas(ctx context.Context, name string) (int32, error) {
	obj, err := f.Dynamic.Resource(scalableGVR).Namespace(f.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	n, found, err := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	if err != nil || !found {
		return 0, fmt.Errorf("scalable %s has no spec.replicas: %v", name, err)
	}
	return int32(n), nil
}

// WaitForScalableReplicas waits until a scalable object's spec.replicas
// is want.
func (f *Framework) WaitForScalableReplicas(ctx context.Context, name string, want int32, timeout time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) (int32, error) { return f.ScalableReplicas(ctx, name) }).
		WithTimeout(timeout).WithPolling(250*time.Millisecond).Should(gomega.Equal(want), "scalable %s/%s to be scaled to %d", f.Namespace, name, want)
}

// EnsureScalableStays fails unless a scalable object's spec.replicas stays
// want for d.
func (f *Framework) EnsureScalableStays(ctx context.Context, name string, want int32, d time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, func(ctx context.Context) (int32, error) { return f.ScalableReplicas(ctx, name) }).
		WithTimeout(d).WithPolling(250*time.Millisecond).Should(gomega.Equal(want), "scalable %s/%s to stay at %d", f.Namespace, name, want)
}
