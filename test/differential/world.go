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
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing/synctest"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	v1core "k8s.io/client-go/kubernetes/typed/core/v1"
	scalefake "k8s.io/client-go/scale/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/component-base/featuregate"
	kubemetrics "k8s.io/component-base/metrics"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/scalecache"
)

// landAfter is how long after a step's first pass is due a person's scale
// of a Person fault that met no write lands.
const landAfter = time.Second

// The controllers' settings: kube-controller-manager's defaults.
const (
	syncPeriod              = 15 * time.Second
	tolerance               = 0.1
	downscaleWindow         = 5 * time.Minute
	cpuInitializationPeriod = 5 * time.Minute
	initialReadinessDelay   = 30 * time.Second
)

// observation is what a user sees after a step: the target's replicas, the
// HPA's status, and the events recorded during the step, in order; and the
// same of the twin HPA, when the sequence has one (twin.go).
type observation struct {
	Scale  int32
	Status autoscalingv2.HorizontalPodAutoscalerStatus
	Events []string
	Twin   *observation
}

func restMapper() apimeta.RESTMapper {
	m := apimeta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}})
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, apimeta.RESTScopeNamespace)
	return m
}

// controllerKind tells which controller a world runs.
type controllerKind int

const (
	upstreamController controllerKind = iota
	ourController
)

func (k controllerKind) String() string {
	if k == upstreamController {
		return "upstream"
	}
	return "kube-hpa"
}

// ourGates are kube-hpa's gates as shipped, with the KEP gates on: the
// scenarios have no fallback configured, where the KEP changes nothing.
func ourGates() featuregate.FeatureGate {
	gates := features.NewFeatureGate()
	if err := gates.SetFromMap(map[string]bool{string(features.HPAExternalMetricFallback): true, string(features.HPAScaleToZero): true}); err != nil {
		panic(err)
	}
	return gates
}

