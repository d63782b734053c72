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

package podrecord

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func pod(namespace, name, app string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": app}}}
}

func names(pods []*Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	slices.Sort(out)
	return out
}

// newIndexer returns a cache as the pod informer's: with the namespace
// index, and the label index unless withoutLabels.
func newIndexer(withoutLabels bool) cache.Indexer {
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	if !withoutLabels {
		maps.Copy(indexers, Indexers())
	}
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
}

func TestListerList(t *testing.T) {
	pods := []*corev1.Pod{pod("shop", "web-1", "web"), pod("shop", "db-1", "db"), pod("blog", "web-1", "web")}
	pods[0].Labels["tier"] = "front"
	pods[0].Labels["pod-template-hash"] = "abc"
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	parse := func(s string) labels.Selector {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	cases := []struct {
		name      string
		namespace string
		selector  labels.Selector
		want      []string
	}{
		{"the selector's pods of one namespace", "shop", web, []string{"shop/web-1"}},
		{"every pod of one namespace", "shop", labels.Everything(), []string{"shop/db-1", "shop/web-1"}},
		{"the selector's pods of every namespace", metav1.NamespaceAll, web, []string{"blog/web-1", "shop/web-1"}},
		{"a namespace without pods", "empty", labels.Everything(), nil},
		{"an in requirement lists the pods of each value", "shop", parse("app in (web,db)"), []string{"shop/db-1", "shop/web-1"}},
		{"every requirement holds, not only the one the index narrows by", "shop", parse("app=web,tier!=front"), nil},
		{"a selector without an equality reads the namespace", "shop", parse("tier"), []string{"shop/web-1"}},
		{"a selector that matches nothing lists nothing", "shop", labels.Nothing(), nil},
		{"a value of another namespace is not this one's", "blog", parse("tier=front"), nil},
		{"a label set per revision is not indexed: the selector narrows by another", "shop", parse("app=web,pod-template-hash=abc"), []string{"shop/web-1"}},
		{"a selector on a label set per revision alone reads the namespace", "shop", parse("pod-template-hash=abc"), []string{"shop/web-1"}},
	}
	for _, tc := range cases {
		for _, withoutLabels := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, without the label index %v", tc.name, withoutLabels), func(t *testing.T) {
				indexer := newIndexer(withoutLabels)
				for _, p := range pods {
					if err := indexer.Add(FromPod(p)); err != nil {
						t.Fatal(err)
					}
				}
				got, err := NewLister(indexer).List(tc.namespace, tc.selector)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(names(got), tc.want) {
					t.Errorf("listed %v, want %v", names(got), tc.want)
				}
			})
		}
	}
}

// Whatever the pods and the selector, and however the pods' labels changed,
// the label index lists what a read of the whole namespace does.
func TestTheLabelIndexListsWhatTheNamespaceHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys, values := []string{"app", "tier", "example.com/team", "pod-template-hash"}, []string{"a", "b", "c"}
	randomLabels := func() map[string]string {
		m := map[string]string{}
		for _, k := range keys {
			if rng.IntN(3) > 0 {
				m[k] = values[rng.IntN(len(values))]
			}
		}
		return m
	}
	ops := []string{"=", "==", "!=", " in ", " notin ", "exists", "!"}
	randomSelector := func() string {
		var parts []string
		for range 1 + rng.IntN(3) {
			k := keys[rng.IntN(len(keys))]
			v := values[rng.IntN(len(values))]
			switch op := ops[rng.IntN(len(ops))]; op {
			case " in ", " notin ":
				parts = append(parts, k+op+"("+v+","+values[rng.IntN(len(values))]+")")
			case "exists":
				parts = append(parts, k)
			case "!":
				parts = append(parts, "!"+k)
			default:
				parts = append(parts, k+op+v)
			}
		}
		return strings.Join(parts, ",")
	}
	indexed, whole := newIndexer(false), newIndexer(true)
	namespaces := []string{"shop", "blog"}
	for round := range 200 {
		p := pod(namespaces[rng.IntN(2)], fmt.Sprintf("p%d", rng.IntN(30)), "")
		p.Labels = randomLabels()
		deleted := rng.IntN(10) == 0
		for _, indexer := range []cache.Indexer{indexed, whole} {
			var err error
			if deleted {
				err = indexer.Delete(FromPod(p))
			} else {
				err = indexer.Update(FromPod(p))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		raw := randomSelector()
		selector, err := labels.Parse(raw)
		if err != nil {
			t.Fatalf("selector %q: %v", raw, err)
		}
		for _, ns := range namespaces {
			got, err := NewLister(indexed).List(ns, selector)
			if err != nil {
				t.Fatal(err)
			}
			want, err := NewLister(whole).List(ns, selector)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), names(want)) {
				t.Fatalf("round %d, %s, selector %q: the label index listed %v, the namespace %v", round, ns, raw, names(got), names(want))
			}
		}
	}
}

func TestListerRefusesACacheOfWholePods(t *testing.T) {
	indexer := newIndexer(false)
	if err := indexer.Add(pod("shop", "web-1", "web")); err != nil {
		t.Fatal(err)
	}
	if _, err := NewLister(indexer).List("shop", labels.Everything()); err == nil {
		t.Error("listing a cache of *corev1.Pod succeeded; want an error naming the missing transform")
	}
}

// An informer with the transform holds records and hands them to its
// handlers through add, label change and delete: client-go's machinery
// needs no more of a stored object than its metadata.
func TestInformerKeepsRecords(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(pod("shop", "web-1", "web"))
	informer := informers.NewSharedInformerFactory(client, 0).Core().V1().Pods().Informer()
	if err := informer.SetTransform(NewTransformer().Transform); err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 10)
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { events <- "add " + obj.(*Pod).Labels["app"] },
		UpdateFunc: func(old, cur any) {
			events <- "update " + old.(*Pod).Labels["app"] + " -> " + cur.(*Pod).Labels["app"]
		},
		DeleteFunc: func(obj any) { events <- "delete " + obj.(*Pod).Name },
	})
	if err != nil {
		t.Fatal(err)
	}
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer never synced")
	}
	pods := client.CoreV1().Pods("shop")
	if _, err := pods.Update(ctx, pod("shop", "web-1", "api"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"add web", "update web -> api"}
	for _, w := range want {
		select {
		case got := <-events:
			if got != w {
				t.Fatalf("event %q, want %q", got, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no event, want %q", w)
		}
	}
	listed, err := NewLister(informer.GetIndexer()).List("shop", labels.SelectorFromSet(labels.Set{"app": "api"}))
	if err != nil || !slices.Equal(names(listed), []string{"shop/web-1"}) {
		t.Errorf("listed %v, %v; want the updated record", names(listed), err)
	}
	if err := pods.Delete(ctx, "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-events:
		if got != "delete web-1" {
			t.Errorf("event %q, want the deletion", got)
		}
	case <-time.After(10 * time.Second):
		t.Error("no deletion event")
	}
}

func TestAddIndexersLeavesThoseThere(t *testing.T) {
	informer := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	for i := range 2 {
		if err := AddIndexers(informer); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if _, ok := informer.GetIndexer().GetIndexers()[labelIndex]; !ok {
		t.Error("the label index was not added")
	}
}
