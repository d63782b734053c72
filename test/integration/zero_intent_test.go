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

package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// The TestOwnZero tests pin that a zero the controller made is never taken
// for a person's pause, whatever single write fails after the scale write
// and whatever happens to the process between the scale write and the
// status write; and that a person's zero stays a pause under the same
// faults. Upstream v1.37.2 writes ScaledToZero after the zero, so under
// these faults its workload stays at zero: docs/differences-from-upstream.md lists the
// difference.

// statusFaults stands between the controller's HPA client and the API
// server, as a proxy would: while failing, it answers the status writes of
// HPAs with an error of the API server's form and lets everything else
// through; once dead, it answers every request with a refused connection,
// as for a process that no longer runs.
type statusFaults struct {
	next http.RoundTripper

	mu     sync.Mutex
	answer *http.Response
	dead   bool
	failed int
}

// serverError is how kube-apiserver answers a request it could not serve:
// code 500 (an internal error) or 504 with reason Timeout (the request did
// not complete in time).
func serverError(code int, reason string) *http.Response {
	body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected by the test's proxy","reason":%q,"code":%d}`, reason, code)
	return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}
}

func (f *statusFaults) wrap(rt http.RoundTripper) http.RoundTripper {
	f.next = rt
	return f
}

func (f *statusFaults) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	answer, dead := f.answer, f.dead
	isStatusWrite := req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, "/status") &&
		strings.Contains(req.URL.Path, "/horizontalpodautoscalers/")
	if dead || (answer != nil && isStatusWrite) {
		f.failed++
	}
	f.mu.Unlock()
	switch {
	case dead:
		return nil, errors.New("connection refused: the controller's process is gone")
	case answer != nil && isStatusWrite:
		a := *answer
		body, _ := io.ReadAll(answer.Body)
		answer.Body = io.NopCloser(strings.NewReader(string(body)))
		a.Body, a.Request = io.NopCloser(strings.NewReader(string(body))), req
		return &a, nil
	}
	return f.next.RoundTrip(req)
}

func (f *statusFaults) fail(answer *http.Response) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answer = answer
}

func (f *statusFaults) kill() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dead = true
}

func (f *statusFaults) failures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// atReplicas waits until the Deployment has replicas.
func atReplicas(ctx context.Context, kube kubernetes.Interface, ns, name string, replicas int32) func() (string, bool) {
	return func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, name)
		return fmt.Sprintf("replicas %d", got), got == replicas
	}
}

// statusFaultCases are the answers that fail a status write: a 500, and a
// time-out.
var statusFaultCases = []struct {
	name   string
	answer func() *http.Response
}{
	{name: "500", answer: func() *http.Response { return serverError(http.StatusInternalServerError, "InternalError") }},
	{name: "time-out", answer: func() *http.Response { return serverError(http.StatusGatewayTimeout, "Timeout") }},
}

// TestOwnZeroSurvivesFailingStatusWrites: status writes fail, with a 500
// and with a time-out, from right after the HPA's scale to zero; the
// metric then rises while they still fail, and the workload comes back.
func TestOwnZeroSurvivesFailingStatusWrites(t *testing.T) {
	for _, tc := range statusFaultCases {
		t.Run(tc.name, func(t *testing.T) {
			cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
			const name = "drain"
			createWorkload(ctx, t, kube, ns, name, 2)
			faults := &statusFaults{}
			g := &guardedScales{after: func(_ context.Context, _ string, sc *autoscalingv1.Scale) {
				if sc.Spec.Replicas == 0 {
					faults.fail(tc.answer())
				}
			}}
			fake := metricstest.NewClient().SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{0}})
			env := startGuardedThrough(ctx, t, cluster, kube, ns, fake, g, faults.wrap)
			if _, err := hpas.Create(ctx, zeroHPA(ns, name, 0)); err != nil {
				t.Fatal(err)
			}
			env.until(t, "the HPA scales the Deployment to zero and its status write after it fails", func() (string, bool) {
				got := deploymentReplicas(ctx, kube, ns, name)
				return fmt.Sprintf("replicas %d, %d failed status writes", got, faults.failures()), got == 0 && faults.failures() > 0
			})
			if last, ok := scaledToZero(ctx, hpas, ns, name); !ok {
				t.Fatalf("the zero is stored without its record: %s", last)
			}

			fake.SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{30000}})
			env.until(t, "the metric brings the Deployment back to 3 while status writes still fail", atReplicas(ctx, kube, ns, name, 3))
			faults.fail(nil)
			env.until(t, "status says 3 once status writes work again", statusCurrent(ctx, hpas, ns, name, 3))
		})
	}
}

