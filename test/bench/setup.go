package bench

import (
	"context"
	"fmt"
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

// createWorkload creates the adapter's ConfigMap, then every Deployment
// and HPA of the workload (the namespace exists already).
func createWorkload(ctx context.Context, kube kubernetes.Interface, o Options) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: metricsConfigMap, Namespace: Namespace},
		Data:       metricsData(o),
	}
	if _, err := kube.CoreV1().ConfigMaps(Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the metrics ConfigMap: %w", err)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(createParallelism)
	for i := range o.HPAs {
		g.Go(func() error {
			if _, err := kube.AppsV1().Deployments(Namespace).Create(ctx, deployment(i), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating Deployment %s: %w", workloadName(i), err)
			}
			if _, err := kube.AutoscalingV2().HorizontalPodAutoscalers(Namespace).Create(ctx, hpa(i, o), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating HPA %s: %w", workloadName(i), err)
			}
			return nil
		})
	}
	return g.Wait()
}

// waitSettled waits until every Deployment has exactly one replica, ready:
// the state both controllers start from.
func waitSettled(ctx context.Context, kube kubernetes.Interface, o Options, timeout time.Duration) error {
	logger := klog.FromContext(ctx)
	var last int
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := kube.AppsV1().Deployments(Namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		last = 0
		for i := range list.Items {
			if settled(&list.Items[i]) {
				last++
			}
		}
		logger.V(1).Info("Waiting for the Deployments to settle", "settled", last, "of", o.HPAs)
		return last == o.HPAs, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %d Deployments to have one ready replica (%d do): %w", o.HPAs, last, err)
	}
	return nil
}

func settled(d *appsv1.Deployment) bool { return settledAt(d, 1) }

// settledAt says whether d has exactly n replicas, all ready and updated.
func settledAt(d *appsv1.Deployment, n int32) bool {
	return d.Spec.Replicas != nil && *d.Spec.Replicas == n && d.Status.ObservedGeneration == d.Generation &&
		d.Status.Replicas == n && d.Status.ReadyReplicas == n && d.Status.UpdatedReplicas == n
}

// resetLatencyWorkload undoes the latency phase once its controller has
// stopped: the metric back to steady and the Deployments back to one
// replica, so the next controller starts where the previous one did.
func resetLatencyWorkload(ctx context.Context, kube kubernetes.Interface, o Options) error {
	if err := setLatencyMetrics(ctx, kube, o, false, latencyMetrics(o)...); err != nil {
		return fmt.Errorf("resetting the latency metrics: %w", err)
	}
	for i := range o.LatencyHPAs {
		scale := &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: workloadName(i), Namespace: Namespace},
			Spec:       autoscalingv1.ScaleSpec{Replicas: 1},
		}
		if _, err := kube.AppsV1().Deployments(Namespace).UpdateScale(ctx, scale.Name, scale, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("scaling %s back to 1: %w", scale.Name, err)
		}
	}
	return waitSettled(ctx, kube, o, 2*time.Minute)
}
