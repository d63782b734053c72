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

package calculator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/metrics"
	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// The fixture: pods labelled app=web in testNamespace, started an hour
// before now and ready ever since, each with one container "app" requesting
// 1 CPU and 1 byte of memory (a milli-value of 1000 for both, so that a
// reading of 500 is 50% of the request).
const (
	testNamespace  = "test-namespace"
	cpuInitPeriod  = 2 * time.Minute
	readinessDelay = 10 * time.Second
)

var (
	now         = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	longAgo     = now.Add(-time.Hour)
	metricTime  = now.Add(-15 * time.Second)
	podSelector = labels.SelectorFromSet(labels.Set{"app": "web"})
	// errAdapter stands for any failure of the metrics API.
	errAdapter = errors.New("adapter unavailable")
)

type podOption func(*corev1.Pod)

func podName(i int) string { return fmt.Sprintf("web-%d", i) }

func newPod(i int, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: podName(i), Namespace: testNamespace, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("1"),
				corev1.ResourceMemory: resource.MustParse("1"),
			}}},
		}},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			StartTime: &metav1.Time{Time: longAgo},
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: longAgo.Add(time.Minute)}},
			},
		},
	}
	for _, opt := range opts {
		opt(p)
	}
	return p
}

// pods returns n fixture pods, web-0 to web-(n-1).
func pods(n int, opts ...podOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = newPod(i, opts...)
	}
	return out
}

// join concatenates groups of pods, renaming them web-0, web-1, ... in order.
func join(groups ...[]*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, g := range groups {
		for _, p := range g {
			p = p.DeepCopy()
			p.Name = podName(len(out))
			out = append(out, p)
		}
	}
	return out
}

func setReady(p *corev1.Pod, status corev1.ConditionStatus, since time.Time) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Time{Time: since}}}
}

// neverReady: unready since it started.
func neverReady(p *corev1.Pod) { setReady(p, corev1.ConditionFalse, p.Status.StartTime.Time) }

// unreadyAfterServing: was ready, turned unready five minutes ago.
func unreadyAfterServing(p *corev1.Pod) { setReady(p, corev1.ConditionFalse, now.Add(-5*time.Minute)) }

// hotCPU: started 30s ago, ready for 20s, less than a metric window.
func hotCPU(p *corev1.Pod) {
	p.Status.StartTime = &metav1.Time{Time: now.Add(-30 * time.Second)}
	setReady(p, corev1.ConditionTrue, now.Add(-20*time.Second))
}

// warmCPU: started 90s ago (still initializing), ready for 80s, more than
// a metric window.
func warmCPU(p *corev1.Pod) {
	p.Status.StartTime = &metav1.Time{Time: now.Add(-90 * time.Second)}
	setReady(p, corev1.ConditionTrue, now.Add(-80*time.Second))
}

func noReadyCondition(p *corev1.Pod) { p.Status.Conditions = nil }
func noStartTime(p *corev1.Pod)      { p.Status.StartTime = nil }
func deleting(p *corev1.Pod)         { p.DeletionTimestamp = &metav1.Time{Time: now} }

func phase(ph corev1.PodPhase) podOption {
	return func(p *corev1.Pod) { p.Status.Phase = ph }
}

func requests(cpu string) corev1.ResourceRequirements {
	if cpu == "" {
		return corev1.ResourceRequirements{}
	}
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
}

// containers replaces the pod's containers by named ones requesting the
// given CPU ("" requests none).
func containers(nameAndCPU ...string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Containers = nil
		for i := 0; i < len(nameAndCPU); i += 2 {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: nameAndCPU[i], Resources: requests(nameAndCPU[i+1])})
		}
	}
}

func sidecar(name, cpu string) podOption {
	always := corev1.ContainerRestartPolicyAlways
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: name, RestartPolicy: &always, Resources: requests(cpu)})
	}
}

func initContainer(name, cpu string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: name, Resources: requests(cpu)})
	}
}

func podLevelCPU(cpu string) podOption {
	return func(p *corev1.Pod) {
		r := requests(cpu)
		p.Spec.Resources = &r
	}
}

// readings returns readings for web-0, web-1, ... taken at metricTime over
// a one-minute window.
func readings(values ...int64) metrics.PodMetricsInfo {
	out := make(metrics.PodMetricsInfo, len(values))
	for i, v := range values {
		out[podName(i)] = metrics.PodMetric{Timestamp: metricTime, Window: time.Minute, Value: v}
	}
	return out
}

// result is a Result with the fixture's metric timestamp.
func result(replicas, utilization int32, usage int64) Result {
	return Result{Replicas: replicas, Utilization: utilization, RawUsage: usage, Timestamp: metricTime}
}

var defaultTolerances = Tolerances{ScaleDown: 0.1, ScaleUp: 0.1}

func tolerancesOr(t *Tolerances) Tolerances {
	if t == nil {
		return defaultTolerances
	}
	return *t
}

// newTestCalculator returns a calculator over the given pods and fake
// metrics, at the fixture's now.
func newTestCalculator(t testing.TB, podList []*corev1.Pod, fake metrics.Client, modify ...func(*Options)) *Calculator {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	// As the controller's informer holds them: records (podrecord).
	for _, p := range podList {
		if err := indexer.Add(podrecord.FromPod(p.DeepCopy())); err != nil {
			t.Fatalf("adding pod %s: %v", p.Name, err)
		}
	}
	opts := Options{
		MetricsClient:                 fake,
		PodLister:                     podrecord.NewLister(indexer),
		CPUInitializationPeriod:       cpuInitPeriod,
		DelayOfInitialReadinessStatus: readinessDelay,
		Clock:                         testingclock.NewFakePassiveClock(now),
	}
	for _, m := range modify {
		m(&opts)
	}
	return New(opts)
}

// check compares a call's outcome with the expectation: an error containing
// wantErr (and matching wantErrIs) when either is set, else exactly want.
func check(t *testing.T, got Result, err error, want Result, wantErr string, wantErrIs error) {
	t.Helper()
	if wantErr != "" || wantErrIs != nil {
		if err == nil {
			t.Fatalf("got %+v and no error, want an error containing %q", got, wantErr)
		}
		if !strings.Contains(err.Error(), wantErr) {
			t.Errorf("got error %q, want it to contain %q", err, wantErr)
		}
		if wantErrIs != nil && !errors.Is(err, wantErrIs) {
			t.Errorf("got error %q, want it to wrap %v", err, wantErrIs)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// testContext returns a context carrying a logger that writes to t.
func testContext(t *testing.T) context.Context {
	_, ctx := ktesting.NewTestContext(t)
	return ctx
}
