//go:build intree && !nofallback

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

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	scalefake "k8s.io/client-go/scale/fake"
	upstream "k8s.io/kubernetes/pkg/controller/podautoscaler"
	upstreammetrics "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
)

// newUpstreamController builds the patched tree's controller. Its
// constructor also takes the bounded metrics client of the External metrics
// that have a fallback (KEP-5679), which kube-controller-manager builds with
// the gate on; the harness gives none, so every metric is fetched by the
// one client, as in stock upstream.
func newUpstreamController(ctx context.Context, client *fake.Clientset, scales *scalefake.FakeScaleClient, metrics upstreammetrics.MetricsClient, factory informers.SharedInformerFactory, window time.Duration) *upstream.HorizontalController {
	return upstream.NewHorizontalController(ctx, client.CoreV1(), scales, client.AutoscalingV2(), restMapper(), metrics, nil,
		factory.Autoscaling().V2().HorizontalPodAutoscalers(), factory.Core().V1().Pods(),
		syncPeriod, window, tolerance, cpuInitializationPeriod, initialReadinessDelay)
}
