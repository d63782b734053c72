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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	fakescale "k8s.io/client-go/scale/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

var (
	deployments = schema.GroupResource{Group: "apps", Resource: "deployments"}
	rcs         = schema.GroupResource{Resource: "replicationcontrollers"}
	custom      = schema.GroupResource{Group: "example.com", Resource: "widgets"}
)

func deployment(rv string, spec, status int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: rv, UID: "uid-web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(spec), Selector: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}},
		}},
		Status: appsv1.DeploymentStatus{Replicas: status},
	}
}

func apiScale(rv string, spec int32) *autoscalingv1.Scale {
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: rv},
		Spec:       autoscalingv1.ScaleSpec{Replicas: spec},
		Status:     autoscalingv1.ScaleStatus{Replicas: spec, Selector: "from=api"},
	}
}

// fixture is a Cache over synced, empty informers whose stores a test
// fills itself, and a fake scale API that counts its calls.
type fixture struct {
	cache *Cache
	api   *fakescale.FakeScaleClient
	// apiScale is what the API answers a GET with; updates answer with
	// updateResult or updateErr.
	apiScale     *autoscalingv1.Scale
	updateResult *autoscalingv1.Scale
	updateErr    error
}

func newFixture(t *testing.T, start bool) *fixture {
	t.Helper()
	f := &fixture{api: &fakescale.FakeScaleClient{}}
	f.api.AddReactor("get", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		if f.apiScale == nil {
			return true, nil, apierrors.NewNotFound(deployments, "web")
		}
		return true, f.apiScale.DeepCopy(), nil
	})
	f.api.AddReactor("update", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		if f.updateErr != nil {
			return true, nil, f.updateErr
		}
		return true, f.updateResult.DeepCopy(), nil
	})
	f.cache = New(Options{Client: f.api, Kube: fake.NewClientset()})
	if start {
		runCache(t, f.cache)
		// Started as a first read of each kind would start them.
		for _, resource := range []schema.GroupResource{deployments, rcs} {
			f.cache.watches.informer(resource)
		}
		if !cache.WaitForCacheSync(t.Context().Done(), f.cache.HasSynced) {
			t.Fatal("informers did not sync")
		}
	}
	return f
}

// runCache runs c until the test ends, and waits for it to stop.
func runCache(t *testing.T, c *Cache) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	// Run has begun once a kind can start.
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		c.watches.mu.Lock()
		defer c.watches.mu.Unlock()
		return c.watches.ctx != nil, nil
	}); err != nil {
		t.Fatal("the cache did not start running")
	}
}

