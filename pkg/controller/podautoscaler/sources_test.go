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

package podautoscaler

import (
	"slices"
	"testing"
	"time"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
)

const (
	modelServer = "modelserver.example.com"
	vendor      = "metrics.vendor.example.com"
)

// routed returns m with its metric routed to group (KEP-6382).
func routed(m v2.MetricSpec, group string) v2.MetricSpec {
	for _, id := range m.Identifiers() {
		id.Source = &v2.MetricSourceReference{APIGroup: group}
	}
	return m
}

// statusSources lists, per status entry, the metric name and the source
// group status reports it was read from.
func statusSources(hpa *v2.HorizontalPodAutoscaler) []string {
	var out []string
	for i := range hpa.Status.CurrentMetrics {
		for _, id := range hpa.Status.CurrentMetrics[i].Identifiers() {
			out = append(out, id.Name+"@"+id.SourceGroup())
		}
	}
	return out
}

// requestedGroups lists the group of every fetch, by metric kind and name.
func requestedGroups(c *metricstest.Client) []string {
	var out []string
	for _, r := range c.Requests() {
		out = append(out, string(r.Kind)+" "+r.Name+"@"+r.APIGroup)
	}
	return out
}

// TestMetricSourceRouting pins the controller's half of KEP-6382: with the
// gate on, each metric is fetched from its source and status says which;
// with it off, the source is ignored, every metric is read from the
// default API and status names no source.
func TestMetricSourceRouting(t *testing.T) {
	hpa := func() *v2.HorizontalPodAutoscaler {
		return newHPA(1, 20,
			routed(podsAverage("queued_requests", "10"), modelServer),
			routed(externalAverage("queue_depth", "10"), vendor),
			externalAverage("queue_depth", "10"))
	}
	cases := []struct {
		name         string
		gate         bool
		wantReplicas []int32
		wantStatus   []string
		wantFetches  []string
	}{{
		name: "with the gate on each metric is read from its source",
		gate: true,
		// queued_requests from the model server: 20 per pod over a target
		// of 10 on 4 pods asks 8; queue_depth from the vendor: 60 over 10
		// per replica asks 6; the default queue_depth asks 4.
		wantReplicas: []int32{8},
		wantStatus:   []string{"queued_requests@" + modelServer, "queue_depth@" + vendor, "queue_depth@"},
		wantFetches:  []string{"Pods queued_requests@" + modelServer, "External queue_depth@" + vendor, "External queue_depth@"},
	}, {
		name:         "with the gate off every metric is read from the default API",
		gate:         false,
		wantReplicas: nil, // the default API's answers ask 4, the current count
		wantStatus:   []string{"queued_requests@", "queue_depth@", "queue_depth@"},
		// Without their sources the two queue_depth metrics are one
		// question, which a pass asks once.
		wantFetches: []string{"Pods queued_requests@", "External queue_depth@"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, hpa(), noDownscaleWindow(withGates(features.HPAMetricSource, tc.gate)))
			h.scales.setScale(4, 4, testSelector)
			h.addPods(4, 100)
			h.metrics.
				SetPodsFrom(modelServer, "queued_requests", cpuMetrics(20000, 20000, 20000, 20000)).
				SetPods("queued_requests", cpuMetrics(10000, 10000, 10000, 10000)).
				SetExternalFrom(vendor, "queue_depth", extOK(60000)).
				SetExternal("queue_depth", extOK(40000))
			h.mustReconcile()

			h.assertUpdates(tc.wantReplicas...)
			if got := statusSources(h.hpa(testHPAName)); !slices.Equal(got, tc.wantStatus) {
				t.Errorf("status metrics = %q, want %q", got, tc.wantStatus)
			}
			if got := requestedGroups(h.metrics); !sameElements(got, tc.wantFetches) {
				t.Errorf("fetches = %q, want %q", got, tc.wantFetches)
			}
		})
	}
}

