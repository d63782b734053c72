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

package framework

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestUsageAnnotations(t *testing.T) {
	pod := func(annotations map[string]string, containers ...string) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
		}
		return p
	}
	str := func(s string) *string { return &s }
	cases := []struct {
		name string
		pod  corev1.Pod
		load Load
		pods int
		want map[string]*string
	}{{
		name: "a total is spread over the running pods",
		pod:  pod(nil, "app"), load: Load{CPU: "300m", Memory: "120Mi"}, pods: 3,
		want: map[string]*string{"kube-hpa.io/usage-cpu-app": str("100m"), "kube-hpa.io/usage-memory-app": str("41943040")},
	}, {
		name: "a pod's share is split over its containers",
		pod:  pod(nil, "app", "sidecar"), load: Load{CPU: "400m"}, pods: 2,
		want: map[string]*string{"kube-hpa.io/usage-cpu-app": str("100m"), "kube-hpa.io/usage-cpu-sidecar": str("100m")},
	}, {
		name: "a load on one container leaves the others at the default",
		pod:  pod(nil, "app", "sidecar"), load: Load{CPU: "400m", Container: "sidecar"}, pods: 2,
		want: map[string]*string{"kube-hpa.io/usage-cpu-sidecar": str("200m")},
	}, {
		name: "an annotation of an earlier load goes",
		pod:  pod(map[string]string{"kube-hpa.io/usage-cpu-sidecar": "200m", "other": "kept"}, "app", "sidecar"), load: Load{CPU: "50m", Container: "app"}, pods: 1,
		want: map[string]*string{"kube-hpa.io/usage-cpu-app": str("50m"), "kube-hpa.io/usage-cpu-sidecar": nil},
	}, {
		name: "a share never falls to zero",
		pod:  pod(nil, "app"), load: Load{CPU: "1m"}, pods: 4,
		want: map[string]*string{"kube-hpa.io/usage-cpu-app": str("1m")},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := usageAnnotations(tc.pod, tc.load, tc.pods)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d annotations %v, want %d", len(got), got, len(tc.want))
			}
			for k, w := range tc.want {
				g, ok := got[k]
				if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
					t.Errorf("%s: got %v, want %v", k, deref(g), deref(w))
				}
			}
		})
	}
}

func TestSameUsage(t *testing.T) {
	v := "100m"
	cases := []struct {
		name        string
		annotations map[string]string
		want        map[string]*string
		same        bool
	}{
		{"every value already set", map[string]string{"a": "100m"}, map[string]*string{"a": &v}, true},
		{"a value differs", map[string]string{"a": "50m"}, map[string]*string{"a": &v}, false},
		{"a value is missing", nil, map[string]*string{"a": &v}, false},
		{"a removed annotation is still there", map[string]string{"b": "1m"}, map[string]*string{"b": nil}, false},
		{"a removed annotation is gone", nil, map[string]*string{"b": nil}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameUsage(tc.annotations, tc.want); got != tc.same {
				t.Errorf("sameUsage = %v, want %v", got, tc.same)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "<removed>"
	}
	return *s
}
