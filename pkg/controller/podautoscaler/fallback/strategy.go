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

package fallback

import (
	"fmt"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

// Target is what a fallback strategy reads besides the fallback itself.
type Target struct {
	// Current is the target's current replica count.
	Current int32
	// StrategyEnabled says HPAExternalMetricFallbackStrategy is on. With it
	// off every fallback is Static, whatever a stored object says: the gate
	// turned off must give back today's behavior.
	StrategyEnabled bool
}

// Strategy is the strategy in effect for f.
// A strategy this controller does not know (stored before validation knew
// it) is Static.
func (t Target) Strategy(f *v2.ExternalMetricFallback) v2.FallbackStrategy {
	switch f.Strategy {
	case v2.FallbackStrategyUseMax, v2.FallbackStrategyUseMin:
		if t.StrategyEnabled {
			return f.Strategy
		}
	}
	return v2.FallbackStrategyStatic
}

// Propose is the replica count f proposes with the target at t.Current.
// UseMax never proposes fewer replicas than there are, UseMin never more;
// from zero, UseMax proposes replicas and UseMin zero. A pass reaches this
// at zero only when the zero is this controller's (a person's zero asks no
// metric), so the zero rules stay those of KEP-2021.
func (t Target) Propose(f *v2.ExternalMetricFallback) int32 {
	switch t.Strategy(f) {
	case v2.FallbackStrategyUseMax:
		return max(f.Replicas, t.Current)
	case v2.FallbackStrategyUseMin:
		return min(f.Replicas, max(t.Current, 0))
	}
	return f.Replicas
}

// InFallback is a metric in fallback: its name, the strategy in effect and the
// count it proposes.
type InFallback struct {
	Name     string
	Strategy v2.FallbackStrategy
	Replicas int32
}

// String names the metric and, for a strategy other than Static, the
// strategy and its proposal; a Static fallback is named alone, as the
// messages did before strategies existed.
func (a InFallback) String() string {
	if a.Strategy == v2.FallbackStrategyStatic || a.Strategy == "" {
		return a.Name
	}
	return fmt.Sprintf("%s (strategy %s, proposing %d replicas)", a.Name, a.Strategy, a.Replicas)
}
