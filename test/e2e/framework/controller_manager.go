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
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// In in-tree mode the HPA controller is kube-controller-manager's own, patched,
// which process 1 started as part of the local cluster. Specs restart it
// from any ginkgo process through a control endpoint of its own:
//
//	GET  /kube-controller-manager          its process (localcluster.ComponentStatus)
//	POST /kube-controller-manager/restart  SIGTERM, start again, wait for /healthz

// startControllerManagerControl serves the cluster's
// kube-controller-manager on a control endpoint.
func (l *Local) startControllerManagerControl() error {
	logger := l.logger.WithName("controller-manager-control")
	control, err := StartControllerManagerControl(logger, l.cluster)
	if err != nil {
		return err
	}
	l.kcmControl = control
	l.config.ControllerManagerControlURL = control.URL()
	return nil
}

// StartControllerManagerControl serves cluster's kube-controller-manager
// on a free loopback port.
func StartControllerManagerControl(logger logr.Logger, cluster *localcluster.Cluster) (*ControlServer, error) {
	const component = "kube-controller-manager"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /"+component, func(w http.ResponseWriter, _ *http.Request) {
		status, err := cluster.Component(component)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, status)
	})
	mux.HandleFunc("POST /"+component+"/restart", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(klog.NewContext(r.Context(), logger), maxControlWait)
		defer cancel()
		logger.Info("Restarting kube-controller-manager")
		status, err := cluster.RestartControllerManager(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		logger.Info("Restarted kube-controller-manager", "pid", status.PID, "starts", status.Starts)
		writeJSON(w, status)
	})
	return serveControl(logger, mux)
}

// ControllerManager restarts the kube-controller-manager of the local
// in-tree environment, from any ginkgo process.
type ControllerManager struct {
	control *ControlClient
}

// ControllerManager returns the controls of kube-controller-manager; nil
// outside the local in-tree environment.
func (e *Environment) ControllerManager() *ControllerManager {
	if e.Config.ControllerManagerControlURL == "" {
		return nil
	}
	return &ControllerManager{control: NewControlClient(e.Config.ControllerManagerControlURL)}
}

// Status reports kube-controller-manager's current process.
func (c *ControllerManager) Status(ctx context.Context) (localcluster.ComponentStatus, error) {
	var out localcluster.ComponentStatus
	return out, c.control.do(ctx, http.MethodGet, "/kube-controller-manager", nil, &out)
}

// Restart ends kube-controller-manager gracefully, starts it again with
// the same flags and returns the new process once it serves /healthz. Its
// HPA controller then starts from nothing but what the API server holds.
func (c *ControllerManager) Restart(ctx context.Context) (localcluster.ComponentStatus, error) {
	var out localcluster.ComponentStatus
	return out, c.control.do(ctx, http.MethodPost, "/kube-controller-manager/restart", nil, &out)
}
