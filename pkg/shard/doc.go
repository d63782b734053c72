// Package shard holds the pure building blocks for running the HPA
// controller as several replicas, each reconciling only the
// HorizontalPodAutoscalers of the namespaces whose hash falls in the shards
// it owns.
//
// The hash space of namespaces (64-bit FNV-1a, the function kube-apiserver
// applies to object.metadata.namespace for the alpha ShardedListAndWatch
// feature, KEP-5866) is cut into a fixed number of equal ranges, the shards.
// The package provides:
//
//   - NamespaceHash, the hash the API server compares with shard ranges;
//   - Range, Split and the shardSelector expressions sent in ListOptions;
//   - Filter, the same selection done in the client, for API servers that
//     ignore the selector, and ShardApplied, which reads from a list
//     response whether the server filtered it;
//   - Assign and PlanReplica, which share shards fairly between the live
//     replicas while moving as few shards as possible.
//
// Nothing here talks to the API server, holds leases or keeps state: callers
// feed in lease holders and list responses and act on the results.
package shard
