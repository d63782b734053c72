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
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// BenchmarkNormalizeWithBehavior measures Normalize on the behavior path with
// a long history: an hour-long scale-down window filled at one
// recommendation a second, and a scale event every 2 seconds over a
// 30-minute policy period.
func BenchmarkNormalizeWithBehavior(b *testing.B) {
	const (
		windowSeconds = 3600
		periodSeconds = 1800
	)
	b.ReportAllocs()
	behavior := with(
		maxOf(pods(4, 60), percent(100, periodSeconds)),
		rules(ptr.To[int32](windowSeconds), autoscalingv2.MinChangePolicySelect, pods(1, 60), percent(10, periodSeconds)),
	)
	clk := testingclock.NewFakePassiveClock(now())
	s := NewStore(Options{Clock: clk})
	in := Input{Key: testKey, Behavior: behavior, CurrentReplicas: 50, MinReplicas: 1, MaxReplicas: 100}
	tick := func(i int) {
		clk.SetTime(clk.Now().Add(time.Second))
		in.Recommendation = int32(20 + i%60)
		if i%2 == 0 {
			s.Commit(in.Key, Effects{Scale: s.Scale(behavior, 50, int32(49+2*(i%4/2)), time.Time{})})
		}
	}
	for i := range windowSeconds {
		tick(i)
		normalized(s, in)
	}
	st := s.state(testKey)
	b.Logf("history: %d recommendations, %d scale-ups, %d scale-downs", len(st.recommendations), len(st.scaleUps), len(st.scaleDowns))

	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		clk.SetTime(clk.Now().Add(time.Second))
		in.Recommendation = int32(20 + i%60)
		normalized(s, in)
	}
}

// BenchmarkNormalizeLegacy measures the legacy path with a five-minute
// window filled at one recommendation a second.
func BenchmarkNormalizeLegacy(b *testing.B) {
	b.ReportAllocs()
	clk := testingclock.NewFakePassiveClock(now())
	s := NewStore(Options{Clock: clk, DownscaleStabilizationWindow: 5 * time.Minute})
	in := Input{Key: testKey, CurrentReplicas: 50, MinReplicas: 1, MaxReplicas: 100}
	for i := range 300 {
		clk.SetTime(clk.Now().Add(time.Second))
		in.Recommendation = int32(20 + i%60)
		normalized(s, in)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		clk.SetTime(clk.Now().Add(time.Second))
		in.Recommendation = int32(20 + i%60)
		normalized(s, in)
	}
}
