//go:build !intree

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
	"context"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	scalefake "k8s.io/client-go/scale/fake"
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

// newUpstreamController builds upstream's controller as stock upstream
// declares its constructor.
func newUpstreamController(ctx context.Context, client *fake.Clientset, scales *scalefake.FakeScaleClient, metrics upstreammetrics.MetricsClient, factory informers.SharedInformerFactory, window time.Duration) *upstream.HorizontalController {
	return upstream.NewHorizontalController(ctx, client.CoreV1(), scales, client.AutoscalingV2(), restMapper(), metrics,
		factory.Autoscaling().V2().HorizontalPodAutoscalers(), factory.Core().V1().Pods(),
		syncPeriod, window, tolerance, cpuInitializationPeriod, initialReadinessDelay)
}
