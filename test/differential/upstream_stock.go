//go:build !intree

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
