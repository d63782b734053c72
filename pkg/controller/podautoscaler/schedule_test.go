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
	"testing"
	"time"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/cadence"
)

// TestSchedule: the cadence's answer reaches the queue as a key ready
// at its time, at once when that time has passed.
func TestSchedule(t *testing.T) {
	t.Run("a time ahead makes the key ready then", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		h.c.schedule(h.key(testHPAName), cadence.Due{At: testStart.Add(5 * time.Second)})
		settle()
		if n := h.c.queue.Len(); n != 0 {
			t.Fatalf("queue length before the time = %d, want 0", n)
		}
		h.clock.Step(4 * time.Second)
		settle()
		if n := h.c.queue.Len(); n != 0 {
			t.Fatalf("queue length 4s before the time = %d, want 0", n)
		}
		waitReady(t, h, 1, time.Second)
		checkReadyAfter(t, h, 5*time.Second, time.Second)
	})
	t.Run("a time past makes the key ready now", func(t *testing.T) {
		h := newHarness(t, nil, harnessOptions{})
		h.c.schedule(h.key(testHPAName), cadence.Due{At: testStart.Add(-time.Minute)})
		if n := h.c.queue.Len(); n != 1 {
			t.Errorf("queue length = %d, want 1", n)
		}
	})
	for _, tc := range []struct {
		name string
		due  cadence.Due
		want []string
	}{
		{name: "nothing asked writes nothing", due: cadence.Due{None: true}},
		{name: "a retry is the queue's rate-limited add", due: cadence.Due{At: testStart.Add(15 * time.Second), Retry: true}, want: []string{"AddRateLimited default/web"}},
		{name: "a time is an add after the wait", due: cadence.Due{At: testStart.Add(4 * time.Second)}, want: []string{"AddAfter default/web 4s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, newHPA(1, 10), harnessOptions{})
			q := recordQueue(h)
			q.calls = nil
			h.c.schedule(h.key(testHPAName), tc.due)
			if got := q.recorded(); !sameStrings(got, tc.want) {
				t.Errorf("queue calls = %v, want %v", got, tc.want)
			}
		})
	}
}