// run plays the scenario against one controller, in a synctest bubble so
// that time only moves when every goroutine waits: reconciles happen at
// exact multiples of the sync period from the HPA's creation, and each step
// lands halfway between two of them. It returns one observation per step
// and, in kube-hpa's world, what its faults did (faults.go).
//
// kube-hpa runs as shipped, its scale read from a watch of the Deployment
// (the scale cache), its passes spread over the period, and
// its timing is compared as well as its answers: both worlds start on the
// HPA's slot, so that kube-hpa's passes, when on time, must come when
// upstream's do (a pass takes no time in a bubble, so its slots are
// upstream's period after each pass, but for kube-hpa's passes that wait
// for a hanging fetch until its budget, half a period: they must still
// keep upstream's pace, and their outcome is observed at the step's end,
// where that budget ends).
// Both reconcile a new HPA at once (v1.37); the HPA is created once their
// caches have synced, on its slot, so that both passes come then. That
// pass meets a target the first step has not created yet, and the events
// before the first step are not compared.
func (s seqScenario) run(kind controllerKind) ([]observation, faultLog, error) {
	events := &eventLog{}
	ctx, cancel := context.WithCancel(eventLogContext(context.Background(), events))
	defer cancel()
	// NewClientset's field-managed tracker builds a REST mapper of every
	// built-in type on each request, which is most of a run's time; the
	// plain tracker is all a controller needs.
	client := fake.NewSimpleClientset() //nolint:staticcheck // see above
	uniqueEventNames(client)
	hpaWatch := newHPAWatch()
	storeHPAsAsTheAPIServer(client, hpaWatch)
	hpaWatch.install(client)
	scales := &scaleStore{name: "web", app: appLabel, replicas: s.Start, tracker: client.Tracker()}
	stores := []*scaleStore{scales}
	var twinScales *scaleStore
	if s.Twin != nil {
		twinScales = &scaleStore{name: "twin", app: twinLabel, replicas: s.Twin.Start, tracker: client.Tracker()}
		stores = append(stores, twinScales)
	}
	if kind == ourController {
		scales.faults = &armedFaults{}
		loseStatusUpdates(client, scales.faults, hpaWatch)
	}
	fails := &statusFailures{}
	failStatusUpdates(client, fails)
	scales.landed = fails.scaledTo
	f := newFakeMetrics()
	if scales.faults != nil {
		f.hung = scales.faults.hung
	}
	ourSkips := &atomic.Int64{}
	api := scaleClient(stores...)
	// The controller's run: the first, and one more per handover
	// (handover.go).
	current, err := s.newInstance(ctx, kind, client, api, f, ourSkips)
	if err != nil {
		return nil, faultLog{}, err
	}
	current.start()
	defer func() { current.stop() }()

	// The caches sync (their waits poll) well within a period; the HPA
	// appears on its first slot after that.
	time.Sleep(podautoscaler.SpreadOffset(0, s.hpa(), syncPeriod) + syncPeriod)
	synctest.Wait()
	t0 := time.Now()
	for _, hpa := range s.hpas() {
		if _, err := client.AutoscalingV2().HorizontalPodAutoscalers(namespace).Create(ctx, hpa, metav1.CreateOptions{}); err != nil {
			return nil, faultLog{}, err
		}
	}
	// Halfway to the next reconcile.
	time.Sleep(syncPeriod / 2)
	synctest.Wait()
	events.forget()
	var out []observation
	landed, statusMet := make([]bool, len(s.Steps)), make([]bool, len(s.Steps))
	lagSteps, upstreamSkips, handovers := 0, 0, 0
	for i, st := range s.Steps {
		f.settle()
		handover := st.Fault != nil && st.Fault.Handover
		if handover {
			// Halfway between two passes: the old instance stops
			// (handover.go).
			current.stop()
		}
		if err := s.apply(ctx, st, client, scales, twinScales, f); err != nil {
			return nil, faultLog{}, err
		}
		if st.Fault != nil && st.Fault.StatusWriter == statusWriterBefore {
			if err := writeCompetingStatus(client.Tracker(), hpaWatch); err != nil {
				return nil, faultLog{}, err
			}
		}
		lagged := st.Fault != nil && st.Fault.HPALag
		if lagged {
			// What was written before the step reaches the watch first.
			synctest.Wait()
			hpaWatch.hold()
		}
		if scales.faults != nil {
			scales.faults.arm(st.Fault)
		}
		fails.arm(st.Fault)
		synctest.Wait()
		untilLand := syncPeriod/2 + landAfter
		if handover {
			// The new controller starts when the step's first pass is
			// due, and makes it.
			due := s.untilSlot(time.Now())
			if due != syncPeriod/2 {
				// The steps start halfway between passes on the slot.
				return nil, faultLog{}, fmt.Errorf("handover at step %d: the HPA's slot is %s away, not half a period", i, due)
			}
			time.Sleep(due)
			next, err := s.newInstance(ctx, kind, client, api, f, ourSkips)
			if err != nil {
				return nil, faultLog{}, err
			}
			current = next
			// Its caches sync at this instant, before its workers start.
			synctest.Wait()
			current.start()
			handovers++
			untilLand -= due
		}
		// Past the step's first pass: a person's scale that no update of
		// that pass met lands now, in both worlds.
		time.Sleep(untilLand)
		synctest.Wait()
		f.settle()
		var err error
		if landed[i], err = s.landPerson(st, scales); err != nil {
			return nil, faultLog{}, err
		}
		if statusMet[i], err = s.landStatusWriter(st, client.Tracker(), hpaWatch, scales.faults); err != nil {
			return nil, faultLog{}, err
		}
		rest := time.Duration(st.Advance)*syncPeriod - syncPeriod/2 - landAfter
		if lagged {
			// Past the step's second pass, which found the cache behind
			// the first one's status write.
			reads := readCounts(stores)
			time.Sleep(syncPeriod)
			synctest.Wait()
			f.settle()
			hpaWatch.release()
			rest -= syncPeriod
			lagSteps++
			if kind == upstreamController {
				upstreamSkips += staleSkipsOf(stores, reads)
			}
		}
		time.Sleep(rest)
		synctest.Wait()
		f.settle()
		o, err := observe(ctx, client, scales, twinScales, t0, events)
		if err != nil {
			return nil, faultLog{}, err
		}
		out = append(out, o)
	}
	log := faultLog{landed: landed, statusMet: statusMet}
	if scales.faults != nil {
		log.tally = scales.faults.tally()
	}
	for _, st := range stores {
		log.tally.ScaleGets += st.readCount()
	}
	log.tally.StatusFail = fails.counts()
	log.tally.HPALag = lagSteps
	log.tally.StaleSkips = upstreamSkips + int(ourSkips.Load())
	log.tally.Handovers, log.tally.HandoversArmed = handovers, s.handovers()
	f.mu.Lock()
	log.externalFetches = f.externalFetches
	log.tally.SlowAnswers, log.tally.SlowFetchArmed = f.slowAnswers, s.slowFetches()
	f.mu.Unlock()
	return out, log, nil
}

