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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWithMarkerReplacesItsOwnExpressionOnly(t *testing.T) {
	team := metav1.LabelSelectorRequirement{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}
	marker := func(v string) metav1.LabelSelectorRequirement {
		return metav1.LabelSelectorRequirement{Key: configMarkerLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{v}}
	}
	tests := []struct {
		name     string
		selector *metav1.LabelSelector
		want     []metav1.LabelSelectorRequirement
	}{
		{"no selector", nil, []metav1.LabelSelectorRequirement{marker("2")}},
		{"a selector of the user's is kept", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{team}},
			[]metav1.LabelSelectorRequirement{team, marker("2")}},
		{"an earlier marker is replaced", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{marker("1"), team}},
			[]metav1.LabelSelectorRequirement{team, marker("2")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.selector.DeepCopy()
			got := withMarker(tc.selector, "2")
			if len(got.MatchExpressions) != len(tc.want) {
				t.Fatalf("got %v, want %v", got.MatchExpressions, tc.want)
			}
			for i := range tc.want {
				if got.MatchExpressions[i].Key != tc.want[i].Key || got.MatchExpressions[i].Values[0] != tc.want[i].Values[0] {
					t.Errorf("got %v, want %v", got.MatchExpressions, tc.want)
				}
			}
			if before != nil && len(before.MatchExpressions) != len(tc.selector.MatchExpressions) {
				t.Error("the selector passed in was changed")
			}
		})
	}
}
