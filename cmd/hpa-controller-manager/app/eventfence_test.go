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

package app

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

// TestEventsAreWrittenOnlyWhileTheirShardIsWorked pins the event fence of
// the process's one broadcaster: an event of a namespace is written while
// a run works its shard, and dropped (not retried) once the run stopped,
// so that a stopped run's queued events never land after a handover.
func TestEventsAreWrittenOnlyWhileTheirShardIsWorked(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	const shards = 4
	kube := fake.NewClientset()
	fence := newEventFence(shards)
	events := fence.events(ctx, kube.CoreV1()).Events("")
	event := func(ns, name string) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Reason: "SuccessfulRescale"}
	}
	written := func() int {
		t.Helper()
		list, err := kube.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}

	const ns = "team-a"
	i := shard.Index(shard.NamespaceHash(ns), shards)
	if err := fence.allow(ns); !errors.Is(err, shardlease.ErrFenced) {
		t.Errorf("with no run on shard %d, allow = %v, want ErrFenced", i, err)
	}
	if _, err := events.CreateWithEventNamespace(event(ns, "before")); err != nil {
		t.Fatalf("a refused event returned %v; the broadcaster would retry it", err)
	}
	if n := written(); n != 0 {
		t.Errorf("%d events written with no run on their shard", n)
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	unregister := fence.register(i, runCtx)
	if _, err := events.CreateWithEventNamespace(event(ns, "during")); err != nil {
		t.Fatal(err)
	}
	if n := written(); n != 1 {
		t.Errorf("%d events written while their shard's run works, want 1", n)
	}

	// A later run of the shard stays registered when an earlier run's
	// unregister comes late.
	later := fence.register(i, context.WithoutCancel(ctx))
	unregister()
	if err := fence.allow(ns); err != nil {
		t.Errorf("after the earlier run's unregister, the later run's events are refused: %v", err)
	}
	later()
	if _, err := events.CreateWithEventNamespace(event(ns, "after")); err != nil {
		t.Fatal(err)
	}
	if n := written(); n != 1 {
		t.Errorf("%d events written after the run stopped, want the one of its time", n)
	}
	if err := fence.allow(""); err != nil {
		t.Errorf("an event of no namespace is refused: %v", err)
	}
	var unsharded *eventFence
	core := kube.CoreV1()
	if got := unsharded.events(ctx, core); got != core {
		t.Error("the leader's events go through a fence")
	}
}
