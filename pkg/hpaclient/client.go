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
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Client is a typed client of the extended HPA kind.
type Client struct {
	rest rest.Interface
}

// New builds a Client from a client configuration. The configuration is
// copied, so the caller's is left as it was, and the copy speaks JSON
// whatever content type the caller's asks for: the API server never serves
// custom resources as protobuf, and the kind has no protobuf form anyway.
func New(config *rest.Config) (*Client, error) {
	scheme := runtime.NewScheme()
	if err := v2.AddToScheme(scheme); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(config)
	cfg.GroupVersion = &v2.SchemeGroupVersion
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building REST client for %s: %w", v2.SchemeGroupVersion, err)
	}
	return &Client{rest: rc}, nil
}

// NewForREST wraps an existing REST client; tests use it with a fake.
func NewForREST(rc rest.Interface) *Client {
	return &Client{rest: rc}
}

// List lists HPAs in namespace ("" for all namespaces).
func (c *Client) List(ctx context.Context, namespace string, opts metav1.ListOptions) (*v2.HorizontalPodAutoscalerList, error) {
	out := &v2.HorizontalPodAutoscalerList{}
	err := c.rest.Get().
		Namespace(namespace).
		Resource(v2.Resource).
		VersionedParams(&opts, metav1.ParameterCodec).
		Do(ctx).
		Into(out)
	return out, err
}

// Watch watches HPAs in namespace ("" for all namespaces).
func (c *Client) Watch(ctx context.Context, namespace string, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.rest.Get().
		Namespace(namespace).
		Resource(v2.Resource).
		VersionedParams(&opts, metav1.ParameterCodec).
		Watch(ctx)
}

// Get reads one HPA.
func (c *Client) Get(ctx context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error) {
	out := &v2.HorizontalPodAutoscaler{}
	err := c.rest.Get().
		Namespace(namespace).
		Resource(v2.Resource).
		Name(name).
		Do(ctx).
		Into(out)
	return out, err
}

// Create creates an HPA; tests and examples use it.
func (c *Client) Create(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) (*v2.HorizontalPodAutoscaler, error) {
	out := &v2.HorizontalPodAutoscaler{}
	err := c.rest.Post().
		Namespace(hpa.Namespace).
		Resource(v2.Resource).
		Body(hpa).
		Do(ctx).
		Into(out)
	return out, err
}

// UpdateStatus writes the status subresource. The API server ignores any
// spec change in hpa, so the controller cannot overwrite a user's edit.
func (c *Client) UpdateStatus(ctx context.Context, hpa *v2.HorizontalPodAutoscaler) (*v2.HorizontalPodAutoscaler, error) {
	out := &v2.HorizontalPodAutoscaler{}
	err := c.rest.Put().
		Namespace(hpa.Namespace).
		Resource(v2.Resource).
		Name(hpa.Name).
		SubResource("status").
		Body(hpa).
		Do(ctx).
		Into(out)
	return out, err
}

// Delete deletes an HPA; preconditions, when set, make the delete fail
// rather than remove an HPA replaced meanwhile.
func (c *Client) Delete(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	return c.rest.Delete().
		Namespace(namespace).
		Resource(v2.Resource).
		Name(name).
		Body(&opts).
		Do(ctx).
		Error()
}
