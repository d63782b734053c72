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

package integration

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// TestRegisterAPIServiceReachesALoopbackServer checks the path a metrics
// adapter of a test takes: a server on loopback with a certificate of the
// cluster CA, registered as an APIService, is reached through the
// aggregator.
func TestRegisterAPIServiceReachesALoopbackServer(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	const group, version = "probe.kube-hpa.io", "v1alpha1"

	certPEM, keyPEM, err := cluster.IssueServingCert(localcluster.APIServiceServerName(group, version))
	if err != nil {
		t.Fatal(err)
	}
	port := serveDiscovery(t, group, version, certPEM, keyPEM)

	if err := cluster.RegisterAPIService(ctx, group, version, port, cluster.CABundle()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// An unavailable APIService would block namespace deletion.
		if err := cluster.UnregisterAPIService(context.Background(), group, version); err != nil {
			t.Error(err)
		}
	})
	if err := cluster.WaitAPIServiceAvailable(ctx, group, version); err != nil {
		out, _ := cluster.Kubectl("get", "apiservice", version+"."+group, "-o", "yaml")
		t.Fatalf("%v\n%s", err, out)
	}

	out, err := cluster.Kubectl("get", "--raw", "/apis/"+group+"/"+version)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"probes"`) {
		t.Errorf("the aggregator did not return the loopback server's discovery document:\n%s", out)
	}
}

// serveDiscovery serves the discovery document of group/version, with one
// resource "probes", over TLS on a loopback port, until the test ends.
func serveDiscovery(t *testing.T, group, version string, certPEM, keyPEM []byte) int {
	t.Helper()
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	list := metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: group + "/" + version,
		APIResources: []metav1.APIResource{{Name: "probes", Kind: "Probe", Namespaced: true, Verbs: metav1.Verbs{"get"}}},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/apis/"+group+"/"+version, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list)
	})
	listener, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: mux}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	_, port, err := net.SplitHostPort(listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