// store puts obj in the informer of resource, as a watch event would:
// through the kind's transform.
func (f *fixture) store(t *testing.T, resource schema.GroupResource, obj any) {
	t.Helper()
	informer, ok := f.cache.watches.informer(resource)
	if !ok {
		t.Fatalf("no informer of %s", resource)
	}
	transformed, err := f.cache.kinds[resource].transform(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := informer.GetIndexer().Update(transformed); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) get(t *testing.T, resource schema.GroupResource) *autoscalingv1.Scale {
	t.Helper()
	s, err := f.cache.Scales("ns").Get(context.Background(), resource, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	return s
}

func (f *fixture) apiGets() int {
	n := 0
	for _, a := range f.api.Actions() {
		if a.GetVerb() == "get" {
			n++
		}
	}
	return n
}

type step struct {
	// store, when set, is put in the Deployment informer first.
	store *appsv1.Deployment
	// update, when set, writes this replica count through the cache.
	update *int32
	// wantRV and wantReplicas are what a read then returns, and
	// wantAPIGets how many GETs the API has seen in all.
	wantRV       string
	wantReplicas int32
	wantAPIGets  int
}

func TestReadsOfADeploymentScale(t *testing.T) {
	cases := []struct {
		name         string
		start        bool
		apiScale     *autoscalingv1.Scale
		updateResult *autoscalingv1.Scale
		updateErr    error
		steps        []step
	}{{
		name:  "a Deployment's scale comes from the watch, without a request",
		start: true,
		steps: []step{{store: deployment("10", 3, 2), wantRV: "10", wantReplicas: 3, wantAPIGets: 0}},
	}, {
		name:     "before the informers have synced, the read goes to the API",
		apiScale: apiScale("12", 4),
		steps:    []step{{wantRV: "12", wantReplicas: 4, wantAPIGets: 1}},
	}, {
		name:     "an object the informer does not hold yet is read from the API",
		start:    true,
		apiScale: apiScale("12", 4),
		steps:    []step{{wantRV: "12", wantReplicas: 4, wantAPIGets: 1}},
	}, {
		name:         "after its own write the controller reads what it wrote until the informer catches up",
		start:        true,
		updateResult: apiScale("11", 5),
		steps: []step{
			{store: deployment("10", 2, 2), update: ptr.To[int32](5), wantRV: "11", wantReplicas: 5},
			{store: deployment("11", 5, 2), wantRV: "11", wantReplicas: 5},
			// A later change by someone else is seen as usual.
			{store: deployment("14", 1, 5), wantRV: "14", wantReplicas: 1},
		},
	}, {
		name:         "an informer already past the write is read as usual",
		start:        true,
		updateResult: apiScale("11", 5),
		steps: []step{
			{store: deployment("10", 2, 2), update: ptr.To[int32](5), wantRV: "11", wantReplicas: 5},
			{store: deployment("13", 7, 5), wantRV: "13", wantReplicas: 7},
		},
	}, {
		name:      "after a conflict the next read goes to the API, the one after to the cache",
		start:     true,
		apiScale:  apiScale("15", 6),
		updateErr: apierrors.NewConflict(deployments, "web", nil),
		steps: []step{
			{store: deployment("10", 2, 2), update: ptr.To[int32](5), wantRV: "15", wantReplicas: 6, wantAPIGets: 1},
			{store: deployment("15", 6, 6), wantRV: "15", wantReplicas: 6, wantAPIGets: 1},
		},
	}, {
		name:         "a resource version that is not a number sends the read to the API",
		start:        true,
		apiScale:     apiScale("opaque-2", 5),
		updateResult: apiScale("opaque-2", 5),
		steps: []step{
			{store: deployment("opaque-1", 2, 2), update: ptr.To[int32](5), wantRV: "opaque-2", wantReplicas: 5, wantAPIGets: 1},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.start)
			f.apiScale, f.updateResult, f.updateErr = tc.apiScale, tc.updateResult, tc.updateErr
			for i, st := range tc.steps {
				if st.store != nil {
					f.store(t, deployments, st.store)
				}
				if st.update != nil {
					s := f.get(t, deployments)
					s.Spec.Replicas = *st.update
					_, _ = f.cache.Scales("ns").Update(context.Background(), deployments, s, metav1.UpdateOptions{})
				}
				got := f.get(t, deployments)
				if got.ResourceVersion != st.wantRV || got.Spec.Replicas != st.wantReplicas {
					t.Errorf("step %d: read rv %s replicas %d, want rv %s replicas %d", i, got.ResourceVersion, got.Spec.Replicas, st.wantRV, st.wantReplicas)
				}
				if n := f.apiGets(); n != st.wantAPIGets {
					t.Errorf("step %d: %d GETs of the API, want %d", i, n, st.wantAPIGets)
				}
			}
		})
	}
}

// The informer holds one scale per object; what a reader does with the
// scale it got must not change the next reader's.
func TestAReaderCannotChangeTheCachedScale(t *testing.T) {
	f := newFixture(t, true)
	f.store(t, deployments, deployment("10", 3, 2))
	first := f.get(t, deployments)
	first.Spec.Replicas = 9
	first.Status.Selector = "changed"
	if again := f.get(t, deployments); again.Spec.Replicas != 3 || again.Status.Selector != "app=web,tier in (a,b)" {
		t.Errorf("second read %+v, want the cached scale unchanged", again)
	}
}

func TestScaleMatchesWhatTheAPIServerRenders(t *testing.T) {
	f := newFixture(t, true)
	f.store(t, deployments, deployment("10", 3, 2))
	f.store(t, rcs, &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: "20"},
		Spec:       corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](4), Selector: map[string]string{"b": "2", "a": "1"}},
		Status:     corev1.ReplicationControllerStatus{Replicas: 1},
	})
	cases := []struct {
		name     string
		resource schema.GroupResource
		want     *autoscalingv1.Scale
	}{{
		name:     "a Deployment's label selector is rendered as its selector string",
		resource: deployments,
		want: &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: "10", UID: "uid-web"},
			Spec:       autoscalingv1.ScaleSpec{Replicas: 3},
			Status:     autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=web,tier in (a,b)"},
		},
	}, {
		name:     "a ReplicationController's selector map is rendered sorted",
		resource: rcs,
		want: &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: "20"},
			Spec:       autoscalingv1.ScaleSpec{Replicas: 4},
			Status:     autoscalingv1.ScaleStatus{Replicas: 1, Selector: "a=1,b=2"},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, f.get(t, tc.resource)); diff != "" {
				t.Errorf("scale (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKindsWithoutAWatchReadTheAPI(t *testing.T) {
	f := newFixture(t, true)
	f.apiScale = apiScale("3", 2)
	if got := f.get(t, custom); got.ResourceVersion != "3" || f.apiGets() != 1 {
		t.Errorf("read rv %s with %d GETs, want rv 3 from one GET", got.ResourceVersion, f.apiGets())
	}
	// A write to such a kind leaves no trace in the cache.
	f.updateResult = apiScale("4", 3)
	if _, err := f.cache.Scales("ns").Update(context.Background(), custom, apiScale("3", 3), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(f.cache.written) != 0 {
		t.Errorf("the write of a kind without a watch was remembered: %v", f.cache.written)
	}
}

// Each kind's informer keeps only the scale of its objects, built as the
// API server's /scale renders it.
func TestTransformKeepsTheScale(t *testing.T) {
	full := deployment("10", 3, 2)
	full.Labels = map[string]string{"big": "label"}
	full.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"}
	full.Spec.Template = corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	full.Status.ReadyReplicas = 2
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: "10", UID: "uid-web"}
	scale := func(spec, status int32, selector string) *autoscalingv1.Scale {
		return &autoscalingv1.Scale{ObjectMeta: meta, Spec: autoscalingv1.ScaleSpec{Replicas: spec},
			Status: autoscalingv1.ScaleStatus{Replicas: status, Selector: selector}}
	}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	badSelector := &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1),
		Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}}}}
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/web", Obj: scale(3, 2, "app=web")}
	kinds := watchedKinds()
	cases := []struct {
		name     string
		resource schema.GroupResource
		obj      any
		want     any
	}{
		{"a Deployment becomes its scale, without template, labels or annotations", deployments, full, scale(3, 2, "app=web,tier in (a,b)")},
		{"a ReplicaSet becomes its scale", replicaSetsResource,
			&appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](4), Selector: selector}, Status: appsv1.ReplicaSetStatus{Replicas: 1}},
			scale(4, 1, "app=web")},
		{"a StatefulSet without spec.replicas has the API server's default of one", statefulSetsResource,
			&appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Selector: selector}},
			scale(1, 0, "app=web")},
		{"a ReplicationController's map selector renders as the API server's", rcs,
			&corev1.ReplicationController{ObjectMeta: meta, Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](2), Selector: map[string]string{"app": "web"}}},
			scale(2, 0, "app=web")},
		{"an object whose selector does not parse passes unchanged, for a read from the API", deployments, badSelector, badSelector},
		{"a tombstone passes unchanged", deployments, tombstone, tombstone},
		{"an object of another kind passes unchanged", deployments, &appsv1.ReplicaSet{ObjectMeta: meta}, &appsv1.ReplicaSet{ObjectMeta: meta}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kinds[tc.resource].transform(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("transformed (-want +got):\n%s", diff)
			}
		})
	}
}

