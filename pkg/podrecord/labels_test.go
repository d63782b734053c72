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
	"reflect"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func record(t *testing.T, tr *Transformer, name string, labels map[string]string) *Pod {
	t.Helper()
	obj, err := tr.Transform(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: labels}})
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*Pod)
}

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestRecordsShareEqualLabels(t *testing.T) {
	web := func() map[string]string { return map[string]string{"app": "web", "pod-template-hash": "abc"} }
	cases := []struct {
		name       string
		a, b       map[string]string
		wantShared bool
	}{
		{"equal labels share one map", web(), web(), true},
		{"labels differing in a value do not", web(), map[string]string{"app": "web", "pod-template-hash": "abd"}, false},
		{"labels with one more entry do not", web(), map[string]string{"app": "web", "pod-template-hash": "abc", "x": ""}, false},
		{"a key and value that run together differently do not", map[string]string{"a": "bc"}, map[string]string{"ab": "c"}, false},
		{"entries that would read as one joined string do not", map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1b2"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTransformer()
			a, b := record(t, tr, "a", tc.a), record(t, tr, "b", tc.b)
			if got := sameMap(a.Labels, b.Labels); got != tc.wantShared {
				t.Errorf("shared = %v, want %v", got, tc.wantShared)
			}
			if !reflect.DeepEqual(a.Labels, tc.a) || !reflect.DeepEqual(b.Labels, tc.b) {
				t.Errorf("labels %v and %v, want %v and %v", a.Labels, b.Labels, tc.a, tc.b)
			}
		})
	}
}

func TestPodsWithoutLabelsHoldNoSet(t *testing.T) {
	tr := NewTransformer()
	if r := record(t, tr, "a", nil); r.Labels != nil || r.labels != nil || tr.labels.size() != 0 {
		t.Errorf("a pod without labels made a set: %+v, %d sets", r, tr.labels.size())
	}
}

// A set lives as long as some record uses it: the Transformer's table does
// not grow with every label set the cluster has ever had (each rollout
// brings a new pod-template-hash).
func TestLabelSetsGoWithTheirLastRecord(t *testing.T) {
	tr := NewTransformer()
	kept := record(t, tr, "kept", map[string]string{"app": "web"})
	for i := range 100 {
		record(t, tr, "gone", map[string]string{"app": "web", "rollout": string(rune('a' + i%26)), "n": string(rune('A' + i/26))})
	}
	deadline := time.Now().Add(30 * time.Second)
	for tr.labels.size() > 1 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := tr.labels.size(); n != 1 {
		t.Fatalf("%d label sets held, want only the one a record still uses", n)
	}
	// The set still in use is still shared.
	again := record(t, tr, "again", map[string]string{"app": "web"})
	if !sameMap(kept.Labels, again.Labels) {
		t.Error("a set in use was dropped: equal labels no longer share it")
	}
	runtime.KeepAlive(kept)
}
