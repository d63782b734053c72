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

package integration

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/scale"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics/metricstest"
	"github.com/kube-hpa/kube-hpa/pkg/features"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// The TestSafety tests pin that the controller never writes a decision
// over a state newer than the one it decided from: not a scale over a
// person's, a rollout's or a recreated target's, not a status over
// another writer's. Each expectation is what upstream's
// kube-controller-manager, which GETs the scale at every pass and sends its
// update with that GET's resourceVersion, ends with for the same sequence.
//
// The HPAs use zeroHPA's AverageValue External metric (10 per replica), so
// that a count follows from the metric alone and not from which pods the
// Deployment controller has made ready by the time of the pass.

// guardedScales stands between the controller and the scale cache. A held
// Deployment answers Get with the scale snapshotted when it was held, as a
// watch that has not delivered the changes since would (old
// resourceVersion and UID), until an update of it conflicts: the scale
// cache then reads the API, and so does this. Updates are forwarded and
// counted; before runs ahead of each, after behind each one that succeeded.
type guardedScales struct {
	scale.ScalesGetter
	before, after func(ctx context.Context, ns string, sc *autoscalingv1.Scale)

	mu        sync.Mutex
	held      map[string]*autoscalingv1.Scale
	conflicts int
	written   []int32
}

func (g *guardedScales) Scales(ns string) scale.ScaleInterface {
	return guardedScaleInterface{ScaleInterface: g.ScalesGetter.Scales(ns), g: g, ns: ns}
}

// hold snapshots the Deployment's scale as the controller would read it now.
func (g *guardedScales) hold(ctx context.Context, t *testing.T, ns, name string) *autoscalingv1.Scale {
	t.Helper()
	s, err := g.ScalesGetter.Scales(ns).Get(ctx, deploymentsGR, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held = map[string]*autoscalingv1.Scale{ns + "/" + name: s}
	return s
}

// stats returns the conflicts so far and the replicas of the updates that
// succeeded, in order.
func (g *guardedScales) stats() (int, []int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.conflicts, slices.Clone(g.written)
}

type guardedScaleInterface struct {
	scale.ScaleInterface
	g  *guardedScales
	ns string
}

func (s guardedScaleInterface) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	s.g.mu.Lock()
	held := s.g.held[s.ns+"/"+name]
	s.g.mu.Unlock()
	if held != nil && gr == deploymentsGR {
		return held.DeepCopy(), nil
	}
	return s.ScaleInterface.Get(ctx, gr, name, opts)
}

func (s guardedScaleInterface) Update(ctx context.Context, gr schema.GroupResource, sc *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	if s.g.before != nil {
		s.g.before(ctx, s.ns, sc)
	}
	out, err := s.ScaleInterface.Update(ctx, gr, sc, opts)
	s.g.mu.Lock()
	switch {
	case apierrors.IsConflict(err):
		s.g.conflicts++
		delete(s.g.held, s.ns+"/"+sc.Name)
	case err == nil:
		s.g.written = append(s.g.written, sc.Spec.Replicas)
	}
	s.g.mu.Unlock()
	if err == nil && s.g.after != nil {
		s.g.after(ctx, s.ns, out)
	}
	return out, err
}

// startGuarded starts the controller reading scales from the watch (the
// scale cache), through g.
func startGuarded(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, kube kubernetes.Interface, ns string, fake *metricstest.Client, g *guardedScales) *controllerEnv {
	t.Helper()
	return startGuardedThrough(ctx, t, cluster, kube, ns, fake, g, nil)
}

// startGuardedThrough is startGuarded with the controller's HPA requests
// sent through wrapHPAs.
func startGuardedThrough(ctx context.Context, t *testing.T, cluster *localcluster.Cluster, kube kubernetes.Interface, ns string, fake *metricstest.Client, g *guardedScales, wrapHPAs func(http.RoundTripper) http.RoundTripper) *controllerEnv {
	t.Helper()
	gates := features.NewFeatureGate()
	if err := gates.SetFromMap(map[string]bool{string(features.HPAScaleToZero): true}); err != nil {
		t.Fatal(err)
	}
	return startController(ctx, t, cluster, controllerOptions{
		namespace: ns, clock: clockAtSecond(), metrics: fake, gates: gates, wrapHPAs: wrapHPAs,
		wrapScales: func(s scale.ScalesGetter) scale.ScalesGetter {
			g.ScalesGetter = startScaleCache(ctx, t, kube, ns, s)
			return g
		},
	})
}

