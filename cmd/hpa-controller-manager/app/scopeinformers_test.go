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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// extendedHPAServer serves a list of extended HPAs whatever the request's
// shardSelector, as an API server without ShardedListAndWatch does, and
// watches that stay open with no event.
type extendedHPAServer struct {
	namespaces []string
}

func (s extendedHPAServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Query().Get("sendInitialEvents") == "true":
		// No streaming lists: the informer falls back to list and watch.
		http.Error(w, "sendInitialEvents is not supported", http.StatusBadRequest)
	case r.URL.Query().Get("watch") == "true":
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	default:
		list := v2.HorizontalPodAutoscalerList{
			TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling.kube-hpa.io/v2", Kind: "HorizontalPodAutoscalerList"},
			ListMeta: metav1.ListMeta{ResourceVersion: "1"},
		}
		for _, ns := range s.namespaces {
			list.Items = append(list.Items, v2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", ResourceVersion: "1"}})
		}
		_ = json.NewEncoder(w).Encode(list)
	}
}

// errFromTheAPI is what a scale read that the cache cannot answer gets.
var errFromTheAPI = errors.New("read from the API")

type apiScales struct{}

func (apiScales) Scales(string) scale.ScaleInterface { return apiScales{} }

func (apiScales) Get(context.Context, schema.GroupResource, string, metav1.GetOptions) (*autoscalingv1.Scale, error) {
	return nil, errFromTheAPI
}

func (apiScales) Update(context.Context, schema.GroupResource, *autoscalingv1.Scale, metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	return nil, errFromTheAPI
}

func (apiScales) Patch(context.Context, schema.GroupVersionResource, string, types.PatchType, []byte, metav1.PatchOptions) (*autoscalingv1.Scale, error) {
	return nil, errFromTheAPI
}

// namespacesOf returns two namespaces of shard and one of another shard,
// by the hash the API server applies.
func namespacesOf(t *testing.T, sc scope) (in []string, out string) {
	t.Helper()
	for i := 0; len(in) < 2 || out == ""; i++ {
		if i > 10000 {
			t.Fatal("no namespace names found in and outside the shard")
		}
		ns := fmt.Sprintf("tenant-%d", i)
		switch {
		case sc.filter.Matches(ns) && len(in) < 2:
			in = append(in, ns)
		case !sc.filter.Matches(ns) && out == "":
			out = ns
		}
	}
	return in, out
}

// A fake clientset ignores shard selectors, like an API server without the
// ShardedListAndWatch gate, and sends every namespace's objects: each of a
// shard run's informers still holds only its shard's. Unsharded, they hold
// everything.
func TestAShardRunsInformersHoldOnlyItsNamespaces(t *testing.T) {
	sharded, err := scopeOf(4, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	in, out := namespacesOf(t, sharded)
	all := append(slices.Clone(in), out)
	cases := []struct {
		name string
		sc   scope
		want []string
	}{
		{name: "a shard's run", sc: sharded, want: in},
		{name: "unsharded", sc: scope{}, want: all},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var objects []runtime.Object
			for _, ns := range all {
				objects = append(objects,
					&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}},
					&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}},
					&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
						Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
			}
			srv := httptest.NewServer(extendedHPAServer{namespaces: all})
			t.Cleanup(srv.Close)
			hpa, err := hpaclient.New(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			c := &clients{kube: fake.NewClientset(objects...), hpa: hpa, scale: apiScales{}}
			cfg := &config.Config{HPA: config.HPA{ScaleFromWatch: true}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()

			own := newScopeInformers(c, tc.sc)
			scales := newScaleSource(cfg, c, func() sets.Set[schema.GroupResource] { return sets.New(deploymentsResource) }, tc.sc)
			pods := own.pods.Informer()
			own.factory.Start(ctx.Done())
			defer own.factory.Shutdown()
			go own.crd.RunWithContext(ctx)
			stopScales := scales.start(ctx)
			defer func() {
				cancel()
				stopScales()
			}()
			if !cache.WaitForCacheSync(ctx.Done(), own.crd.HasSynced, own.native.HasSynced, pods.HasSynced) {
				t.Fatal("the informers did not sync")
			}
			for name, informer := range map[string]cache.SharedIndexInformer{"pod": pods, "native HPA": own.native, "extended HPA": own.crd} {
				var got []string
				for _, obj := range informer.GetStore().List() {
					got = append(got, obj.(metav1.Object).GetNamespace())
				}
				slices.Sort(got)
				if want := sortedCopy(tc.want); !slices.Equal(got, want) {
					t.Errorf("the %s informer holds the namespaces %q, want %q", name, got, want)
				}
				// The listers read a namespace through the namespace index.
				if objs, err := informer.GetIndexer().ByIndex(cache.NamespaceIndex, in[0]); err != nil || len(objs) != 1 {
					t.Errorf("the %s informer's namespace index gives %d objects of %s (%v), want 1", name, len(objs), in[0], err)
				}
			}

			// The scale cache answers what its watch holds and sends the
			// rest to the API.
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				_, err := scales.Scales(in[0]).Get(ctx, deploymentsResource, "web", metav1.GetOptions{})
				return err == nil, nil
			}); err != nil {
				t.Fatalf("the scale cache never answered from its watch: %v", err)
			}
			for _, ns := range all {
				_, err := scales.Scales(ns).Get(ctx, deploymentsResource, "web", metav1.GetOptions{})
				fromTheWatch := err == nil
				if want := slices.Contains(tc.want, ns); fromTheWatch != want {
					t.Errorf("the scale of %s/web read from the watch: %v (%v), want %v", ns, fromTheWatch, err, want)
				}
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

var deploymentsResource = schema.GroupResource{Group: "apps", Resource: "deployments"}
