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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// runRamp starts a local cluster with the ramp's Deployments and the
// adapter, and runs the ramp with each controller of Options.Controllers
// in turn. It returns what it measured before an error along with it.
func runRamp(ctx context.Context, o Options, dir string) (*RampResult, error) {
	logger := klog.FromContext(ctx)
	res := &RampResult{SyncPeriod: o.SyncPeriod.String(), HoldSeconds: o.RampHold.Seconds()}
	for _, c := range rampCases {
		res.Cases = append(res.Cases, RampCase{Name: c.name, Behavior: c.describe(), MinReplicas: c.min, Target: c.target, UpstreamSteps: c.upstreamSteps()})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cluster, kube, err := startCluster(ctx, o)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			logger.Error(err, "Stopping the local cluster")
		}
	}()
	if err := cluster.CreateNamespace(ctx, Namespace); err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: metricsConfigMap, Namespace: Namespace}, Data: rampMetricsData(false)}
	if _, err := kube.CoreV1().ConfigMaps(Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating the metrics ConfigMap: %w", err)
	}
	for _, c := range rampCases {
		if _, err := kube.AppsV1().Deployments(Namespace).Create(ctx, newDeployment(Namespace, c.name, c.min), metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating Deployment %s: %w", c.name, err)
		}
	}
	ad, err := startAdapter(ctx, cluster, o.BinDir, dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := ad.stop(context.WithoutCancel(ctx), cluster); err != nil {
			logger.Error(err, "Stopping the metrics adapter")
		}
	}()
	specs, err := controllerSpecs(o, cluster.Kubeconfig(), dir)
	if err != nil {
		return nil, err
	}
	for _, name := range o.Controllers {
		logger.Info("Measuring a controller", "scenario", ScenarioRamp, "controller", name)
		rc, err := rampController(ctx, kube, o, specs[name], dir)
		if err != nil {
			return res, fmt.Errorf("ramp of %s (logs in %s): %w", name, dir, err)
		}
		res.Controllers = append(res.Controllers, rc)
	}
	return res, nil
}

// rampController resets the ramp (metrics steady, HPAs new, Deployments
// at their minReplicas), starts the controller, lets it pass over every
// HPA and one and a half sync periods more, raises every metric at once and records
// the Deployments' replicas until each has its target or the hold ends.
func rampController(ctx context.Context, kube kubernetes.Interface, o Options, spec controllerSpec, dir string) (RampController, error) {
	res := RampController{Name: spec.name}
	if err := resetRamp(ctx, kube); err != nil {
		return res, err
	}
	watch, err := watchReplicas(ctx, kube)
	if err != nil {
		return res, err
	}
	defer watch.stop()
	c, err := startController(ctx, spec, o.SyncPeriod, filepath.Join(dir, spec.name+".log"))
	if err != nil {
		return res, err
	}
	defer c.stop()
	if _, err := waitReconciles(ctx, c, float64(len(rampCases)), 2*time.Minute); err != nil {
		return res, err
	}
	// Upstream passes over every HPA at once, its first pass right at its
	// start, then a period after each: raised one period and a half after
	// that first pass, the metrics change half a period before its next
	// one, the mean wait of a change at a random moment, which is what
	// kube-hpa's HPAs, spread over the period, wait on average. Raised a
	// whole period after, upstream would wait a whole period for it.
	if err := sleep(ctx, o.SyncPeriod+o.SyncPeriod/2, c); err != nil {
		return res, err
	}
	changed := time.Now()
	if err := setRampMetrics(ctx, kube, true); err != nil {
		return res, err
	}
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, o.RampHold, false, func(context.Context) (bool, error) {
		if err := c.alive(); err != nil {
			return false, err
		}
		return watch.allReached(changed), nil
	})
	if err != nil && (ctx.Err() != nil || !wait.Interrupted(err)) {
		return res, err
	}
	res.Timelines = watch.timelines(changed)
	klog.FromContext(ctx).Info("Ramp measured", "controller", spec.name, "allReached", err == nil, "seconds", time.Since(changed).Round(time.Second))
	return res, nil
}

// setRampMetrics writes the ramp's series, raised or steady.
func setRampMetrics(ctx context.Context, kube kubernetes.Interface, raised bool) error {
	body, err := json.Marshal(map[string]any{"data": rampMetricsData(raised)})
	if err != nil {
		return err
	}
	if _, err := kube.CoreV1().ConfigMaps(Namespace).Patch(ctx, metricsConfigMap, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("setting the ramp metrics: %w", err)
	}
	return nil
}

// resetRamp puts the metrics back at steady, deletes the HPAs of a
// previous controller (whose status it would otherwise inherit) and
// creates them anew, and scales every Deployment back to its minReplicas.
// No controller runs meanwhile.
func resetRamp(ctx context.Context, kube kubernetes.Interface) error {
	if err := setRampMetrics(ctx, kube, false); err != nil {
		return err
	}
	hpas := kube.AutoscalingV2().HorizontalPodAutoscalers(Namespace)
	for _, c := range rampCases {
		if err := hpas.Delete(ctx, c.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting HPA %s: %w", c.name, err)
		}
		scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: Namespace}, Spec: autoscalingv1.ScaleSpec{Replicas: c.min}}
		if _, err := kube.AppsV1().Deployments(Namespace).UpdateScale(ctx, c.name, scale, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("scaling %s back to %d: %w", c.name, c.min, err)
		}
	}
	var pending []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pending = nil
		for _, c := range rampCases {
			if _, err := hpas.Get(ctx, c.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				pending = append(pending, "HPA "+c.name)
			}
			d, err := kube.AppsV1().Deployments(Namespace).Get(ctx, c.name, metav1.GetOptions{})
			if err != nil || !settledAt(d, c.min) {
				pending = append(pending, "Deployment "+c.name)
			}
		}
		return len(pending) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("resetting the ramp (%v pending): %w", pending, err)
	}
	var errs []error
	for _, c := range rampCases {
		if _, err := hpas.Create(ctx, c.hpa(), metav1.CreateOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("creating HPA %s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}
