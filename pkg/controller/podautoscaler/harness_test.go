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
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// The harness builds a Controller from fakes of every seam: an HPA source,
// a scale client, a metrics client, a pod cache, an event recorder, a
// monitor and a clock. Tests drive it with reconcileKey and read the fakes.

const (
	testNamespace = "default"
	testHPAName   = "web"
	testTarget    = "web"
	testSelector  = "app=web"
)

var (
	deploymentsGR = schema.GroupResource{Group: "apps", Resource: "deployments"}
	testStart     = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
)

type harness struct {
	t        *testing.T
	ctx      context.Context
	clock    *clocktesting.FakeClock
	metrics  *metricstest.Client
	source   *fakeSource
	scales   *fakeScales
	recorder *record.FakeRecorder
	monitor  *fakeMonitor
	gates    featuregate.MutableVersionedFeatureGate
	pods     cache.Indexer
	c        *Controller
}

// harnessOptions changes the controller's settings from kube-controller-
// manager's defaults.
type harnessOptions struct {
	tolerance                    *float64
	downscaleStabilizationWindow *time.Duration
	gates                        map[featuregate.Feature]bool
	// sharingWindow, when set, puts the binary's shared external metric
	// fetches (metrics.NewSharedExternal) in front of the fake metrics.
	sharingWindow time.Duration
	// spread turns on SpreadReconciles.
	spread bool
	// syncPeriod, when set, replaces the 15s default.
	syncPeriod time.Duration
	// wrapMetrics, when set, stands between the controller and the fake
	// metrics.
	wrapMetrics func(metrics.Client) metrics.Client
	// inScope, when set, is the controller's InScope.
	inScope func(namespace string) bool
	// fence, when set, is the controller's Fence.
	fence Fence
	// observed, when set, is the controller's Observed.
	observed []ObservedAutoscalers
}

func newHarness(t *testing.T, hpa *v2.HorizontalPodAutoscaler, opts harnessOptions) *harness {
	t.Helper()
	_, ctx := ktesting.NewTestContext(t)
	h := &harness{
		t:        t,
		ctx:      ctx,
		clock:    clocktesting.NewFakeClock(testStart),
		metrics:  metricstest.NewClient(),
		source:   newFakeSource(),
		scales:   newFakeScales(),
		recorder: record.NewFakeRecorder(100),
		monitor:  &fakeMonitor{},
		gates:    features.NewFeatureGate(),
	}
	// Panics recovered below the harness's context are counted where the
	// binary counts them.
	h.ctx = goroutine.WithObserver(ctx, h.monitor)
	for gate, on := range opts.gates {
		if err := h.gates.SetFromMap(map[string]bool{string(gate): on}); err != nil {
			t.Fatalf("setting gate %s: %v", gate, err)
		}
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	podInformer := factory.Core().V1().Pods()
	h.pods = podInformer.Informer().GetIndexer()

	controllerOpts := Options{
		Sources:                      []HPASource{h.source},
		PodInformer:                  podInformer,
		ScaleClient:                  h.scales,
		Mapper:                       testMapper(),
		MetricsClient:                h.metrics,
		EventRecorder:                h.recorder,
		Monitor:                      h.monitor,
		Clock:                        h.clock,
		Gates:                        h.gates,
		SyncPeriod:                   15 * time.Second,
		Tolerance:                    0.1,
		DownscaleStabilizationWindow: 5 * time.Minute,
		CPUInitializationPeriod:      5 * time.Minute,
		InitialReadinessDelay:        30 * time.Second,
	}
	if opts.tolerance != nil {
		controllerOpts.Tolerance = *opts.tolerance
	}
	if opts.downscaleStabilizationWindow != nil {
		controllerOpts.DownscaleStabilizationWindow = *opts.downscaleStabilizationWindow
	}
	controllerOpts.SpreadReconciles = opts.spread
	controllerOpts.InScope = opts.inScope
	controllerOpts.Fence = opts.fence
	controllerOpts.Observed = opts.observed
	if opts.sharingWindow > 0 {
		controllerOpts.MetricsClient = metrics.NewSharedExternal(h.metrics, opts.sharingWindow, h.clock)
	}
	if opts.syncPeriod > 0 {
		controllerOpts.SyncPeriod = opts.syncPeriod
	}
	if opts.wrapMetrics != nil {
		controllerOpts.MetricsClient = opts.wrapMetrics(controllerOpts.MetricsClient)
	}
	c, err := New(controllerOpts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.c = c
	if hpa != nil {
		h.addHPA(hpa)
	}
	return h
}

func testMapper() apimeta.RESTMapper {
	m := apimeta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}, {Version: "v1"}})
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, apimeta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "", Version: "v1", Kind: "ReplicationController"}, apimeta.RESTScopeNamespace)
	return m
}

