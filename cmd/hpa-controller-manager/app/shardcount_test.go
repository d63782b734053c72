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
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

func TestHPACounterCountsEachShardsHPAs(t *testing.T) {
	const shards = 16
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	other := cache.NewStore(cache.MetaNamespaceKeyFunc)
	want := map[int]int{}
	add := func(s cache.Store, namespace, name string) {
		t.Helper()
		if err := s.Add(&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}); err != nil {
			t.Fatal(err)
		}
		want[shard.Index(shard.NamespaceHash(namespace), shards)]++
	}
	add(store, "team-a", "web")
	add(store, "team-a", "api")
	add(store, "payments", "web")
	// The extended kind's store counts as well.
	add(other, "search", "web")

	c := &hpaCounter{shards: shards}
	for i := range want {
		if _, ok := c.count(i); ok {
			t.Fatalf("counted shard %d with no run serving", i)
		}
	}
	// Each shard's run serves its own stores; here every shard's run sees
	// the same stores, as with an API server that ignores the selector:
	// each counts only its own shard's HPAs.
	synced := false
	var stops []func()
	for i := range shards {
		stops = append(stops, c.serve(i, []cache.Store{store, other}, func() bool { return synced }))
	}
	if _, ok := c.count(0); ok {
		t.Fatal("counted before the informers synced")
	}
	synced = true
	for i := range shards {
		got, ok := c.count(i)
		if !ok {
			t.Fatalf("shard %d: no count once synced", i)
		}
		if got != want[i] {
			t.Errorf("shard %d: %d HPAs, want %d", i, got, want[i])
		}
	}

	// A later run's stores stay when an earlier run's stop comes late.
	busy := shard.Index(shard.NamespaceHash("search"), shards)
	stopNext := c.serve(busy, []cache.Store{other}, func() bool { return true })
	stops[busy]()
	if got, ok := c.count(busy); !ok || got != 1 {
		t.Errorf("after the earlier run's stop: %v, %v; want the later run's one HPA", got, ok)
	}
	stopNext()
	if _, ok := c.count(busy); ok {
		t.Error("counted after the run stopped")
	}
	var unsharded *hpaCounter
	unsharded.serve(0, nil, nil)()
}
