//go:build !intree || nosource

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
	"k8s.io/apimachinery/pkg/labels"
	upstream "k8s.io/kubernetes/pkg/controller/podautoscaler"
	upstreammetrics "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
)

// upstreamCalc is upstream's replica calculator, whose methods the harness
// calls as stock upstream declares them.
type upstreamCalc struct{ *upstream.ReplicaCalculator }

func (c upstreamClient) GetRawMetric(name, _ string, selector, _ labels.Selector) (upstreammetrics.PodMetricsInfo, time.Time, error) {
	r, ts, err := c.f.rawMetric(name, selector)
	return toUpstream(r), ts, err
}

func (c upstreamClient) GetObjectMetric(name, _ string, _ *autoscalingv2.CrossVersionObjectReference, _ labels.Selector) (int64, time.Time, error) {
	return c.f.objectMetric(name)
}

func (c upstreamClient) GetExternalMetric(name, _ string, _ labels.Selector) ([]int64, time.Time, error) {
	return c.f.externalMetric(name)
}
