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
