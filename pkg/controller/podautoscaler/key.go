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