// TestFallbackOfARoutedExternalMetric pins that KEP-5679's fallback works
// on an External metric read from a source, and that its failure history
// is its own: a metric of the same name from the default API, healthy,
// neither inherits nor resets it.
func TestFallbackOfARoutedExternalMetric(t *testing.T) {
	hpa := newHPA(1, 20,
		routed(withFallback(externalAverage("queue_depth", "10"), 180, 10), vendor),
		externalAverage("queue_depth", "10"))
	h := newHarness(t, hpa, withGates(features.HPAMetricSource, true, features.HPAExternalMetricFallback, true))
	h.scales.setScale(5, 5, testSelector)
	h.addPods(5, 100)
	h.metrics.
		SetExternalFrom(vendor, "queue_depth", metricstest.ExternalAnswer{Err: errBoom}).
		SetExternal("queue_depth", extOK(40000))

	// The routed metric fails: its history starts, the healthy default
	// metric asks 4, and a failing metric keeps the count from going down.
	h.reconcileFails()
	h.assertUpdates()
	routedStatus, defaultStatus := externalBySource(t, h.hpa(testHPAName))
	if routedStatus.FallbackStatus != v2.FallbackStatusNormal || routedStatus.FirstFailureTime == nil ||
		!routedStatus.FirstFailureTime.Time.Equal(testStart) {
		t.Errorf("routed metric status = %+v, want Normal with firstFailureTime %v", routedStatus, testStart)
	}
	if defaultStatus.FirstFailureTime != nil || defaultStatus.FallbackStatus != "" {
		t.Errorf("default metric status = %+v, want no failure history of its own", defaultStatus)
	}
	h.events()

	// After failureDurationSeconds the routed metric proposes its fallback.
	h.clock.Step(180 * time.Second)
	h.mustReconcile()
	h.assertUpdates(10)
	routedStatus, _ = externalBySource(t, h.hpa(testHPAName))
	if routedStatus.FallbackStatus != v2.FallbackStatusFallback || !routedStatus.FirstFailureTime.Time.Equal(testStart) {
		t.Errorf("routed metric status = %+v, want Fallback since %v", routedStatus, testStart)
	}
	if got := h.eventsWithReason("ExternalMetricFallbackActivated"); len(got) != 1 {
		t.Errorf("activation events = %q, want one", got)
	}
}

// externalBySource returns the status entries of queue_depth read from
// the vendor and from the default API.
func externalBySource(t *testing.T, hpa *v2.HorizontalPodAutoscaler) (routedStatus, defaultStatus *v2.ExternalMetricStatus) {
	t.Helper()
	for _, m := range hpa.Status.CurrentMetrics {
		if m.External == nil || m.External.Metric.Name != "queue_depth" {
			continue
		}
		switch m.External.Metric.SourceGroup() {
		case vendor:
			routedStatus = m.External
		case "":
			defaultStatus = m.External
		}
	}
	if routedStatus == nil || defaultStatus == nil {
		t.Fatalf("status lacks an entry per source: %+v", hpa.Status.CurrentMetrics)
	}
	return routedStatus, defaultStatus
}

// TestIgnoreSources pins that the pass's copy loses every source, in every
// member a stored spec may have set, and that nothing else changes.
func TestIgnoreSources(t *testing.T) {
	hpa := newHPA(1, 20, routed(podsAverage("a", "1"), modelServer), routed(externalValue("b", "1"), vendor), cpuUtilization(50))
	both := routed(externalValue("c", "1"), vendor)
	both.Pods = routed(podsAverage("c", "1"), modelServer).Pods
	hpa.Spec.Metrics = append(hpa.Spec.Metrics, both)
	want := newHPA(1, 20, podsAverage("a", "1"), externalValue("b", "1"), cpuUtilization(50))
	wantBoth := externalValue("c", "1")
	wantBoth.Pods = podsAverage("c", "1").Pods
	want.Spec.Metrics = append(want.Spec.Metrics, wantBoth)

	ignoreSources(hpa)
	if got, want := statusSourcesOfSpec(hpa), statusSourcesOfSpec(want); !slices.Equal(got, want) {
		t.Errorf("sources after ignoreSources = %q, want %q", got, want)
	}
}

func statusSourcesOfSpec(hpa *v2.HorizontalPodAutoscaler) []string {
	var out []string
	for i := range hpa.Spec.Metrics {
		for _, id := range hpa.Spec.Metrics[i].Identifiers() {
			out = append(out, id.Name+"@"+id.SourceGroup())
		}
	}
	return out
}

// sameElements compares a and b as multisets: the fetches of a pass run
// side by side, in no set order.
func sameElements(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
