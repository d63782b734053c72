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
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"
	custommetricsv1beta2 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	externalmetricsv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"

	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The metrics APIs the test metrics adapter serves.
const (
	externalGroup   = "external.metrics.k8s.io"
	externalVersion = "v1beta1"
	customGroup     = "custom.metrics.k8s.io"
	customVersion   = "v1beta2"
)

// TestMetricsAdapterThroughTheAggregator runs the test metrics adapter
// (test/metrics-adapter) behind kube-apiserver, drives it with kubectl patch
// of its ConfigMap as its README says, and reads every answer and fault
// back through the aggregator.
func TestMetricsAdapterThroughTheAggregator(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	ns := createNamespace(ctx, t, cluster)
	adapter := startMetricsAdapter(ctx, t, cluster, ns)
	registerMetricsAPIs(ctx, t, cluster, adapter.port)

	if out, err := cluster.Kubectl("-n", ns, "create", "configmap", "test-metrics"); err != nil {
		t.Fatalf("creating the ConfigMap: %v\n%s", err, out)
	}
	setMetrics := func(t *testing.T, data map[string]any) {
		t.Helper()
		patch, err := json.Marshal(map[string]any{"data": data})
		if err != nil {
			t.Fatal(err)
		}
		if out, err := cluster.Kubectl("-n", ns, "patch", "configmap", "test-metrics", "--type=merge", "-p", string(patch)); err != nil {
			t.Fatalf("kubectl patch: %v\n%s", err, out)
		}
	}
	queueDepth := "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns + "/queue_depth"
	ordersOnly := queueDepth + "?labelSelector=queue%3Dorders"

	t.Run("external value with a selector", func(t *testing.T) {
		setMetrics(t, map[string]any{"external.queue_depth": `series:
- {value: "30", labels: {queue: orders}}
- {value: "5", labels: {queue: payments}}`})
		eventually(t, "queue_depth of the orders queue is 30", func() (string, bool) {
			var list externalmetricsv1beta1.ExternalMetricValueList
			out, err := getRaw(cluster, ordersOnly, &list)
			if err != nil {
				return out, false
			}
			return out, len(list.Items) == 1 && list.Items[0].Value.String() == "30" &&
				list.Items[0].MetricLabels["queue"] == "orders"
		})
	})

	t.Run("error fault", func(t *testing.T) {
		setMetrics(t, map[string]any{"external.queue_depth": `{value: "30", fault: error, errorCode: 503}`})
		eventually(t, "queue_depth answers 503", func() (string, bool) {
			out, err := getRaw(cluster, ordersOnly, nil)
			return fmt.Sprint(out, err), err != nil && strings.Contains(err.Error(), "ServiceUnavailable")
		})
	})

	t.Run("empty fault", func(t *testing.T) {
		setMetrics(t, map[string]any{"external.queue_depth": `{value: "30", fault: empty}`})
		eventually(t, "queue_depth answers an empty list", func() (string, bool) {
			var list externalmetricsv1beta1.ExternalMetricValueList
			out, err := getRaw(cluster, ordersOnly, &list)
			return out, err == nil && len(list.Items) == 0
		})
	})

	t.Run("hang fault", func(t *testing.T) {
		setMetrics(t, map[string]any{"external.queue_depth": "hang"})
		eventually(t, "queue_depth hangs until the client gives up", func() (string, bool) {
			start := time.Now()
			out, err := cluster.Kubectl("--request-timeout=2s", "get", "--raw", ordersOnly)
			return fmt.Sprintf("%s %v after %v", out, err, time.Since(start)),
				err != nil && time.Since(start) >= 2*time.Second
		})
		// The held requests end with their clients; the adapter still answers.
		setMetrics(t, map[string]any{"external.queue_depth": `[{value: "12", labels: {queue: orders}}]`})
		eventually(t, "queue_depth answers again after the hang", func() (string, bool) {
			var list externalmetricsv1beta1.ExternalMetricValueList
			out, err := getRaw(cluster, ordersOnly, &list)
			return out, err == nil && len(list.Items) == 1 && list.Items[0].Value.String() == "12"
		})
	})

	t.Run("unknown external metric is NotFound", func(t *testing.T) {
		path := "/apis/external.metrics.k8s.io/v1beta1/namespaces/" + ns + "/no_such_metric"
		out, err := getRaw(cluster, path, nil)
		if err == nil || !strings.Contains(err.Error(), "NotFound") {
			t.Errorf("got %v (%s), want NotFound", err, out)
		}
	})

	t.Run("custom metric of an object", func(t *testing.T) {
		setMetrics(t, map[string]any{"custom.object.Deployment.web.queue_length": "42"})
		path := "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/deployments.apps/web/queue_length"
		eventually(t, "queue_length of deployment web is 42", func() (string, bool) {
			var list custommetricsv1beta2.MetricValueList
			out, err := getRaw(cluster, path, &list)
			return out, err == nil && len(list.Items) == 1 && list.Items[0].Value.String() == "42" &&
				list.Items[0].DescribedObject.Kind == "Deployment"
		})

		setMetrics(t, map[string]any{"fault.custom": "error"})
		eventually(t, "fault.custom fails queue_length", func() (string, bool) {
			out, err := getRaw(cluster, path, nil)
			return fmt.Sprint(out, err), err != nil && strings.Contains(err.Error(), "InternalError")
		})
		setMetrics(t, map[string]any{"fault.custom": nil})
	})

	t.Run("custom metric of the pods a selector picks", func(t *testing.T) {
		client := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
		for _, name := range []string{"web-1", "web-2", "db-1"} {
			app := strings.Split(name, "-")[0]
			createBarePod(ctx, t, client, ns, name, map[string]string{"app": app})
		}
		setMetrics(t, map[string]any{"custom.pods.rps": `{value: "10", pods: {web-2: "25"}}`})
		path := "/apis/custom.metrics.k8s.io/v1beta2/namespaces/" + ns + "/pods/*/rps?labelSelector=app%3Dweb"
		eventually(t, "rps of web-1 is 10 and of web-2 is 25", func() (string, bool) {
			var list custommetricsv1beta2.MetricValueList
			out, err := getRaw(cluster, path, &list)
			if err != nil {
				return out, false
			}
			got := map[string]string{}
			for _, item := range list.Items {
				got[item.DescribedObject.Name] = item.Value.String()
			}
			return out, len(got) == 2 && got["web-1"] == "10" && got["web-2"] == "25"
		})
	})

	t.Run("fetch counters", func(t *testing.T) {
		var body struct {
			Fetches []struct {
				API, Metric, Result string
				Count               int
			} `json:"fetches"`
		}
		if err := json.Unmarshal([]byte(adapter.get(t, "/debug/fetches")), &body); err != nil {
			t.Fatal(err)
		}
		results := map[string]int{}
		for _, f := range body.Fetches {
			if f.API == "external" && f.Metric == "queue_depth" {
				results[f.Result] += f.Count
			}
		}
		for _, want := range []string{"ok", "error", "empty", "timeout"} {
			if results[want] == 0 {
				t.Errorf("no %s fetch of queue_depth counted: %+v", want, body.Fetches)
			}
		}
		if metrics := adapter.get(t, "/metrics"); !strings.Contains(metrics, `test_metrics_adapter_fetches_total{api="external",metric="queue_depth",result="ok"}`) {
			t.Errorf("/metrics lacks the fetch counter of queue_depth")
		}
	})
}