// addHPA stores hpa in the fake source and registers it as the informer
// handler would.
func (h *harness) addHPA(hpa *v2.HorizontalPodAutoscaler) {
	h.source.set(hpa)
	h.c.onAdd(0, hpa)
}

func (h *harness) key(name string) hpaKey {
	return hpaKey{source: 0, namespace: testNamespace, name: name}
}

// reconcile runs one pass over the HPA named name and returns its error.
func (h *harness) reconcile(name string) error {
	h.t.Helper()
	_, _, err := h.c.reconcileKey(h.ctx, h.key(name))
	return err
}

// hpa returns the HPA as last written by the controller.
func (h *harness) hpa(name string) *v2.HorizontalPodAutoscaler {
	h.t.Helper()
	hpa, ok, _ := h.source.Get(testNamespace, name)
	if !ok {
		h.t.Fatalf("HPA %s not found", name)
	}
	return hpa
}

// events drains and returns the recorded events as "Type Reason Message".
func (h *harness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// addPods adds n running, ready pods of the target, each requesting
// cpuRequest millicores, started long enough ago that neither the CPU
// initialization period nor the readiness delay applies.
func (h *harness) addPods(n int, cpuRequest int64) {
	for i := range n {
		h.addPod(readyPod(fmt.Sprintf("web-%d", i), cpuRequest, testStart.Add(-time.Hour)))
	}
}

// addPod stores the pod as the informer holds it: its record (podrecord).
func (h *harness) addPod(pod *corev1.Pod) {
	if err := h.pods.Add(podrecord.FromPod(pod)); err != nil {
		h.t.Fatalf("adding pod: %v", err)
	}
	// The informer is never started, so its handlers would not hear of it.
	h.c.selectors.podChanged(pod.Namespace, nil, labels.Set(pod.Labels))
}

func readyPod(name string, cpuRequestMilli int64, started time.Time) *corev1.Pod {
	start := metav1.NewTime(started)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewMilliQuantity(cpuRequestMilli, resource.DecimalSI),
			}},
		}}},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			StartTime: &start,
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start,
			}},
		},
	}
}

// newHPA returns an HPA of the extended kind targeting the test Deployment.
func newHPA(minReplicas, maxReplicas int32, metrics ...v2.MetricSpec) *v2.HorizontalPodAutoscaler {
	return &v2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: testHPAName, UID: types.UID("hpa-uid")},
		Spec: v2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: testTarget},
			MinReplicas:    ptr.To(minReplicas),
			MaxReplicas:    maxReplicas,
			Metrics:        metrics,
		},
	}
}

func cpuUtilization(percent int32) v2.MetricSpec {
	return v2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)},
		},
	}
}

func externalValue(name string, value string) v2.MetricSpec {
	q := resource.MustParse(value)
	return v2.MetricSpec{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricSource{
			Metric: v2.MetricIdentifier{Name: name},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &q},
		},
	}
}

func externalAverage(name string, averageValue string) v2.MetricSpec {
	q := resource.MustParse(averageValue)
	return v2.MetricSpec{
		Type: autoscalingv2.ExternalMetricSourceType,
		External: &v2.ExternalMetricSource{
			Metric: v2.MetricIdentifier{Name: name},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
		},
	}
}

