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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	xhpav2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

func TestDeploymentGetsReadyPodsOnKwokNodes(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	client := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	ns := createNamespace(ctx, t, cluster)

	labels := map[string]string{"app": "web"}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:  "web",
					Image: "registry.k8s.io/pause:3.10", // never pulled: kwok plays the kubelet
				}}},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the Deployment: %v", err)
	}

	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Status.ReadyReplicas == 2, nil
	})
	if err != nil {
		t.Fatalf("waiting for 2 ready replicas: %v\n%s", err, describe(cluster, ns))
	}

	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Fatalf("want 2 pods, got %d", len(pods.Items))
	}
	for _, pod := range pods.Items {
		if pod.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s is %s, want Running", pod.Name, pod.Status.Phase)
		}
		if !podReady(&pod) {
			t.Errorf("pod %s is not Ready", pod.Name)
		}
		if !slices.Contains(cluster.NodeNames(), pod.Spec.NodeName) {
			t.Errorf("pod %s runs on %q, not on a kwok node %v", pod.Name, pod.Spec.NodeName, cluster.NodeNames())
		}
	}
}

// extendedHPA is a native autoscaling/v2 manifest with the apiVersion
// changed and a KEP-5679 fallback on its External metric.
const extendedHPA = `apiVersion: autoscaling.kube-hpa.io/v2
kind: HorizontalPodAutoscaler
metadata:
  name: queue-worker
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: queue-worker
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: External
    external:
      metric:
        name: queue_depth
        selector:
          matchLabels:
            queue: orders
      target:
        type: AverageValue
        averageValue: "30"
      fallback:
        failureDurationSeconds: 180
        replicas: 3
`

func TestKubectlApplyExtendedHPAKeepsFallback(t *testing.T) {
	cluster := sharedCluster(t)
	_, ctx := ktesting.NewTestContext(t)
	ns := createNamespace(ctx, t, cluster)

	if out, err := cluster.KubectlWithInput(extendedHPA, "apply", "-n", ns, "-f", "-"); err != nil {
		t.Fatalf("kubectl apply of an extended HPA: %v\n%s", err, out)
	}

	t.Run("read back with the fallback intact", func(t *testing.T) {
		dyn := dynamic.NewForConfigOrDie(cluster.RESTConfig())
		obj, err := dyn.Resource(xhpav2.GroupVersionResource()).Namespace(ns).Get(ctx, "queue-worker", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var hpa xhpav2.HorizontalPodAutoscaler
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &hpa); err != nil {
			t.Fatalf("decoding the stored HPA: %v", err)
		}
		if len(hpa.Spec.Metrics) != 1 || hpa.Spec.Metrics[0].External == nil {
			t.Fatalf("want one External metric, got %+v", hpa.Spec.Metrics)
		}
		fallback := hpa.Spec.Metrics[0].External.Fallback
		if fallback == nil {
			t.Fatal("the fallback was dropped")
		}
		if got := ptr.Deref(fallback.FailureDurationSeconds, 0); got != 180 {
			t.Errorf("failureDurationSeconds = %d, want 180", got)
		}
		if fallback.Replicas != 3 {
			t.Errorf("replicas = %d, want 3", fallback.Replicas)
		}
	})

	t.Run("kubectl get xhpa", func(t *testing.T) {
		out, err := cluster.Kubectl("get", "xhpa", "-n", ns)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "queue-worker") {
			t.Errorf("kubectl get xhpa does not list queue-worker:\n%s", out)
		}
		jsonPath := `-o=jsonpath={.spec.metrics[0].external.fallback.replicas}`
		out, err = cluster.Kubectl("get", "xhpa", "queue-worker", "-n", ns, jsonPath)
		if err != nil {
			t.Fatal(err)
		}
		if out != "3" {
			t.Errorf("kubectl reads fallback replicas %q, want 3", out)
		}
	})
}

// TestStopLeavesNoProcess starts a second, smaller cluster beside the
// shared one (which also shows that two clusters share a machine) and
// checks that Stop ends every process of it.
func TestStopLeavesNoProcess(t *testing.T) {
	sharedCluster(t) // skips like the others when the binaries are missing
	_, ctx := ktesting.NewTestContext(t)
	// Build exercises the path `make run` takes; a no-op here, as `make
	// integration` has just built everything.
	cluster, err := localcluster.Start(ctx, localcluster.Options{Nodes: 1, NoCRDs: true, Build: true})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cluster.Stop()
		}
	})
	running, err := cluster.LeftoverProcesses()
	if err != nil {
		t.Fatal(err)
	}
	// etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok.
	if len(running) < 5 {
		t.Fatalf("want at least 5 processes while running, found %d:\n%s", len(running), strings.Join(running, "\n"))
	}

	if err := cluster.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	stopped = true
	if err := cluster.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	leftovers, err := cluster.LeftoverProcesses()
	if err != nil {
		t.Fatal(err)
	}
	if len(leftovers) > 0 {
		t.Errorf("processes left after Stop:\n%s", strings.Join(leftovers, "\n"))
	}
}

// createNamespace gives a test a namespace of its own, ready for pods.
func createNamespace(ctx context.Context, t *testing.T, cluster *localcluster.Cluster) string {
	t.Helper()
	// A subtest's name may hold any character; a namespace's only these.
	label := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(t.Name()))
	name := fmt.Sprintf("%.40s-%d", label, time.Now().UnixNano()%100000)
	if err := cluster.CreateNamespace(ctx, name); err != nil {
		t.Fatal(err)
	}
	return name
}

func podReady(pod *corev1.Pod) bool {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// describe is what a failing test prints to tell why pods are not there.
func describe(cluster *localcluster.Cluster, ns string) string {
	out, err := cluster.Kubectl("get", "deployments,replicasets,pods,events", "-n", ns, "-o", "wide")
	if err != nil {
		return err.Error()
	}
	return out
}
