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

package app

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/pkg/shardlease"
)

func TestLeaseFenceRefusesNamespacesOutsideTheShardsHeld(t *testing.T) {
	const shards = 4
	sc, err := scopeOf(shards, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	all, err := shard.Split(shards)
	if err != nil {
		t.Fatal(err)
	}
	// Find one namespace in shard 0 and one outside it.
	var in, out string
	for i := 0; (in == "" || out == "") && i < 10000; i++ {
		ns := "tenant-" + strconv.Itoa(i)
		if all[0].Contains(shard.NamespaceHash(ns)) {
			in = ns
		} else {
			out = ns
		}
	}
	if in == "" || out == "" {
		t.Fatalf("no namespaces found on both sides of shard 0: in %q, out %q", in, out)
	}
	fence := leaseFence{inScope: sc.inScope()}
	for _, tc := range []struct {
		name      string
		namespace string
		fenced    bool
	}{
		{name: "a namespace of a shard held may be written", namespace: in},
		{name: "a namespace of another shard may not", namespace: out, fenced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fence.Allow(context.Background(), tc.namespace)
			if got := errors.Is(err, shardlease.ErrFenced); got != tc.fenced || (err != nil) != tc.fenced {
				t.Errorf("Allow(%q) = %v, want fenced %v", tc.namespace, err, tc.fenced)
			}
		})
	}
}
