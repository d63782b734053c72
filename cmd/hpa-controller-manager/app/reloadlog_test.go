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

package app

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// TestLogReloads: a renewed certificate is logged with its serial once the
// provider has loaded it, and a provider's first load, or a load of the
// same files again, logs nothing.
func TestLogReloads(t *testing.T) {
	ca := newTestCA(t)
	vol := newSecretVolume(t, issueServing(t, ca, 7001, "localhost"))
	provider, err := dynamiccertificates.NewDynamicServingContentFromFiles("test", vol.certFile(), vol.keyFile())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, args)
	}, funcr.Options{})
	logReloads(logger, "webhook", provider)
	logged := func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(lines, "\n")
	}

	if err := provider.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := logged(); got != "" {
		t.Errorf("logged %q for the certificate already loaded, want nothing", got)
	}
	vol.update(t, issueServing(t, ca, 7002, "localhost"))
	if err := provider.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := logged(); !strings.Contains(got, `"Reloaded the serving certificate"`) || !strings.Contains(got, `"serial"="7002"`) || !strings.Contains(got, `"port"="webhook"`) {
		t.Errorf("logged %q, want the reload of serial 7002 on the webhook", got)
	}
}

// TestLogReloadsOfAStaticCertificate: a certificate made in memory has no
// files to follow, and nothing is added to it.
func TestLogReloadsOfAStaticCertificate(t *testing.T) {
	p := issueServing(t, newTestCA(t), 1, "localhost")
	provider, err := dynamiccertificates.NewStaticCertKeyContent("static", p.CertPEM, p.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	logReloads(funcr.New(func(string, string) { t.Error("a static certificate logged") }, funcr.Options{}), "secure", provider)
}
