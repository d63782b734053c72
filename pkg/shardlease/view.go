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
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// The labels find a group's Leases with one list; the annotations carry the
// shard count each replica runs with and, on a shard's Lease, the HPAs its
// last holder counted in it.
const (
	groupLabel      = "shards.kube-hpa.io/group"
	roleLabel       = "shards.kube-hpa.io/role"
	roleShard       = "shard"
	roleReplica     = "replica"
	countAnnotation = "shards.kube-hpa.io/count"
	hpasAnnotation  = "shards.kube-hpa.io/hpas"
	// releasedAnnotation names, on a free shard's Lease, the replica that
	// released it, so that every plan counts it as that one's until its
	// new owner takes it (shard.Standing.Released).
	releasedAnnotation = "shards.kube-hpa.io/released-by"
)

// sighting is a Lease as last read or written, and when this replica first
// saw that version of it. Expiry is measured from that moment on this
// replica's clock, never from the renewTime written by another replica's
// clock, so clock skew between replicas cannot shorten a Lease.
type sighting struct {
	lease *coordinationv1.Lease
	since time.Time
}

// view is what this replica knows of its group's Leases, by name.
type view map[string]sighting

// observe replaces the view with a fresh list, keeping the first-seen time of
// every Lease whose version has not changed.
func (v view) observe(leases []coordinationv1.Lease, now time.Time) view {
	next := make(view, len(leases))
	for i := range leases {
		l := &leases[i]
		since := now
		if old, ok := v[l.Name]; ok && old.lease.ResourceVersion == l.ResourceVersion {
			since = old.since
		}
		next[l.Name] = sighting{lease: l, since: since}
	}
	return next
}

// record notes a Lease this replica just wrote. since is when the write was
// sent, which is no later than when any other replica can see it.
func (v view) record(l *coordinationv1.Lease, since time.Time) {
	v[l.Name] = sighting{lease: l, since: since}
}

// holder returns who holds the Lease at now: "" when nobody does, it was
// released, or it expired.
func (s sighting) holder(now time.Time, minDuration time.Duration) string {
	if s.lease == nil || s.lease.Spec.HolderIdentity == nil {
		return ""
	}
	d := minDuration
	if s.lease.Spec.LeaseDurationSeconds != nil {
		d = max(d, time.Duration(*s.lease.Spec.LeaseDurationSeconds)*time.Second)
	}
	if now.Sub(s.since) >= d {
		return ""
	}
	return *s.lease.Spec.HolderIdentity
}

// count returns the shard count the Lease's writer runs with, or -1.
func (s sighting) count() int {
	n, err := strconv.Atoi(s.lease.Annotations[countAnnotation])
	if err != nil {
		return -1
	}
	return n
}

// maxHPAs bounds a count read from a Lease, far above any cluster's, so
// that a hand-edited annotation cannot overflow the planner's sums.
const maxHPAs = 1 << 24

// hpas returns the HPAs the shard's last holder counted in it, or false
// when it did not say or wrote something else than a count.
func (s sighting) hpas() (int, bool) { return CountedHPAs(s.lease) }

// CountedHPAs returns the HPAs that a shard's Lease says its last holder
// counted in the shard, and whether it says. Replicas weigh shards by these
// counts once every shard has one, so the shares can move when the last
// count arrives.
func CountedHPAs(lease *coordinationv1.Lease) (int, bool) {
	n, err := strconv.Atoi(lease.Annotations[hpasAnnotation])
	if err != nil || n < 0 {
		return 0, false
	}
	return min(n, maxHPAs), true
}
