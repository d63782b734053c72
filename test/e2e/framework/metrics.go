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

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Fault is a failure the test metrics adapter plays instead of answering
// a metric (see test/metrics-adapter's README).
type Fault string

const (
	// FaultError answers an error status (500).
	FaultError Fault = "error"
	// FaultEmpty answers an empty list.
	FaultEmpty Fault = "empty"
	// FaultHang never answers; the controller's fetch times out.
	FaultHang Fault = "hang"
)

// Keys of the adapter's ConfigMap.
func externalKey(metric string) string { return "external." + metric }

func objectKey(kind, name, metric string) string {
	return fmt.Sprintf("custom.object.%s.%s.%s", kind, name, metric)
}

// SetExternalMetric makes the adapter answer value for external metric
// name: a quantity ("30"), or any value the adapter's ConfigMap format
// takes (a YAML list of series with labels, an object with a delay). The
// key is removed after the spec.
func (f *Framework) SetExternalMetric(ctx context.Context, name, value string) {
	ginkgo.GinkgoHelper()
	f.setMetric(ctx, externalKey(name), value)
}

// SetExternalMetricFault makes the adapter fail external metric name.
func (f *Framework) SetExternalMetricFault(ctx context.Context, name string, fault Fault) {
	ginkgo.GinkgoHelper()
	f.setMetric(ctx, externalKey(name), string(fault))
}

// SetObjectMetric makes the adapter answer value for the custom metric of
// one object of the spec's namespace (kind as in a Kind, e.g. Deployment).
func (f *Framework) SetObjectMetric(ctx context.Context, kind, objectName, metric, value string) {
	ginkgo.GinkgoHelper()
	f.setMetric(ctx, objectKey(kind, objectName, metric), value)
}

// DeleteExternalMetric removes the metric: the adapter then answers
// "metric not found", another kind of failure.
func (f *Framework) DeleteExternalMetric(ctx context.Context, name string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(f.patchMetrics(ctx, map[string]*string{externalKey(name): nil})).To(gomega.Succeed())
}

func (f *Framework) setMetric(ctx context.Context, key, value string) {
	ginkgo.GinkgoHelper()
	f.metricKeys[key] = true
	gomega.Expect(f.patchMetrics(ctx, map[string]*string{key: &value})).To(gomega.Succeed(), "setting metric %s", key)
}

// patchMetrics merges data into the adapter's ConfigMap (a nil value
// deletes the key). A JSON merge patch carries no resourceVersion, so
// specs on different processes never conflict on the shared ConfigMap.
func (e *Environment) patchMetrics(ctx context.Context, data map[string]*string) error {
	return e.patchConfigMap(ctx, e.Config.MetricsConfigMap, data)
}

func (e *Environment) patchConfigMap(ctx context.Context, name string, data map[string]*string) error {
	patch, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		return err
	}
	_, err = e.Kube.CoreV1().ConfigMaps(e.Config.MetricsNamespace).Patch(ctx, name,
		types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// SetSourceExternalMetric makes the second adapter answer value for
// external metric name under SourceExternalGroup; the key is removed
// after the spec. The environment must run the second adapter
// (Config.SourceMetricsConfigMap).
func (f *Framework) SetSourceExternalMetric(ctx context.Context, name, value string) {
	ginkgo.GinkgoHelper()
	f.setSourceMetric(ctx, externalKey(name), value)
}

// SetSourcePodsMetric makes the second adapter answer value for the custom
// metric name of every pod, under SourceCustomGroup.
func (f *Framework) SetSourcePodsMetric(ctx context.Context, name, value string) {
	ginkgo.GinkgoHelper()
	f.setSourceMetric(ctx, "custom.pods."+name, value)
}

func (f *Framework) setSourceMetric(ctx context.Context, key, value string) {
	ginkgo.GinkgoHelper()
	name := f.Config.SourceMetricsConfigMap
	gomega.Expect(name).NotTo(gomega.BeEmpty(), "the environment runs no second metrics adapter")
	gomega.Expect(f.patchConfigMap(ctx, name, map[string]*string{key: &value})).To(gomega.Succeed(), "setting metric %s of the second adapter", key)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		gomega.Expect(f.patchConfigMap(ctx, name, map[string]*string{key: nil})).To(gomega.Succeed())
	})
}
