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
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-hpa/kube-hpa/pkg/podrecord"
)

// selectorWorld is a namespace of pods and an index kept up to date the way
// the controller keeps it, for the index's caching rules.
type selectorWorld struct {
	t       *testing.T
	index   *selectorIndex
	pods    map[string]labels.Set
	listed  int // how many times owners had to list pods
	onList  func()
	parsing map[hpaKey]labels.Selector
}

const worldNS = "ns"

func newSelectorWorld(t *testing.T) *selectorWorld {
	return &selectorWorld{t: t, index: newSelectorIndex(), pods: map[string]labels.Set{}, parsing: map[hpaKey]labels.Selector{}}
}

func worldKey(name string) hpaKey { return hpaKey{namespace: worldNS, name: name} }

func (w *selectorWorld) hpa(name, selector string) {
	w.t.Helper()
	key := worldKey(name)
	w.index.register(key)
	parsed, err := w.index.parse(key, selector)
	if err != nil {
		w.t.Fatalf("parsing %q: %v", selector, err)
	}
	w.parsing[key] = parsed
}

func (w *selectorWorld) setPod(name string, set labels.Set) {
	before, existed := w.pods[name]
	w.pods[name] = set
	if existed {
		w.index.podChanged(worldNS, before, set)
		return
	}
	w.index.podChanged(worldNS, nil, set)
}

func (w *selectorWorld) deletePod(name string) {
	before := w.pods[name]
	delete(w.pods, name)
	w.index.podChanged(worldNS, before, nil)
}

func (w *selectorWorld) owners(name string) []string {
	w.t.Helper()
	key := worldKey(name)
	got, err := w.index.owners(key, func() ([]*podrecord.Pod, error) {
		w.listed++
		var out []*podrecord.Pod
		for podName, set := range w.pods {
			if w.parsing[key].Matches(set) {
				out = append(out, &podrecord.Pod{Namespace: worldNS, Name: podName, Labels: set})
			}
		}
		if w.onList != nil {
			w.onList()
		}
		return out, nil
	})
	if err != nil {
		w.t.Fatalf("owners: %v", err)
	}
	return keyStrings(got)
}

func keyStrings(keys []hpaKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	return out
}

