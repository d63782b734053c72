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

package shard

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestShardApplied(t *testing.T) {
	const requested = "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')"
	const other = "shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')"
	tests := []struct {
		name    string
		list    runtime.Object
		want    bool
		wantErr bool
	}{
		{
			name: "typed list echoing the requested selector was sharded",
			list: &autoscalingv2.HorizontalPodAutoscalerList{ListMeta: metav1.ListMeta{ShardInfo: &metav1.ShardInfo{Selector: requested}}},
			want: true,
		},
		{
			name: "typed list without shard info was not sharded",
			list: &autoscalingv2.HorizontalPodAutoscalerList{},
			want: false,
		},
		{
			name:    "typed list sharded by another selector is an error",
			list:    &autoscalingv2.HorizontalPodAutoscalerList{ListMeta: metav1.ListMeta{ShardInfo: &metav1.ShardInfo{Selector: other}}},
			wantErr: true,
		},
		{
			name: "metadata-only list echoing the requested selector was sharded",
			list: &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ShardInfo: &metav1.ShardInfo{Selector: requested}}},
			want: true,
		},
		{
			name: "unstructured list echoing the requested selector was sharded",
			list: &unstructured.UnstructuredList{Object: map[string]any{
				"metadata": map[string]any{"shardInfo": map[string]any{"selector": requested}},
			}},
			want: true,
		},
		{
			name: "unstructured list without shard info was not sharded",
			list: &unstructured.UnstructuredList{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "7"}}},
			want: false,
		},
		{
			name: "unstructured list with a malformed selector is an error",
			list: &unstructured.UnstructuredList{Object: map[string]any{
				"metadata": map[string]any{"shardInfo": map[string]any{"selector": 5}},
			}},
			wantErr: true,
		},
		{
			name:    "an object that is not a list is an error",
			list:    &autoscalingv2.HorizontalPodAutoscaler{},
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ShardApplied(tc.list, requested)
			if tc.wantErr {
				if err == nil {
					t.Errorf("ShardApplied() = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ShardApplied(): %v", err)
			}
			if got != tc.want {
				t.Errorf("ShardApplied() = %v, want %v", got, tc.want)
			}
		})
	}
}
