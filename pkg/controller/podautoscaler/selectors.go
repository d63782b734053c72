package podautoscaler

import (
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selectorIndex remembers the pod selector of each HPA's target, so that a
// reconcile can tell when the pods it would scale are also selected by
// another HPA (two HPAs fighting over the same pods is refused).
type selectorIndex struct {
	mu sync.Mutex
	// byNamespace maps namespace -> HPA -> the target's selector.
	byNamespace map[string]map[hpaKey]labels.Selector
}

func newSelectorIndex() *selectorIndex {
	return &selectorIndex{byNamespace: map[string]map[hpaKey]labels.Selector{}}
}

// register adds an HPA that selects nothing yet, and reports whether it was
// new. Its selector becomes known at its first reconcile.
func (s *selectorIndex) register(key hpaKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	hpas := s.byNamespace[key.namespace]
	if hpas == nil {
		hpas = map[hpaKey]labels.Selector{}
		s.byNamespace[key.namespace] = hpas
	}
	if _, ok := hpas[key]; ok {
		return false
	}
	hpas[key] = labels.Nothing()
	return true
}

// update records the selector of a registered HPA. An HPA that was deleted
// meanwhile is not brought back.
func (s *selectorIndex) update(key hpaKey, selector labels.Selector) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hpas := s.byNamespace[key.namespace]; hpas != nil {
		if _, ok := hpas[key]; ok {
			hpas[key] = selector
		}
	}
}

// remove forgets an HPA and reports whether it was known.
func (s *selectorIndex) remove(key hpaKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	hpas := s.byNamespace[key.namespace]
	if _, ok := hpas[key]; !ok {
		return false
	}
	delete(hpas, key)
	if len(hpas) == 0 {
		delete(s.byNamespace, key.namespace)
	}
	return true
}

// len is the number of HPAs known.
func (s *selectorIndex) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, hpas := range s.byNamespace {
		n += len(hpas)
	}
	return n
}

// selecting returns, sorted, the HPAs of namespace whose selector matches
// at least one of pods.
func (s *selectorIndex) selecting(namespace string, pods []*corev1.Pod) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for key, selector := range s.byNamespace[namespace] {
		for _, pod := range pods {
			if selector.Matches(labels.Set(pod.Labels)) {
				out = append(out, key.String())
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
