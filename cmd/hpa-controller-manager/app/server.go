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
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// Run runs hpa-controller-manager until ctx ends: the health and metrics
// servers (HTTPS with delegated authentication and authorization, and
// plain HTTP when asked for) and the admission webhook on every replica,
// the controllers on the elected leader only.
func Run(ctx context.Context, cfg *config.Config) error {
	logger := klog.FromContext(ctx)
	logger.Info("Starting hpa-controller-manager", "manageNativeHPAs", cfg.ManageNativeHPAs, "leaderElect", cfg.LeaderElection.LeaderElect)

	clients, err := newClients(cfg)
	if err != nil {
		return err
	}
	registry := metrics.NewKubeRegistry()
	registerBuildInfo(registry)
	health := newHealthState()
	setContentionProfiling(cfg.Debugging)
	var webhookServer *http.Server
	if cfg.Webhook.CertFile != "" {
		if webhookServer, err = newWebhookServer(ctx, cfg, clients); err != nil {
			return err
		}
	}

	var secure *secureServer
	if cfg.SecureServing.Address != "" {
		if secure, err = newSecureServer(ctx, cfg.SecureServing, healthMux(health, registry, cfg.Debugging)); err != nil {
			return err
		}
	}
	// The flags are checked before the cluster is asked: a bad certificate
	// is said first.
	if err := checkCRD(clients.kube.Discovery()); err != nil {
		return err
	}

	g, ctx := errgroup.WithContext(ctx)
	if secure != nil {
		g.Go(func() error { return secure.run(ctx) })
	}
	if cfg.HealthAddress != "" {
		logger.Info("Serving /healthz, /readyz, /livez and /metrics over plain HTTP without authentication (--port): for local runs only", "address", cfg.HealthAddress)
		g.Go(func() error {
			return serve(ctx, newHealthServer(cfg.HealthAddress, plainMux(health, registry)), nil)
		})
	}
	if webhookServer != nil {
		// Ready only once the webhook listens: a replica that the API
		// server's admission calls reach must answer them.
		var listening atomic.Bool
		health.setWebhook(func() error {
			if !listening.Load() {
				return errors.New("not listening yet")
			}
			return nil
		})
		g.Go(func() error { return serve(ctx, webhookServer, func() { listening.Store(true) }) })
	}
	g.Go(func() error {
		mon := monitor.New(registry)
		// Every goroutine started below counts its recovered panics.
		ctx := goroutine.WithObserver(ctx, mon)
		if cfg.Sharding.Enabled {
			return runSharded(ctx, cfg, clients, registry, mon, health)
		}
		lead := func(ctx context.Context) error { return runControllers(ctx, cfg, clients, mon, health, scope{}) }
		if !cfg.LeaderElection.LeaderElect {
			return lead(ctx)
		}
		return runWithLeaderElection(ctx, cfg, clients, health.lease, lead)
	})
	err = g.Wait()
	logger.Info("hpa-controller-manager stopped")
	return err
}

// newHealthServer serves probes and scrapes. Its callers
// (the kubelet, Prometheus) send small GETs and give up within seconds;
// the timeouts only free the connections of a client that hangs.
func newHealthServer(address string, handler http.Handler) *http.Server {
	return &http.Server{
		Addr:              address,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
}

// serve serves srv on its address until ctx ends, over TLS when it has a
// TLS configuration; listening, if set, is called once it listens.
func serve(ctx context.Context, srv *http.Server, listening func()) error {
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return fmt.Errorf("serving on %s: %w", srv.Addr, err)
	}
	if listening != nil {
		listening()
	}
	return serveOn(ctx, srv, ln)
}

// serveOn is serve on a listener already open.
func serveOn(ctx context.Context, srv *http.Server, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	var err error
	if srv.TLSConfig != nil {
		// The certificate comes from TLSConfig.GetCertificate.
		err = srv.ServeTLS(ln, "", "")
	} else {
		err = srv.Serve(ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
}
