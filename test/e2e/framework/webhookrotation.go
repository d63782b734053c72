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
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
	"github.com/kube-hpa/kube-hpa/test/testca"
)

// WebhookCertificates renews and rotates the webhook's serving certificate
// of the local environment as cert-manager and its CA injector would: it
// writes the replicas' Secret volume and the caBundle of the webhook
// configuration. Nil outside the local environment of the CRD mode.
func (e *Environment) WebhookCertificates() *WebhookCertificates {
	if e.Config.WebhookTLS == nil {
		return nil
	}
	return &WebhookCertificates{env: e, tls: *e.Config.WebhookTLS}
}

// WebhookCertificates acts on the files and the configuration of
// Config.WebhookTLS.
type WebhookCertificates struct {
	env *Environment
	tls WebhookTLS
}

// Issuer is the CA that signed the certificate the environment started
// with.
func (w *WebhookCertificates) Issuer() (*testca.CA, error) { return testca.Load(w.tls.IssuerDir) }

// Current is the serving certificate in the replicas' Secret volume.
func (w *WebhookCertificates) Current() (*x509.Certificate, error) {
	data, err := os.ReadFile(w.tls.CertFile())
	if err != nil {
		return nil, err
	}
	return testca.ParseCertificate(data)
}

// Renew signs a new serving certificate, with a new key, by ca and
// replaces the replicas' Secret volume with it in one step.
func (w *WebhookCertificates) Renew(ca *testca.CA) (*x509.Certificate, error) {
	return issueWebhookCert(w.tls, ca)
}

// Configuration reads the ValidatingWebhookConfiguration.
func (w *WebhookCertificates) Configuration(ctx context.Context) (*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	return w.env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, w.tls.Configuration, metav1.GetOptions{})
}

// configMarkerLabel labels the HPA that tells which version of the webhook
// configuration kube-apiserver calls with: InjectCABundle sets, in the same
// update as the caBundle, an objectSelector that leaves out HPAs with a
// new value of it, so once such an HPA is admitted without the webhook,
// kube-apiserver calls the webhook with that caBundle. Upstream's e2e
// waits for a webhook configuration with a marker in the same way.
const configMarkerLabel = "e2e.kube-hpa.io/webhook-configuration"

// configMarkerTimeout bounds the wait for kube-apiserver to use a new
// webhook configuration (its informer delivers it in well under a second).
const configMarkerTimeout = 30 * time.Second

// InjectCABundle writes bundle (PEM certificates) into the caBundle of
// every webhook of the configuration, as cert-manager's CA injector does,
// and returns once kube-apiserver calls the webhook with it. namespace is
// where the marker HPA is dry-run.
func (w *WebhookCertificates) InjectCABundle(ctx context.Context, namespace string, bundle []byte) error {
	marker := strconv.FormatInt(time.Now().UnixNano(), 36)
	err := w.updateConfiguration(ctx, func(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) {
		for i := range cfg.Webhooks {
			hook := &cfg.Webhooks[i]
			hook.ClientConfig.CABundle = bundle
			hook.ObjectSelector = withMarker(hook.ObjectSelector, marker)
		}
	})
	if err != nil {
		return err
	}
	_, invalid := AdmissionProbeHPAs("e2e-webhook-marker")
	invalid.Labels = map[string]string{configMarkerLabel: marker}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, configMarkerTimeout, true, func(ctx context.Context) (bool, error) {
		last = w.env.TryCreateHPA(ctx, namespace, invalid, true)
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for kube-apiserver to call the webhook with the new caBundle: %w (last: %v)", err, last)
	}
	return nil
}

// withMarker is selector, or none, with its marker expression set to
// leave out HPAs labelled with marker.
func withMarker(selector *metav1.LabelSelector, marker string) *metav1.LabelSelector {
	out := &metav1.LabelSelector{}
	if selector != nil {
		out = selector.DeepCopy()
	}
	out.MatchExpressions = slices.DeleteFunc(out.MatchExpressions, func(r metav1.LabelSelectorRequirement) bool {
		return r.Key == configMarkerLabel
	})
	out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
		Key: configMarkerLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{marker},
	})
	return out
}

// RestoreConfiguration puts back the webhooks of saved (a Configuration
// read before any InjectCABundle). It does not wait: call it once the
// replicas serve a certificate that both saved's caBundle and the current
// one trust.
func (w *WebhookCertificates) RestoreConfiguration(ctx context.Context, saved *admissionregistrationv1.ValidatingWebhookConfiguration) error {
	return w.updateConfiguration(ctx, func(cfg *admissionregistrationv1.ValidatingWebhookConfiguration) {
		cfg.Webhooks = saved.DeepCopy().Webhooks
	})
}

