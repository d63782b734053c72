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
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/scale"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
)

// The parity scenarios: each runs passes the controller through the
// harness and compares every observable parityOutcome with what upstream's
// v1.36 controller produces for the same inputs. Unset fields of parityOutcome
// are expectations too (no scale update, no events, no metrics, ...), so
// that a parityScenario pins everything a pass did.

// parityScenario is one parity case.
type parityScenario struct {
	name string
	// hpa builds the HPA under test (named testHPAName); nil means no HPA
	// is added by the harness.
	hpa  *v2.HorizontalPodAutoscaler
	opts harnessOptions
	// setup prepares the fakes before the first pass.
	setup []func(h *harness)
	// run drives the controller and returns the error of the pass that
	// the parityOutcome's err describes; nil runs one pass of testHPAName.
	run  func(h *harness) error
	want parityOutcome
	// check, when set, asserts more after the common checks.
	check func(t *testing.T, h *harness)
}

// parityOutcome is what a parityScenario must leave behind.
type parityOutcome struct {
	// err is the exact error of the pass ("" for none); spec tells
	// whether it must wrap errSpec.
	err  string
	spec bool
	// updates are the replica counts written to the scale, in order.
	updates []int32
	// current and desired are status.currentReplicas/desiredReplicas.
	current, desired int32
	// metrics is status.currentMetrics, compared semantically.
	metrics []v2.MetricStatus
	// conditions are every condition of the status, in any order; an
	// empty message is not compared.
	conditions []wantCond
	// events are every event recorded, in order, as "Type Reason Message".
	events []string
	// reconciliations and computations are the monitor's labels, in order:
	// "action/error" and "action/error/metricType".
	reconciliations []string
	computations    []string
	// statusWrites is how many times status was written.
	statusWrites int
	// lastScaleTime is status.lastScaleTime; zero means unset.
	lastScaleTime time.Time
}

func runParity(t *testing.T, scenarios []parityScenario) {
	t.Helper()
	seen := map[string]bool{}
	for _, sc := range scenarios {
		if seen[sc.name] {
			t.Fatalf("duplicate parityScenario name %q", sc.name)
		}
		seen[sc.name] = true
		t.Run(sc.name, func(t *testing.T) { runParityScenario(t, sc) })
	}
}

func runParityScenario(t *testing.T, sc parityScenario) {
	t.Helper()
	// A copy, so that a scenario run twice, or a step that edits its HPA,
	// starts from the table's object.
	h := newHarness(t, sc.hpa.DeepCopy(), sc.opts)
	for _, step := range sc.setup {
		step(h)
	}
	run := sc.run
	if run == nil {
		run = func(h *harness) error { return h.reconcile(testHPAName) }
	}
	err := run(h)
	checkParityOutcome(t, h, err, sc.want)
	if sc.check != nil {
		sc.check(t, h)
	}
}

