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
	"errors"
	"fmt"
	"net/http"

	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
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

// newWebhookServer binds the admission webhook's HTTPS port, serving
// handler under limits (pkg/webhook's). Its certificate is read again when
// its files are replaced, as cert-manager does on every renewal of the
// mounted Secret, so that a renewal needs no restart; a certificate that
// does not load at all is an error here, before anything is served.
// Requests log to ctx's logger.
func newWebhookServer(ctx context.Context, cfg config.Webhook, handler http.Handler, limits webhook.Limits) (*httpsPort, error) {
	cert, err := dynamiccertificates.NewDynamicServingContentFromFiles("webhook-serving-cert", cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the webhook's serving certificate %s and key %s: %w", cfg.CertFile, cfg.KeyFile, err)
	}
	// A copy: applying the options fills in the listener.
	opts := *cfg.Serving
	var serving *server.SecureServingInfo
	if err := opts.ApplyTo(&serving); err != nil {
		return nil, fmt.Errorf("serving the admission webhook: %w", err)
	}
	if serving == nil {
		return nil, errors.New("serving the admission webhook: no --webhook-port")
	}
	serving.Cert = cert
	logReloads(klog.FromContext(ctx), "webhook", cert)
	return &httpsPort{
		name:    "the admission webhook",
		serving: serving,
		handler: webhook.WithLimits(ctx, handler, limits),
	}, nil
}
