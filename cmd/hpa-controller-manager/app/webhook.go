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
	"crypto/tls"
	"net/http"

	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/certreload"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// webhookMux serves the validating webhook; with clients (nil in tests of
// the serving alone) it also refuses a second autoscaler on a target.
func webhookMux(cfg *config.Config, c *clients) *http.ServeMux {
	handler := webhook.NewHandler(cfg.FeatureGates)
	if c != nil {
		handler = handler.WithAutoscalers(liveAutoscalers{native: c.kube.AutoscalingV2(), extended: c.hpa})
	}
	mux := http.NewServeMux()
	mux.Handle(webhook.Path, handler)
	return mux
}

// newWebhookServer builds the admission webhook's HTTPS server. Its
// certificate is read again when its files are replaced, as cert-manager
// does on every renewal of the mounted Secret, so that a renewal needs no
// restart; a certificate that does not load at all is an error here,
// before anything is served.
func newWebhookServer(ctx context.Context, cfg *config.Config, c *clients) (*http.Server, error) {
	cert, err := certreload.New(klog.FromContext(ctx), cfg.Webhook.CertFile, cfg.Webhook.KeyFile)
	if err != nil {
		return nil, err
	}
	tlsConfig := &tls.Config{MinVersion: cfg.Webhook.TLS.MinVersion, CipherSuites: cfg.Webhook.TLS.CipherSuites, GetCertificate: cert.GetCertificate}
	srv := webhook.NewServer(ctx, webhookMux(cfg, c), tlsConfig, webhook.DefaultLimits())
	srv.Addr = cfg.Webhook.Address
	return srv, nil
}
