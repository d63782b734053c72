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
	"strconv"
	"sync"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/util/retry"

	"github.com/kube-hpa/kube-hpa/pkg/scalecache"
	"github.com/kube-hpa/kube-hpa/test/localcluster"
)

var deploymentsGR = schema.GroupResource{Group: "apps", Resource: "deployments"}

// countingScales counts the scale GETs that reach the API server.
type countingScales struct {
	scale.ScalesGetter
	mu   sync.Mutex
	gets int
}

func (c *countingScales) Scales(namespace string) scale.ScaleInterface {
	return countingScaleInterface{ScaleInterface: c.ScalesGetter.Scales(namespace), parent: c}
}

func (c *countingScales) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gets
}

type countingScaleInterface struct {
	scale.ScaleInterface
	parent *countingScales
}

func (s countingScaleInterface) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	s.parent.mu.Lock()
	s.parent.gets++
	s.parent.mu.Unlock()
	return s.ScaleInterface.Get(ctx, gr, name, opts)
}

// scaleClientOf is a scale client of the cluster, as the controller builds it.
func scaleClientOf(t *testing.T, cluster *localcluster.Cluster) scale.ScalesGetter {
	t.Helper()
	cfg := cluster.RESTConfig()
	disc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	scales, err := scale.NewForConfig(cfg, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(disc))
	if err != nil {
		t.Fatal(err)
	}
	return scales
}

// startScaleCache returns a synced scale cache of the namespace over inner.
func startScaleCache(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns string, inner scale.ScalesGetter) *scalecache.Cache {
	t.Helper()
	// The HPAs of the test target Deployments: the cache watches them
	// from its start.
	c := scalecache.New(scalecache.Options{Client: inner, Kube: kube, Namespace: ns,
		Targeted: func() sets.Set[schema.GroupResource] { return sets.New(deploymentsGR) }})
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return c.HasSynced() && c.Watching(deploymentsGR), nil
	}); err != nil {
		t.Fatalf("the scale cache did not sync: %v", err)
	}
	return c
}

func resourceVersion(t *testing.T, obj metav1.Object) uint64 {
	t.Helper()
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("resource version %q is not a number", obj.GetResourceVersion())
	}
	return rv
}

// A read right after the controller's own write, before the watch has
// delivered it, must not return the scale from before: the controller
// would take its own scale-up for a person's scale-down and flap.
func TestScaleCacheNeverReadsOlderThanItsOwnWrite(t *testing.T) {
	cluster, ctx, kube, _, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "web", 1)
	api := &countingScales{ScalesGetter: scaleClientOf(t, cluster)}
	scales := startScaleCache(ctx, t, kube, ns, api).Scales(ns)

	conflicts := 0
	for i := range 30 {
		// The Deployment controller writes the object too: a conflict is
		// retried from a fresh read, as the HPA controller does.
		var written *autoscalingv1.Scale
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			current, err := scales.Get(ctx, deploymentsGR, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			current.Spec.Replicas = int32(2 + i%5)
			written, err = scales.Update(ctx, deploymentsGR, current, metav1.UpdateOptions{})
			if apierrors.IsConflict(err) {
				conflicts++
			}
			return err
		})
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		read, err := scales.Get(ctx, deploymentsGR, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if read.Spec.Replicas != written.Spec.Replicas || resourceVersion(t, read) < resourceVersion(t, written) {
			t.Fatalf("write %d: read replicas %d at rv %s right after writing %d at rv %s",
				i, read.Spec.Replicas, read.ResourceVersion, written.Spec.Replicas, written.ResourceVersion)
		}
	}
	// Only the reads after a conflict may go to the API server.
	if n := api.count(); n != conflicts {
		t.Errorf("%d scale GETs reached the API server after %d conflicts; every other read should have come from the watch or the own write", n, conflicts)
	}
}

// A write that conflicts (someone changed the Deployment after the cache
// last saw it) is followed by a read from the API, so that the retry
// starts from the latest object and succeeds.
func TestScaleCacheReadsTheAPIAfterAConflict(t *testing.T) {
	cluster, ctx, kube, _, ns := setUpControllerTest(t)
	createWorkload(ctx, t, kube, ns, "web", 1)
	api := &countingScales{ScalesGetter: scaleClientOf(t, cluster)}
	scales := startScaleCache(ctx, t, kube, ns, api).Scales(ns)

	stale, err := scales.Get(ctx, deploymentsGR, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	touched, err := kube.AppsV1().Deployments(ns).Patch(ctx, "web", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"kube-hpa.io/touched":"by-someone-else"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale.Spec.Replicas = 3
	if _, err := scales.Update(ctx, deploymentsGR, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("a write from rv %s after the Deployment moved to rv %s: got %v, want a conflict", stale.ResourceVersion, touched.ResourceVersion, err)
	}
	before := api.count()
	fresh, err := scales.Get(ctx, deploymentsGR, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if api.count() != before+1 {
		t.Errorf("the read after a conflict did not go to the API server (%d GETs, want %d)", api.count(), before+1)
	}
	if got, want := fresh.ResourceVersion, touched.ResourceVersion; resourceVersion(t, fresh) < resourceVersion(t, touched) {
		t.Errorf("the read after a conflict has rv %s, older than the Deployment's %s", got, want)
	}
	// The Deployment controller may write the object again after the
	// fresh read; the retry then conflicts and reads fresh once more.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		fresh.Spec.Replicas = 3
		_, err := scales.Update(ctx, deploymentsGR, fresh, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			var getErr error
			if fresh, getErr = scales.Get(ctx, deploymentsGR, "web", metav1.GetOptions{}); getErr != nil {
				return getErr
			}
		}
		return err
	})
	if err != nil {
		t.Errorf("the retry from the fresh read: %v", err)
	}
	if got := deploymentReplicas(ctx, kube, ns, "web"); got != 3 {
		t.Errorf("Deployment replicas = %d, want 3", got)
	}
}
