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
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The test metrics adapter is the only member of its Supervisor, so it is
// replica 0 of its control endpoint.
const adapterReplica = 0

// adapterPoll is how often the waits below look.
const adapterPoll = 250 * time.Millisecond

// startAdapterControl serves the adapter's Supervisor on a control
// endpoint of its own (the same API as the controllers' one), so that a
// spec on any ginkgo process can stop the adapter and keep it stopped.
func (l *Local) startAdapterControl() error {
	control, err := StartControlServer(l.logger.WithName("adapter-control"), l.adapter)
	if err != nil {
		return err
	}
	l.adapterControl = control
	l.config.AdapterControlURL = control.URL()
	return nil
}

// Adapter stops and starts the test metrics adapter of the local
// environment through process 1's adapter control endpoint.
type Adapter struct {
	control *ControlClient
	env     *Environment
}

// Adapter returns the adapter's controls; nil outside the local
// environment, where the suite does not run the adapter itself.
func (e *Environment) Adapter() *Adapter {
	if e.Config.AdapterControlURL == "" {
		return nil
	}
	return &Adapter{control: NewControlClient(e.Config.AdapterControlURL), env: e}
}

// Stop kills the adapter process and keeps it down until Start: the
// aggregated metrics APIs then answer 503 to every request, as they do for
// an adapter whose pods are all gone. It returns once the API server says
// so for external.metrics.k8s.io.
func (a *Adapter) Stop(ctx context.Context) error {
	if err := a.control.Hold(ctx, adapterReplica, "KILL"); err != nil {
		return fmt.Errorf("stopping the metrics adapter: %w", err)
	}
	return a.waitServing(ctx, false)
}

// Start lets the adapter run again and returns once external metrics are
// served through the API server.
func (a *Adapter) Start(ctx context.Context) error {
	if err := a.control.Release(ctx, adapterReplica); err != nil {
		return fmt.Errorf("starting the metrics adapter: %w", err)
	}
	if _, err := a.control.WaitRunning(ctx, adapterReplica, 0); err != nil {
		return err
	}
	if err := a.waitServing(ctx, true); err != nil {
		return err
	}
	// The aggregator may have marked the APIServices unavailable while the
	// adapter was down, and then answers 503 itself until its availability
	// controller checks again (a resync of 30s, or a back-off as long).
	// Any update of an APIService makes it check at once.
	for _, name := range adapterAPIServices() {
		if err := a.touchAPIService(ctx, name); err != nil {
			return err
		}
	}
	return a.waitAvailable(ctx)
}

// Running reports whether an adapter process runs.
func (a *Adapter) Running(ctx context.Context) (bool, error) {
	replicas, err := a.control.Replicas(ctx)
	if err != nil {
		return false, err
	}
	if len(replicas) <= adapterReplica {
		return false, fmt.Errorf("the adapter control endpoint reports %d processes", len(replicas))
	}
	return replicas[adapterReplica].PID != 0, nil
}

// externalMetricsProbePath asks for a metric that no spec sets: a serving
// adapter answers 404, a stopped one makes the API server answer 503.
const externalMetricsProbePath = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/e2e-adapter-probe"

// probe returns the HTTP status the API server gives an external metric
// request.
func (a *Adapter) probe(ctx context.Context) int {
	var code int
	a.env.Kube.Discovery().RESTClient().Get().AbsPath(externalMetricsProbePath).Do(ctx).StatusCode(&code)
	return code
}

// waitServing waits until external metric requests reach the adapter
// (serving) or fail with 503 (not serving).
func (a *Adapter) waitServing(ctx context.Context, serving bool) error {
	last := 0
	err := wait.PollUntilContextTimeout(ctx, adapterPoll, time.Minute, true, func(ctx context.Context) (bool, error) {
		last = a.probe(ctx)
		if serving {
			return last == http.StatusOK || last == http.StatusNotFound, nil
		}
		return last == http.StatusServiceUnavailable, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for external metrics to be served=%t through the API server (last status %d): %w", serving, last, err)
	}
	return nil
}

// adapterAPIServices name the APIServices of the aggregated APIs that the
// adapter serves (local.go registers them).
func adapterAPIServices() []string {
	return []string{"v1beta1.external.metrics.k8s.io", "v1beta2.custom.metrics.k8s.io"}
}

func apiServicesResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
}

// touchAPIService stamps an annotation on an APIService, which makes the
// aggregator's availability controller check it again.
func (a *Adapter) touchAPIService(ctx context.Context, name string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		"e2e.kube-hpa.io/adapter-restarted": time.Now().UTC().Format(time.RFC3339Nano),
	}}})
	if err != nil {
		return err
	}
	_, err = a.env.Dynamic.Resource(apiServicesResource()).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("touching APIService %s: %w", name, err)
	}
	return nil
}

// waitAvailable waits until the aggregator reports every adapter API
// Available.
func (a *Adapter) waitAvailable(ctx context.Context) error {
	for _, name := range adapterAPIServices() {
		err := wait.PollUntilContextTimeout(ctx, adapterPoll, time.Minute, true, func(ctx context.Context) (bool, error) {
			obj, err := a.env.Dynamic.Resource(apiServicesResource()).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, err
			}
			if err != nil {
				return false, nil
			}
			conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, c := range conditions {
				m, ok := c.(map[string]any)
				if ok && m["type"] == "Available" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for APIService %s to be Available: %w", name, err)
		}
	}
	return nil
}