// setReplicas is a person's kubectl scale, from any goroutine.
func setReplicas(ctx context.Context, kube kubernetes.Interface, ns, name string, replicas int32) error {
	s := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
	_, err := kube.AppsV1().Deployments(ns).UpdateScale(ctx, name, s, metav1.UpdateOptions{})
	return err
}

// hpaState is the HPA's replicas and the reasons of its conditions; ok
// when it says current = desired = replicas with the reasons of want.
func hpaState(ctx context.Context, hpas *hpaclient.Client, ns, name string, replicas int32, want map[autoscalingv2.HorizontalPodAutoscalerConditionType]string) (string, bool) {
	hpa, err := hpas.Get(ctx, ns, name)
	if err != nil {
		return err.Error(), false
	}
	got := map[autoscalingv2.HorizontalPodAutoscalerConditionType]string{}
	for _, c := range hpa.Status.Conditions {
		got[c.Type] = fmt.Sprintf("%s/%s", c.Status, c.Reason)
	}
	ok := hpa.Status.CurrentReplicas == replicas && hpa.Status.DesiredReplicas == replicas
	for typ, reason := range want {
		ok = ok && got[typ] == reason
	}
	return fmt.Sprintf("current %d, desired %d, conditions %v", hpa.Status.CurrentReplicas, hpa.Status.DesiredReplicas, got), ok
}

// heldBackCase: the Deployment starts at 1 replica and the metric asks for
// 3. The controller's view of the Deployment is held at 1 while change
// happens, before the HPA's first pass; then want is what the HPA must
// settle at and keep: replicas and the status/reason of its conditions.
type heldBackCase struct {
	name   string
	change func(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string)
	want   int32
	conds  map[autoscalingv2.HorizontalPodAutoscalerConditionType]string
}

func runHeldBack(t *testing.T, tc heldBackCase) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	const name = "web"
	createWorkload(ctx, t, kube, ns, name, 1)
	g := &guardedScales{}
	fake := metricstest.NewClient().SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{30000}})
	env := startGuarded(ctx, t, cluster, kube, ns, fake, g)
	if held := g.hold(ctx, t, ns, name); held.Spec.Replicas != 1 {
		t.Fatalf("the held view has %d replicas, want 1", held.Spec.Replicas)
	}
	tc.change(ctx, t, kube, ns, name)
	if _, err := hpas.Create(ctx, zeroHPA(ns, name, 1)); err != nil {
		t.Fatal(err)
	}

	settled := func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, name)
		last, ok := hpaState(ctx, hpas, ns, name, tc.want, tc.conds)
		return fmt.Sprintf("replicas %d, %s", got, last), ok && got == tc.want
	}
	env.until(t, "the HPA settles on the changed Deployment after a conflict", func() (string, bool) {
		conflicts, _ := g.stats()
		last, ok := settled()
		return fmt.Sprintf("%s, %d conflicts", last, conflicts), ok && conflicts >= 1
	})
	// Well within the 5 minutes of downscale stabilization.
	for range 3 {
		env.clock.Step(syncPeriod)
		time.Sleep(300 * time.Millisecond)
	}
	if last, ok := settled(); !ok {
		t.Errorf("a few passes later: %s, want %d replicas and %v", last, tc.want, tc.conds)
	}
	if _, written := g.stats(); len(written) > 0 {
		t.Errorf("the controller wrote replicas %v over a Deployment at %d", written, tc.want)
	}
	if hpa, err := hpas.Get(ctx, ns, name); err == nil {
		if c := findCondition(hpa, v2.ScaledToZero); c != nil && c.Status == corev1.ConditionTrue {
			t.Errorf("ScaledToZero = %+v; the controller took no replica away", c)
		}
	}
}