func withFallback(m v2.MetricSpec, seconds int64, replicas int32) v2.MetricSpec {
	m.External.Fallback = &v2.ExternalMetricFallback{FailureDurationSeconds: ptr.To(seconds), Replicas: replicas}
	return m
}

// cpuMetrics returns per-pod CPU usage (millicores) for pods web-0..n-1.
func cpuMetrics(usage ...int64) metricstest.PodsAnswer {
	info := metrics.PodMetricsInfo{}
	for i, u := range usage {
		info[fmt.Sprintf("web-%d", i)] = metrics.PodMetric{Timestamp: testStart, Window: time.Minute, Value: u}
	}
	return metricstest.PodsAnswer{Metrics: info, Timestamp: testStart}
}

// condition returns the HPA's condition of type t, failing the test when
// it is absent.
func conditionOf(t *testing.T, hpa *v2.HorizontalPodAutoscaler, ct autoscalingv2.HorizontalPodAutoscalerConditionType) autoscalingv2.HorizontalPodAutoscalerCondition {
	t.Helper()
	for _, c := range hpa.Status.Conditions {
		if c.Type == ct {
			return c
		}
	}
	t.Fatalf("condition %s not found in %+v", ct, hpa.Status.Conditions)
	return autoscalingv2.HorizontalPodAutoscalerCondition{}
}

func hasCondition(hpa *v2.HorizontalPodAutoscaler, ct autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, c := range hpa.Status.Conditions {
		if c.Type == ct {
			return true
		}
	}
	return false
}

// fakeSource is an in-memory HPA source.
type fakeSource struct {
	// name is the source's Name; "fake" when empty.
	name          string
	mu            sync.Mutex
	hpas          map[string]*v2.HorizontalPodAutoscaler
	informer      cache.SharedIndexInformer
	statusUpdates int
	updateErr     error
	// statusConflicts status writes fail with a conflict, each after
	// another writer changed the stored status with concurrentStatus.
	statusConflicts  int
	concurrentStatus func(*v2.HorizontalPodAutoscalerStatus)
	latestReads      int
	// statusErrs fail the next status writes in turn, one entry each; a
	// nil entry lets its write through.
	statusErrs []error
	// version counts the status writes, as resourceVersions; the cache
	// has seen them all unless cacheHeldAt holds it at an older one.
	version     int
	cacheHeldAt string
}

func newFakeSource() *fakeSource {
	lw := &cache.ListWatch{}
	return &fakeSource{
		hpas:     map[string]*v2.HorizontalPodAutoscaler{},
		informer: cache.NewSharedIndexInformer(lw, &v2.HorizontalPodAutoscaler{}, 0, cache.Indexers{}),
	}
}

func (s *fakeSource) set(hpa *v2.HorizontalPodAutoscaler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hpas[hpa.Namespace+"/"+hpa.Name] = hpa.DeepCopy()
}

func (s *fakeSource) delete(namespace, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.hpas, namespace+"/"+name)
}

func (s *fakeSource) Name() string {
	if s.name == "" {
		return "fake"
	}
	return s.name
}
func (s *fakeSource) Informer() cache.SharedIndexInformer { return s.informer }

func (s *fakeSource) Get(namespace, name string) (*v2.HorizontalPodAutoscaler, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hpa, ok := s.hpas[namespace+"/"+name]
	if !ok {
		return nil, false, nil
	}
	return hpa.DeepCopy(), true, nil
}

// Latest returns the stored HPA, as a read from the API server would.
func (s *fakeSource) Latest(_ context.Context, namespace, name string) (*v2.HorizontalPodAutoscaler, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latestReads++
	hpa, ok := s.hpas[namespace+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: v2.GroupName, Resource: v2.Resource}, name)
	}
	return hpa.DeepCopy(), nil
}

