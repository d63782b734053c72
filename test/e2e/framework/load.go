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
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Load is what the pods of a Deployment use, through kwok's emulated
// kubelets and metrics-server (localcluster.Options.MetricsServer). The
// totals are spread evenly over the Deployment's running pods, as a
// Service spreads its requests, so that more pods each use less: the
// load generator of the HPA documentation's walkthrough. Empty totals leave
// the emulation's default (1m of CPU, 1Mi of memory a container).
type Load struct {
	// CPU and Memory are quantities: "300m", "128Mi".
	CPU, Memory string
	// Container gets the load alone when set; the pod's other containers
	// use the default. Otherwise the load is split over every container.
	Container string
}

// usageAnnotationPrefix names a container's usage in the emulation
// (test/localcluster/kwok/usage.yaml): kube-hpa.io/usage-cpu-<container>.
const usageAnnotationPrefix = "kube-hpa.io/usage-"

// loadPoll is how often the pods' usage is brought to the load: new pods
// get their share within it, long before metrics-server first scrapes
// them.
const loadPoll = 500 * time.Millisecond

// loads keeps the load of each Deployment of a spec.
type loads struct {
	mu     sync.Mutex
	byName map[string]Load
	cancel context.CancelFunc
	done   chan struct{}
}

// SetLoad puts load on the pods of Deployment name, those it runs now and
// those it starts later, until the next SetLoad or the spec's end.
func (f *Framework) SetLoad(ctx context.Context, name string, load Load) {
	ginkgo.GinkgoHelper()
	for _, q := range []string{load.CPU, load.Memory} {
		if q != "" {
			_, err := resource.ParseQuantity(q)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "load of %s", name)
		}
	}
	if f.loads == nil {
		ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f.loads = &loads{byName: map[string]Load{}, cancel: cancel, done: make(chan struct{})}
		go f.keepLoads(ctx, f.loads)
		ginkgo.DeferCleanup(func() {
			f.loads.cancel()
			<-f.loads.done
			f.loads = nil
		})
	}
	f.loads.mu.Lock()
	f.loads.byName[name] = load
	f.loads.mu.Unlock()
	gomega.Expect(f.applyLoad(ctx, name, load)).To(gomega.Succeed(), "load of %s", name)
}

// keepLoads applies every load until ctx ends.
func (f *Framework) keepLoads(ctx context.Context, l *loads) {
	defer close(l.done)
	ticker := time.NewTicker(loadPoll)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		l.mu.Lock()
		current := make(map[string]Load, len(l.byName))
		for k, v := range l.byName {
			current[k] = v
		}
		l.mu.Unlock()
		for name, load := range current {
			// A failure here is retried at the next poll; the spec sees
			// its effect on the HPA, or the lack of one.
			_ = f.applyLoad(ctx, name, load)
		}
	}
}

// applyLoad sets the usage annotations of the running pods of Deployment
// name to their share of load.
func (f *Framework) applyLoad(ctx context.Context, name string, load Load) error {
	pods, err := f.runningPods(ctx, name)
	if err != nil {
		return err
	}
	for _, p := range pods {
		want := usageAnnotations(p, load, len(pods))
		if sameUsage(p.Annotations, want) {
			continue
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": want}})
		if err != nil {
			return err
		}
		if _, err := f.Kube.CoreV1().Pods(f.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("setting the usage of pod %s: %w", p.Name, err)
		}
	}
	return nil
}

// usageAnnotations are pod's usage annotations for its share of load over
// pods running pods: a value for each loaded container, null (removed)
// for every other usage annotation the pod carries.
func usageAnnotations(pod corev1.Pod, load Load, pods int) map[string]*string {
	out := map[string]*string{}
	for k := range pod.Annotations {
		if strings.HasPrefix(k, usageAnnotationPrefix) {
			out[k] = nil
		}
	}
	var loaded []string
	for _, c := range pod.Spec.Containers {
		if load.Container == "" || c.Name == load.Container {
			loaded = append(loaded, c.Name)
		}
	}
	if len(loaded) == 0 || pods == 0 {
		return out
	}
	parts := int64(pods * len(loaded))
	for _, c := range loaded {
		if load.CPU != "" {
			total := resource.MustParse(load.CPU)
			v := fmt.Sprintf("%dm", max(1, total.MilliValue()/parts))
			out[usageAnnotationPrefix+"cpu-"+c] = &v
		}
		if load.Memory != "" {
			total := resource.MustParse(load.Memory)
			v := fmt.Sprint(max(1, total.Value()/parts))
			out[usageAnnotationPrefix+"memory-"+c] = &v
		}
	}
	return out
}

// sameUsage reports whether annotations already say what want does.
func sameUsage(annotations map[string]string, want map[string]*string) bool {
	for k, v := range want {
		got, ok := annotations[k]
		if (v == nil) == ok || (v != nil && got != *v) {
			return false
		}
	}
	return true
}

// RunningPods are the running pods of Deployment name, by name.
func (f *Framework) RunningPods(ctx context.Context, name string) []corev1.Pod {
	ginkgo.GinkgoHelper()
	pods, err := f.runningPods(ctx, name)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return pods
}

// runningPods lists the running pods of Deployment name (selected by
// app=name, as CreateDeployment labels them) that are not being deleted.
func (f *Framework) runningPods(ctx context.Context, name string) ([]corev1.Pod, error) {
	list, err := f.Kube.CoreV1().Pods(f.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
	if err != nil {
		return nil, err
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

// SetPodCPU sets one pod's CPU usage, for a spec that wants pods of one
// Deployment to differ (SetLoad makes them equal, so do not mix the two on
// one Deployment).
func (f *Framework) SetPodCPU(ctx context.Context, pod, cpu string) {
	ginkgo.GinkgoHelper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, "kwok.x-k8s.io/usage-cpu", cpu)
	_, err := f.Kube.CoreV1().Pods(f.Namespace).Patch(ctx, pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "setting the CPU usage of pod %s", pod)
}

// SetPodUnready makes a running pod's Ready condition False, as a kubelet
// does when its readiness probe fails; kwok's stages leave a running pod's
// conditions alone after that.
func (f *Framework) SetPodUnready(ctx context.Context, pod string) {
	ginkgo.GinkgoHelper()
	f.SetPodHistory(ctx, pod, PodHistory{ReadySince: time.Now()})
}

// PodHistory is what a kubelet would have reported of a pod over its
// life, which the HPA's readiness rules read: when it started, and since
// when its Ready condition has said what it says.
type PodHistory struct {
	// Started replaces the pod's start time unless zero.
	Started time.Time
	// Ready is the Ready condition's status; ReadySince its last
	// transition.
	Ready      bool
	ReadySince time.Time
}

// SetPodHistory rewrites a running pod's start time and Ready condition,
// so that a spec can put a pod past the CPU initialization period without
// waiting it out.
func (f *Framework) SetPodHistory(ctx context.Context, pod string, h PodHistory) {
	ginkgo.GinkgoHelper()
	p, err := f.Kube.CoreV1().Pods(f.Namespace).Get(ctx, pod, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	if !h.Started.IsZero() {
		p.Status.StartTime = &metav1.Time{Time: h.Started}
	}
	status := corev1.ConditionFalse
	if h.Ready {
		status = corev1.ConditionTrue
	}
	for i, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
			p.Status.Conditions[i].Status = status
			p.Status.Conditions[i].LastTransitionTime = metav1.Time{Time: h.ReadySince}
		}
	}
	_, err = f.Kube.CoreV1().Pods(f.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "rewriting the history of pod %s", pod)
}
