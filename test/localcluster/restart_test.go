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

package localcluster

import (
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
)

// startedClusterForTest starts a one-node cluster of opts when
// KUBE_HPA_INTEGRATION=1 (make integration sets it) and the binaries are
// there, and skips otherwise: unit tests start nothing.
func startedClusterForTest(t *testing.T, opts Options) *Cluster {
	t.Helper()
	if os.Getenv("KUBE_HPA_INTEGRATION") != "1" {
		t.Skip("starts a local cluster: set KUBE_HPA_INTEGRATION=1")
	}
	missing, err := MissingBinariesOf(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Skipf("missing %s", strings.Join(missing, ", "))
	}
	opts.Nodes, opts.NoCRDs = 1, true
	return StartForTest(t, opts)
}

func TestRestartControllerManager(t *testing.T) {
	c := startedClusterForTest(t, Options{HPA: HPAControllerFlags{SyncPeriod: 5 * time.Second}})
	_, ctx := ktesting.NewTestContext(t)
	before, err := c.Component(binControllerManager)
	if err != nil {
		t.Fatal(err)
	}
	if before.Starts != 1 {
		t.Errorf("starts before a restart: %d, want 1", before.Starts)
	}
	after, err := c.RestartControllerManager(ctx)
	if err != nil {
		t.Fatalf("restart: %v (logs in %s)", err, c.LogDir())
	}
	if after.PID == before.PID || after.Starts != 2 || !after.StartedAt.After(before.StartedAt) {
		t.Errorf("after the restart %+v, before %+v: want a new process, started later, the second", after, before)
	}
	log, err := os.ReadFile(c.LogPath(binControllerManager))
	if err != nil {
		t.Fatal(err)
	}
	// Both command lines, the same flags, in the one log.
	var commands []string
	for _, line := range strings.Split(string(log), "\n") {
		if strings.HasPrefix(line, "# ") {
			commands = append(commands, line)
		}
	}
	if len(commands) != 2 || commands[0] != commands[1] {
		t.Errorf("command lines in the log: %q, want the same one twice", commands)
	}
	if !strings.Contains(commands[0], "--horizontal-pod-autoscaler-sync-period=5s") {
		t.Errorf("command line %q lacks the HPA flags", commands[0])
	}
	// A namespace gets its default ServiceAccount from the new process.
	if err := c.CreateNamespace(ctx, "after-restart"); err != nil {
		t.Errorf("kube-controller-manager does not work after its restart: %v", err)
	}
}

// TestInTreeControlPlane starts the in-tree kube-apiserver and
// kube-controller-manager of make intree with the HPA controller and the
// fallback gate: upstream's own controller, patched, reconciles a native HPA,
// reports on /metrics under upstream's names and labels, and records the
// failure of an External metric with a fallback in the native status.
func TestInTreeControlPlane(t *testing.T) {
	c := startedClusterForTest(t, Options{
		InTree:        true,
		HPAController: true,
		FeatureGates:  map[string]bool{"HPAExternalMetricFallback": true},
		HPA:           HPAControllerFlags{SyncPeriod: time.Second},
	})
	_, ctx := ktesting.NewTestContext(t)
	for _, component := range []string{binAPIServer, binControllerManager} {
		log, err := os.ReadFile(c.LogPath(component))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(log), "\n")
		if !strings.Contains(first, "/intree/"+component+" ") || !strings.Contains(first, "HPAExternalMetricFallback=true") {
			t.Errorf("%s started as %q", component, first)
		}
	}
	out, err := c.Kubectl("explain", "hpa.spec.metrics.external.fallback", "--api-version=autoscaling/v2")
	if err != nil {
		t.Fatalf("the in-tree kube-apiserver does not serve the fallback field: %v\n%s", err, out)
	}
	// A Deployment below its HPA's minReplicas is scaled to it without
	// metrics, which puts a desired-replicas series on /metrics; upstream's
	// carries no hpa_api_version label (kube-hpa's does), so the page shows
	// which controller runs.
	applyFailingFallbackHPA(t, c)
	want := []string{
		`horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers 1`,
		`horizontal_pod_autoscaler_controller_desired_replicas{hpa_name="web",namespace="default"} 2`,
		`horizontal_pod_autoscaler_controller_reconciliations_total{action="scale_up",error="none"} 1`,
		`workqueue_adds_total{name="horizontalpodautoscaler"}`,
	}
	var page string
	deadline := time.Now().Add(time.Minute)
	for {
		page, err = c.ControllerManagerMetrics(ctx)
		missing := 0
		for _, w := range want {
			if !strings.Contains(page, w) {
				missing++
			}
		}
		if err == nil && missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-controller-manager's /metrics lacks some of %q (err %v); HPA lines:\n%s", want, err, hpaLines(page))
		}
		time.Sleep(500 * time.Millisecond)
	}
	if strings.Contains(page, "hpa_api_version") {
		t.Errorf("kube-controller-manager's /metrics has kube-hpa's hpa_api_version label; HPA lines:\n%s", hpaLines(page))
	}
	waitForFallbackState(t, c)
}

// applyFailingFallbackHPA applies a Deployment below the minReplicas of
// its native HPA, whose External metric has a fallback. No external
// metrics API is served, so after the scale to minReplicas every
// reconciliation fails to fetch the metric: a run of failures.
func applyFailingFallbackHPA(t *testing.T, c *Cluster) {
	t.Helper()
	manifests := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: registry.k8s.io/pause:3.10}]}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 3
  metrics:
  - type: External
    external:
      metric: {name: queue}
      target: {type: Value, value: "10"}
      fallback: {replicas: 2}
`
	if out, err := c.KubectlWithInput(manifests, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
}

// waitForFallbackState waits for the failing metric's fallback state in
// the native status that kube-controller-manager wrote.
func waitForFallbackState(t *testing.T, c *Cluster) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := c.Kubectl("get", "hpa", "web", "-o", `jsonpath={.status.currentMetrics[0].external.metric.name} {.status.currentMetrics[0].external.fallbackStatus} {.status.currentMetrics[0].external.firstFailureTime}`)
		fields := strings.Fields(out)
		if err == nil && len(fields) == 3 && fields[0] == "queue" && fields[1] == "Normal" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failing External metric has no fallback state in status: %q (err %v)", out, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// hpaLines keeps the lines of a metrics page about the HPA controller.
func hpaLines(page string) string {
	var kept []string
	for _, line := range strings.Split(page, "\n") {
		if strings.Contains(line, "horizontal") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}
