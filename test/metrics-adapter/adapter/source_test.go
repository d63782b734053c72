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

package adapter

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-hpa-system", Name: name}, Data: data}
}

// TestConfigMapSourceFollowsTheConfigMap drives the provider through the
// life of the ConfigMap: missing, created, updated, beside another
// ConfigMap, deleted.
func TestConfigMapSourceFollowsTheConfigMap(t *testing.T) {
	ctx := testContext(t, 30*time.Second)
	client := fake.NewClientset()
	source := NewConfigMapSource(client, "kube-hpa-system", "test-metrics")
	if err := source.Start(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Source: source})
	if err != nil {
		t.Fatal(err)
	}
	// fetch answers the value of queue_depth, or "NotFound".
	fetch := func() string {
		list, err := p.GetExternalMetric(ctx, "default", labels.Everything(), provider.ExternalMetricInfo{Metric: "queue_depth"})
		switch {
		case apierrors.IsNotFound(err):
			return "NotFound"
		case err != nil:
			return err.Error()
		case len(list.Items) != 1:
			return "no single item"
		}
		return list.Items[0].Value.String()
	}
	eventually := func(step, want string) {
		t.Helper()
		var got string
		err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			got = fetch()
			return got == want, nil
		})
		if err != nil {
			t.Fatalf("%s: queue_depth is %q, want %q", step, got, want)
		}
	}
	cms := client.CoreV1().ConfigMaps("kube-hpa-system")

	eventually("before the ConfigMap exists", "NotFound")

	if _, err := cms.Create(ctx, configMap("test-metrics", map[string]string{"external.queue_depth": "30"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("once created", "30")

	if _, err := cms.Update(ctx, configMap("test-metrics", map[string]string{"external.queue_depth": "45"}), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("once updated", "45")

	if _, err := cms.Create(ctx, configMap("other", map[string]string{"external.queue_depth": "99"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Give the informer time to deliver the other ConfigMap, if it would.
	time.Sleep(100 * time.Millisecond)
	eventually("beside another ConfigMap", "45")

	if err := cms.Delete(ctx, "test-metrics", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("once deleted", "NotFound")
}
