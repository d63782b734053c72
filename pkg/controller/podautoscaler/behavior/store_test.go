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

package behavior

import (
	"sync"
	"testing"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// TestHistoryRetention pins what the Store keeps in memory, which Normalize
// alone cannot show: stale entries are dropped, live ones kept.
func TestHistoryRetention(t *testing.T) {
	type lengths struct{ recommendations, scaleUps, scaleDowns int }
	tests := []struct {
		scenario
		want lengths
	}{
		{
			scenario: scenario{
				name:     "events older than the longest period are forgotten",
				behavior: withUp(maxOf(pods(4, 60))),
				history:  []past{scaled(10*time.Minute, 1, 2), scaled(0, 2, 3)},
			},
			want: lengths{0, 1, 0},
		},
		{
			scenario: scenario{
				name:     "events within the longest period are kept",
				behavior: withUp(maxOf(pods(4, 60))),
				history:  []past{scaled(30*time.Second, 1, 2), scaled(0, 2, 3)},
			},
			want: lengths{0, 2, 0},
		},
		{
			scenario: scenario{
				name:     "scale-ups are kept by the longest scale-up period alone, as upstream",
				behavior: with(maxOf(pods(4, 15)), maxOf(pods(1, 600))),
				history:  []past{scaled(300*time.Second, 1, 2), scaled(0, 2, 3)},
			},
			want: lengths{0, 1, 0},
		},
		{
			scenario: scenario{
				name:     "scale-downs are kept by the longest scale-down period alone, as upstream",
				behavior: with(maxOf(pods(4, 600)), maxOf(pods(1, 15))),
				history:  []past{scaled(300*time.Second, 5, 4), scaled(0, 4, 3)},
			},
			want: lengths{0, 0, 1},
		},
		{
			scenario: scenario{
				name:     "a new event takes one stale slot; other stale events stay until later events take theirs",
				behavior: withUp(maxOf(pods(4, 15))),
				history:  []past{scaled(100*time.Second, 1, 2), scaled(90*time.Second, 2, 3), scaled(0, 3, 4)},
			},
			want: lengths{0, 2, 0},
		},
		{
			scenario: scenario{
				name:     "scale-downs go to the scale-down history",
				behavior: defaults(),
				history:  []past{scaled(0, 5, 3)},
			},
			want: lengths{0, 0, 1},
		},
		{
			scenario: scenario{
				name:     "Scale without behavior records nothing",
				behavior: nil,
				history:  []past{scaled(0, 1, 5), scaled(0, 5, 1)},
			},
			want: lengths{0, 0, 0},
		},
		{
			scenario: scenario{
				name:     "Scale of an unchanged count records nothing",
				behavior: defaults(),
				history:  []past{scaled(0, 4, 4)},
			},
			want: lengths{0, 0, 0},
		},
		{
			scenario: scenario{
				name: "legacy recommendations older than the window are forgotten", flagWindow: time.Minute,
				history: []past{recommended(10*time.Minute, 3, 3), recommended(5*time.Minute, 3, 3), recommended(0, 3, 3)},
			},
			want: lengths{1, 0, 0},
		},
		{
			scenario: scenario{
				name:     "recommendations inside either window are kept",
				behavior: with(window(0), window(300)),
				history:  []past{recommended(2*time.Minute, 3, 3), recommended(0, 3, 3)},
			},
			want: lengths{2, 0, 0},
		},
		{
			scenario: scenario{
				name:     "recommendations older than both windows are forgotten",
				behavior: with(window(60), window(120)),
				history:  []past{recommended(3*time.Minute, 3, 3), recommended(0, 3, 3)},
			},
			want: lengths{1, 0, 0},
		},
		{
			scenario: scenario{
				name:    "Initial records once",
				history: []past{initial(time.Minute, 3), initial(0, 5)},
			},
			want: lengths{1, 0, 0},
		},
		{
			scenario: scenario{
				name:     "Forget drops every history",
				behavior: defaults(),
				history:  []past{recommended(time.Minute, 3, 4), scaled(time.Minute, 3, 4), scaled(30*time.Second, 4, 2), forgot(0)},
			},
			want: lengths{0, 0, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := tc.replay()
			st := s.state(testKey)
			got := lengths{len(st.recommendations), len(st.scaleUps), len(st.scaleDowns)}
			if got != tc.want {
				t.Errorf("history lengths = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNewStoreWithoutClockUsesTheRealClock(t *testing.T) {
	s := NewStore(Options{})
	if _, ok := s.clock.(clock.RealClock); !ok {
		t.Errorf("clock = %T, want clock.RealClock", s.clock)
	}
}

// TestStoreConcurrentUse runs workers on one HPA and on their own HPAs at
// once (meant for -race), and checks that no scale event got lost.
func TestStoreConcurrentUse(t *testing.T) {
	const workers, events = 8, 50
	clk := testingclock.NewFakePassiveClock(now())
	s := NewStore(Options{Clock: clk, DownscaleStabilizationWindow: time.Minute})
	shared := withUp(maxOf(pods(10, 60)))

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			own := Input{Key: "ns/own-" + string(rune('a'+w)), Behavior: shared, CurrentReplicas: 1, Recommendation: 3, MaxReplicas: 10}
			for i := range events {
				s.Commit(testKey, Effects{Scale: s.Scale(shared, int32(i), int32(i+1), time.Time{})})
				normalized(s, own)
				s.Commit(own.Key, Effects{Initial: s.Initial(own.Key, 1, time.Time{})})
				if i == events/2 {
					s.Forget(own.Key)
				}
			}
		})
	}
	wg.Wait()

	const total = workers * events
	got := s.Normalize(Input{Key: testKey, Behavior: shared, CurrentReplicas: total, Recommendation: total + 100, MaxReplicas: 2 * total})
	// All events are within the period, so the period started at zero and
	// the pods policy allows 10 replicas: fewer than current.
	if got.Replicas != total {
		t.Errorf("Replicas = %d, want %d (a scale event was lost)", got.Replicas, total)
	}
}

// TestNormalizeDoesNotChangeTheBehavior guards the caller's object: the
// defaults are applied to copies.
func TestNormalizeDoesNotChangeTheBehavior(t *testing.T) {
	b := with(rules(nil, "", pods(1, 60)), rules(nil, ""))
	s := NewStore(Options{Clock: testingclock.NewFakePassiveClock(now()), DownscaleStabilizationWindow: time.Minute})
	s.Normalize(Input{Key: testKey, Behavior: b, CurrentReplicas: 3, Recommendation: 5, MaxReplicas: 10})
	s.Scale(b, 3, 4, time.Time{})
	if b.ScaleUp.SelectPolicy != nil || b.ScaleUp.StabilizationWindowSeconds != nil ||
		b.ScaleDown.SelectPolicy != nil || b.ScaleDown.StabilizationWindowSeconds != nil || b.ScaleDown.Policies != nil {
		t.Errorf("behavior was changed: up %+v, down %+v", *b.ScaleUp, *b.ScaleDown)
	}
	if want := ptr.To(pods(1, 60)); b.ScaleUp.Policies[0] != *want {
		t.Errorf("scale-up policies changed: %+v", b.ScaleUp.Policies)
	}
}
