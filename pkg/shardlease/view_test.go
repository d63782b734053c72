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
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// TestShardLeasesSelector pins that the selector finds a group's shard Leases
// and neither its replicas' Leases nor another group's.
func TestShardLeasesSelector(t *testing.T) {
	sel, err := labels.Parse(ShardLeasesSelector("a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  labels.Set
		want bool
	}{
		{name: "a shard of the group", set: labels.Set{groupLabel: "a", roleLabel: roleShard}, want: true},
		{name: "a replica of the group", set: labels.Set{groupLabel: "a", roleLabel: roleReplica}},
		{name: "a shard of another group", set: labels.Set{groupLabel: "b", roleLabel: roleShard}},
		{name: "a Lease without the role", set: labels.Set{groupLabel: "a"}},
	} {
		if got := sel.Matches(tc.set); got != tc.want {
			t.Errorf("%s: matches %v, want %v", tc.name, got, tc.want)
		}
	}
}
