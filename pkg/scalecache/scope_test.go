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

package scalecache

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	fakescale "k8s.io/client-go/scale/fake"
)

// The fake clientset ignores the shard selector, as an API server without
// the ShardedListAndWatch gate does: InScope alone decides what each
// kind's watch holds, and with no InScope it holds every namespace's.
func TestTheWatchesHoldOnlyTheirScope(t *testing.T) {
	var objects []runtime.Object
	for _, ns := range []string{"kept-1", "kept-2", "other"} {
		objects = append(objects,
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}},
			&corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
	}
	kept := func(ns string) bool { return ns != "other" }
	cases := []struct {
		name    string
		inScope func(string) bool
		want    []string
	}{
		{name: "in scope only", inScope: kept, want: []string{"kept-1/web", "kept-2/web"}},
		{name: "no filter", want: []string{"kept-1/web", "kept-2/web", "other/web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{
				Client:           &fakescale.FakeScaleClient{},
				Kube:             fake.NewClientset(objects...),
				TweakListOptions: func(o *metav1.ListOptions) { o.ShardSelector = "shardRange(object.metadata.namespace, '0x0', '0x1')" },
				InScope:          tc.inScope,
			})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				c.Run(ctx)
			}()
			defer func() {
				cancel()
				<-done
			}()
			watched := []schema.GroupResource{deployments, rcs}
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				for _, resource := range watched {
					if informer, ok := c.watches.informer(resource); !ok || !informer.HasSynced() {
						return false, nil
					}
				}
				return true, nil
			}); err != nil {
				t.Fatalf("the watches did not sync: %v", err)
			}
			for _, resource := range watched {
				informer, _ := c.watches.informer(resource)
				got := informer.GetStore().ListKeys()
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Errorf("the %s watch holds %q, want %q", resource, got, tc.want)
				}
			}
		})
	}
}
