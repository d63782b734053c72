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

package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
	"github.com/kube-hpa/kube-hpa/pkg/shard"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

// TestShardSelectorAgreesWithTheAPIServer checks pkg/shard against
// kube-apiserver's own KEP-5866 sharding: with ShardedListAndWatch on, a
// list and a watch of HPAs (a custom resource) and a list of a built-in kind
// with the selector a sharded replica sends return exactly the namespaces its
// client-side filter keeps, and the built-in list says it was sharded; with
// the gate off that list says it was not and both return every namespace,
// which the filter narrows to the same set.
func TestShardSelectorAgreesWithTheAPIServer(t *testing.T) {
	shared := sharedCluster(t)
	t.Run("ShardedListAndWatch on", func(t *testing.T) {
		checkShardSelection(t, shardedListAndWatchCluster(t), true)
	})
	t.Run("ShardedListAndWatch off", func(t *testing.T) {
		checkShardSelection(t, shared, false)
	})
}

func checkShardSelection(t *testing.T, cluster *localcluster.Cluster, sharded bool) {
	_, ctx := ktesting.NewTestContext(t)
	hpas, err := hpaclient.New(cluster.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(cluster.RESTConfig())
	base := createNamespace(ctx, t, cluster)
	var namespaces []string
	for i := range 12 {
		ns := fmt.Sprintf("%s-%d", base, i)
		if err := cluster.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
		if _, err := hpas.Create(ctx, externalHPA(ns, "web", 5, nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		namespaces = append(namespaces, ns)
	}

	all, err := shard.Split(16)
	if err != nil {
		t.Fatal(err)
	}
	for _, owned := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {3, 9, 10}, {15}} {
		t.Run(fmt.Sprint(owned), func(t *testing.T) {
			var ranges []shard.Range
			for _, i := range owned {
				ranges = append(ranges, all[i])
			}
			selector, err := shard.SelectorFor(ranges)
			if err != nil {
				t.Fatal(err)
			}
			filter, err := shard.NewFilter(ranges)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, ns := range namespaces {
				if filter.Matches(ns) {
					want = append(want, ns)
				}
			}

			cms, err := kube.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, metav1.ListOptions{ShardSelector: selector})
			if err != nil {
				t.Fatalf("listing ConfigMaps with %s: %v", selector, err)
			}
			applied, err := shard.ShardApplied(cms, selector)
			if err != nil || applied != sharded {
				t.Fatalf("ShardApplied = %v, %v; want %v", applied, err, sharded)
			}
			var cmNamespaces []string
			for _, cm := range cms.Items {
				if cm.Name == "web" && slices.Contains(namespaces, cm.Namespace) && (sharded || filter.Matches(cm.Namespace)) {
					cmNamespaces = append(cmNamespaces, cm.Namespace)
				}
			}
			slices.Sort(cmNamespaces)
			if wantSorted := slices.Sorted(slices.Values(want)); !slices.Equal(cmNamespaces, wantSorted) {
				t.Errorf("ConfigMaps selected by %s are in %v, want %v (the filter's)", selector, cmNamespaces, wantSorted)
			}

			// A custom resource's list is filtered as well, but v1.37's
			// unstructured lists have no shardInfo to say so: whether the
			// server shards is read from a built-in kind's list.
			list, err := hpas.List(ctx, metav1.NamespaceAll, metav1.ListOptions{ShardSelector: selector})
			if err != nil {
				t.Fatalf("listing with %s: %v", selector, err)
			}
			if list.ShardInfo != nil {
				t.Logf("the HPA custom resource's list now says it was sharded: %+v; checkSelector may read it", list.ShardInfo)
			}
			got := ours(list.Items, namespaces, nil)
			if !sharded {
				if !slices.Equal(got, namespaces) {
					t.Errorf("without the gate the list holds %v, want every namespace", got)
				}
				got = ours(list.Items, namespaces, &filter)
			}
			if !slices.Equal(got, want) {
				t.Errorf("selection %s kept %v, want %v (the filter's)", selector, got, want)
			}
			if sharded {
				checkShardedWatch(ctx, t, hpas, selector, list.ResourceVersion, namespaces, want)
			}
		})
	}
}

// ours returns the test's namespaces among items, sorted as namespaces,
// kept by filter when it is set.
func ours(items []v2.HorizontalPodAutoscaler, namespaces []string, filter *shard.Filter) []string {
	var out []string
	for _, ns := range namespaces {
		for _, hpa := range items {
			if hpa.Namespace == ns && (filter == nil || filter.Matches(ns)) {
				out = append(out, ns)
				break
			}
		}
	}
	return out
}

// checkShardedWatch watches from version with the selector, creates an HPA
// in every namespace outside it and then in every one inside, and checks
// that the watch delivers only the latter: events come in the order of the
// writes, so any from outside would come first.
func checkShardedWatch(ctx context.Context, t *testing.T, hpas *hpaclient.Client, selector, version string, namespaces, want []string) {
	t.Helper()
	w, err := hpas.Watch(ctx, metav1.NamespaceAll, metav1.ListOptions{ShardSelector: selector, ResourceVersion: version})
	if err != nil {
		t.Fatalf("watching with %s: %v", selector, err)
	}
	defer w.Stop()
	name := fmt.Sprintf("watched-%d", time.Now().UnixNano()%100000)
	for _, inside := range []bool{false, true} {
		for _, ns := range namespaces {
			if slices.Contains(want, ns) == inside {
				if _, err := hpas.Create(ctx, externalHPA(ns, name, 5, nil)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	var got []string
	timeout := time.After(30 * time.Second)
	for len(got) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			hpa, isHPA := ev.Object.(*v2.HorizontalPodAutoscaler)
			if ev.Type != watch.Added || !isHPA || hpa.Name != name {
				continue
			}
			if !slices.Contains(want, hpa.Namespace) {
				t.Errorf("the watch with %s delivered namespace %s, outside it", selector, hpa.Namespace)
			}
			got = append(got, hpa.Namespace)
		case <-timeout:
			t.Fatalf("the watch with %s delivered %v, want %v", selector, got, want)
		}
	}
}
