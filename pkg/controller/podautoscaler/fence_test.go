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
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

var errTestFenced = errors.New("test fence closed")

// countingFence allows the first open writes, then refuses every one, as a
// shard's fence does once the shard may be another replica's mid-pass.
type countingFence struct {
	mu         sync.Mutex
	open       int
	asked      int
	namespaces []string
}

func (f *countingFence) Allow(_ context.Context, namespace string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	f.namespaces = append(f.namespaces, namespace)
	if f.asked > f.open {
		return errTestFenced
	}
	return nil
}

func TestAFencedPassWritesNothingMore(t *testing.T) {
	for _, tc := range []struct {
		name string
		// open is how many writes the fence allows before it closes.
		open            int
		statusConflicts int
		wantScale       []int32
		wantStatus      int
		wantLatestReads int
		wantAsked       int
	}{
		{name: "a pass fenced before its scale write writes neither scale nor status", open: 0, wantAsked: 2},
		{name: "a pass fenced after its scale write does not write its status", open: 1, wantScale: []int32{6}, wantAsked: 2},
		{name: "a pass fenced during a status conflict does not re-apply its edits over the newer status", open: 2, statusConflicts: 1,
			wantScale: []int32{6}, wantLatestReads: 1, wantAsked: 3},
		{name: "an open fence lets the scale and the status through", open: 100, wantScale: []int32{6}, wantStatus: 1, wantAsked: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fence := &countingFence{open: tc.open}
			h := newHarness(t, newHPA(1, 10, cpuUtilization(50)), harnessOptions{fence: fence})
			h.scales.setScale(3, 3, testSelector)
			h.addPods(3, 100)
			h.metrics.SetResource(corev1.ResourceCPU, cpuMetrics(100, 100, 100))
			h.source.statusConflicts = tc.statusConflicts

			err := h.reconcile(testHPAName)
			if fenced := tc.wantStatus == 0; fenced != errors.Is(err, errTestFenced) {
				t.Errorf("reconcile = %v, want fenced %v", err, fenced)
			}
			h.assertUpdates(tc.wantScale...)
			if h.source.statusUpdates != tc.wantStatus {
				t.Errorf("status writes = %d, want %d", h.source.statusUpdates, tc.wantStatus)
			}
			if h.source.latestReads != tc.wantLatestReads {
				t.Errorf("HPA read again %d times, want %d", h.source.latestReads, tc.wantLatestReads)
			}
			if fence.asked != tc.wantAsked {
				t.Errorf("fence asked %d times, want %d (once before each write)", fence.asked, tc.wantAsked)
			}
			for _, ns := range fence.namespaces {
				if ns != testNamespace {
					t.Errorf("fence asked about namespace %q, want the HPA's %q", ns, testNamespace)
				}
			}
			// The shard's new owner reports on the HPA: the fenced pass
			// posts nothing about writes it was refused.
			events := strings.Join(h.events(), "\n")
			if fenced := tc.wantStatus == 0; fenced && (strings.Contains(events, "FailedUpdateStatus") || strings.Contains(events, "FailedRescale")) {
				t.Errorf("a fenced pass reported its refused writes as failures:\n%s", events)
			}
		})
	}
}
