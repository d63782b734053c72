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
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// benchPod is a pod of a Deployment as the API server sends it to an
// informer that drops managedFields: what the bench's kwok pods carry.
func benchPod(i int) *corev1.Pod {
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("workload-%05d-5d8f7c9b4-%05d", i/5, i), Namespace: fmt.Sprintf("ns-%02d", (i/5)%50),
			UID: types.UID(fmt.Sprintf("%08d-1111-2222-3333-444455556666", i)), ResourceVersion: fmt.Sprint(100000 + i),
			Labels:          map[string]string{"app": fmt.Sprintf("workload-%05d", i/5), "pod-template-hash": "5d8f7c9b4"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "workload-5d8f7c9b4"}},
		},
		Spec: corev1.PodSpec{
			NodeName: "kwok-node-0",
			Containers: []corev1.Container{{Name: "app", Image: "fake",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &at, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at},
			},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: "fake"}}},
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkCacheHeld reports the heap that each pod holds in an informer's
// indexer (held-B/pod): as its record with the label index, and as the
// whole pod that an informer without the transform would keep.
func BenchmarkCacheHeld(b *testing.B) {
	const pods = 10000
	for _, bc := range []struct {
		name      string
		transform cache.TransformFunc
		// whole pods have the namespace index alone, as upstream's.
		withoutLabels bool
	}{
		{"record", NewTransformer().Transform, false},
		{"whole-pod", func(obj any) (any, error) { return obj, nil }, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var held uint64
			for b.Loop() {
				indexer := newIndexer(bc.withoutLabels)
				before := heapInUse()
				for i := range pods {
					obj, err := bc.transform(benchPod(i))
					if err != nil {
						b.Fatal(err)
					}
					if err := indexer.Add(obj); err != nil {
						b.Fatal(err)
					}
				}
				held = heapInUse() - before
				runtime.KeepAlive(indexer)
			}
			b.ReportMetric(float64(held)/pods, "held-B/pod")
		})
	}
}

// BenchmarkList lists one HPA's five pods among 50,000 in one namespace
// (the bench's scaling workload at its largest), with the label index and
// with the namespace index alone.
func BenchmarkList(b *testing.B) {
	const pods = 50000
	selector := labels.SelectorFromSet(labels.Set{"app": "workload-04321"})
	for _, bc := range []struct {
		name          string
		withoutLabels bool
	}{{"label-index", false}, {"namespace-index", true}} {
		b.Run(bc.name, func(b *testing.B) {
			indexer := newIndexer(bc.withoutLabels)
			tr := NewTransformer()
			for i := range pods {
				p := benchPod(i)
				p.Namespace = "hpa-bench"
				obj, err := tr.Transform(p)
				if err != nil {
					b.Fatal(err)
				}
				if err := indexer.Add(obj); err != nil {
					b.Fatal(err)
				}
			}
			lister := NewLister(indexer)
			b.ReportAllocs()
			for b.Loop() {
				got, err := lister.List("hpa-bench", selector)
				if err != nil || len(got) != 5 {
					b.Fatalf("listed %d pods, %v; want 5", len(got), err)
				}
			}
		})
	}
}
