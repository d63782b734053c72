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
	"strings"
	"testing"
	"time"
)

// TestStalled pins when the liveness probe calls the workers stuck: only
// when HPAs exist, some are due in the queue, and no pass has finished for
// the limit.
func TestStalled(t *testing.T) {
	const limit = 45 * time.Second
	for _, tc := range []struct {
		name    string
		started bool // Run's workers started
		hpa     bool // an HPA is registered
		due     bool // its key is ready in the queue
		idle    time.Duration
		want    string
	}{
		{name: "before the workers start nothing is stuck", hpa: true, due: true, idle: time.Hour},
		{name: "without HPAs nothing is stuck", started: true, due: true, idle: time.Hour},
		{name: "HPAs waiting for their periods are not stuck", started: true, hpa: true, idle: time.Hour},
		{name: "a due HPA within the limit is not stuck", started: true, hpa: true, due: true, idle: limit},
		{name: "a due HPA and no pass past the limit is stuck", started: true, hpa: true, due: true, idle: limit + time.Second,
			want: "no HPA pass finished for 46s while 1 HPAs are due"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, harnessOptions{})
			h.drainQueue()
			if tc.started {
				h.c.progress.mark(h.clock.Now())
			}
			if tc.hpa {
				h.c.register(h.key(testHPAName))
			}
			if tc.due {
				h.c.queue.Add(h.key(testHPAName))
			}
			h.clock.Step(tc.idle)
			err := h.c.Stalled(limit)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Stalled = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Stalled = %v, want %q", err, tc.want)
			}
		})
	}
}
