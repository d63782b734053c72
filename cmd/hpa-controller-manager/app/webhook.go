package app

import (
	"net/http"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

func webhookMux(cfg *config.Config) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(webhook.Path, webhook.NewHandler(cfg.FeatureGates))
	return mux
}