func (w *WebhookCertificates) updateConfiguration(ctx context.Context, mutate func(*admissionregistrationv1.ValidatingWebhookConfiguration)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cfg, err := w.Configuration(ctx)
		if err != nil {
			return err
		}
		mutate(cfg)
		_, err = w.env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, cfg, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("updating ValidatingWebhookConfiguration %s: %w", w.tls.Configuration, err)
	}
	return nil
}

// ServedCertificate is what one port of a replica presented on a new
// connection.
type ServedCertificate struct {
	Replica string
	Port    int
	Leaf    *x509.Certificate
}

// webhookDialTimeout bounds one probe of a replica.
const webhookDialTimeout = 5 * time.Second

// Served opens a new TLS connection to the webhook port and the secure
// port of every replica, verified against roots for the webhook's
// address as kube-apiserver verifies the webhook, and returns the
// certificates they presented. On the webhook port it also sends an
// AdmissionReview of an HPA that only the webhook refuses, over the same
// connection, and fails unless the webhook refuses it naming the field:
// a new connection is the only place where a server that follows its
// files can present a new certificate, which kube-apiserver, keeping its
// connections alive, may not open for a long time.
func (w *WebhookCertificates) Served(ctx context.Context, roots *x509.CertPool) ([]ServedCertificate, error) {
	var out []ServedCertificate
	for _, r := range w.env.Config.Replicas {
		leaf, err := w.reviewOnNewConnection(ctx, r.WebhookPort, roots)
		if err != nil {
			return out, fmt.Errorf("%s webhook port %d: %w", r.Name, r.WebhookPort, err)
		}
		out = append(out, ServedCertificate{Replica: r.Name, Port: r.WebhookPort, Leaf: leaf})
		leaf, err = w.handshake(ctx, r.SecurePort, roots)
		if err != nil {
			return out, fmt.Errorf("%s secure port %d: %w", r.Name, r.SecurePort, err)
		}
		out = append(out, ServedCertificate{Replica: r.Name, Port: r.SecurePort, Leaf: leaf})
	}
	return out, nil
}

func (w *WebhookCertificates) tlsConfig(roots *x509.CertPool) *tls.Config {
	return &tls.Config{RootCAs: roots, ServerName: w.tls.Hosts[0], MinVersion: tls.VersionTLS12}
}

func (w *WebhookCertificates) handshake(ctx context.Context, port int, roots *x509.CertPool) (*x509.Certificate, error) {
	ctx, cancel := context.WithTimeout(ctx, webhookDialTimeout)
	defer cancel()
	d := tls.Dialer{Config: w.tlsConfig(roots)}
	conn, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0], nil
}

// reviewOnNewConnection posts an AdmissionReview to the webhook on a
// connection of its own and checks the answer.
func (w *WebhookCertificates) reviewOnNewConnection(ctx context.Context, port int, roots *x509.CertPool) (*x509.Certificate, error) {
	ctx, cancel := context.WithTimeout(ctx, webhookDialTimeout)
	defer cancel()
	_, invalid := AdmissionProbeHPAs("e2e-webhook-direct")
	invalid.TypeMeta = metav1.TypeMeta{APIVersion: v2.SchemeGroupVersion.String(), Kind: "HorizontalPodAutoscaler"}
	raw, err := json.Marshal(invalid)
	if err != nil {
		return nil, err
	}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID(strconv.FormatInt(time.Now().UnixNano(), 36)),
			Kind:      metav1.GroupVersionKind{Group: v2.GroupName, Version: "v2", Kind: "HorizontalPodAutoscaler"},
			Resource:  metav1.GroupVersionResource{Group: v2.GroupName, Version: "v2", Resource: "horizontalpodautoscalers"},
			Name:      invalid.Name,
			Namespace: metav1.NamespaceDefault,
			Operation: admissionv1.Create,
		},
	}
	review.Request.Object.Raw = raw
	body, err := json.Marshal(review)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: w.tlsConfig(roots), DisableKeepAlives: true}}
	defer client.CloseIdleConnections()
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, webhook.Path)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, answer)
	}
	var got admissionv1.AdmissionReview
	if err := json.Unmarshal(answer, &got); err != nil {
		return nil, fmt.Errorf("reading the AdmissionReview answered: %w", err)
	}
	if err := checkRefusal(got.Response); err != nil {
		return nil, err
	}
	return resp.TLS.PeerCertificates[0], nil
}

// checkRefusal accepts the webhook's answer to AdmissionProbeHPAs' invalid
// HPA: refused, naming the field.
func checkRefusal(resp *admissionv1.AdmissionResponse) error {
	switch {
	case resp == nil:
		return fmt.Errorf("no response in the AdmissionReview")
	case resp.Allowed:
		return fmt.Errorf("the webhook allowed an HPA with an invalid %s", webhookOnlyField)
	case resp.Result == nil || !strings.Contains(resp.Result.Message, webhookOnlyField):
		return fmt.Errorf("the webhook's refusal does not name %s: %+v", webhookOnlyField, resp.Result)
	}
	return nil
}
