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

package certreload

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/certreload/certreloadtest"
)

// TestARotationReachesNewConnectionsWithoutAFailedRequest serves HTTPS
// with a Pair on loopback, replaces pair A by pair B while clients keep
// connecting, and wants B on a new connection and no request failing on
// the way: not while the certificate is written before its key, not while
// a file is truncated, not while a Secret volume swaps its ..data symlink.
func TestARotationReachesNewConnectionsWithoutAFailedRequest(t *testing.T) {
	cases := []struct {
		name         string
		secretVolume bool
		// rotate writes pair b, calling between after each step that
		// leaves the files part way.
		rotate func(t *testing.T, f pairFiles, b certreloadtest.Pair, between func())
		// mustKeep: some look must have found the files part way and
		// kept A, or the rotation did not test what it means to.
		mustKeep bool
	}{
		{name: "files rewritten in place, the certificate half-written and then ahead of its key",
			rotate: func(t *testing.T, f pairFiles, b certreloadtest.Pair, between func()) {
				writeFile(t, f, 0, b.CertPEM[:len(b.CertPEM)/2])
				between()
				writeFile(t, f, 0, b.CertPEM)
				between()
				writeFile(t, f, 1, b.KeyPEM)
			},
			mustKeep: true},
		{name: "a Secret volume update", secretVolume: true,
			rotate: func(t *testing.T, f pairFiles, b certreloadtest.Pair, _ func()) { f.write(t, b) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ca := certreloadtest.NewCA(t)
			a, b := ca.Issue(t, 1), ca.Issue(t, 2)
			var f pairFiles = newPlainFiles(t, a)
			if tc.secretVolume {
				f = newSecretVolume(t, a)
			}
			certFile, keyFile := f.paths()
			logger, log := bufferedLogger(t)
			p, err := New(logger, certFile, keyFile)
			if err != nil {
				t.Fatal(err)
			}
			// Every handshake looks at the files, so that the clients'
			// handshakes land in the middle of the writes.
			p.checkEvery = 0
			addr := serveHTTPS(t, p)
			clientTLS := &tls.Config{RootCAs: ca.Pool}

			if got := certreloadtest.DialSerial(t, addr, clientTLS); got != a.Serial {
				t.Fatalf("serving serial %d before the rotation, want %d", got, a.Serial)
			}
			load := startLoad(t, "https://"+addr+"/", clientTLS)
			load.waitForRequests(t, 20)

			tc.rotate(t, f, b, func() { load.waitForRequests(t, 10) })
			waitForSerial(t, addr, clientTLS, b.Serial)
			load.waitForRequests(t, 20)

			got := load.stop()
			if len(got.failures) > 0 {
				t.Errorf("%d of %d requests during the rotation failed, the first: %v", len(got.failures), got.requests, got.failures[0])
			}
			for _, serial := range []int64{a.Serial, b.Serial} {
				if !got.served[serial] {
					t.Errorf("no request was served serial %d; the load did not span the rotation (served %v)", serial, got.served)
				}
			}
			if tc.mustKeep && len(loggedErrors(log.Data())) == 0 {
				t.Error("no look found the files part way; the rotation did not go through the broken states")
			}
		})
	}
}

func serveHTTPS(t *testing.T, p *Pair) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }),
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: p.GetCertificate},
		ReadHeaderTimeout: time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serving: %v", err)
		}
	})
	return ln.Addr().String()
}

// waitForSerial dials until the server presents serial. The bound is only
// there to end a broken test; a working one needs a look or two.
func waitForSerial(t *testing.T, addr string, cfg *tls.Config, serial int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for certreloadtest.DialSerial(t, addr, cfg) != serial {
		if time.Now().After(deadline) {
			t.Fatalf("serial %d still not served after 30s", serial)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// load is clients requesting over new connections until stopped.
type load struct {
	requests atomic.Int64
	done     chan struct{}
	wg       sync.WaitGroup

	mu       sync.Mutex
	failures []error
	served   map[int64]bool
}

type loadResult struct {
	requests int64
	failures []error
	served   map[int64]bool
}

func startLoad(t *testing.T, url string, cfg *tls.Config) *load {
	l := &load{done: make(chan struct{}), served: map[int64]bool{}}
	// No keep-alive: each request is a handshake, the moment the
	// certificate is chosen.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
	for range 4 {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.done:
					return
				default:
				}
				l.request(client, url)
			}
		}()
	}
	t.Cleanup(func() { l.stop() })
	return l
}

func (l *load) request(client *http.Client, url string) {
	defer l.requests.Add(1)
	resp, err := client.Get(url)
	if err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			err = errors.New(resp.Status)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.failures = append(l.failures, err)
		return
	}
	l.served[resp.TLS.PeerCertificates[0].SerialNumber.Int64()] = true
}

// waitForRequests returns once n more requests have been made.
func (l *load) waitForRequests(t *testing.T, n int64) {
	t.Helper()
	target := l.requests.Load() + n
	deadline := time.Now().Add(30 * time.Second)
	for l.requests.Load() < target {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests made, waiting for %d", l.requests.Load(), target)
		}
		time.Sleep(time.Millisecond)
	}
}

func (l *load) stop() loadResult {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return loadResult{requests: l.requests.Load(), failures: l.failures, served: l.served}
}