func checkParityOutcome(t *testing.T, h *harness, err error, want parityOutcome) {
	t.Helper()
	switch {
	case want.err == "" && err != nil:
		t.Errorf("error = %q, want none", err)
	case want.err != "" && err == nil:
		t.Errorf("error = nil, want %q", want.err)
	case want.err != "" && err.Error() != want.err:
		t.Errorf("error =\n  %q\nwant\n  %q", err, want.err)
	}
	if err != nil && errors.Is(err, errSpec) != want.spec {
		t.Errorf("errors.Is(err, errSpec) = %v, want %v", !want.spec, want.spec)
	}

	h.scales.mu.Lock()
	updates := append([]int32(nil), h.scales.updates...)
	h.scales.mu.Unlock()
	if !equality.Semantic.DeepEqual(updates, want.updates) {
		t.Errorf("scale updates = %v, want %v", updates, want.updates)
	}

	if stored, ok, _ := h.source.Get(testNamespace, testHPAName); ok {
		checkParityStatus(t, stored, want)
	}

	if got := h.events(); !sameStrings(got, want.events) {
		t.Errorf("events =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want.events, "\n  "))
	}
	h.monitor.mu.Lock()
	reconciliations := append([]string(nil), h.monitor.reconciliations...)
	computations := append([]string(nil), h.monitor.computations...)
	h.monitor.mu.Unlock()
	if !sameStrings(reconciliations, want.reconciliations) {
		t.Errorf("reconciliation labels = %v, want %v", reconciliations, want.reconciliations)
	}
	if !sameStrings(computations, want.computations) {
		t.Errorf("metric computation labels = %v, want %v", computations, want.computations)
	}
	h.source.mu.Lock()
	writes := h.source.statusUpdates
	h.source.mu.Unlock()
	if writes != want.statusWrites {
		t.Errorf("status writes = %d, want %d", writes, want.statusWrites)
	}
}

func checkParityStatus(t *testing.T, hpa *v2.HorizontalPodAutoscaler, want parityOutcome) {
	t.Helper()
	st := hpa.Status
	if st.CurrentReplicas != want.current || st.DesiredReplicas != want.desired {
		t.Errorf("status current/desired = %d/%d, want %d/%d", st.CurrentReplicas, st.DesiredReplicas, want.current, want.desired)
	}
	if !equality.Semantic.DeepEqual(st.CurrentMetrics, want.metrics) {
		t.Errorf("currentMetrics =\n  %s\nwant\n  %s", describeMetricStatuses(st.CurrentMetrics), describeMetricStatuses(want.metrics))
	}
	switch {
	case want.lastScaleTime.IsZero() && st.LastScaleTime != nil:
		t.Errorf("lastScaleTime = %v, want unset", st.LastScaleTime.Time)
	case !want.lastScaleTime.IsZero() && (st.LastScaleTime == nil || !st.LastScaleTime.Time.Equal(want.lastScaleTime)):
		t.Errorf("lastScaleTime = %v, want %v", st.LastScaleTime, want.lastScaleTime)
	}
	checkConditions(t, st.Conditions, want.conditions)
}

// checkConditions is the one condition matcher: the HPA has exactly the
// conditions want, by type, in any order, each with its status and reason,
// and its message where want gives one.
func checkConditions(t *testing.T, got []autoscalingv2.HorizontalPodAutoscalerCondition, want []wantCond) {
	t.Helper()
	byType := map[autoscalingv2.HorizontalPodAutoscalerConditionType]autoscalingv2.HorizontalPodAutoscalerCondition{}
	for _, c := range got {
		if _, dup := byType[c.Type]; dup {
			t.Errorf("condition %s appears twice", c.Type)
		}
		byType[c.Type] = c
	}
	for _, w := range want {
		c, ok := byType[w.Type]
		if !ok {
			t.Errorf("condition %s missing, want %s/%s", w.Type, w.Status, w.Reason)
			continue
		}
		delete(byType, w.Type)
		if c.Status != w.Status || c.Reason != w.Reason {
			t.Errorf("condition %s = %s/%s (%q), want %s/%s", w.Type, c.Status, c.Reason, c.Message, w.Status, w.Reason)
		}
		if w.Message != "" && c.Message != w.Message {
			t.Errorf("condition %s message =\n  %q\nwant\n  %q", w.Type, c.Message, w.Message)
		}
	}
	var extra []string
	for ct, c := range byType {
		extra = append(extra, fmt.Sprintf("%s=%s/%s", ct, c.Status, c.Reason))
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("unexpected conditions: %v", extra)
	}
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func describeMetricStatuses(ms []v2.MetricStatus) string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%+v", describeMetricStatus(m)))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func describeMetricStatus(m v2.MetricStatus) string {
	q := func(v *resource.Quantity) string {
		if v == nil {
			return "<nil>"
		}
		return v.String()
	}
	u := func(v *int32) string {
		if v == nil {
			return "<nil>"
		}
		return fmt.Sprint(*v)
	}
	switch {
	case m.Resource != nil:
		return fmt.Sprintf("Resource{%s value=%s avg=%s util=%s}", m.Resource.Name, q(m.Resource.Current.Value), q(m.Resource.Current.AverageValue), u(m.Resource.Current.AverageUtilization))
	case m.ContainerResource != nil:
		c := m.ContainerResource
		return fmt.Sprintf("ContainerResource{%s/%s avg=%s util=%s}", c.Container, c.Name, q(c.Current.AverageValue), u(c.Current.AverageUtilization))
	case m.Pods != nil:
		return fmt.Sprintf("Pods{%s avg=%s}", m.Pods.Metric.Name, q(m.Pods.Current.AverageValue))
	case m.Object != nil:
		return fmt.Sprintf("Object{%s %s value=%s avg=%s}", m.Object.DescribedObject.Name, m.Object.Metric.Name, q(m.Object.Current.Value), q(m.Object.Current.AverageValue))
	case m.External != nil:
		e := m.External
		return fmt.Sprintf("External{%s value=%s avg=%s fallback=%q first=%v}", e.Metric.Name, q(e.Current.Value), q(e.Current.AverageValue), e.FallbackStatus, e.FirstFailureTime)
	}
	return fmt.Sprintf("%+v", m)
}

// Setup steps.

// atScale sets the target's spec and status replicas, with the test
// selector.
func atScale(spec, status int32) func(*harness) {
	return func(h *harness) { h.scales.setScale(spec, status, testSelector) }
}

// atScaleWithSelector sets the target's scale with the given selector.
func atScaleWithSelector(spec, status int32, selector string) func(*harness) {
	return func(h *harness) { h.scales.setScale(spec, status, selector) }
}

// readyPods adds n ready pods web-0..n-1 requesting 100m CPU each.
func readyPods(n int) func(*harness) {
	return func(h *harness) { h.addPods(n, 100) }
}

// cpuUsage sets the CPU usage (millicores) of pods web-0..
func cpuUsage(usage ...int64) func(*harness) {
	return func(h *harness) { h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(usage...)) }
}

