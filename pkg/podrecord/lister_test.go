package podrecord

import (
	"context"
	"slices"
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

func TestListerList(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range []*corev1.Pod{pod("shop", "web-1", "web"), pod("shop", "db-1", "db"), pod("blog", "web-1", "web")} {
		if err := indexer.Add(FromPod(p)); err != nil {
			t.Fatal(err)
		}
	}
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
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

func TestListerRefusesACacheOfWholePods(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
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
