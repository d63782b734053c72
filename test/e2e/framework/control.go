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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/go-logr/logr"
)

// signalByName names the signals a spec may send to a replica: KILL and
// TERM end it (the Supervisor restarts it), STOP and CONT freeze and thaw
// it, for a controller that hangs without exiting.
func signalByName(name string) (syscall.Signal, bool) {
	switch name {
	case "KILL":
		return syscall.SIGKILL, true
	case "TERM":
		return syscall.SIGTERM, true
	case "STOP":
		return syscall.SIGSTOP, true
	case "CONT":
		return syscall.SIGCONT, true
	}
	return 0, false
}

// maxControlWait bounds a wait request, below any spec's time-out.
const maxControlWait = 2 * time.Minute

// ControlServer exposes the controllers' Supervisor over HTTP on loopback,
// so that a spec on any ginkgo process (each one a separate OS process)
// can act on the controllers that process 1 runs:
//
//	GET  /replicas                        status of every replica
//	POST /replicas/{i}/signal?name=KILL   send KILL, TERM, STOP or CONT
//	POST /replicas/{i}/hold?name=TERM     stop it (TERM or KILL) and keep it stopped
//	POST /replicas/{i}/release            let it start again
//	GET  /replicas/{i}/running?notPID=N   wait until a process other than N runs
type ControlServer struct {
	server   *http.Server
	listener net.Listener
	done     chan struct{}
}

// StartControlServer serves s on a free loopback port.
func StartControlServer(logger logr.Logger, s *Supervisor) (*ControlServer, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /replicas", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Status())
	})
	mux.HandleFunc("POST /replicas/{i}/signal", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		sig, known := signalByName(r.URL.Query().Get("name"))
		if err != nil || !known {
			http.Error(w, "want /replicas/<index>/signal?name=KILL|TERM|STOP|CONT", http.StatusBadRequest)
			return
		}
		pid, err := s.Signal(i, sig)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		logger.Info("Signalled a controller replica", "replica", i, "signal", r.URL.Query().Get("name"), "pid", pid)
		writeJSON(w, map[string]int{"pid": pid})
	})
	mux.HandleFunc("POST /replicas/{i}/hold", replicaAction(func(i int, r *http.Request) error {
		name := r.URL.Query().Get("name")
		if name == "" {
			name = "TERM"
		}
		sig, known := signalByName(name)
		if !known || (sig != syscall.SIGTERM && sig != syscall.SIGKILL) {
			return fmt.Errorf("hold takes name=TERM or name=KILL, not %q", name)
		}
		logger.Info("Holding a controller replica", "replica", i, "signal", name)
		return s.Hold(i, sig)
	}))
	mux.HandleFunc("POST /replicas/{i}/release", replicaAction(func(i int, _ *http.Request) error {
		logger.Info("Releasing a controller replica", "replica", i)
		return s.Release(i)
	}))
	mux.HandleFunc("GET /replicas/{i}/running", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		notPID, _ := strconv.Atoi(r.URL.Query().Get("notPID"))
		ctx, cancel := context.WithTimeout(r.Context(), maxControlWait)
		defer cancel()
		pid, err := s.WaitRunning(ctx, i, notPID)
		if err != nil {
			http.Error(w, err.Error(), http.StatusGatewayTimeout)
			return
		}
		writeJSON(w, map[string]int{"pid": pid})
	})
	return serveControl(logger, mux)
}

// serveControl serves mux on a free loopback port.
func serveControl(logger logr.Logger, mux *http.ServeMux) (*ControlServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &ControlServer{server: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, listener: l, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		if err := c.server.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "Control server stopped")
		}
	}()
	return c, nil
}

func replicaAction(action func(int, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := action(i, r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]string{"result": "ok"})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// URL is the server's base URL.
func (c *ControlServer) URL() string { return "http://" + c.listener.Addr().String() }

// Close stops the server.
func (c *ControlServer) Close() error {
	err := c.server.Close()
	<-c.done
	return err
}

// ControlClient talks to the ControlServer of process 1.
type ControlClient struct {
	base   string
	client *http.Client
}

// NewControlClient returns a client of the server at base.
func NewControlClient(base string) *ControlClient {
	return &ControlClient{base: base, client: &http.Client{Timeout: maxControlWait + 10*time.Second}}
}

func (c *ControlClient) do(ctx context.Context, method, path string, query url.Values, out any) error {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, body)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

// Replicas reports every controller replica.
func (c *ControlClient) Replicas(ctx context.Context) ([]ReplicaStatus, error) {
	var out []ReplicaStatus
	return out, c.do(ctx, http.MethodGet, "/replicas", nil, &out)
}

// Signal sends KILL, TERM, STOP or CONT to replica i and returns the pid
// signalled (0 when none was running).
func (c *ControlClient) Signal(ctx context.Context, i int, name string) (int, error) {
	var out struct{ PID int }
	err := c.do(ctx, http.MethodPost, fmt.Sprintf("/replicas/%d/signal", i), url.Values{"name": {name}}, &out)
	return out.PID, err
}

// Hold stops replica i with signal (TERM: gracefully; KILL: at once) and
// keeps it stopped until Release.
func (c *ControlClient) Hold(ctx context.Context, i int, signal string) error {
	return c.do(ctx, http.MethodPost, fmt.Sprintf("/replicas/%d/hold", i), url.Values{"name": {signal}}, nil)
}

// Release lets replica i start again.
func (c *ControlClient) Release(ctx context.Context, i int) error {
	return c.do(ctx, http.MethodPost, fmt.Sprintf("/replicas/%d/release", i), nil, nil)
}

// WaitRunning waits until replica i runs a process other than notPID.
func (c *ControlClient) WaitRunning(ctx context.Context, i, notPID int) (int, error) {
	var out struct{ PID int }
	err := c.do(ctx, http.MethodGet, fmt.Sprintf("/replicas/%d/running", i), url.Values{"notPID": {strconv.Itoa(notPID)}}, &out)
	return out.PID, err
}
