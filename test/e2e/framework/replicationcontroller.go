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
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// CreateReplicationController creates a ReplicationController of replicas
// pause pods labelled app=<name>. The controller watches this kind only
// while some HPA targets it, so the specs that need its watch create one.
func (f *Framework) CreateReplicationController(ctx context.Context, name string, replicas int32) {
	ginkgo.GinkgoHelper()
	labels := map[string]string{"app": name}
	rc := &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace, Labels: labels},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To(replicas),
			Selector: labels,
			Template: ptr.To(pausePodTemplate(labels)),
		},
	}
	_, err := f.Kube.CoreV1().ReplicationControllers(f.Namespace).Create(ctx, rc, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating ReplicationController %s", name)
}

// WaitForReplicationControllerScale waits until a ReplicationController's
// spec.replicas is want, whatever its pods do.
func (f *Framework) WaitForReplicationControllerScale(ctx context.Context, name string, want int32, timeout time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func(ctx context.Context) (int32, error) {
		rc, err := f.Kube.CoreV1().ReplicationControllers(f.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		return ptr.Deref(rc.Spec.Replicas, 1), nil
	}).WithTimeout(timeout).WithPolling(250*time.Millisecond).Should(
		gomega.Equal(want), "ReplicationController %s/%s to be scaled to %d", f.Namespace, name, want)
}
