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

package shardlease

import (
	"fmt"
	"slices"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestGroupLeasesSelector pins that the selector finds a group's member and
// shard Leases and no other group's.
func TestGroupLeasesSelector(t *testing.T) {
	sel, err := labels.Parse(GroupLeasesSelector("a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  labels.Set
		want bool
	}{
		{name: "a shard of the group", set: labels.Set{groupLabel: "a", roleLabel: roleShard}, want: true},
		{name: "a replica of the group", set: labels.Set{groupLabel: "a", roleLabel: roleReplica}, want: true},
		{name: "a shard of another group", set: labels.Set{groupLabel: "b", roleLabel: roleShard}},
		{name: "a Lease of no group", set: labels.Set{roleLabel: roleShard}},
	} {
		if got := sel.Matches(tc.set); got != tc.want {
			t.Errorf("%s: matches %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPendingMovesFollowsTheReplicas pins PendingMoves against the
// managers themselves: it reports moves while the replicas still make them,
// and none once they have settled, after which they move nothing more.
func TestPendingMovesFollowsTheReplicas(t *testing.T) {
	f := newFleet(t)
	hpas := []int{300, 400, 500, 300, 100, 300, 0, 200, 300, 200, 200, 500, 700, 200, 200, 600}
	counting := func(m member) member {
		m.o.Count = func(i int) (int, bool) { return hpas[i], true }
		return m
	}
	// settled is what a waiting test asks: a full view with no move left.
	settled := func() (bool, string) {
		t.Helper()
		list, err := f.client.CoordinationV1().Leases(testNamespace).List(f.ctx, metav1.ListOptions{LabelSelector: GroupLeasesSelector("hpa")})
		if err != nil {
			t.Fatal(err)
		}
		moves, err := PendingMoves(list.Items, "hpa", 16)
		return err == nil && len(moves) == 0, fmt.Sprintf("pending %v, %v", moves, err)
	}

	a, b := counting(f.member("a", 16)), counting(f.member("b", 16))
	if ok, why := settled(); ok {
		t.Errorf("no Lease yet, and the group is settled (%s)", why)
	}
	f.rounds(10, a, b)
	if ok, why := settled(); !ok {
		t.Fatalf("two replicas after 10 rounds: %s; want settled", why)
	}

	c := counting(f.member("c", 16))
	members := []member{a, b, c}
	f.rounds(2, members...)
	if ok, why := settled(); ok {
		t.Fatalf("a third replica has joined and holds %v: %s; want the shards still to hand to it", heldShards(c), why)
	}
	ok, why := false, ""
	for range 30 {
		if ok, why = settled(); ok {
			break
		}
		f.rounds(1, members...)
	}
	if !ok {
		t.Fatalf("after 30 more rounds: %s; want settled", why)
	}
	if len(heldShards(c)) == 0 {
		t.Fatal("settled with the third replica holding nothing")
	}
	held := map[string][]int{}
	for _, m := range members {
		held[m.o.Identity] = heldShards(m)
	}
	f.rounds(8, members...)
	for _, m := range members {
		if got := heldShards(m); !slices.Equal(got, held[m.o.Identity]) {
			t.Errorf("%s went from %v to %v after PendingMoves found nothing pending", m.o.Identity, held[m.o.Identity], got)
		}
	}
}

// TestPendingMovesNeedsAFullView pins that PendingMoves does not call a
// group settled while a shard is free or its count unknown, and reads only
// the group's Leases written with its shard count.
func TestPendingMovesNeedsAFullView(t *testing.T) {
	o := Options{Group: "g", Shards: 2}
	lease := func(name, role, holder, count, hpas string) coordinationv1.Lease {
		l := coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{groupLabel: "g", roleLabel: role},
			Annotations: map[string]string{countAnnotation: count},
		}}
		if hpas != "" {
			l.Annotations[hpasAnnotation] = hpas
		}
		if holder != "" {
			l.Spec.HolderIdentity = &holder
		}
		return l
	}
	members := []coordinationv1.Lease{lease("g-replica-a", roleReplica, "a", "2", ""), lease("g-replica-b", roleReplica, "b", "2", "")}
	for _, tc := range []struct {
		name    string
		shards  []coordinationv1.Lease
		want    []int
		wantErr bool
	}{
		{name: "each replica holds its share", shards: []coordinationv1.Lease{lease(o.shardLease(0), roleShard, "a", "2", "5"), lease(o.shardLease(1), roleShard, "b", "2", "5")}},
		{name: "one replica holds both", shards: []coordinationv1.Lease{lease(o.shardLease(0), roleShard, "a", "2", "5"), lease(o.shardLease(1), roleShard, "a", "2", "5")}, want: []int{1}},
		{name: "a free shard", shards: []coordinationv1.Lease{lease(o.shardLease(0), roleShard, "a", "2", "5"), lease(o.shardLease(1), roleShard, "", "2", "5")}, wantErr: true},
		{name: "a shard without its count", shards: []coordinationv1.Lease{lease(o.shardLease(0), roleShard, "a", "2", "5"), lease(o.shardLease(1), roleShard, "b", "2", "")}, wantErr: true},
		{name: "a shard written with another shard count", shards: []coordinationv1.Lease{lease(o.shardLease(0), roleShard, "a", "2", "5"), lease(o.shardLease(1), roleShard, "b", "3", "5")}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PendingMoves(append(slices.Clone(members), tc.shards...), "g", 2)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("pending %v, want %v", got, tc.want)
			}
		})
	}
}