// UpdateStatus stores the status only, as the status subresource does.
func (s *fakeSource) UpdateStatus(_ context.Context, hpa *v2.HorizontalPodAutoscaler) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.updateErr != nil {
		return "", s.updateErr
	}
	if len(s.statusErrs) > 0 {
		err := s.statusErrs[0]
		s.statusErrs = s.statusErrs[1:]
		if err != nil {
			return "", err
		}
	}
	stored, ok := s.hpas[hpa.Namespace+"/"+hpa.Name]
	if !ok {
		return "", apierrors.NewNotFound(schema.GroupResource{Group: v2.GroupName, Resource: v2.Resource}, hpa.Name)
	}
	if s.statusConflicts > 0 {
		s.statusConflicts--
		if s.concurrentStatus != nil {
			s.concurrentStatus(&stored.Status)
		}
		return "", apierrors.NewConflict(schema.GroupResource{Group: v2.GroupName, Resource: v2.Resource}, hpa.Name, errors.New("the object has been modified"))
	}
	stored.Status = *hpa.Status.DeepCopy()
	s.statusUpdates++
	s.version++
	return strconv.Itoa(s.version), nil
}

// SeenVersion is the last write's version, or where the cache is held.
func (s *fakeSource) SeenVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cacheHeldAt != "" {
		return s.cacheHeldAt
	}
	return strconv.Itoa(s.version)
}

func (s *fakeSource) EventObject(hpa *v2.HorizontalPodAutoscaler) runtime.Object { return hpa }

// fakeScales is an in-memory scale subresource of Deployments.
type fakeScales struct {
	mu      sync.Mutex
	scales  map[string]*autoscalingv1.Scale
	updates []int32
	// conflicts is how many updates fail with a conflict before one
	// succeeds; getErr and updateErr fail every call.
	conflicts int
	getErr    error
	updateErr error
}

func newFakeScales() *fakeScales {
	return &fakeScales{scales: map[string]*autoscalingv1.Scale{}}
}

// setScale sets the target's spec and status replicas and its selector.
func (f *fakeScales) setScale(specReplicas, statusReplicas int32, selector string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scales[testNamespace+"/"+testTarget] = &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: testTarget, ResourceVersion: "1"},
		Spec:       autoscalingv1.ScaleSpec{Replicas: specReplicas},
		Status:     autoscalingv1.ScaleStatus{Replicas: statusReplicas, Selector: selector},
	}
}

func (f *fakeScales) replicas() int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scales[testNamespace+"/"+testTarget].Spec.Replicas
}

func (f *fakeScales) Scales(namespace string) scale.ScaleInterface {
	return &fakeNamespacedScales{f: f, namespace: namespace}
}

type fakeNamespacedScales struct {
	f         *fakeScales
	namespace string
}

func (n *fakeNamespacedScales) Get(_ context.Context, gr schema.GroupResource, name string, _ metav1.GetOptions) (*autoscalingv1.Scale, error) {
	n.f.mu.Lock()
	defer n.f.mu.Unlock()
	if n.f.getErr != nil {
		return nil, n.f.getErr
	}
	s, ok := n.f.scales[n.namespace+"/"+name]
	if !ok || gr != deploymentsGR {
		return nil, apierrors.NewNotFound(gr, name)
	}
	return s.DeepCopy(), nil
}

func (n *fakeNamespacedScales) Update(_ context.Context, gr schema.GroupResource, s *autoscalingv1.Scale, _ metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	n.f.mu.Lock()
	defer n.f.mu.Unlock()
	if n.f.updateErr != nil {
		return nil, n.f.updateErr
	}
	if n.f.conflicts > 0 {
		n.f.conflicts--
		return nil, apierrors.NewConflict(gr, s.Name, fmt.Errorf("the object has been modified"))
	}
	stored := n.f.scales[n.namespace+"/"+s.Name]
	stored.Spec.Replicas = s.Spec.Replicas
	n.f.updates = append(n.f.updates, s.Spec.Replicas)
	return stored.DeepCopy(), nil
}

func (n *fakeNamespacedScales) Patch(context.Context, schema.GroupVersionResource, string, types.PatchType, []byte, metav1.PatchOptions) (*autoscalingv1.Scale, error) {
	return nil, fmt.Errorf("the controller never patches a scale")
}

