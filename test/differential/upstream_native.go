//go:build intree && !nosource

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

package differential

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	upstream "k8s.io/kubernetes/pkg/controller/podautoscaler"
	upstreammetrics "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
)

// upstreamCalc is the patched tree's replica calculator, whose methods take
// a metric's source (KEP-6382); the harness's metrics have none, so it
// calls them with the default API, the calls of stock upstream.
type upstreamCalc struct{ *upstream.ReplicaCalculator }

func (c upstreamCalc) GetMetricReplicas(current int32, target int64, name string, tol upstream.Tolerances, ns string, selector, metricSelector labels.Selector) (int32, int64, time.Time, error) {
	return c.ReplicaCalculator.GetMetricReplicas(current, target, name, tol, ns, selector, metricSelector, "")
}

func (c upstreamCalc) GetObjectMetricReplicas(current int32, target int64, name string, tol upstream.Tolerances, ns string, ref *autoscalingv2.CrossVersionObjectReference, selector, metricSelector labels.Selector) (int32, int64, time.Time, error) {
	return c.ReplicaCalculator.GetObjectMetricReplicas(current, target, name, tol, ns, ref, selector, metricSelector, "")
}

func (c upstreamCalc) GetObjectPerPodMetricReplicas(status int32, target int64, name string, tol upstream.Tolerances, ns string, ref *autoscalingv2.CrossVersionObjectReference, metricSelector labels.Selector) (int32, int64, time.Time, error) {
	return c.ReplicaCalculator.GetObjectPerPodMetricReplicas(status, target, name, tol, ns, ref, metricSelector, "")
}

func (c upstreamCalc) GetExternalMetricReplicas(current int32, target int64, name string, tol upstream.Tolerances, ns string, metricSelector *metav1.LabelSelector, podSelector labels.Selector) (int32, int64, time.Time, error) {
	return c.ReplicaCalculator.GetExternalMetricReplicas(current, target, name, tol, ns, metricSelector, podSelector, "")
}

func (c upstreamCalc) GetExternalPerPodMetricReplicas(status int32, target int64, name string, tol upstream.Tolerances, ns string, metricSelector *metav1.LabelSelector) (int32, int64, time.Time, error) {
	return c.ReplicaCalculator.GetExternalPerPodMetricReplicas(status, target, name, tol, ns, metricSelector, "")
}

func (c upstreamClient) GetRawMetric(name, _ string, selector, _ labels.Selector, _ string) (upstreammetrics.PodMetricsInfo, time.Time, error) {
	r, ts, err := c.f.rawMetric(name, selector)
	return toUpstream(r), ts, err
}

func (c upstreamClient) GetObjectMetric(name, _ string, _ *autoscalingv2.CrossVersionObjectReference, _ labels.Selector, _ string) (int64, time.Time, error) {
	return c.f.objectMetric(name)
}

func (c upstreamClient) GetExternalMetric(name, _ string, _ labels.Selector, _ string) ([]int64, time.Time, error) {
	return c.f.externalMetric(name)
}
