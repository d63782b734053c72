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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	componentmetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

func TestScopeOf(t *testing.T) {
	namespaces := []string{"default", "kube-system", "tenant-a", "tenant-b", "tenant-c", "team-payments", "team-search", "x"}
	cases := []struct {
		name  string
		owned []int
	}{
		{"one shard", []int{3}},
		{"shards apart", []int{0, 5, 9}},
		{"adjacent shards", []int{4, 5, 6}},
		{"every shard", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scopeOf(16, tc.owned)
			if err != nil {
				t.Fatal(err)
			}
			var opts metav1.ListOptions
			sc.tweak(&opts)
			if !strings.HasPrefix(opts.ShardSelector, "shardRange(object.metadata.namespace, ") {
				t.Errorf("shard selector = %q", opts.ShardSelector)
			}
			inScope := sc.inScope()
			for _, ns := range namespaces {
				want := false
				for _, i := range tc.owned {
					want = want || shard.Index(shard.NamespaceHash(ns), 16) == i
				}
				if got := inScope(ns); got != want {
					t.Errorf("namespace %q in scope = %v, want %v (its shard is %d)", ns, got, want, shard.Index(shard.NamespaceHash(ns), 16))
				}
			}
		})
	}
}

func TestScopeOfRejectsAShardOutOfRange(t *testing.T) {
	for _, owned := range [][]int{{16}, {-1}} {
		if _, err := scopeOf(16, owned); err == nil {
			t.Errorf("scopeOf(16, %v) accepted a shard out of range", owned)
		}
	}
}

func TestTheZeroScopeIsUnfiltered(t *testing.T) {
	var all scope
	var opts metav1.ListOptions
	all.tweak(&opts)
	if opts.ShardSelector != "" || all.inScope() != nil {
		t.Errorf("the scope of one replica for all selects %q and filters %v", opts.ShardSelector, all.inScope() != nil)
	}
}

func TestCheckSelectorReadsWhetherTheServerSharded(t *testing.T) {
	sc, err := scopeOf(16, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		echo *metav1.ShardInfo
		want float64
	}{
		{"a list that echoes the selector was sharded by the server", &metav1.ShardInfo{Selector: sc.selector}, 1},
		{"a list without shardInfo was not, and the replica filters", nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			kube := fake.NewClientset()
			var asked string
			kube.PrependReactor("list", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				asked = action.(k8stesting.ListActionImpl).ListOptions.ShardSelector
				return true, &corev1.PodList{ListMeta: metav1.ListMeta{ShardInfo: tc.echo}}, nil
			})
			honored := newSelectorHonoredGauge(componentmetrics.NewKubeRegistry())
			honored.Set(-1)
			checkSelector(ctx, kube, sc, honored)
			if asked != sc.selector {
				t.Errorf("listed with shard selector %q, want %q", asked, sc.selector)
			}
			if got, err := testutil.GetGaugeMetricValue(honored); err != nil || got != tc.want {
				t.Errorf("gauge = %v (%v), want %v", got, err, tc.want)
			}
		})
	}
}

func TestKeepOnly(t *testing.T) {
	if keep := keepOnly(16, nil); keep("default") || keep("tenant-a") {
		t.Error("with no shard held, a namespace's series are kept")
	}
	owned := []int{shard.Index(shard.NamespaceHash("default"), 16)}
	keep := keepOnly(16, owned)
	for _, ns := range []string{"default", "kube-system", "tenant-a", "tenant-b", "team-payments"} {
		want := shard.Index(shard.NamespaceHash(ns), 16) == owned[0]
		if got := keep(ns); got != want {
			t.Errorf("keep(%q) = %v, want %v", ns, got, want)
		}
	}
}