// memoryUsage sets the memory usage (milli-bytes) of pods web-0..
func memoryUsage(usage ...int64) func(*harness) {
	return func(h *harness) { h.metrics.SetResource(corev1.ResourceMemory, cpuMetrics(usage...)) }
}

func cpuFails(err error) func(*harness) {
	return func(h *harness) {
		h.metrics.SetResource(corev1.ResourceCPU, metricstest.PodsAnswer{Err: err})
	}
}

// podsMetricValues sets a pods metric: one milli-value per pod web-0...
func podsMetricValues(name string, values ...int64) func(*harness) {
	return func(h *harness) {
		info := metrics.PodMetricsInfo{}
		for i, v := range values {
			info[fmt.Sprintf("web-%d", i)] = metrics.PodMetric{Timestamp: testStart, Window: time.Minute, Value: v}
		}
		h.metrics.SetPods(name, metricstest.PodsAnswer{Metrics: info, Timestamp: testStart})
	}
}

func podsMetricFails(name string, err error) func(*harness) {
	return func(h *harness) { h.metrics.SetPods(name, metricstest.PodsAnswer{Err: err}) }
}

// objectMetricValue sets an object metric's value (milli-units).
func objectMetricValue(name string, v int64) func(*harness) {
	return func(h *harness) {
		h.metrics.SetObject(name, metricstest.ObjectAnswer{Value: v, Timestamp: testStart})
	}
}

func objectMetricFails(name string, err error) func(*harness) {
	return func(h *harness) { h.metrics.SetObject(name, metricstest.ObjectAnswer{Err: err}) }
}

// externalSeries sets an external metric's series (milli-units).
func externalSeries(name string, values ...int64) func(*harness) {
	return func(h *harness) {
		h.metrics.SetExternal(name, metricstest.ExternalAnswer{Values: values, Timestamp: testStart})
	}
}

func externalFails(name string, err error) func(*harness) {
	return func(h *harness) { h.metrics.SetExternal(name, metricstest.ExternalAnswer{Err: err}) }
}

// storedStatus stores a status on the HPA before the first pass, as a
// previous pass (or another controller) left it.
func storedStatus(mutate func(st *v2.HorizontalPodAutoscalerStatus)) func(*harness) {
	return func(h *harness) {
		hpa := h.hpa(testHPAName)
		mutate(&hpa.Status)
		h.source.set(hpa)
	}
}

// HPA builders.

// edited returns hpa after mutate.
func edited(hpa *v2.HorizontalPodAutoscaler, mutate func(*v2.HorizontalPodAutoscaler)) *v2.HorizontalPodAutoscaler {
	mutate(hpa)
	return hpa
}

func cpuAverageValue(v int64) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: resource.NewMilliQuantity(v, resource.DecimalSI)},
		},
	}
}

func memoryAverageValue(value string) v2.MetricSpec {
	q := resource.MustParse(value)
	return v2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceMemory,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
		},
	}
}

func containerCPUUtilization(container string, percent int32) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ContainerResourceMetricSourceType,
		ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
			Name:      corev1.ResourceCPU,
			Container: container,
			Target:    autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)},
		},
	}
}

func podsAverage(name, averageValue string) v2.MetricSpec {
	q := resource.MustParse(averageValue)
	return v2.MetricSpec{
		Type: autoscalingv2.PodsMetricSourceType,
		Pods: &v2.PodsMetricSource{
			Metric: v2.MetricIdentifier{Name: name},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
		},
	}
}

// describedIngress is the object of the object metrics.
var describedIngress = autoscalingv2.CrossVersionObjectReference{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: "front"}

func ingressValue(name, value string) v2.MetricSpec {
	q := resource.MustParse(value)
	return v2.MetricSpec{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricSource{
			DescribedObject: describedIngress,
			Metric:          v2.MetricIdentifier{Name: name},
			Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &q},
		},
	}
}