// runningAdapter is a metrics adapter process started by a test.
type runningAdapter struct {
	port   int
	client *http.Client
}

// get reads path from the adapter itself (not through the aggregator).
func (a *runningAdapter) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := a.client.Get(fmt.Sprintf("https://localhost:%d%s", a.port, path))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v\n%s", path, resp.Status, err, body)
	}
	return string(body)
}

// startMetricsAdapter builds the adapter when its sources changed (a second
// when they did not), starts it on a free loopback port with a serving
// certificate of the cluster CA, watching ConfigMap test-metrics of ns, and
// stops it when the test ends.
func startMetricsAdapter(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, ns string) *runningAdapter {
	t.Helper()
	bin := buildMetricsAdapter(t)
	port := freeLoopbackPort(t)
	certPEM, keyPEM, err := cluster.IssueServingCert(
		localcluster.APIServiceServerName(externalGroup, externalVersion),
		localcluster.APIServiceServerName(customGroup, customVersion),
		"localhost", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for file, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(cluster.LogDir(), "metrics-adapter-"+ns+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"--kubeconfig="+cluster.Kubeconfig(),
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--tls-cert-file="+certFile,
		"--tls-private-key-file="+keyFile,
		"--configmap-namespace="+ns,
		"--configmap-name=test-metrics",
		"--v=2")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	stop := startWithParentDeathSignal(t, cmd)
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		stop()
	})

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cluster.CABundle())
	a := &runningAdapter{port: port, client: &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}},
	}}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		select {
		case <-exited:
			return false, fmt.Errorf("the adapter exited")
		default:
		}
		resp, err := a.client.Get(fmt.Sprintf("https://localhost:%d/readyz", port))
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		log, _ := os.ReadFile(logPath)
		t.Fatalf("waiting for the metrics adapter to be ready: %v\n%s", err, log)
	}
	return a
}

