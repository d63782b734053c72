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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// ShardApplied tells from a list response whether the API server filtered it
// with the shard selector requested.
//
// A server that applies a shardSelector echoes it, as it parsed it, in the
// list's metadata.shardInfo.selector; a server that does not (the alpha
// ShardedListAndWatch gate off, or a release before it) leaves shardInfo
// unset and returns every object. Selectors rendered by this package are in
// the form the server echoes, so the echo equals the request.
//
// It returns false with no error when shardInfo is absent: the caller must
// filter the items itself (see Filter). It returns an error when the list was
// filtered by a different selector, whose items cannot be trusted to be the
// requested set, or when list is not a list.
func ShardApplied(list runtime.Object, requested string) (bool, error) {
	echoed, sharded, err := echoedSelector(list)
	if err != nil {
		return false, err
	}
	if !sharded {
		return false, nil
	}
	if echoed != requested {
		return false, fmt.Errorf("list was filtered by shard selector %q, not the requested %q", echoed, requested)
	}
	return true, nil
}

// echoedSelector reads metadata.shardInfo.selector from a typed or
// unstructured list.
func echoedSelector(list runtime.Object) (string, bool, error) {
	switch l := list.(type) {
	case metav1.ShardedListInterface:
		info := l.GetShardInfo()
		if info == nil {
			return "", false, nil
		}
		return info.Selector, true, nil
	case *unstructured.UnstructuredList:
		selector, found, err := unstructured.NestedString(l.Object, "metadata", "shardInfo", "selector")
		if err != nil {
			return "", false, fmt.Errorf("reading shardInfo of an unstructured list: %w", err)
		}
		return selector, found, nil
	default:
		return "", false, fmt.Errorf("%T has no list metadata", list)
	}
}
