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

package podautoscaler

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// hpaKey identifies an HPA across sources: a native HPA and an extended one
// may share a namespace and name.
type hpaKey struct {
	source    int
	namespace string
	name      string
}

// String is the key of the HPA's in-memory state. The first source (the
// extended kind) keeps the plain namespace/name that messages show.
func (k hpaKey) String() string {
	if k.source == 0 {
		return k.namespace + "/" + k.name
	}
	return fmt.Sprintf("%s/%s#%d", k.namespace, k.name, k.source)
}

func keyFor(source int, obj any) (hpaKey, error) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return hpaKey{}, fmt.Errorf("couldn't get key for object %+v: %w", obj, err)
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return hpaKey{}, err
	}
	return hpaKey{source: source, namespace: namespace, name: name}, nil
}