// workers is how many workers each controller runs: both controllers'
// default (--concurrent-horizontal-pod-autoscaler-syncs), so that the
// twin's pass never waits for the first HPA's, whose fetch may hang until
// kube-hpa's budget, and kube-hpa's slow lane (package cadence) moves both
// HPAs off the workers when both wait for a hanging resource metric.
const workers = 5

// controller builds the controller of kind in its world and returns the
// function that runs it.
func (s seqScenario) controller(ctx context.Context, kind controllerKind, client *fake.Clientset, factory informers.SharedInformerFactory, scales *scalefake.FakeScaleClient, f *fakeMetrics, skips *atomic.Int64) (func(), error) {
	hpaInformer := factory.Autoscaling().V2().HorizontalPodAutoscalers()
	podInformer := factory.Core().V1().Pods()
	if kind == upstreamController {
		c := newUpstreamController(ctx, client, scales, upstreamClient{f}, factory, downscaleWindow+s.windowNudge)
		return func() { c.Run(ctx, workers) }, nil
	}
	// As shipped: the scale read from a watch of the Deployment (the
	// scale cache), written through the scale subresource.
	scaleCache := scalecache.New(scalecache.Options{Client: scales, Kube: client})
	// Until the cache runs, its reads go to the API. It runs from here,
	// before the workers start, so that its watch starts at the first
	// read, not at whichever of a first read and the cache's start the
	// scheduler runs first: a handover's instance passes as it starts
	// (handover.go), and a conflict's next read stays with the API until
	// the watch has synced.
	cacheDone := make(chan struct{})
	go func() { defer close(cacheDone); scaleCache.Run(ctx) }()
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartStructuredLogging(eventLoggingLevel)
	broadcaster.StartRecordingToSink(&v1core.EventSinkImpl{Interface: client.CoreV1().Events("")})
	// As shipped: shared external fetches (a window of the period).
	c, err := podautoscaler.New(podautoscaler.Options{
		Sources:                      []podautoscaler.HPASource{hpaclient.NewNativeSource(client.AutoscalingV2(), hpaInformer.Informer())},
		PodInformer:                  podInformer,
		ScaleClient:                  scaleCache,
		Mapper:                       restMapper(),
		MetricsClient:                metrics.NewSharedExternal(ourClient{f}, syncPeriod, clock.RealClock{}),
		EventRecorder:                broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "horizontal-pod-autoscaler"}),
		Monitor:                      skipCounter{Monitor: monitor.New(kubemetrics.NewKubeRegistry()), skips: skips},
		Clock:                        clock.RealClock{},
		Gates:                        ourGates(),
		SyncPeriod:                   syncPeriod,
		Tolerance:                    tolerance,
		DownscaleStabilizationWindow: downscaleWindow + s.windowNudge,
		CPUInitializationPeriod:      cpuInitializationPeriod,
		InitialReadinessDelay:        initialReadinessDelay,
		// As shipped, but in the sequences with slow fetches
		// (slowfetch.go): unspread, kube-hpa's period counts from the
		// pass's end, as upstream's does, so that a pass that waited
		// moves the next one by as much in both worlds.
		SpreadReconciles: s.spreads(),
	})
	if err != nil {
		return nil, err
	}
	return func() {
		defer func() { <-cacheDone }()
		c.Run(ctx, workers)
	}, nil
}

// hpas are the HPAs of the world: the first and, when the sequence has
// one, the twin.
func (s seqScenario) hpas() []*autoscalingv2.HorizontalPodAutoscaler {
	out := []*autoscalingv2.HorizontalPodAutoscaler{s.hpa()}
	if s.Twin != nil {
		out = append(out, s.twinView().hpaNamed("twin"))
	}
	return out
}

