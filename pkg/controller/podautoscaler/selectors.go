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
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// selectorIndex remembers the pod selector of each HPA's target, so that a
// reconcile can tell when the pods it would scale are also selected by
// another HPA (two HPAs fighting over the same pods is refused).
//
// Answering that question means matching every selector of the namespace
// against the HPA's pods, which made each reconcile grow with the
// namespace and a whole period quadratic in it. The answers are therefore
// kept until something they depend on changes: a selector matching the
// HPA's pods, before or after its change; an HPA among the owners going
// away; a pod entering or leaving the HPA's selection (see podChanged).
type selectorIndex struct {
	mu          sync.Mutex
	byNamespace map[string]*namespaceSelectors
}

type namespaceSelectors struct {
	hpas map[hpaKey]parsedSelector
	// answers holds, per HPA, who owns its pods, while still true.
	answers map[hpaKey]ownersAnswer
	// epoch counts pod changes. An answer computed from a pod list taken
	// across one may already be stale, so it is used but not kept.
	epoch uint64
}

// ownersAnswer is, for one HPA, the sorted HPAs whose selector matches at
// least one of its pods, and the labels of those pods, against which a
// changed selector is checked.
type ownersAnswer struct {
	owners []hpaKey
	pods   []labels.Set
}

func (a ownersAnswer) selectedBy(selector labels.Selector) bool {
	for _, set := range a.pods {
		if selector.Matches(set) {
			return true
		}
	}
	return false
}

// parsedSelector keeps the text of a selector with its parsed form, so that
// an unchanged selector is neither parsed again nor treated as a change.
type parsedSelector struct {
	raw      string
	selector labels.Selector
}

func newSelectorIndex() *selectorIndex {
	return &selectorIndex{byNamespace: map[string]*namespaceSelectors{}}
}

// register adds an HPA that selects nothing yet, and reports whether it was
// new. Its selector becomes known at its first reconcile.
func (s *selectorIndex) register(key hpaKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.byNamespace[key.namespace]
	if ns == nil {
		ns = &namespaceSelectors{hpas: map[hpaKey]parsedSelector{}, answers: map[hpaKey]ownersAnswer{}}
		s.byNamespace[key.namespace] = ns
	}
	if _, ok := ns.hpas[key]; ok {
		return false
	}
	ns.hpas[key] = parsedSelector{selector: labels.Nothing()}
	return true
}

// remove forgets an HPA and reports whether it was known.
func (s *selectorIndex) remove(key hpaKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.byNamespace[key.namespace]
	if ns == nil {
		return false
	}
	if _, ok := ns.hpas[key]; !ok {
		return false
	}
	delete(ns.hpas, key)
	if len(ns.hpas) == 0 {
		delete(s.byNamespace, key.namespace)
		return true
	}
	delete(ns.answers, key)
	for other, answer := range ns.answers {
		if slices.Contains(answer.owners, key) {
			delete(ns.answers, other)
		}
	}
	return true
}

// len is the number of HPAs known.
func (s *selectorIndex) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, ns := range s.byNamespace {
		n += len(ns.hpas)
	}
	return n
}

// errHPAGone is a pass over an HPA that the informer deleted while the pass
// ran: upstream v1.37 fails such a pass rather than decide for it.
type errHPAGone struct{ key hpaKey }

func (e errHPAGone) Error() string {
	return fmt.Sprintf("HPA %s/%s was deleted during reconciliation", e.key.namespace, e.key.name)
}

// parse returns the parsed form of raw, the selector of key's target, and
// records it. A malformed selector is refused and the HPA keeps the one it
// had. An HPA deleted meanwhile is not brought back: its pass fails.
func (s *selectorIndex) parse(key hpaKey, raw string) (labels.Selector, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.byNamespace[key.namespace]
	var known parsedSelector
	var registered bool
	if ns != nil {
		known, registered = ns.hpas[key]
	}
	if registered && known.raw == raw && raw != "" {
		return known.selector, nil
	}
	selector, err := labels.Parse(raw)
	if err != nil {
		return nil, err
	}
	if !registered {
		return nil, errHPAGone{key: key}
	}
	ns.hpas[key] = parsedSelector{raw: raw, selector: selector}
	ns.selectorChanged(key, known.selector, selector)
	return selector, nil
}

// owners returns, sorted, the HPAs of key's namespace whose selector matches
// at least one of key's pods; pods lists those pods when the answer is not
// known.
func (s *selectorIndex) owners(key hpaKey, pods func() ([]*podrecord.Pod, error)) ([]hpaKey, error) {
	known, asked, ok := s.knownOwners(key)
	if ok {
		return known, nil
	}
	// Listed without the lock: the pod cache is not ours to serialize.
	list, err := pods()
	if err != nil {
		return nil, err
	}
	return s.computeOwners(key, list, asked), nil
}

// asked is the state of a namespace when an answer was looked for: the same
// entry (not one made again after its last HPA went) at the same epoch.
type asked struct {
	ns    *namespaceSelectors
	epoch uint64
}

func (s *selectorIndex) knownOwners(key hpaKey) (owners []hpaKey, at asked, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.byNamespace[key.namespace]
	if ns == nil {
		return nil, asked{}, false
	}
	answer, ok := ns.answers[key]
	return answer.owners, asked{ns: ns, epoch: ns.epoch}, ok
}

func (s *selectorIndex) computeOwners(key hpaKey, pods []*podrecord.Pod, at asked) []hpaKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.byNamespace[key.namespace]
	if ns == nil {
		return nil
	}
	answer := ownersAnswer{pods: make([]labels.Set, len(pods))}
	for i, pod := range pods {
		answer.pods[i] = pod.Labels
	}
	for other, parsed := range ns.hpas {
		if answer.selectedBy(parsed.selector) {
			answer.owners = append(answer.owners, other)
		}
	}
	slices.SortFunc(answer.owners, func(a, b hpaKey) int { return strings.Compare(a.String(), b.String()) })
	if _, registered := ns.hpas[key]; registered && at == (asked{ns: ns, epoch: ns.epoch}) {
		ns.answers[key] = answer
	}
	return answer.owners
}

// podChanged records that a pod of namespace appeared (before is nil),
// went away (after is nil) or was relabeled. Only the answers of HPAs
// selecting the pod before or after can change: for any other HPA, the
// pod is outside its pods both times.
func (s *selectorIndex) podChanged(namespace string, before, after labels.Labels) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.byNamespace[namespace]
	if ns == nil {
		return
	}
	ns.epoch++
	for key := range ns.answers {
		selector := ns.hpas[key].selector
		if (before != nil && selector.Matches(before)) || (after != nil && selector.Matches(after)) {
			delete(ns.answers, key)
		}
	}
}

// selectorChanged drops the answers that key's new selector may change: its
// own, whose pods changed, and those of HPAs with a pod that the old or the
// new selector matches, since key may join or leave their owners.
func (ns *namespaceSelectors) selectorChanged(key hpaKey, before, after labels.Selector) {
	delete(ns.answers, key)
	for other, answer := range ns.answers {
		if answer.selectedBy(before) || answer.selectedBy(after) {
			delete(ns.answers, other)
		}
	}
}