func TestSelectorIndexAnswers(t *testing.T) {
	cases := []struct {
		name string
		// setup builds the world and asks once, so that the answer is kept.
		setup func(w *selectorWorld)
		// change happens after the first answer.
		change     func(w *selectorWorld)
		wantOwners []string
		// wantListed is how many times pods were listed, first answer included.
		wantListed int
	}{
		{
			name:       "an HPA alone owns its pods",
			setup:      func(w *selectorWorld) { w.hpa("a", "app=a"); w.setPod("p", labels.Set{"app": "a"}) },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "an HPA whose pods another HPA also selects is not alone",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "tier=web")
				w.setPod("p", labels.Set{"app": "a", "tier": "web"})
			},
			wantOwners: []string{"ns/a", "ns/b"},
			wantListed: 1,
		},
		{
			name:       "an HPA without pods has no owners",
			setup:      func(w *selectorWorld) { w.hpa("a", "app=a"); w.hpa("b", "app=a") },
			wantOwners: nil,
			wantListed: 1,
		},
		{
			name:       "the answer is kept while nothing changes",
			setup:      func(w *selectorWorld) { w.hpa("a", "app=a"); w.setPod("p", labels.Set{"app": "a"}) },
			change:     func(*selectorWorld) {},
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "a pod outside the HPA's selection does not drop the answer",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.setPod("q", labels.Set{"app": "b"}); w.deletePod("q") },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "a new pod that another HPA also selects makes the HPA ambiguous",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "tier=web")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.setPod("q", labels.Set{"app": "a", "tier": "web"}) },
			wantOwners: []string{"ns/a", "ns/b"},
			wantListed: 2,
		},
		{
			name: "a pod relabeled into the selection of another HPA makes the HPA ambiguous",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "tier=web")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.setPod("p", labels.Set{"app": "a", "tier": "web"}) },
			wantOwners: []string{"ns/a", "ns/b"},
			wantListed: 2,
		},
		{
			name: "a shared pod relabeled out of the HPA's selection ends the ambiguity",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "tier=web")
				w.setPod("p", labels.Set{"app": "a"})
				w.setPod("q", labels.Set{"app": "a", "tier": "web"})
			},
			change:     func(w *selectorWorld) { w.setPod("q", labels.Set{"tier": "web"}) },
			wantOwners: []string{"ns/a"},
			wantListed: 2,
		},
		{
			name: "deleting the shared pod ends the ambiguity",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "tier=web")
				w.setPod("p", labels.Set{"app": "a"})
				w.setPod("q", labels.Set{"app": "a", "tier": "web"})
			},
			change:     func(w *selectorWorld) { w.deletePod("q") },
			wantOwners: []string{"ns/a"},
			wantListed: 2,
		},
		{
			name: "another HPA's new selector is taken into account",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.hpa("b", "app in (a,b)") },
			wantOwners: []string{"ns/a", "ns/b"},
			wantListed: 2,
		},
		{
			name: "another HPA's selector leaving the pods ends the ambiguity",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app in (a,b)")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.hpa("b", "app=b") },
			wantOwners: []string{"ns/a"},
			wantListed: 2,
		},
		{
			name: "a selector change away from the HPA's pods keeps the answer",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.hpa("b", "app=c") },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "the HPA's own new selector is taken into account",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("p", labels.Set{"app": "a"})
				w.setPod("q", labels.Set{"app": "b"})
			},
			change:     func(w *selectorWorld) { w.hpa("a", "app=b") },
			wantOwners: []string{"ns/a", "ns/b"},
			wantListed: 2,
		},
		{
			name: "an HPA without pods sees the pods of its new selector",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("q", labels.Set{"app": "b"})
			},
			change:     func(w *selectorWorld) { w.hpa("a", "app=b") },
			wantOwners: []string{"ns/a", "ns/b"},
			wantListed: 2,
		},
		{
			name: "an unchanged selector keeps the answer",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.hpa("b", "app=b"); w.hpa("a", "app=a") },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "a new HPA selects nothing until its selector is known",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.index.register(worldKey("b")) },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "removing the other HPA ends the ambiguity",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=a")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.index.remove(worldKey("b")) },
			wantOwners: []string{"ns/a"},
			wantListed: 2,
		},
		{
			name: "removing an HPA that is not among the owners keeps the answer",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.hpa("b", "app=b")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.index.remove(worldKey("b")) },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
		{
			name: "an answer computed while a pod changed is used but not kept",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.setPod("p", labels.Set{"app": "a"})
				w.onList = func() { w.index.podChanged(worldNS, nil, labels.Set{"app": "a"}) }
			},
			change:     func(w *selectorWorld) { w.onList = nil },
			wantOwners: []string{"ns/a"},
			wantListed: 2,
		},
		{
			name: "an answer computed while the namespace was emptied and filled again is not kept",
			setup: func(w *selectorWorld) {
				// The pod first, so that both namespace entries are at epoch 0.
				w.setPod("p", labels.Set{"app": "a"})
				w.hpa("a", "app=a")
				w.onList = func() { w.index.remove(worldKey("a")); w.hpa("a", "app=a") }
			},
			change:     func(w *selectorWorld) { w.onList = nil },
			wantOwners: []string{"ns/a"},
			wantListed: 2,
		},
		{
			name: "pods of other namespaces do not drop the answer",
			setup: func(w *selectorWorld) {
				w.hpa("a", "app=a")
				w.setPod("p", labels.Set{"app": "a"})
			},
			change:     func(w *selectorWorld) { w.index.podChanged("other", nil, labels.Set{"app": "a"}) },
			wantOwners: []string{"ns/a"},
			wantListed: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newSelectorWorld(t)
			tc.setup(w)
			got := w.owners("a")
			if tc.change != nil {
				tc.change(w)
				got = w.owners("a")
			}
			if !slices.Equal(got, tc.wantOwners) {
				t.Errorf("owners = %v, want %v", got, tc.wantOwners)
			}
			if w.listed != tc.wantListed {
				t.Errorf("pods listed %d times, want %d", w.listed, tc.wantListed)
			}
		})
	}
}

// TestSelectorIndexParseOfAGoneHPA pins v1.37: the pass of an HPA deleted
// while it ran fails with upstream's words and does not bring it back.
func TestSelectorIndexParseOfAGoneHPA(t *testing.T) {
	index := newSelectorIndex()
	key := worldKey("a")
	_, err := index.parse(key, "app=a")
	if err == nil || err.Error() != "HPA ns/a was deleted during reconciliation" {
		t.Errorf("parse = %v, want upstream's error for an HPA deleted during reconciliation", err)
	}
	if index.len() != 0 {
		t.Errorf("index holds %d HPAs, want 0", index.len())
	}
}

func TestSelectorIndexParse(t *testing.T) {
	cases := []struct {
		name      string
		first     string
		second    string
		wantErr   bool
		wantMatch labels.Set // matched by what the index holds after second
	}{
		{name: "a malformed selector is refused and the previous one stays",
			first: "app=a", second: "app in (", wantErr: true, wantMatch: labels.Set{"app": "a"}},
		{name: "a changed selector replaces the previous one",
			first: "app=a", second: "app=b", wantMatch: labels.Set{"app": "b"}},
		{name: "an empty selector selects everything, unlike a new HPA's placeholder",
			first: "", second: "", wantMatch: labels.Set{"app": "x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			index := newSelectorIndex()
			key := worldKey("a")
			index.register(key)
			if _, err := index.parse(key, tc.first); err != nil {
				t.Fatalf("first parse: %v", err)
			}
			_, err := index.parse(key, tc.second)
			if (err != nil) != tc.wantErr {
				t.Fatalf("second parse error = %v, want error %v", err, tc.wantErr)
			}
			pod := &podrecord.Pod{Namespace: worldNS, Labels: tc.wantMatch}
			got, _ := index.owners(key, func() ([]*podrecord.Pod, error) { return []*podrecord.Pod{pod}, nil })
			if !slices.Equal(keyStrings(got), []string{"ns/a"}) {
				t.Errorf("owners = %v, want the HPA's selector to match %v", got, tc.wantMatch)
			}
		})
	}
}
