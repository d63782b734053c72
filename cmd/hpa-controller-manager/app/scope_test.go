package app

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
