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
	"fmt"
	"math"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
	"k8s.io/utils/ptr"
)

// unscrapedTaint keeps the scheduler off a node that no kubelet runs.
const unscrapedTaint = "e2e.kube-hpa.io/unscraped"

// CreatePodWithoutMetrics adds to Deployment name's selector a running
// pod that metrics-server never reports: it is bound to a node of its own
// that neither kwok nor any kubelet serves (so no /metrics/resource to
// scrape), and the spec plays its kubelet by writing its status. Upstream
// counts such a pod as missing, not as unready. It needs the local
// environment, whose nodes are the spec's to add.
func (f *Framework) CreatePodWithoutMetrics(ctx context.Context, name string) string {
	ginkgo.GinkgoHelper()
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "unscraped-" + f.Namespace},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{
			{Key: unscrapedTaint, Effect: corev1.TaintEffectNoSchedule},
		}},
	}
	_, err := f.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating node %s", node.Name)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		err := f.Kube.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "deleting node %s", node.Name)
		}
	})

	template := pausePodTemplate(map[string]string{"app": name})
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-unscraped", Namespace: f.Namespace, Labels: template.Labels},
		Spec:       template.Spec,
	}
	pod.Spec.NodeName = node.Name
	// The node never reports Ready: without these, the taint manager
	// would evict the pod once the node is marked unreachable.
	pod.Spec.Tolerations = []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	}
	pod, err = f.Kube.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating pod %s", pod.Name)
	// No kubelet confirms a graceful deletion on that node: delete it at
	// once, before the node (cleanups run last registered first).
	ginkgo.DeferCleanup(func(ctx context.Context) {
		err := f.Kube.CoreV1().Pods(f.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		if !apierrors.IsNotFound(err) {
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "deleting pod %s", pod.Name)
		}
	})

	now := metav1.Now()
	pod.Status = corev1.PodStatus{
		Phase:     corev1.PodRunning,
		StartTime: &now,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "pause", Image: PauseImage, Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		}},
	}
	_, err = f.Kube.CoreV1().Pods(f.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "making pod %s run", pod.Name)
	return pod.Name
}

// WaitForPodCPU waits until metrics-server reports each pod of Deployment
// name (selected by app=name) using cpu: a spec that reads exact
// proportions must not start before metrics-server has rated the usage it
// set (two scrapes after the change), nor on a pod kwok has not yet
// counted (its first scrape of a container reads nothing).
func (f *Framework) WaitForPodCPU(ctx context.Context, name, cpu string, pods int, timeout time.Duration) {
	ginkgo.GinkgoHelper()
	want := resource.MustParse(cpu)
	client, err := metricsclient.NewForConfig(f.RESTConfig)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	selector := labels.SelectorFromSet(labels.Set{"app": name}).String()
	gomega.Eventually(ctx, func(ctx context.Context) error {
		list, err := client.MetricsV1beta1().PodMetricses(f.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return err
		}
		if len(list.Items) != pods {
			return fmt.Errorf("metrics of %d pods, want %d", len(list.Items), pods)
		}
		// Within a tenth, or a tenth of a millicore of nothing: rates
		// come in nanocores, which MilliValue would round up.
		margin := max(want.AsApproximateFloat64()/10, 1e-4)
		for _, p := range list.Items {
			var used float64
			for _, c := range p.Containers {
				used += c.Usage.Cpu().AsApproximateFloat64()
			}
			if math.Abs(used-want.AsApproximateFloat64()) > margin {
				return fmt.Errorf("pod %s uses %.4f cores, want %s", p.Name, used, cpu)
			}
		}
		return nil
	}).WithTimeout(timeout).WithPolling(time.Second).Should(gomega.Succeed(), "the CPU of Deployment %s's pods", name)
}
