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

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	apisharding "k8s.io/apimachinery/pkg/sharding"
)

// The values are pinned literals, so a change of hash function fails here
// even if every implementation compared below changed with it.
var namespaceHashes = []struct {
	name      string
	namespace string
	want      uint64
}{
	{name: "cluster-scoped objects hash the empty string to the offset basis", namespace: "", want: 0xcbf29ce484222325},
	{name: "single byte matches the published FNV-1a test vector", namespace: "a", want: 0xaf63dc4c8601ec8c},
	{name: "default namespace", namespace: "default", want: 0xebada5168620c5fe},
	{name: "kube-system namespace", namespace: "kube-system", want: 0xdf65c7bc1d82b35e},
	{name: "kube-node-lease namespace", namespace: "kube-node-lease", want: 0x021fb6dd71b80174},
	{name: "multi-byte runes are hashed as their UTF-8 bytes", namespace: "日本語", want: 0xee9ee2b5c854ef87},
	{name: "longest DNS label namespace of 63 characters", namespace: strings.Repeat("a", 63), want: 0x51c1e07b2aee9066},
}

func TestNamespaceHash(t *testing.T) {
	for _, tc := range namespaceHashes {
		t.Run(tc.name, func(t *testing.T) {
			if got := NamespaceHash(tc.namespace); got != tc.want {
				t.Errorf("NamespaceHash(%q) = %#016x, want %#016x", tc.namespace, got, tc.want)
			}
		})
	}
}

func TestNamespaceHashMatchesAPIServer(t *testing.T) {
	for _, tc := range namespaceHashes {
		t.Run(tc.name, func(t *testing.T) {
			assertSameAsAPIServer(t, tc.namespace)
		})
	}
}

// FuzzNamespaceHash checks any string against the standard library's FNV-1a
// and against the function the API server hashes shard keys with.
func FuzzNamespaceHash(f *testing.F) {
	for _, tc := range namespaceHashes {
		f.Add(tc.namespace)
	}
	f.Fuzz(assertSameAsAPIServer)
}

func assertSameAsAPIServer(t *testing.T, namespace string) {
	got := NamespaceHash(namespace)
	std := fnv.New64a()
	std.Write([]byte(namespace))
	if want := std.Sum64(); got != want {
		t.Errorf("NamespaceHash(%q) = %#016x, hash/fnv gives %#016x", namespace, got, want)
	}
	// The API server formats the key's hash as 16 hex digits and compares
	// it with the selector's bounds as strings.
	if got, want := fmt.Sprintf("%016x", got), apisharding.HashField(namespace); got != want {
		t.Errorf("NamespaceHash(%q) = %s, the API server's HashField gives %s", namespace, got, want)
	}
}
