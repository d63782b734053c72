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
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2/ktesting"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

func TestMetricsServerFlagsNameTheLayout(t *testing.T) {
	l := layout{kubeconfig: "/run/kubeconfig", caCert: "/run/ca.crt", metricsServerPort: 4443,
		metricsServerCert: "/run/ms.crt", metricsServerKey: "/run/ms.key"}
	got := metricsServerFlags(l)
	for _, want := range []string{"--secure-port=4443", "--tls-cert-file=/run/ms.crt", "--kubelet-certificate-authority=/run/ca.crt",
		"--kubelet-use-node-status-port", "--metric-resolution=10s"} {
		if !slices.Contains(got, want) {
			t.Errorf("metrics-server flags %q lack %q", got, want)
		}
	}
	node := fakeNode("kwok-node-7")
	if p := node.Annotations[resourceMetricsPathAnnotation]; p != "/metrics/nodes/kwok-node-7/metrics/resource" {
		t.Errorf("node's resource metrics path = %q, want kwok's path of that node", p)
	}
}

// TestMetricsServerScrapesKwokUsage runs the resource metrics pipeline of
// Options.MetricsServer: a pod's usage annotations reach metrics.k8s.io
// through kwok's emulated kubelet and the real metrics-server, one
// container's annotation overrides the pod's for that container, a change
// of usage follows, and a killed metrics-server comes back.
func TestMetricsServerScrapesKwokUsage(t *testing.T) {
	if os.Getenv("KUBE_HPA_INTEGRATION") != "1" {
		t.Skip("runs a local cluster: set KUBE_HPA_INTEGRATION=1")
	}
	c := StartForTest(t, Options{MetricsServer: true, NoCRDs: true, Nodes: 1})
	_, ctx := ktesting.NewTestContext(t)
	metrics, err := metricsclient.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{
			UsageCPUAnnotation:              "250m",
			UsageMemoryAnnotation:           "64Mi",
			"kube-hpa.io/usage-cpu-sidecar": "40m",
		}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Image: "registry.k8s.io/pause:3.10"},
			{Name: "sidecar", Image: "registry.k8s.io/pause:3.10"},
		}},
	}
	if _, err := c.client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]usage{"app": {cpu: 250, memory: 64 << 20}, "sidecar": {cpu: 40, memory: 64 << 20}}
	waitForUsage(ctx, t, metrics, "web", want)

	if _, err := c.client.CoreV1().Pods("default").Patch(ctx, "web", "application/merge-patch+json",
		[]byte(`{"metadata":{"annotations":{"kwok.x-k8s.io/usage-cpu":"600m"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	want["app"] = usage{cpu: 600, memory: 64 << 20}
	waitForUsage(ctx, t, metrics, "web", want)

	if err := c.KillMetricsServer(); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.MetricsV1beta1().PodMetricses("default").Get(ctx, "web", metav1.GetOptions{}); err == nil {
		t.Error("a killed metrics-server still answered")
	}
	if _, err := c.RestartMetricsServer(ctx); err != nil {
		t.Fatal(err)
	}
	waitForUsage(ctx, t, metrics, "web", want)
}

// usage is a container's CPU in millicores and memory in bytes.
type usage struct{ cpu, memory int64 }

// waitForUsage waits until metrics.k8s.io reports want for pod's
// containers: memory exactly, CPU within 10% (a rate over two scrapes of
// a cumulative counter).
func waitForUsage(ctx context.Context, t *testing.T, metrics metricsclient.Interface, pod string, want map[string]usage) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		m, err := metrics.MetricsV1beta1().PodMetricses("default").Get(ctx, pod, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		got := map[string]usage{}
		for _, c := range m.Containers {
			got[c.Name] = usage{cpu: c.Usage.Cpu().MilliValue(), memory: c.Usage.Memory().Value()}
		}
		last = fmt.Sprint(got)
		for name, w := range want {
			g, ok := got[name]
			if !ok || g.memory != w.memory || !within(g.cpu, w.cpu, 0.1) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("metrics.k8s.io for pod %s: want %v, last seen %s: %v", pod, want, last, err)
	}
}

func within(got, want int64, share float64) bool {
	d := float64(got - want)
	return d <= share*float64(want) && -d <= share*float64(want)
}
