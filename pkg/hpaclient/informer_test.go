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

package hpaclient

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// The fake server ignores the shard selector, as an API server without
// the ShardedListAndWatch gate does: InScope alone decides what the store
// holds.
func TestInformerKeepsOnlyItsScope(t *testing.T) {
	cases := []struct {
		name    string
		inScope func(string) bool
		want    []string
	}{
		{name: "in scope", inScope: func(ns string) bool { return ns == "default" }, want: []string{"default/web"}},
		{name: "outside", inScope: func(ns string) bool { return ns != "default" }},
		{name: "no filter", want: []string{"default/web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			informer := NewInformerWithOptions(c, InformerOptions{
				TweakListOptions: func(o *metav1.ListOptions) {
					o.ShardSelector = "shardRange(object.metadata.namespace, '0x0', '0x8000000000000000')"
				},
				InScope: tc.inScope,
			})
			go informer.RunWithContext(ctx)
			if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
				t.Fatal("informer never synced")
			}
			if got := informer.GetStore().ListKeys(); !slices.Equal(got, tc.want) {
				t.Errorf("store holds %q, want %q", got, tc.want)
			}
		})
	}
}