var (
	pausedConds = map[autoscalingv2.HorizontalPodAutoscalerConditionType]string{
		autoscalingv2.ScalingActive: "False/ScalingDisabled",
		autoscalingv2.AbleToScale:   "True/SucceededGetScale",
	}
	stabilizedConds = map[autoscalingv2.HorizontalPodAutoscalerConditionType]string{
		autoscalingv2.ScalingActive: "True/ValidMetricFound",
		autoscalingv2.AbleToScale:   "True/ScaleDownStabilized",
	}
)

func scaleTo(replicas int32) func(context.Context, *testing.T, kubernetes.Interface, string, string) {
	return func(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string) {
		scaleByHand(ctx, t, kube, ns, name, replicas)
	}
}

// TestSafetyPersonScalesWhileTheWatchIsHeldBack pins that a decision made
// on a scale the watch had not yet brought up to date (1 replica) is not
// written over a person's kubectl scale: its update conflicts, and the pass
// decides again on the person's count. Expected, as upstream's first pass
// GETs the person's count: at 0 the HPA is paused (ScalingActive=False
// ScalingDisabled, no ScaledToZero=True) and nothing is written; at 5 the
// legacy 5-minute downscale stabilization, seeded with 5, keeps 5 against
// the metric's 3 (AbleToScale ScaleDownStabilized).
func TestSafetyPersonScalesWhileTheWatchIsHeldBack(t *testing.T) {
	for _, tc := range []heldBackCase{
		{name: "pause at 0", change: scaleTo(0), want: 0, conds: pausedConds},
		{name: "scale to 5, above the metric's 3", change: scaleTo(5), want: 5, conds: stabilizedConds},
	} {
		t.Run(tc.name, func(t *testing.T) { runHeldBack(t, tc) })
	}
}

// recreateAt deletes the Deployment and creates it again, with a new UID,
// at replicas.
func recreateAt(replicas int32) func(context.Context, *testing.T, kubernetes.Interface, string, string) {
	return func(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name string) {
		t.Helper()
		deployments := kube.AppsV1().Deployments(ns)
		old, err := deployments.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := deployments.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := deployments.Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("waiting for the Deployment to be gone: %v", err)
		}
		createWorkload(ctx, t, kube, ns, name, replicas)
		d, err := deployments.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.UID == old.UID {
			t.Fatalf("the recreated Deployment has the old UID %s", old.UID)
		}
	}
}

// TestSafetyTargetRecreatedWithANewUID pins that a decision made on the
// held view of a Deployment that has since been deleted and created again
// (old UID and resourceVersion) is not written to the new object: the
// update conflicts and the pass decides on the new object. Expected, as
// upstream's first pass GETs the new object: recreated at 5, the legacy
// stabilization keeps 5 (retrying the old decision would write 3);
// recreated at 0, the HPA is paused (retrying would write 3).
func TestSafetyTargetRecreatedWithANewUID(t *testing.T) {
	for _, tc := range []heldBackCase{
		{name: "recreated at 5", change: recreateAt(5), want: 5, conds: stabilizedConds},
		{name: "recreated at 0", change: recreateAt(0), want: 0, conds: pausedConds},
	} {
		t.Run(tc.name, func(t *testing.T) { runHeldBack(t, tc) })
	}
}

// TestSafetyScaleChangesBetweenReadAndWrite pins that when another writer
// (a rollout) changes the Deployment's replicas between the controller's
// read and its write, the write conflicts and the pass decides again on
// the new count. Deployment at 1, metric asking 10, max 10: from 1 the
// legacy scale-up limit allows 4; the other writer sets 3 first, from
// which the limit allows 6. Expected, as upstream (whose update from its
// GET of 1 conflicts, and whose next pass GETs 3): 6 is written, never 4,
// then 10.
func TestSafetyScaleChangesBetweenReadAndWrite(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	const name = "web"
	createWorkload(ctx, t, kube, ns, name, 1)
	var once sync.Once
	g := &guardedScales{before: func(ctx context.Context, ns string, sc *autoscalingv1.Scale) {
		once.Do(func() {
			if err := setReplicas(ctx, kube, ns, sc.Name, 3); err != nil {
				t.Errorf("the other writer: %v", err)
			}
		})
	}}
	fake := metricstest.NewClient().SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{100000}})
	env := startGuarded(ctx, t, cluster, kube, ns, fake, g)
	if _, err := hpas.Create(ctx, zeroHPA(ns, name, 1)); err != nil {
		t.Fatal(err)
	}
	env.until(t, "the Deployment reaches 10", func() (string, bool) {
		got := deploymentReplicas(ctx, kube, ns, name)
		last, ok := hpaState(ctx, hpas, ns, name, 10, nil)
		return fmt.Sprintf("replicas %d, %s", got, last), ok && got == 10
	})
	conflicts, written := g.stats()
	if conflicts < 1 || !slices.Equal(written, []int32{6, 10}) {
		t.Errorf("%d conflicts, replicas written %v; want at least one conflict and [6 10]", conflicts, written)
	}
}