// fakeMonitor records what the controller reports.
type fakeMonitor struct {
	mu              sync.Mutex
	reconciliations []string // "action/error"
	computations    []string // "action/error/type"
	hpaCount        int
	desired         map[string]int32
	replicas        map[string]monitor.Replicas
	periods         map[string]time.Duration
	fallbacks       map[string]int
	staleSkips      []string // "group/resource"
	deleted         []string
	panics          []string // the names of the recovered panics' work
	// panicOnStaleSkip makes ObserveStaleSyncSkip panic, as a bug in the
	// pass's bookkeeping would.
	panicOnStaleSkip bool
}

var _ monitor.Monitor = &fakeMonitor{}

func (m *fakeMonitor) ObserveReconciliationResult(action monitor.ActionLabel, err monitor.ErrorLabel, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reconciliations = append(m.reconciliations, string(action)+"/"+string(err))
}

func (m *fakeMonitor) ObserveMetricComputationResult(action monitor.ActionLabel, err monitor.ErrorLabel, _ time.Duration, t autoscalingv2.MetricSourceType) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.computations = append(m.computations, string(action)+"/"+string(err)+"/"+string(t))
}

func (m *fakeMonitor) SetHPACount(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hpaCount = n
}

func (m *fakeMonitor) ObserveReplicas(hpa monitor.HPARef, r monitor.Replicas) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.replicas == nil {
		m.replicas = map[string]monitor.Replicas{}
	}
	m.replicas[seriesKey(hpa)] = r
}

// ObserveDesiredReplicas keys the series as namespace/name, with the API
// version appended for any source but the harness's own.
func (m *fakeMonitor) ObserveDesiredReplicas(hpa monitor.HPARef, replicas int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.desired == nil {
		m.desired = map[string]int32{}
	}
	m.desired[seriesKey(hpa)] = replicas
}

func (m *fakeMonitor) ObserveSyncPeriod(hpa monitor.HPARef, period time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.periods == nil {
		m.periods = map[string]time.Duration{}
	}
	m.periods[seriesKey(hpa)] = period
}

// ObserveFallbacks keys the count as ObserveDesiredReplicas does; an HPA
// without a fallback has none.
func (m *fakeMonitor) ObserveFallbacks(hpa monitor.HPARef, withFallback bool, inFallback int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fallbacks == nil {
		m.fallbacks = map[string]int{}
	}
	if !withFallback {
		delete(m.fallbacks, seriesKey(hpa))
		return
	}
	m.fallbacks[seriesKey(hpa)] = inFallback
}

func (m *fakeMonitor) ObserveStaleSyncSkip(group, resource string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.panicOnStaleSkip {
		panic("a bug in the monitor")
	}
	m.staleSkips = append(m.staleSkips, group+"/"+resource)
}

func (m *fakeMonitor) ObservePanic(goroutine string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.panics = append(m.panics, goroutine)
}

func (m *fakeMonitor) recoveredPanics() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.panics)
}

// DeleteHPA drops the HPA's series, as the Prometheus monitor does, and
// records the deletion.
func (m *fakeMonitor) DeleteHPA(hpa monitor.HPARef) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleted = append(m.deleted, seriesKey(hpa))
	delete(m.periods, seriesKey(hpa))
	delete(m.fallbacks, seriesKey(hpa))
}

// fallbackGauge returns the HPA's count of External metrics in fallback,
// and whether it has the series at all.
func (m *fakeMonitor) fallbackGauge(name string) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.fallbacks[testNamespace+"/"+name]
	return n, ok
}

func seriesKey(hpa monitor.HPARef) string {
	key := hpa.Namespace + "/" + hpa.Name
	if hpa.APIVersion != (&fakeSource{}).Name() {
		key += "@" + hpa.APIVersion
	}
	return key
}

var errBoom = errorString("adapter unavailable")

type errorString string

func (e errorString) Error() string { return string(e) }
