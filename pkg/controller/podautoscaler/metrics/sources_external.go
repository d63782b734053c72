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

package metrics

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	externalapi "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"
)

// strictExternalClient reads ExternalMetricValueLists from a source's API
// group and, unlike the client of the default API, checks the body's kind
// and apiVersion: k8s.io/metrics' client decodes whatever JSON it gets
// into the list, so a provider answering with another format (a custom
// metrics MetricValueList, say) would be read as values. A source is a new
// contract (KEP-6382), so it is held to it from the start.
type strictExternalClient struct {
	client rest.Interface
}

var _ externalclient.ExternalMetricsClient = strictExternalClient{}

// wrongWireFormat is the error of an answer that is not the expected list.
type wrongWireFormat struct {
	want, got string
}

func (e wrongWireFormat) Error() string {
	return fmt.Sprintf("wrong wire format: the provider answered with %s, want %s", e.got, e.want)
}

func (c strictExternalClient) NamespacedMetrics(namespace string) externalclient.MetricsInterface {
	return strictExternalMetrics{client: c.client, namespace: namespace}
}

type strictExternalMetrics struct {
	client    rest.Interface
	namespace string
}

func (m strictExternalMetrics) List(metricName string, selector labels.Selector) (*externalapi.ExternalMetricValueList, error) {
	// The caller bounds the call with its fetch time-out, as for the
	// default client, which takes no context either.
	result := m.client.Get().
		Namespace(m.namespace).
		Resource(metricName).
		VersionedParams(&metav1.ListOptions{LabelSelector: selector.String()}, metav1.ParameterCodec).
		Do(context.Background())
	// Error, unlike Raw, reads a failure's Status: the 403 or 404 of the
	// API server then says who may not read what, instead of "unknown".
	if err := result.Error(); err != nil {
		return nil, err
	}
	raw, err := result.Raw()
	if err != nil {
		return nil, err
	}
	return decodeExternalList(raw)
}

// decodeExternalList reads raw as an external.metrics.k8s.io/v1beta1
// ExternalMetricValueList, refusing any other kind or apiVersion.
func decodeExternalList(raw []byte) (*externalapi.ExternalMetricValueList, error) {
	want := metav1.TypeMeta{APIVersion: externalapi.SchemeGroupVersion.String(), Kind: "ExternalMetricValueList"}
	var meta metav1.TypeMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, wrongWireFormat{want: describeType(want), got: "a body that is not a JSON object"}
	}
	if meta != want {
		return nil, wrongWireFormat{want: describeType(want), got: describeType(meta)}
	}
	list := &externalapi.ExternalMetricValueList{}
	if err := json.Unmarshal(raw, list); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", describeType(want), err)
	}
	return list, nil
}

func describeType(t metav1.TypeMeta) string {
	if t.Kind == "" && t.APIVersion == "" {
		return "an object without kind and apiVersion"
	}
	return fmt.Sprintf("kind %q of apiVersion %q", t.Kind, t.APIVersion)
}