// The watch of a kind costs a list of every object of it in the cluster:
// it starts with the first read of the kind and stops once no HPA targets
// it, and a stopped watch never answers a read.
func TestWatchesFollowTheTargetedKinds(t *testing.T) {
	type step struct {
		// targeted is what the HPAs target from this step on; sweep runs
		// a sweep first, read reads the Deployment's scale.
		targeted sets.Set[schema.GroupResource]
		sweep    bool
		read     bool
		// wantRunning is which kinds are watched after the step, and
		// wantAPIGets how many GETs the API has seen in all.
		wantRunning sets.Set[schema.GroupResource]
		wantAPIGets int
	}
	cases := []struct {
		name  string
		steps []step
	}{{
		name: "no kind is watched before its first read or a sweep",
		steps: []step{
			{targeted: sets.New(deployments), wantRunning: sets.New[schema.GroupResource]()},
		},
	}, {
		name: "a sweep starts the watch of a kind an HPA targets before its first read",
		steps: []step{
			{targeted: sets.New(deployments), sweep: true, wantRunning: sets.New(deployments)},
			{read: true, wantRunning: sets.New(deployments)},
		},
	}, {
		name: "the first read of a kind starts its watch and a later one is answered from it",
		steps: []step{
			{targeted: sets.New(deployments), read: true, wantRunning: sets.New(deployments), wantAPIGets: 1},
			{read: true, wantRunning: sets.New(deployments), wantAPIGets: 1},
		},
	}, {
		name: "a sweep keeps the watch of a kind an HPA still targets",
		steps: []step{
			{targeted: sets.New(deployments), read: true, wantRunning: sets.New(deployments), wantAPIGets: 1},
			{sweep: true, read: true, wantRunning: sets.New(deployments), wantAPIGets: 1},
		},
	}, {
		name: "a sweep stops the watch of a kind no HPA targets",
		steps: []step{
			{targeted: sets.New(deployments), read: true, wantRunning: sets.New(deployments), wantAPIGets: 1},
			{targeted: sets.New(rcs), sweep: true, wantRunning: sets.New(rcs), wantAPIGets: 1},
		},
	}, {
		name: "a read after the watch stopped goes to the API and starts a new watch",
		steps: []step{
			{targeted: sets.New(deployments), read: true, wantRunning: sets.New(deployments), wantAPIGets: 1},
			{targeted: sets.New[schema.GroupResource](), sweep: true, wantRunning: sets.New[schema.GroupResource](), wantAPIGets: 1},
			{targeted: sets.New(deployments), read: true, wantRunning: sets.New(deployments), wantAPIGets: 2},
			{read: true, wantRunning: sets.New(deployments), wantAPIGets: 2},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kube := fake.NewClientset(deployment("10", 3, 3))
			// A watch that a read starts must not sync before that read has
			// decided where to go (a fake list is instant): its list waits
			// until the read is over.
			var lists listGate
			kube.PrependReactor("list", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
				lists.wait()
				return false, nil, nil
			})
			api := &fakescale.FakeScaleClient{}
			api.AddReactor("get", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, apiScale("10", 3), nil
			})
			// Run sweeps once as it starts, on its own goroutine, at a
			// moment of its own: that sweep is shown no kind, so the steps
			// alone decide what is watched, and they begin once it asked.
			var targeted atomic.Pointer[sets.Set[schema.GroupResource]]
			targeted.Store(&sets.Set[schema.GroupResource]{})
			var asked atomic.Int32
			c := New(Options{Client: api, Kube: kube, SweepPeriod: time.Hour,
				Targeted: func() sets.Set[schema.GroupResource] {
					if asked.Add(1) == 1 {
						return sets.New[schema.GroupResource]()
					}
					return *targeted.Load()
				}})
			runCache(t, c)
			if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
				return asked.Load() > 0, nil
			}); err != nil {
				t.Fatal("the first sweep did not run")
			}
			gets := func() int {
				n := 0
				for _, a := range api.Actions() {
					if a.GetVerb() == "get" {
						n++
					}
				}
				return n
			}
			for i, st := range tc.steps {
				if st.targeted != nil {
					targeted.Store(&st.targeted)
				}
				if st.sweep {
					c.watches.sweep(t.Context())
				}
				if !cache.WaitForCacheSync(t.Context().Done(), c.HasSynced) {
					t.Fatal("the watches did not sync")
				}
				if st.read {
					lists.hold()
					_, err := c.Scales("ns").Get(t.Context(), deployments, "web", metav1.GetOptions{})
					lists.release()
					if err != nil {
						t.Fatal(err)
					}
					// The next read may use the watch once it has synced.
					if !cache.WaitForCacheSync(t.Context().Done(), c.HasSynced) {
						t.Fatal("the watch did not sync")
					}
				}
				if got := c.watches.runningKinds(); !got.Equal(st.wantRunning) {
					t.Errorf("step %d: watching %v, want %v", i, got.UnsortedList(), st.wantRunning.UnsortedList())
				}
				if n := gets(); n != st.wantAPIGets {
					t.Errorf("step %d: %d GETs of the API, want %d", i, n, st.wantAPIGets)
				}
			}
		})
	}
}