// auditedCondition is another status writer's edit.
const auditedCondition autoscalingv2.HorizontalPodAutoscalerConditionType = "example.com/Audited"

// writeAudit records auditedCondition in the HPA's status through the API.
func writeAudit(ctx context.Context, hpas *hpaclient.Client, ns, name string) error {
	hpa, err := hpas.Get(ctx, ns, name)
	if err != nil {
		return err
	}
	hpa.Status.Conditions = append(hpa.Status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{
		Type: auditedCondition, Status: corev1.ConditionTrue, Reason: "Audited",
		Message: "another controller wrote this", LastTransitionTime: metav1.Now(),
	})
	_, err = hpas.UpdateStatus(ctx, hpa)
	return err
}

// TestSafetyStatusWriteConflictAtScaleToZeroKeepsBothEdits pins that a
// status write that conflicts with another writer's is recorded again over
// the newer status: the HPA scales its Deployment from 2 to 0 on a metric
// at 0 (minReplicas 0), and between that scale update and the status
// write, another writer adds a condition. Expected, as upstream when the
// other writer's edit lands before its pass reads the HPA: the Deployment
// at 0, ScaledToZero=True and the other condition both in status; and since
// ScaledToZero survived, a metric asking 3 brings the Deployment back to 3
// (a zero without it would be a person's pause).
func TestSafetyStatusWriteConflictAtScaleToZeroKeepsBothEdits(t *testing.T) {
	cluster, ctx, kube, hpas, ns := setUpControllerTest(t)
	const name = "idle"
	createWorkload(ctx, t, kube, ns, name, 2)
	var once sync.Once
	audited := make(chan struct{})
	g := &guardedScales{after: func(ctx context.Context, ns string, sc *autoscalingv1.Scale) {
		if sc.Spec.Replicas != 0 {
			return
		}
		once.Do(func() {
			if err := writeAudit(ctx, hpas, ns, sc.Name); err != nil {
				t.Errorf("the other status writer: %v", err)
			}
			close(audited)
		})
	}}
	fake := metricstest.NewClient().SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{0}})
	env := startGuarded(ctx, t, cluster, kube, ns, fake, g)
	if _, err := hpas.Create(ctx, zeroHPA(ns, name, 0)); err != nil {
		t.Fatal(err)
	}

	bothEdits := func(replicas int32) func() (string, bool) {
		return func() (string, bool) {
			got := deploymentReplicas(ctx, kube, ns, name)
			hpa, err := hpas.Get(ctx, ns, name)
			if err != nil {
				return err.Error(), false
			}
			zero, other := findCondition(hpa, v2.ScaledToZero), findCondition(hpa, auditedCondition)
			ok := got == replicas && zero != nil && other != nil && other.Status == corev1.ConditionTrue &&
				(zero.Status == corev1.ConditionTrue) == (replicas == 0)
			return fmt.Sprintf("replicas %d, ScaledToZero %+v, audited %+v", got, zero, other), ok
		}
	}
	env.until(t, "the Deployment is at 0 with ScaledToZero=True and the other writer's condition", bothEdits(0))
	select {
	case <-audited:
	default:
		t.Fatal("the other writer never wrote between the scale update and the status write")
	}

	fake.SetExternal("queue_"+name, metricstest.ExternalAnswer{Values: []int64{30000}})
	env.until(t, "the metric brings the Deployment back to 3 from the HPA's own zero", bothEdits(3))
}
