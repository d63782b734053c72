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

// Package shardwatch keeps an informer of a sharded replica to the
// namespaces of its shard, whatever the API server does with the
// shardSelector it sends.
//
// An API server without the ShardedListAndWatch gate (alpha, off by
// default) ignores the selector and sends every namespace's objects. The
// controller filters what it acts on either way, but an informer stores
// what it receives: a replica holding k shards, with one set of informers
// per shard, would hold k copies of every pod, HPA and scale target of the
// cluster. Keep drops the other namespaces' objects between the client and
// the informer's store, so that each shard's informers hold only their
// shard's; the traffic is still the whole cluster's.
package shardwatch
