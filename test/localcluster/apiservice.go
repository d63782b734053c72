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

package localcluster

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube-hpa/kube-hpa/test/testca"
)

// apiServiceNamespace holds the ExternalName Services behind the
// APIServices that RegisterAPIService creates; it always exists.
const apiServiceNamespace = "kube-system"

func apiServiceResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
}

func serviceResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: "services"}
}

// apiServiceServiceName names the Service of an APIService: a DNS label
// made of the group and version.
func apiServiceServiceName(group, version string) string {
	name := "apiservice-" + strings.ReplaceAll(group, ".", "-") + "-" + version
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	return strings.ToLower(name)
}

// APIServiceServerName is the host name the aggregator expects in the
// serving certificate of the server registered by RegisterAPIService for
// group and version (it checks <service>.<namespace>.svc, whatever address
// the Service resolves to). Issue the server's certificate for it, for
// instance with IssueServingCert.
func APIServiceServerName(group, version string) string {
	return apiServiceServiceName(group, version) + "." + apiServiceNamespace + ".svc"
}

// RegisterAPIService makes kube-apiserver proxy group/version to a server
// listening on port of this machine's loopback (a metrics adapter run by a
// test): a Service of type ExternalName pointing at localhost, which the
// aggregator resolves without kube-proxy, and an APIService on it. caBundle
// is the PEM CA of the server's certificate; nil skips TLS verification.
// Calling it again updates both, for a server that moved to another port.
// Unregister it when the server stops: while an APIService is unavailable,
// kube-controller-manager cannot finish deleting any namespace (it must list
// every API group to empty one).
func (c *Cluster) RegisterAPIService(ctx context.Context, group, version string, port int, caBundle []byte) error {
	svcName := apiServiceServiceName(group, version)
	svc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata":   map[string]any{"name": svcName, "namespace": apiServiceNamespace},
		"spec": map[string]any{
			"type":         "ExternalName",
			"externalName": "localhost",
			// The aggregator looks the APIService's port up among these.
			"ports": []any{map[string]any{"name": "https", "port": int64(port), "protocol": "TCP"}},
		},
	}}
	_, err := c.dynamic.Resource(serviceResource()).Namespace(apiServiceNamespace).
		Apply(ctx, svcName, svc, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("applying Service %s/%s: %w", apiServiceNamespace, svcName, err)
	}
	spec := map[string]any{
		"group":                group,
		"version":              version,
		"service":              map[string]any{"namespace": apiServiceNamespace, "name": svcName, "port": int64(port)},
		"groupPriorityMinimum": int64(100),
		"versionPriority":      int64(100),
	}
	if len(caBundle) > 0 {
		spec["caBundle"] = base64.StdEncoding.EncodeToString(caBundle)
	} else {
		spec["insecureSkipTLSVerify"] = true
	}
	name := version + "." + group
	apiService := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
	_, err = c.dynamic.Resource(apiServiceResource()).
		Apply(ctx, name, apiService, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("applying APIService %s: %w", name, err)
	}
	return nil
}

// WaitAPIServiceAvailable waits until the aggregator reports the APIService
// of group/version Available, that is it reached the server behind it.
func (c *Cluster) WaitAPIServiceAvailable(ctx context.Context, group, version string) error {
	return c.waitFor(ctx, "APIService "+version+"."+group+" to be Available", c.apiServiceAvailable(group, version))
}

// apiServiceAvailable checks that the APIService of group/version is
// Available.
func (c *Cluster) apiServiceAvailable(group, version string) func(context.Context) (bool, error) {
	name := version + "." + group
	return func(ctx context.Context) (bool, error) {
		obj, err := c.dynamic.Resource(apiServiceResource()).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return conditionTrue(obj, "Available")
	}
}

// UnregisterAPIService deletes what RegisterAPIService created.
func (c *Cluster) UnregisterAPIService(ctx context.Context, group, version string) error {
	name := version + "." + group
	if err := c.dynamic.Resource(apiServiceResource()).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting APIService %s: %w", name, err)
	}
	svcName := apiServiceServiceName(group, version)
	if err := c.dynamic.Resource(serviceResource()).Namespace(apiServiceNamespace).
		Delete(ctx, svcName, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting Service %s/%s: %w", apiServiceNamespace, svcName, err)
	}
	return nil
}

// IssueServingCert returns a PEM serving certificate and key, signed by the
// cluster CA (CABundle), for hosts: DNS names or IP addresses. A test's
// extension server uses it with RegisterAPIService(..., c.CABundle()).
func (c *Cluster) IssueServingCert(hosts ...string) (certPEM, keyPEM []byte, err error) {
	if len(hosts) == 0 {
		return nil, nil, fmt.Errorf("a serving certificate needs at least one host")
	}
	pair, err := c.creds.ca.IssueServing(testca.Serving{Hosts: hosts})
	if err != nil {
		return nil, nil, err
	}
	return pair.CertPEM, pair.KeyPEM, nil
}
