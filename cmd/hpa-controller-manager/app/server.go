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
	"k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
	"github.com/kube-hpa/kube-hpa/pkg/webhook"
)

// shutdownTimeout is how long a server lets the requests in flight finish
// once its context ends.
const shutdownTimeout = 5 * time.Second

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
	// The ports are bound and their certificates loaded before the
	// cluster is asked: a bad certificate or a port in use is said first.
	ports, err := newHTTPSPorts(ctx, cfg, clients, healthMux(health, registry, cfg.Debugging))
	if err != nil {
		return err
	}
	if err := checkCRD(clients.kube.Discovery()); err != nil {
		ports.close()
		return err
	}

	g, ctx := errgroup.WithContext(ctx)
	if ports.secure != nil {
		g.Go(func() error { return ports.secure.serve(ctx, nil) })
	}
	if cfg.HealthAddress != "" {
		logger.Info("Serving /healthz, /readyz, /livez and /metrics over plain HTTP without authentication (--port): for local runs only", "address", cfg.HealthAddress)
		g.Go(func() error {
			return serve(ctx, newHealthServer(cfg.HealthAddress, plainMux(health, registry)))
		})
	}
	if ports.webhook != nil {
		// Ready only once the webhook serves: a replica that the API
		// server's admission calls reach must answer them.
		var serving atomic.Bool
		health.setWebhook(func() error {
			if !serving.Load() {
				return errors.New("not serving yet")
			}
			return nil
		})
		g.Go(func() error { return ports.webhook.serve(ctx, func() { serving.Store(true) }) })
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

// newHealthServer serves probes and scrapes on the plain --port. Its
// callers (the kubelet, Prometheus) send small GETs and give up within
// seconds; the timeouts only free the connections of a client that hangs.
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

// serve serves srv over plain HTTP on its address until ctx ends.
func serve(ctx context.Context, srv *http.Server) error {
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return fmt.Errorf("serving on %s: %w", srv.Addr, err)
	}
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	}
	return nil
}

// httpsPort is an HTTPS port ready to serve: bound, its certificates
// loaded.
type httpsPort struct {
	name    string
	serving *server.SecureServingInfo
	handler http.Handler
}

// httpsPorts are the ports Run serves over HTTPS; nil when off.
type httpsPorts struct{ secure, webhook *httpsPort }

// newHTTPSPorts binds the secure port, serving healthHandler, and the
// webhook's.
func newHTTPSPorts(ctx context.Context, cfg *config.Config, c *clients, healthHandler http.Handler) (httpsPorts, error) {
	var ports httpsPorts
	var err error
	if cfg.Webhook.Serving != nil {
		if ports.webhook, err = newWebhookServer(ctx, cfg.Webhook, webhookMux(cfg, c), webhook.DefaultLimits()); err != nil {
			return httpsPorts{}, err
		}
	}
	if cfg.SecureServing.Serving != nil {
		if ports.secure, err = newSecureServer(klog.FromContext(ctx), cfg.SecureServing, healthHandler); err != nil {
			ports.close()
			return httpsPorts{}, err
		}
	}
	return ports, nil
}

// close closes the ports that were never served.
func (p httpsPorts) close() {
	for _, port := range []*httpsPort{p.secure, p.webhook} {
		if port != nil {
			port.close()
		}
	}
}

// serve serves the port until ctx ends, then lets the requests in flight
// finish for up to shutdownTimeout; serving, if set, is called once it
// serves. apiserver's Serve also runs the controllers that follow the
// certificates: the serving files' reload, the SNI certificates and the
// client CAs that the delegated authentication added (run there, and
// only there).
func (p *httpsPort) serve(ctx context.Context, serving func()) error {
	stopped, _, err := p.serving.Serve(p.handler, shutdownTimeout, ctx.Done())
	if err != nil {
		return fmt.Errorf("serving %s on %s: %w", p.name, p.serving.Listener.Addr(), err)
	}
	if serving != nil {
		serving()
	}
	<-stopped
	return nil
}

// close closes a port that is not served.
func (p *httpsPort) close() { _ = p.serving.Listener.Close() }
