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

func webhookMux(cfg *config.Config) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(webhook.Path, webhook.NewHandler(cfg.FeatureGates))
	return mux
}

// newWebhookServer builds the admission webhook's HTTPS server. Its
// certificate is read again when its files are replaced, as cert-manager
// does on every renewal of the mounted Secret, so that a renewal needs no
// restart; a certificate that does not load at all is an error here,
// before anything is served.
func newWebhookServer(ctx context.Context, cfg *config.Config) (*http.Server, error) {
	cert, err := certreload.New(klog.FromContext(ctx), cfg.Webhook.CertFile, cfg.Webhook.KeyFile)
	if err != nil {
		return nil, err
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: cert.GetCertificate}
	srv := webhook.NewServer(ctx, webhookMux(cfg), tlsConfig, webhook.DefaultLimits())
	srv.Addr = cfg.Webhook.Address
	return srv, nil
}
