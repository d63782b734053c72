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
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// PauseImage is never pulled in the local environment (kwok plays the
// kubelet); on a real cluster it is the smallest image there is.
const PauseImage = "registry.k8s.io/pause:3.10"

// ReplicasTimeout is how long a Deployment gets to reach a replica count
// once its scale says so; pods on kwok nodes are Ready within seconds.
const ReplicasTimeout = time.Minute

// CreateDeployment creates a Deployment of replicas pause pods, labelled
// app=<name>, and waits until they are all Ready.
func (f *Framework) CreateDeployment(ctx context.Context, name string, replicas int32) *appsv1.Deployment {
	ginkgo.GinkgoHelper()
	return f.CreateDeploymentWith(ctx, name, replicas, nil)
}

// CreateDeploymentWith is CreateDeployment with the pod spec changed by
// edit (containers added, requests changed) before the Deployment is
// created.
func (f *Framework) CreateDeploymentWith(ctx context.Context, name string, replicas int32, edit func(*corev1.PodSpec)) *appsv1.Deployment {
	ginkgo.GinkgoHelper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: pausePodTemplate(labels),
		},
	}
	if edit != nil {
		edit(&d.Spec.Template.Spec)
	}
	d, err := f.Kube.AppsV1().Deployments(f.Namespace).Create(ctx, d, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating Deployment %s", name)
	f.WaitForReplicas(ctx, name, replicas, ReplicasTimeout)
	return d
}

// ReplicaCounts are a Deployment's wanted and Ready replicas.
type ReplicaCounts struct {
	Spec, Ready int32
}

func (r ReplicaCounts) String() string { return fmt.Sprintf("%d wanted, %d ready", r.Spec, r.Ready) }

// Replicas reads a Deployment's counts.
func (f *Framework) Replicas(ctx context.Context, name string) (ReplicaCounts, error) {
	d, err := f.Kube.AppsV1().Deployments(f.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ReplicaCounts{}, err
	}
	return ReplicaCounts{Spec: ptr.Deref(d.Spec.Replicas, 1), Ready: d.Status.ReadyReplicas}, nil
}

// WaitForReplicas waits until a Deployment wants want replicas and has
// that many Ready.
func (f *Framework) WaitForReplicas(ctx context.Context, name string, want int32, timeout time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) (ReplicaCounts, error) {
		return f.Replicas(ctx, name)
	}).WithTimeout(timeout).WithPolling(250*time.Millisecond).Should(
		gomega.Equal(ReplicaCounts{Spec: want, Ready: want}), "Deployment %s/%s to have %d replicas", f.Namespace, name, want)
}

// WaitForScale waits until a Deployment's scale says want, whatever its
// pods do; for timing a controller's decision rather than the pods.
func (f *Framework) WaitForScale(ctx context.Context, name string, want int32, timeout time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) (int32, error) {
		r, err := f.Replicas(ctx, name)
		return r.Spec, err
	}).WithTimeout(timeout).WithPolling(250*time.Millisecond).Should(
		gomega.Equal(want), "Deployment %s/%s to be scaled to %d", f.Namespace, name, want)
}

// EnsureScaleStays fails unless a Deployment's scale stays want for d.
func (f *Framework) EnsureScaleStays(ctx context.Context, name string, want int32, d time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Consistently(ctx, func(ctx context.Context) (int32, error) {
		r, err := f.Replicas(ctx, name)
		return r.Spec, err
	}).WithTimeout(d).WithPolling(250*time.Millisecond).Should(
		gomega.Equal(want), "Deployment %s/%s to stay at %d replicas", f.Namespace, name, want)
}

// ScaleChange is one change of a Deployment's scale seen by a
// ScaleRecorder.
type ScaleChange struct {
	At       time.Time
	From, To int32
}

// ScaleRecorder records every change of a Deployment's scale, to check
// the size and spacing of a controller's steps.
type ScaleRecorder struct {
	mu      sync.Mutex
	changes []ScaleChange
	stop    context.CancelFunc
	done    chan struct{}
}

// scaleRecorderPoll resolves steps to a quarter of a second, far below
// the periods the behavior specs measure.
const scaleRecorderPoll = 250 * time.Millisecond

// RecordScale starts recording the scale of Deployment name until the
// spec ends.
func (f *Framework) RecordScale(ctx context.Context, name string) *ScaleRecorder {
	ginkgo.GinkgoHelper()
	first, err := f.Replicas(ctx, name)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &ScaleRecorder{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		last := first.Spec
		ticker := time.NewTicker(scaleRecorderPoll)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
			cur, err := f.Replicas(ctx, name)
			if err != nil || cur.Spec == last {
				continue
			}
			r.mu.Lock()
			r.changes = append(r.changes, ScaleChange{At: time.Now(), From: last, To: cur.Spec})
			r.mu.Unlock()
			last = cur.Spec
		}
	}()
	ginkgo.DeferCleanup(r.Stop)
	return r
}

// Changes returns the changes seen so far.
func (r *ScaleRecorder) Changes() []ScaleChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ScaleChange(nil), r.changes...)
}

// Stop ends the recording.
func (r *ScaleRecorder) Stop() {
	r.stop()
	<-r.done
}

// pausePodTemplate is the pods of the workloads the specs scale: a pause
// container requesting 100m CPU, labeled labels.
func pausePodTemplate(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "pause",
				Image: PauseImage,
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"),
				}},
			}},
			// Pods go away at once when scaled down, so that replica
			// counts settle quickly.
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}
}