// faultLog is what the faults of kube-hpa's world did: whether each step's
// Person fault landed inside a pass, and the tally.
type faultLog struct {
	landed []bool
	// statusMet: the step's competing status writer met a status update
	// of kube-hpa's first pass.
	statusMet []bool
	tally     faultTally
	// upstreamScaleGets are upstream's scale reads of the same sequence,
	// upstreamStaleSkips its passes skipped as stale, upstreamHandovers
	// the handovers its world made.
	upstreamScaleGets, upstreamStaleSkips, upstreamHandovers int
	// upstreamSlowAnswers are the slow fetches upstream's world answered.
	upstreamSlowAnswers int
	// externalFetches counts the world's fetches of External metrics.
	externalFetches int
}

// landPerson makes, right after the step's first pass, the person's change
// of st's Person fault that did not land inside that pass, lets the watch
// see a change a Lag fault held back, and reports whether the person's
// change (a Person's or a lagging Manual's) met a write of that pass.
func (s seqScenario) landPerson(st step, scales *scaleStore) (bool, error) {
	if scales.faults != nil {
		if err := scales.release(); err != nil {
			return false, err
		}
		p, landed := scales.faults.unlanded()
		if p != nil {
			return landed, scales.set(p.replicas, p.recreate)
		}
		return landed, nil
	}
	if st.Fault != nil && st.Fault.Person {
		return false, scales.set(st.Fault.PersonReplicas, st.Fault.Recreate)
	}
	return false, nil
}

// apply makes the world what the step says: the targets, the person's
// change of the first, the pods and the metrics' answers.
func (s seqScenario) apply(ctx context.Context, st step, client *fake.Clientset, scales, twinScales *scaleStore, f *fakeMetrics) error {
	now := time.Now()
	if err := scales.create(); err != nil {
		return err
	}
	if twinScales != nil {
		if err := twinScales.create(); err != nil {
			return err
		}
	}
	if st.Manual >= 0 {
		if st.Fault != nil && st.Fault.Lag {
			scales.hold()
		}
		if err := scales.set(st.Manual, st.Fault != nil && st.Fault.Recreate); err != nil {
			return err
		}
	}
	if err := applyPods(ctx, client, st, now); err != nil {
		return err
	}
	s.applyMetrics(st, f, now)
	return nil
}