func ingressAverage(name, averageValue string) v2.MetricSpec {
	q := resource.MustParse(averageValue)
	return v2.MetricSpec{
		Type: autoscalingv2.ObjectMetricSourceType,
		Object: &v2.ObjectMetricSource{
			DescribedObject: describedIngress,
			Metric:          v2.MetricIdentifier{Name: name},
			Target:          autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
		},
	}
}

// Expected statuses and conditions.

func milliQ(v int64) *resource.Quantity { return resource.NewMilliQuantity(v, resource.DecimalSI) }

func cpuUtilizationStatus(utilization int32, averageMilli int64) v2.MetricStatus {
	return v2.MetricStatus{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricStatus{
			Name:    corev1.ResourceCPU,
			Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(utilization), AverageValue: milliQ(averageMilli)},
		},
	}
}

func externalValueStatus(name string, valueMilli int64) v2.MetricStatus {
	return v2.MetricStatus{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricStatus{
			Metric:  v2.MetricIdentifier{Name: name},
			Current: autoscalingv2.MetricValueStatus{Value: milliQ(valueMilli)},
		},
	}
}

func podsMetricStatus(name string, averageMilli int64) v2.MetricStatus {
	return v2.MetricStatus{
		Type: autoscalingv2.PodsMetricSourceType,
		Pods: &v2.PodsMetricStatus{
			Metric:  v2.MetricIdentifier{Name: name},
			Current: autoscalingv2.MetricValueStatus{AverageValue: milliQ(averageMilli)},
		},
	}
}

const cpuUtilizationName = "cpu resource utilization (percentage of request)"

var (
	condGotScale = wantCond{autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale",
		"the HPA controller was able to get the target's current scale"}
	condReadyForNewScale = wantCond{autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale",
		"recommended size matches current size"}
	condScaleDownStabilized = wantCond{autoscalingv2.AbleToScale, corev1.ConditionTrue, "ScaleDownStabilized",
		"recent recommendations were higher than current one, applying the highest recent recommendation"}
	condWithinRange = wantCond{autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange",
		"the desired count is within the acceptable range"}
	condNotScaledToZero = wantCond{v2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero",
		"the HPA controller did not scale the workload to zero"}
)

func condRescaled(n int32) wantCond {
	return wantCond{autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale",
		fmt.Sprintf("the HPA controller was able to update the target scale to %d", n)}
}

func condValidMetric(metric string) wantCond {
	return wantCond{autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
		"the HPA was able to successfully calculate a replica count from " + metric}
}

func condUnableToCompute(reason, cause string) wantCond {
	return wantCond{autoscalingv2.ScalingActive, corev1.ConditionFalse, reason,
		"the HPA was unable to compute the replica count: " + cause}
}

func condLimited(reason, message string) wantCond {
	return wantCond{autoscalingv2.ScalingLimited, corev1.ConditionTrue, reason, message}
}

func rescaleEvent(n int32, reason string) string {
	return fmt.Sprintf("Normal SuccessfulRescale New size: %d; reason: %s", n, reason)
}

// passesEvery runs n passes of testHPAName, stepping the clock by every before
// each pass but the first, and returns the last pass's error.
func passesEvery(n int, every time.Duration) func(h *harness) error {
	return func(h *harness) error {
		var err error
		for i := range n {
			if i > 0 {
				h.clock.Step(every)
			}
			err = h.reconcile(testHPAName)
		}
		return err
	}
}

// afterStart returns testStart + d, for lastScaleTime expectations.
func afterStart(d time.Duration) time.Time { return testStart.Add(d) }

// metaAfterStart is a metav1.Time at testStart + d.
func metaAfterStart(d time.Duration) *metav1.Time { t := metav1.NewTime(afterStart(d)); return &t }

// storedReplicas stores status.currentReplicas and desiredReplicas, as a
// previous pass left them; the metric computation labels compare each
// proposal with status.currentReplicas.
func storedReplicas(n int32) func(*harness) {
	return storedStatus(func(st *v2.HorizontalPodAutoscalerStatus) {
		st.CurrentReplicas, st.DesiredReplicas = n, n
	})
}

// noDownscaleStabilizationWindow is a controller whose legacy downscale window is
// zero, so that one pass can scale down.
var noDownscaleStabilizationWindow = harnessOptions{downscaleStabilizationWindow: ptr.To(time.Duration(0))}

// targetRef is how errors name the test target.
const targetRef = "Deployment/default/web"

// metricsFailureMsg is the error a pass returns when the metrics decided no
// count.
func metricsFailureMsg(invalid, total int, first string) string {
	return fmt.Sprintf("failed to compute desired number of replicas based on listed metrics for %s: invalid metrics (%d invalid out of %d), first error is: %s",
		targetRef, invalid, total, first)
}

