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

package differential

import (
	"fmt"
	"testing"
)

// TestRunsRepeat pins that a run is a function of its scenario: each
// controller, run twice on one sequence, shows the same thing at every
// step. The sequences are those whose events client-go's correlator
// aggregated at random when the harness compared the events the API server
// kept (upstream differed from itself in 19 runs of 20).
func TestRunsRepeat(t *testing.T) {
	const seed = 20261125
	for _, i := range []int{16472, 22245, 25934, 56849, 69735} {
		s := generatedSeq(seed, i)
		for _, kind := range []controllerKind{upstreamController, ourController} {
			t.Run(fmt.Sprintf("%s/-seed %d -case %d", kind, seed, i), func(t *testing.T) {
				first, again := runIn(t, s, kind), runIn(t, s, kind)
				if d := diffObservations(first, again); d != nil {
					t.Fatalf("a second run differs from the first after step %d (%v):\n  first: %s\n  again: %s", d.Step, d.Fields, first[d.Step], again[d.Step])
				}
			})
		}
	}
}
