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

package validation

import (
	"strings"
	"testing"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

// withSource returns m (a Pods, Object or External metric) routed to group.
func withSource(m v2.MetricSpec, group string) v2.MetricSpec {
	for _, id := range m.Identifiers() {
		id.Source = &v2.MetricSourceReference{APIGroup: group}
	}
	return m
}

// TestValidateMetricSource pins KEP-6382's rules for metric.source: a DNS
// subdomain that is neither a default metrics group nor one of Kubernetes'
// own groups, behind HPAMetricSource,
// ratcheted like the other gated fields.
func TestValidateMetricSource(t *testing.T) {
	on := gateSetting{features.HPAMetricSource: true}
	off := gateSetting{features.HPAMetricSource: false}
	pods := func(group string) v2.MetricSpec {
		return withSource(podsMetric("queue_per_pod", averageValueTarget("5")), group)
	}
	runValidationCases(t, []validationCase{
		{name: "a Pods metric may name a source", gates: on, hpa: hpa(metrics(pods("metrics.example.com")))},
		{name: "an Object metric may name a source", gates: on,
			hpa: hpa(metrics(withSource(ingressObjectMetric(), "monitoring.example.com")))},
		{name: "an External metric may name a source", gates: on,
			hpa: hpa(metrics(withSource(queueMetric(), "keda.example.com")))},
		{name: "a provider's group under x-k8s.io is accepted", gates: on, hpa: hpa(metrics(pods("metrics.x-k8s.io")))},
		{name: "a single-label group is Kubernetes' own and refused", gates: on, hpa: hpa(metrics(pods("apps"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "a built-in group under k8s.io is refused", gates: on,
			hpa:  hpa(metrics(withSource(queueMetric(), "rbac.authorization.k8s.io"))),
			want: []wantErr{invalid("spec.metrics[0].external.metric.source.apiGroup")}},
		{name: "a group under kubernetes.io is refused", gates: on, hpa: hpa(metrics(pods("metrics.kubernetes.io"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "k8s.io itself is refused", gates: on, hpa: hpa(metrics(pods("k8s.io"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "a Kubernetes group stored without the webhook is refused, so the controller never reads it", gates: on, op: stored,
			hpa:  hpa(metrics(pods("batch"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "metrics of one HPA may name different sources or none", gates: on,
			hpa: hpa(metrics(pods("a.example.com"), withSource(queueMetric(), "b.example.com"), cpuUtilization(50)))},
		{name: "an empty group is required", gates: on, hpa: hpa(metrics(pods(""))),
			want: []wantErr{required("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "an upper-case group is invalid", gates: on, hpa: hpa(metrics(pods("Metrics.Example.com"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "a group with a path is invalid", gates: on, hpa: hpa(metrics(pods("example.com/v1"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "a group longer than 253 characters is invalid", gates: on,
			hpa:  hpa(metrics(pods(strings.Repeat("a.", 127) + "io"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "the default custom metrics group is refused", gates: on, hpa: hpa(metrics(pods("custom.metrics.k8s.io"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "the default external metrics group is refused", gates: on,
			hpa:  hpa(metrics(withSource(queueMetric(), "external.metrics.k8s.io"))),
			want: []wantErr{invalid("spec.metrics[0].external.metric.source.apiGroup")}},
		{name: "the resource metrics group is refused", gates: on, hpa: hpa(metrics(pods("metrics.k8s.io"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
		{name: "a source is forbidden on create with the gate off", gates: off, hpa: hpa(metrics(pods("metrics.example.com"))),
			want: []wantErr{forbidden("spec.metrics[0].pods.metric.source")}},
		{name: "a stored source is kept through an update with the gate off", gates: off,
			old: hpa(metrics(pods("metrics.example.com"))), hpa: hpa(maxReplicas(20), metrics(pods("metrics.example.com")))},
		{name: "a source may be added on update with the gate off when another metric had one", gates: off,
			old: hpa(metrics(pods("metrics.example.com"))),
			hpa: hpa(metrics(pods("metrics.example.com"), withSource(queueMetric(), "keda.example.com")))},
		{name: "a source may not be added on update with the gate off when none was stored", gates: off,
			old: hpa(metrics(queueMetric())), hpa: hpa(metrics(withSource(queueMetric(), "keda.example.com"))),
			want: []wantErr{forbidden("spec.metrics[0].external.metric.source")}},
		{name: "a stored object with a source is accepted with the gate off", gates: off, op: stored,
			hpa: hpa(metrics(pods("metrics.example.com")))},
		{name: "an invalid group is refused even on update with the gate off", gates: off,
			old: hpa(metrics(pods("metrics.example.com"))), hpa: hpa(metrics(pods("custom.metrics.k8s.io"))),
			want: []wantErr{invalid("spec.metrics[0].pods.metric.source.apiGroup")}},
	})
}