// TestOwnZeroSurvivesTheProcessDyingBetweenTheWrites: the controller's
// process is gone right after its scale write to zero, before the status
// write that follows (it sends nothing more, as after a SIGKILL); a new
// controller process takes over, and when the metric rises the workload
// comes back.
func TestOwnZeroSurvivesTheProcessDyingBetweenTheWrites(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	const name = "killed"
	createWorkload(ctx, t, kube, ns, name, 2)
	faults := &statusFaults{}
	killed := make(chan struct{})
	var once sync.Once
	g := &guardedScales{after: func(ctx context.Context, _ string, sc *autoscalingv1.Scale) {
		if sc.Spec.Replicas != 0 {
			return
		}
		once.Do(func() {
			faults.kill()
			close(killed)
		})
		// A process that is gone runs nothing more of its pass.
		<-ctx.Done()
	}}
	fake := metricstest.NewClient().SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{0}})
	first := startGuardedThrough(ctx, t, cluster, kube, ns, fake, g, faults.wrap)
	if _, err := hpas.Create(ctx, zeroHPA(ns, name, 0)); err != nil {
		t.Fatal(err)
	}
	first.until(t, "the HPA writes the zero and its process dies", func() (string, bool) {
		select {
		case <-killed:
			return "killed", deploymentReplicas(ctx, kube, ns, name) == 0
		default:
			return fmt.Sprintf("replicas %d", deploymentReplicas(ctx, kube, ns, name)), false
		}
	})
	first.stop()

	fake.SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{30000}})
	second := startGuarded(ctx, t, cluster, kube, ns, fake, &guardedScales{})
	second.until(t, "the restarted controller brings the Deployment back to 3", atReplicas(ctx, kube, ns, name, 3))
}

// TestPersonsZeroStaysAPauseWhileStatusWritesFail: a person's kubectl
// scale to zero, while every status write of the controller fails, is a
// pause the HPA never undoes, whatever the metric asks.
func TestPersonsZeroStaysAPauseWhileStatusWritesFail(t *testing.T) {
	for _, tc := range statusFaultCases {
		t.Run(tc.name, func(t *testing.T) {
			cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
			const name = "paused"
			createWorkload(ctx, t, kube, ns, name, 2)
			faults := &statusFaults{}
			fake := metricstest.NewClient().SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{20000}})
			env := startGuardedThrough(ctx, t, cluster, kube, ns, fake, &guardedScales{}, faults.wrap)
			if _, err := hpas.Create(ctx, zeroHPA(ns, name, 0)); err != nil {
				t.Fatal(err)
			}
			env.until(t, "the HPA holds the Deployment at 2", statusCurrent(ctx, hpas, ns, name, 2))

			faults.fail(tc.answer())
			scaleByHand(ctx, t, kube, ns, name, 0)
			fake.SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{50000}})
			// Passes over the pause write status, and fail: wait for three.
			start := faults.failures()
			env.until(t, "three passes over the person's zero", func() (string, bool) {
				n := faults.failures() - start
				return fmt.Sprintf("%d failed status writes, replicas %d", n, deploymentReplicas(ctx, kube, ns, name)), n >= 3
			})
			if got := deploymentReplicas(ctx, kube, ns, name); got != 0 {
				t.Errorf("replicas = %d after the person's zero, want 0 (a pause)", got)
			}
		})
	}
}

// statusCurrent waits until the HPA's status says current replicas.
func statusCurrent(ctx context.Context, hpas *hpaclient.Client, ns, name string, replicas int32) func() (string, bool) {
	return func() (string, bool) {
		hpa, err := hpas.Get(ctx, ns, name)
		if err != nil {
			return err.Error(), false
		}
		active := findCondition(hpa, autoscalingv2.ScalingActive)
		return fmt.Sprintf("current %d, ScalingActive %+v", hpa.Status.CurrentReplicas, active), hpa.Status.CurrentReplicas == replicas
	}
}
