package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// Run runs hpa-controller-manager until ctx ends: the health and metrics
// server and the admission webhook on every replica, the controllers on
// the elected leader only.
func Run(ctx context.Context, cfg *config.Config) error {
	logger := klog.FromContext(ctx)
	logger.Info("Starting hpa-controller-manager", "manageNativeHPAs", cfg.ManageNativeHPAs, "leaderElect", cfg.LeaderElection.LeaderElect)

	clients, err := newClients(cfg)
	if err != nil {
		return err
	}
	registry := metrics.NewKubeRegistry()
	health := newHealthState()

	g, ctx := errgroup.WithContext(ctx)
	if cfg.HealthAddress != "" {
		g.Go(func() error { return serveHTTP(ctx, cfg.HealthAddress, healthMux(health, registry), "", "") })
	}
	if cfg.Webhook.CertFile != "" {
		g.Go(func() error {
			return serveHTTP(ctx, cfg.Webhook.Address, webhookMux(cfg), cfg.Webhook.CertFile, cfg.Webhook.KeyFile)
		})
	}
	g.Go(func() error {
		lead := func(ctx context.Context) error { return runControllers(ctx, cfg, clients, registry, health) }
		if !cfg.LeaderElection.LeaderElect {
			return lead(ctx)
		}
		return runWithLeaderElection(ctx, cfg, clients, registry, health.lease, lead)
	})
	err = g.Wait()
	logger.Info("hpa-controller-manager stopped")
	return err
}

// serveHTTP serves handler on address until ctx ends; with certFile it
// serves HTTPS.
func serveHTTP(ctx context.Context, address string, handler http.Handler, certFile, keyFile string) error {
	srv := &http.Server{Addr: address, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	var err error
	if certFile != "" {
		err = srv.ListenAndServeTLS(certFile, keyFile)
	} else {
		err = srv.ListenAndServe()
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("serving on %s: %w", address, err)
}
