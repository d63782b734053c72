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

// Package shardlease holds the shards of a sharded hpa-controller-manager
// through coordination.k8s.io Leases and runs the controller on the shards
// this replica holds: one run of the Work per shard, so that a change of
// the shard set starts or stops the runs of the shards gained or lost and
// never touches those of the shards kept.
//
// Every replica renews a member Lease of its own, so that the others know it
// is live, and one Lease per shard that it holds. From one consistent list of
// the group's Leases each replica computes the same fair assignment
// (shard.PlanReplica), releases what it holds beyond its share and acquires
// free shards targeted to it.
//
// A handover is fenced, shard by shard. The old owner stops its work on a
// shard before it writes the release, and stops it on its own (a timer per
// shard) once it has gone RenewDeadline without a successful renewal of
// that shard, which is before any other replica can see
// its Lease as expired (LeaseDuration, measured from when that replica first
// saw the last renewal). The new owner starts only after its acquisition is
// written. So no shard is worked by two replicas at once, as long as
// RenewDeadline is below LeaseDuration by more than it takes the work to stop.
// Cancelling the work is not enough for its writes: each write asks Check
// first, which refuses by the clock once the deadline has passed (also in a
// process resumed after a stall, before any timer ran) and as soon as the
// run is told to stop, which is before its shards are released.
package shardlease
