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
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// writtenVersions remembers, per HPA, the resourceVersion of the
// controller's own last status write until the HPA cache has seen it
// (StaleControllerConsistencyHPA, as kube-controller-manager v1.37). A pass
// that read the HPA from a cache older than that write would decide from a
// status the controller has already replaced: its fallback history, its
// ScaledToZero, its last scale time.
type writtenVersions struct {
	mu    sync.Mutex
	byKey map[hpaKey]writtenVersion
}

type writtenVersion struct {
	uid     types.UID
	version string
}

func newWrittenVersions() *writtenVersions {
	return &writtenVersions{byKey: map[hpaKey]writtenVersion{}}
}

// wrote records a status write of the HPA of key, keeping the newest
// version written; a write to an HPA of another UID (deleted and created
// again) replaces what the old one wrote.
func (w *writtenVersions) wrote(key hpaKey, uid types.UID, version string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	known, ok := w.byKey[key]
	if ok && known.uid == uid {
		if cmp, err := resourceversion.CompareResourceVersion(known.version, version); err == nil && cmp > 0 {
			return
		}
	}
	w.byKey[key] = writtenVersion{uid: uid, version: version}
}

// errStaleCache is a pass skipped because the HPA cache had not yet seen
// the controller's own last status write of the HPA.
type errStaleCache struct {
	read, written string
	resource      schema.GroupResource
}

func (e errStaleCache) Error() string {
	return fmt.Sprintf("the HPA cache has seen resourceVersion %s, older than this controller's own status write %s (%s): the pass waits for it", e.read, e.written, e.resource)
}

// ensureSeen returns an errStaleCache when the cache, whose last synced
// resourceVersion is read, is older than the last status write of key's
// HPA. Once the cache has caught up the record is dropped, so one write
// holds back at most the passes before its own watch event. Versions that
// do not compare (an empty one from an informer without that bookkeeping,
// a malformed one) never hold a pass back.
func (w *writtenVersions) ensureSeen(key hpaKey, read string, resource schema.GroupResource) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	known, ok := w.byKey[key]
	if !ok || read == "" {
		return nil
	}
	cmp, err := resourceversion.CompareResourceVersion(known.version, read)
	if err == nil && cmp > 0 {
		return errStaleCache{read: read, written: known.version, resource: resource}
	}
	delete(w.byKey, key)
	return nil
}

// forget drops what was written to an HPA that is gone.
func (w *writtenVersions) forget(key hpaKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.byKey, key)
}
