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
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
)

// backendDialTimeout bounds one connection attempt to a replica; a
// replica that is down refuses at once on loopback, so this only matters
// for one that hangs.
const backendDialTimeout = 2 * time.Second

// RoundRobin is a TCP proxy on loopback that spreads connections over
// backends and skips a backend that refuses, as a Service does for the
// ready endpoints of a Deployment. It stands in front of the controller
// replicas' admission webhook: a webhook's clientConfig.url names one
// host:port, and pointing it at a single replica would make every create
// of an HPA fail (failurePolicy: Fail) while that replica is killed or
// restarted by a spec. It passes TLS through untouched, so the API server
// verifies the replicas' own serving certificate.
type RoundRobin struct {
	logger   logr.Logger
	listener net.Listener
	backends []string
	next     atomic.Uint64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// StartRoundRobin listens on a free loopback port and proxies to backends
// (host:port).
func StartRoundRobin(logger logr.Logger, backends []string) (*RoundRobin, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &RoundRobin{logger: logger, listener: l, backends: backends, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *RoundRobin) Addr() string { return p.listener.Addr().String() }

func (p *RoundRobin) serve() {
	defer p.wg.Done()
	for {
		conn, err := p.listener.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				p.logger.Error(err, "Round robin stopped accepting")
			}
			return
		}
		if !p.track(conn) {
			_ = conn.Close()
			return
		}
		p.wg.Add(1)
		go p.handle(conn)
	}
}

// handle connects one client to the first backend, in round-robin order,
// that accepts.
func (p *RoundRobin) handle(client net.Conn) {
	defer p.wg.Done()
	defer p.untrack(client)
	start := int(p.next.Add(1))
	var backend net.Conn
	for i := range p.backends {
		addr := p.backends[(start+i)%len(p.backends)]
		conn, err := net.DialTimeout("tcp", addr, backendDialTimeout)
		if err == nil {
			backend = conn
			break
		}
		p.logger.V(1).Info("Backend refused, trying the next one", "backend", addr, "err", err)
	}
	if backend == nil {
		p.logger.Info("No backend accepted the connection", "backends", p.backends)
		return
	}
	if !p.track(backend) {
		_ = backend.Close()
		return
	}
	defer p.untrack(backend)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// Half-close so that the other direction can finish its reply.
		if tcp, ok := dst.(*net.TCPConn); ok {
			_ = tcp.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(backend, client)
	go pipe(client, backend)
	<-done
	<-done
}

func (p *RoundRobin) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *RoundRobin) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

// Close stops accepting, cuts every open connection and waits for the
// proxy's goroutines.
func (p *RoundRobin) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.listener.Close()
	p.wg.Wait()
}
