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
	"reflect"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// TestRecordsWriteOnlyWhenCommitted pins that Initial, Normalize and Scale
// write nothing: their Records reach the history through Commit alone,
// with the times they were made at, in the order initial, recommendation,
// scale event; and that Normalize reads a pending first recommendation as
// if it were recorded.
func TestRecordsWriteOnlyWhenCommitted(t *testing.T) {
	const window = 5 * time.Minute
	t0 := now()
	t1 := t0.Add(10 * time.Second)
	in := Input{Key: testKey, Behavior: defaults(), CurrentReplicas: 6, Recommendation: 2, MinReplicas: 1, MaxReplicas: 10, Now: t1}
	for _, tc := range []struct {
		name string
		// pass makes a pass's Records on s, commits those it commits, and
		// returns what Normalize stabilized to.
		pass           func(s *Store) int32
		wantStabilized int32
		want           History
	}{
		{
			name: "an uncommitted pass leaves no history",
			pass: func(s *Store) int32 {
				initial := s.Initial(testKey, 6, t0)
				s.Scale(in.Behavior, 6, 2, t1)
				in := in
				in.Initial = initial
				return s.Normalize(in).Stabilized
			},
			wantStabilized: 6,
		},
		{
			name: "a pending first recommendation holds a scale-down as a recorded one does",
			pass: func(s *Store) int32 {
				in := in
				in.Initial = s.Initial(testKey, 6, t0)
				r := s.Normalize(in)
				s.Commit(testKey, Effects{Initial: in.Initial, Recommendation: r.Recommendation})
				return r.Stabilized
			},
			wantStabilized: 6,
			want:           History{Recommendations: []Recommendation{{6, t0}, {2, t1}}},
		},
		{
			name: "without its first recommendation the scale-down is not held",
			pass: func(s *Store) int32 {
				r := s.Normalize(in)
				s.Commit(testKey, Effects{Recommendation: r.Recommendation})
				return r.Stabilized
			},
			wantStabilized: 2,
			want:           History{Recommendations: []Recommendation{{2, t1}}},
		},
		{
			name: "a committed pass writes its records at their own times",
			pass: func(s *Store) int32 {
				in := in
				in.Initial = s.Initial(testKey, 6, t0)
				in.Recommendation = 9
				r := s.Normalize(in)
				s.Commit(testKey, Effects{Initial: in.Initial, Recommendation: r.Recommendation, Scale: s.Scale(in.Behavior, 6, r.Replicas, t1.Add(time.Second))})
				return r.Stabilized
			},
			wantStabilized: 9,
			want: History{
				Recommendations: []Recommendation{{6, t0}, {9, t1}},
				ScaleUps:        []ScaleEvent{{3, t1.Add(time.Second)}},
			},
		},
		{
			name: "an HPA with a history has no first recommendation to make, and a late one is dropped",
			pass: func(s *Store) int32 {
				late := s.Initial(testKey, 7, t0)
				s.Commit(testKey, Effects{Initial: s.Initial(testKey, 6, t0)})
				if again := s.Initial(testKey, 6, t0); !again.IsZero() {
					t.Errorf("Initial over a history = %+v, want the zero Record", again)
				}
				s.Commit(testKey, Effects{Initial: late})
				return s.Normalize(in).Stabilized
			},
			wantStabilized: 6,
			want:           History{Recommendations: []Recommendation{{6, t0}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(Options{Clock: testingclock.NewFakePassiveClock(t0), DownscaleStabilizationWindow: window})
			if got := tc.pass(s); got != tc.wantStabilized {
				t.Errorf("stabilized = %d, want %d", got, tc.wantStabilized)
			}
			if got := s.History(testKey); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("history =\n  %+v\nwant\n  %+v", got, tc.want)
			}
		})
	}
}

// TestRecordsCarryTheTimeTheyWereMadeAt pins that a Record made without a
// time takes the Store's clock when it is made, not when it is committed.
func TestRecordsCarryTheTimeTheyWereMadeAt(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(now())
	s := NewStore(Options{Clock: clk, DownscaleStabilizationWindow: time.Minute})
	in := Input{Key: testKey, Behavior: defaults(), CurrentReplicas: 3, Recommendation: 5, MaxReplicas: 10}
	e := Effects{Initial: s.Initial(testKey, 3, time.Time{}), Recommendation: s.Normalize(in).Recommendation, Scale: s.Scale(in.Behavior, 3, 5, time.Time{})}
	clk.SetTime(now().Add(time.Minute))
	s.Commit(testKey, e)
	want := History{
		Recommendations: []Recommendation{{3, now()}, {5, now()}},
		ScaleUps:        []ScaleEvent{{2, now()}},
	}
	if got := s.History(testKey); !reflect.DeepEqual(got, want) {
		t.Errorf("history =\n  %+v\nwant\n  %+v", got, want)
	}
	for _, r := range []Record{e.Initial, e.Recommendation, e.Scale} {
		if !r.At().Equal(now()) {
			t.Errorf("Record %+v At() = %v, want %v", r, r.At(), now())
		}
	}
}