// applyPods makes the pods of both targets those of the step.
func applyPods(ctx context.Context, client *fake.Clientset, st step, now time.Time) error {
	pods := client.CoreV1().Pods(namespace)
	existing, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	want := make([]*corev1.Pod, 0, len(st.Pods)+len(st.TwinPods))
	for _, p := range st.Pods {
		want = append(want, p.object(now))
	}
	for _, p := range st.TwinPods {
		want = append(want, p.objectOf(twinLabel, now))
	}
	keep := map[string]bool{}
	for _, obj := range want {
		keep[obj.Name] = true
		if slices.ContainsFunc(existing.Items, func(e corev1.Pod) bool { return e.Name == obj.Name }) {
			_, err = pods.Update(ctx, obj, metav1.UpdateOptions{})
		} else {
			_, err = pods.Create(ctx, obj, metav1.CreateOptions{})
		}
		if err != nil {
			return err
		}
	}
	for _, e := range existing.Items {
		if !keep[e.Name] {
			if err := pods.Delete(ctx, e.Name, metav1.DeleteOptions{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyMetrics sets the answers of the metrics of both HPAs: the twin's own
// first, so that the first HPA's errors and hangs of a resource metric of
// the same name win (a resource metric reads the same for every HPA).
func (s seqScenario) applyMetrics(st step, f *fakeMetrics, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	readings := map[string]podReading{}
	add := func(pods []pod, app string) {
		for _, p := range pods {
			if p.HasMetric {
				readings[p.Name] = podReading{value: p.Metric, timestamp: now.Add(-time.Duration(p.MetricAgo) * time.Second), window: time.Duration(p.Window) * time.Second, app: app}
			}
		}
	}
	add(st.Pods, appLabel)
	add(st.TwinPods, twinLabel)
	if s.Twin != nil {
		for k, m := range s.Twin.Own {
			var value int64 // a pod metric's row may leave it out
			if k < len(st.TwinValues) {
				value = st.TwinValues[k]
			}
			f.set(m, value, readings, now, nil, false)
		}
	}
	for i, m := range s.Metrics {
		var err error
		if slices.Contains(st.Errs, i) {
			err = errAdapter
		}
		f.set(m, st.Values[i], readings, now, err, st.Fault != nil && slices.Contains(st.Fault.Hang, i))
		if st.Fault != nil && slices.Contains(st.Fault.SlowFetch, i) {
			f.slow(m)
		}
	}
}

// slow makes the answer of metric m, set for the step, a slow one
// (slowfetch.go). The caller holds f.mu.
func (f *fakeMetrics) slow(m metricSpec) {
	switch m.Type {
	case "Resource", "ContainerResource":
		a := f.resource[corev1.ResourceName(m.Name)]
		a.slow = true
		f.resource[corev1.ResourceName(m.Name)] = a
	case "Pods":
		a := f.pods[m.Name]
		a.slow = true
		f.pods[m.Name] = a
	case "Object":
		a := f.object[m.Name]
		a.slow = true
		f.object[m.Name] = a
	default:
		a := f.external[m.Name]
		a.slow = true
		f.external[m.Name] = a
	}
}

// set makes the answer of metric m: value for an Object or External one,
// readings for a pod metric, failing with err or hanging. The caller holds
// f.mu.
func (f *fakeMetrics) set(m metricSpec, value int64, readings map[string]podReading, now time.Time, err error, hang bool) {
	switch m.Type {
	case "Resource", "ContainerResource":
		// Both resource metrics of one name read the same; the error (or
		// hang) of the last one wins.
		f.resource[corev1.ResourceName(m.Name)] = podAnswer{readings: readings, err: err, hang: hang}
	case "Pods":
		f.pods[m.Name] = podAnswer{readings: readings, err: err, hang: hang}
	case "Object":
		f.object[m.Name] = objectAnswer{value: value, timestamp: now, err: err, hang: hang}
	default:
		f.external[m.Name] = externalAnswer{values: []int64{value}, timestamp: now, err: err, hang: hang}
	}
}

// observe is what a user sees of the HPAs after a step, the events recorded
// during the step included.
func observe(ctx context.Context, client *fake.Clientset, scales, twinScales *scaleStore, t0 time.Time, events *eventLog) (observation, error) {
	o, err := observeHPA(ctx, client, scales, t0, events)
	if err != nil || twinScales == nil {
		return o, err
	}
	twin, err := observeHPA(ctx, client, twinScales, t0, events)
	o.Twin = &twin
	return o, err
}

// observeHPA is what a user sees of the HPA named after the target of
// scales.
func observeHPA(ctx context.Context, client *fake.Clientset, scales *scaleStore, t0 time.Time, events *eventLog) (observation, error) {
	hpa, err := client.AutoscalingV2().HorizontalPodAutoscalers(namespace).Get(ctx, scales.name, metav1.GetOptions{})
	if err != nil {
		return observation{}, err
	}
	return observation{Scale: scales.get(), Status: *relativeTimes(hpa.Status.DeepCopy(), t0), Events: events.take(scales.name)}, nil
}

// relativeTimes makes the status' times relative to the world's start, so
// that two worlds compare.
func relativeTimes(st *autoscalingv2.HorizontalPodAutoscalerStatus, t0 time.Time) *autoscalingv2.HorizontalPodAutoscalerStatus {
	rel := func(t metav1.Time) metav1.Time {
		if t.IsZero() {
			return t
		}
		return metav1.NewTime(time.Unix(0, 0).UTC().Add(t.Sub(t0)))
	}
	if st.LastScaleTime != nil {
		t := rel(*st.LastScaleTime)
		st.LastScaleTime = &t
	}
	for i := range st.Conditions {
		st.Conditions[i].LastTransitionTime = rel(st.Conditions[i].LastTransitionTime)
	}
	return st
}

func (o observation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scale=%d current=%d desired=%d", o.Scale, o.Status.CurrentReplicas, o.Status.DesiredReplicas)
	if o.Status.LastScaleTime != nil {
		fmt.Fprintf(&b, " lastScale=+%s", o.Status.LastScaleTime.Sub(time.Unix(0, 0)))
	}
	b.WriteString("\n      metrics: ")
	b.WriteString(metricsText(o.Status.CurrentMetrics))
	for _, c := range o.Status.Conditions {
		fmt.Fprintf(&b, "\n      %s=%s %s %q (+%s)", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.Sub(time.Unix(0, 0)))
	}
	for _, e := range o.Events {
		b.WriteString("\n      event ")
		b.WriteString(e)
	}
	if o.Twin != nil {
		b.WriteString("\n      twin: ")
		b.WriteString(strings.ReplaceAll(o.Twin.String(), "\n      ", "\n        "))
	}
	return b.String()
}