// listGate holds the lists of the fake API server while a read is under
// way.
type listGate struct {
	mu   sync.Mutex
	open chan struct{}
}

func (g *listGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *listGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open != nil {
		close(g.open)
		g.open = nil
	}
}

func (g *listGate) wait() {
	g.mu.Lock()
	ch := g.open
	g.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func TestResourceOfTheWatchedKinds(t *testing.T) {
	cases := []struct {
		name       string
		apiVersion string
		kind       string
		want       schema.GroupResource
		wantOK     bool
	}{
		{"a Deployment of apps/v1 is watched", "apps/v1", "Deployment", deployments, true},
		{"a StatefulSet is watched", "apps/v1", "StatefulSet", schema.GroupResource{Group: "apps", Resource: "statefulsets"}, true},
		{"a ReplicationController of the core group is watched", "v1", "ReplicationController", rcs, true},
		{"a ReplicaSet is watched", "apps/v1", "ReplicaSet", schema.GroupResource{Group: "apps", Resource: "replicasets"}, true},
		{"a kind of another group is not", "example.com/v1", "Deployment", schema.GroupResource{}, false},
		{"a malformed apiVersion is not", "apps/v1/extra", "Deployment", schema.GroupResource{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ResourceOf(tc.apiVersion, tc.kind)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("ResourceOf(%q, %q) = %v, %v; want %v, %v", tc.apiVersion, tc.kind, got, ok, tc.want, tc.wantOK)
			}
		})
	}
	// The lookup and the table of watched kinds must name the same kinds.
	for resource, k := range watchedKinds() {
		if got, ok := ResourceOf(schema.GroupVersion{Group: k.groupKind.Group, Version: "v1"}.String(), k.groupKind.Kind); !ok || got != resource {
			t.Errorf("ResourceOf(%v) = %v, %v; want %v, the watched kinds' resource", k.groupKind, got, ok, resource)
		}
	}
}
