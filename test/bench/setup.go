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

package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// createParallelism is how many create calls are in flight at once:
// enough to keep kube-apiserver busy on two cores without queueing
// thousands of requests.
const createParallelism = 16

// createWorkload creates the adapter's ConfigMap, the workload's
// namespaces other than Namespace (which exists already), then every
// Deployment and HPA of the workload.
func createWorkload(ctx context.Context, kube kubernetes.Interface, o Options) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: metricsConfigMap, Namespace: Namespace},
		Data:       metricsData(o),
	}
	if _, err := kube.CoreV1().ConfigMaps(Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the metrics ConfigMap: %w", err)
	}
	for _, ns := range o.namespaces() {
		if ns == Namespace {
			continue
		}
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(createParallelism)
	for i := range o.HPAs {
		g.Go(func() error {
			if _, err := kube.AppsV1().Deployments(o.namespaceOf(i)).Create(ctx, deployment(i, o), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating Deployment %s: %w", workloadName(i), err)
			}
			if _, err := kube.AutoscalingV2().HorizontalPodAutoscalers(o.namespaceOf(i)).Create(ctx, hpa(i, o), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating HPA %s: %w", workloadName(i), err)
			}
			return nil
		})
	}
	return g.Wait()
}

// checkPodCapacity fails when the cluster's nodes cannot hold the pods a
// workload needs.
// test/localcluster creates its kwok nodes without a status, and kwok's
// node stage gives such a node an allocatable of a million pods, so its
// three nodes hold every workload here (50,000 pods for 10,000 HPAs of
// five); were that to change, a workload too large would show only as a
// wait for its Deployments that never ends.
func checkPodCapacity(ctx context.Context, kube kubernetes.Interface, pods int) error {
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing the nodes: %w", err)
	}
	var allocatable int64
	for _, n := range nodes.Items {
		if q, ok := n.Status.Allocatable[corev1.ResourcePods]; ok {
			allocatable += q.Value()
		}
	}
	if allocatable < int64(pods) {
		return fmt.Errorf("the cluster's %d nodes allocate %d pods, the workload needs %d", len(nodes.Items), allocatable, pods)
	}
	return nil
}

// waitSettled waits until every Deployment has exactly its
// Options.PodsPerHPA replicas, ready: the state both controllers start
// from.
func waitSettled(ctx context.Context, kube kubernetes.Interface, o Options, timeout time.Duration) error {
	logger := klog.FromContext(ctx)
	var last int
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := kube.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		ours := o.namespaces()
		last = 0
		for i := range list.Items {
			if slices.Contains(ours, list.Items[i].Namespace) && settledAt(&list.Items[i], int32(o.podsPerHPA())) {
				last++
			}
		}
		logger.V(1).Info("Waiting for the Deployments to settle", "settled", last, "of", o.HPAs, "replicas", o.podsPerHPA())
		return last == o.HPAs, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %d Deployments to have %d ready replicas (%d do): %w", o.HPAs, o.podsPerHPA(), last, err)
	}
	return nil
}

// settledAt says whether d has exactly n replicas, all ready and updated.
func settledAt(d *appsv1.Deployment, n int32) bool {
	return d.Spec.Replicas != nil && *d.Spec.Replicas == n && d.Status.ObservedGeneration == d.Generation &&
		d.Status.Replicas == n && d.Status.ReadyReplicas == n && d.Status.UpdatedReplicas == n
}

// settleTimeout bounds the wait for a new workload to settle: ten
// minutes, or 80 ms per pod where that is longer (67 minutes for 50,000
// pods). Two cores create, schedule and start about 50 pods a second, the
// Deployments and HPAs among them, fewer while something else runs on the
// machine.
func (o Options) settleTimeout() time.Duration {
	return max(10*time.Minute, time.Duration(o.workloadPods())*80*time.Millisecond)
}

// resetLatencyWorkload undoes the latency phase once its controller has
// stopped: the metric back to steady and the Deployments back to their
// steady replicas, so the next controller starts where the previous one
// did.
func resetLatencyWorkload(ctx context.Context, kube kubernetes.Interface, o Options) error {
	if err := setLatencyLoad(ctx, kube, o, false, o.allTrials()...); err != nil {
		return fmt.Errorf("resetting the latency metrics: %w", err)
	}
	for i := range o.LatencyHPAs {
		scale := &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: workloadName(i), Namespace: o.namespaceOf(i)},
			Spec:       autoscalingv1.ScaleSpec{Replicas: int32(o.podsPerHPA())},
		}
		if _, err := kube.AppsV1().Deployments(scale.Namespace).UpdateScale(ctx, scale.Name, scale, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("scaling %s back to %d: %w", scale.Name, scale.Spec.Replicas, err)
		}
	}
	return waitSettled(ctx, kube, o, 2*time.Minute)
}
