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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"
)

// labelSets shares one labels map among the records of pods whose labels
// are equal, as the pods of one ReplicaSet's template are: a small map
// costs a few hundred bytes, more than the rest of a record. A set is held
// weakly, so that it goes once the last record using it is gone, and its
// entry with it. Shared maps are never written: records are read-only.
type labelSets struct {
	mu   sync.Mutex
	sets map[string]weak.Pointer[labelSet]
}

// labelSet is one shared labels map; a record points to it so that the
// set lives exactly as long as some record uses it.
type labelSet struct {
	m map[string]string
}

func newLabelSets() *labelSets {
	return &labelSets{sets: map[string]weak.Pointer[labelSet]{}}
}

// intern returns the set of labels equal to m, making m that set when
// there is none. An empty m needs no set.
func (s *labelSets) intern(m map[string]string) *labelSet {
	if len(m) == 0 {
		return nil
	}
	key := canonical(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if set := s.sets[key].Value(); set != nil {
		return set
	}
	set := &labelSet{m: m}
	s.sets[key] = weak.Make(set)
	runtime.AddCleanup(set, s.forget, key)
	return set
}

// forget drops key's entry once its set has been collected; a set made
// for the same labels since then keeps it.
func (s *labelSets) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.sets[key]; ok && p.Value() == nil {
		delete(s.sets, key)
	}
}

// size is how many label sets are held.
func (s *labelSets) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sets)
}

// canonical is a key that two maps share exactly when they are equal:
// entries sorted, each part prefixed with its length, so that no key or
// value can be read as a separator.
func canonical(m map[string]string) string {
	keys := make([]string, 0, len(m))
	size := 0
	for k, v := range m {
		keys = append(keys, k)
		size += len(k) + len(v) + 8
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(size)
	for _, k := range keys {
		for _, part := range [2]string{k, m[k]} {
			b.WriteString(strconv.Itoa(len(part)))
			b.WriteByte(':')
			b.WriteString(part)
		}
	}
	return b.String()
}