// buildMetricsAdapter runs hack/build-upstream.sh metrics-adapter, so that
// the test never runs a binary older than the adapter's sources.
func buildMetricsAdapter(t *testing.T) string {
	t.Helper()
	root, err := localcluster.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command(filepath.Join(root, "hack", "build-upstream.sh"), "metrics-adapter")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the metrics adapter: %v\n%s", err, out)
	}
	return filepath.Join(root, "_output", "bin", "metrics-adapter")
}

// registerMetricsAPIs makes kube-apiserver proxy both metrics APIs to the
// adapter on port, and removes them when the test ends: while an APIService
// is unavailable, no namespace of the shared cluster can be deleted.
func registerMetricsAPIs(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, port int) {
	t.Helper()
	for _, gv := range [][2]string{{externalGroup, externalVersion}, {customGroup, customVersion}} {
		if err := cluster.RegisterAPIService(ctx, gv[0], gv[1], port, cluster.CABundle()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cluster.UnregisterAPIService(context.WithoutCancel(ctx), gv[0], gv[1]); err != nil {
				t.Errorf("unregistering %s/%s: %v", gv[0], gv[1], err)
			}
		})
	}
	for _, gv := range [][2]string{{externalGroup, externalVersion}, {customGroup, customVersion}} {
		if err := cluster.WaitAPIServiceAvailable(ctx, gv[0], gv[1]); err != nil {
			t.Fatal(err)
		}
	}
}

// getRaw reads path through kube-apiserver with kubectl get --raw and,
// when into is not nil, decodes the answer into it.
func getRaw(cluster *localcluster.Cluster, path string, into any) (string, error) {
	out, err := cluster.Kubectl("--request-timeout=10s", "get", "--raw", path)
	if err != nil || into == nil {
		return out, err
	}
	return out, json.Unmarshal([]byte(out), into)
}

// eventually retries check for up to 30 seconds: the adapter sees a
// ConfigMap change through its informer, a moment after kubectl patch.
func eventually(t *testing.T, what string, check func() (last string, ok bool)) {
	t.Helper()
	var last string
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		if last, ok = check(); ok {
			t.Logf("%s: %.300s", what, strings.TrimSpace(last))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting until %s; last answer:\n%s", what, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func createBarePod(ctx context.Context, t *testing.T, client kubernetes.Interface, ns, name string, labels map[string]string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "main",
			Image: "registry.k8s.io/pause:3.10", // never pulled: kwok plays the kubelet
		}}},
	}
	if _, err := client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// freeLoopbackPort returns a port that was free on 127.0.0.1 a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
