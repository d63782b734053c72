// Package shardlease holds the shards of a sharded hpa-controller-manager
// through coordination.k8s.io Leases and runs the controller on the shards
// this replica holds.
//
// Every replica renews a member Lease of its own, so that the others know it
// is live, and one Lease per shard that it holds. From one consistent list of
// the group's Leases each replica computes the same fair assignment
// (shard.PlanReplica), releases what it holds beyond its share and acquires
// free shards targeted to it.
//
// A handover is fenced. The old owner stops its work on a shard before it
// writes the release, and stops it on its own once it has gone RenewDeadline
// without a successful renewal, which is before any other replica can see
// its Lease as expired (LeaseDuration, measured from when that replica first
// saw the last renewal). The new owner starts only after its acquisition is
// written. So no shard is worked by two replicas at once, as long as
// RenewDeadline is below LeaseDuration by more than it takes the work to stop.
package shardlease
