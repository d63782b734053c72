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

package shard

// FNV-1a, 64-bit variant: the offset basis and prime of the specification.
const (
	fnv64Offset uint64 = 0xcbf29ce484222325
	fnv64Prime  uint64 = 0x100000001b3
)

// NamespaceHash returns the 64-bit FNV-1a hash of the bytes of namespace.
// It is the value kube-apiserver compares with the bounds of a
// shardRange(object.metadata.namespace, ...) selector, so an object is in a
// Range exactly when the Range contains the hash of its namespace.
// Cluster-scoped objects have the namespace "".
//
// The loop is written out rather than using hash/fnv so that filtering every
// watch event costs no allocation; tests pin it against hash/fnv and the
// API server's own function.
func NamespaceHash(namespace string) uint64 {
	h := fnv64Offset
	for i := 0; i < len(namespace); i++ {
		h ^= uint64(namespace[i])
		h *= fnv64Prime
	}
	return h
}