func invalidMetricsMsg(invalid, total int, first string) string {
	return fmt.Sprintf("invalid metrics (%d invalid out of %d), first error is: %s", invalid, total, first)
}

// addScale stores the scale of another Deployment (name) in namespace.
func addScale(h *harness, namespace, name string, replicas int32, selector string) {
	h.scales.mu.Lock()
	defer h.scales.mu.Unlock()
	h.scales.scales[namespace+"/"+name] = &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: "1"},
		Spec:       autoscalingv1.ScaleSpec{Replicas: replicas},
		Status:     autoscalingv1.ScaleStatus{Replicas: replicas, Selector: selector},
	}
}

// forgetObservations drops what the fakes recorded so far, so that a
// scenario's outcome describes only the passes after it.
func forgetObservations(h *harness) {
	h.events()
	h.monitor.mu.Lock()
	h.monitor.reconciliations, h.monitor.computations = nil, nil
	h.monitor.mu.Unlock()
	h.scales.mu.Lock()
	h.scales.updates = nil
	h.scales.mu.Unlock()
	h.source.mu.Lock()
	h.source.statusUpdates = 0
	h.source.mu.Unlock()
	h.metrics.ResetRequests()
}

// reconcileOther runs one pass of another HPA and fails the test on a
// panic only; its outcome is not the scenario's.
func reconcileOther(h *harness, namespace, name string) {
	_, _, _ = h.c.reconcileKey(h.ctx, hpaKey{namespace: namespace, name: name})
}

// addOtherHPA stores and registers an HPA other than the one under test.
func addOtherHPA(h *harness, namespace, name, target string, minReplicas, maxReplicas int32, metrics ...v2.MetricSpec) {
	hpa := newHPA(minReplicas, maxReplicas, metrics...)
	hpa.Namespace, hpa.Name, hpa.UID = namespace, name, types.UID("uid-"+name)
	hpa.Spec.ScaleTargetRef.Name = target
	h.source.set(hpa)
	h.c.onAdd(0, hpa)
}

// versionedScales wraps the harness's scales with resource versions, as
// the API server checks them: an update must carry the version of the
// latest write. concurrentWrites updates are each preceded by another
// writer's change, which sets the replicas to concurrentReplicas when that
// is set; Gets after failGetsAfter fail.
type versionedScales struct {
	f                  *fakeScales
	mu                 sync.Mutex
	version            int
	gets               int
	concurrentWrites   int
	concurrentReplicas *int32
	failGetsAfter      int
}

func (v *versionedScales) Scales(namespace string) scale.ScaleInterface {
	return &versionedNamespacedScales{v: v, inner: v.f.Scales(namespace)}
}

type versionedNamespacedScales struct {
	v     *versionedScales
	inner scale.ScaleInterface
}

func (n *versionedNamespacedScales) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	n.v.mu.Lock()
	defer n.v.mu.Unlock()
	n.v.gets++
	if n.v.failGetsAfter > 0 && n.v.gets > n.v.failGetsAfter {
		return nil, errBoom
	}
	s, err := n.inner.Get(ctx, gr, name, opts)
	if err == nil {
		s.ResourceVersion = fmt.Sprint(n.v.version)
	}
	return s, err
}

func (n *versionedNamespacedScales) Update(ctx context.Context, gr schema.GroupResource, s *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	n.v.mu.Lock()
	defer n.v.mu.Unlock()
	if n.v.concurrentWrites > 0 {
		n.v.concurrentWrites--
		n.v.version++
		if n.v.concurrentReplicas != nil {
			n.v.f.mu.Lock()
			n.v.f.scales[testNamespace+"/"+s.Name].Spec.Replicas = *n.v.concurrentReplicas
			n.v.f.mu.Unlock()
		}
	}
	if s.ResourceVersion != fmt.Sprint(n.v.version) {
		return nil, apierrors.NewConflict(gr, s.Name, errors.New("the object has been modified"))
	}
	out, err := n.inner.Update(ctx, gr, s, opts)
	if err == nil {
		n.v.version++
	}
	return out, err
}

func (n *versionedNamespacedScales) Patch(ctx context.Context, gvr schema.GroupVersionResource, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (*autoscalingv1.Scale, error) {
	return n.inner.Patch(ctx, gvr, name, pt, data, opts)
}

// versioned installs resource-version checks on h's scales.
func versioned(configure func(v *versionedScales)) func(*harness) {
	return func(h *harness) {
		v := &versionedScales{f: h.scales}
		configure(v)
		h.c.opts.ScaleClient = v
	}
}
