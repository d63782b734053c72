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
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

// TestCalculator calls upstream's ReplicaCalculator and kube-hpa's
// Calculator on the same generated scenarios and fails on any difference in
// their results that the allow-list does not accept.
func TestCalculator(t *testing.T) {
	rep := newReport("calculator", *seedFlag)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		for _, i := range indexes() {
			s := newGen(*seedFlag, i).calcScenario()
			rep.count()
			checkCalc(ctx, s, rep, fmt.Sprintf("-seed %d -case %d", *seedFlag, i))
		}
	})
	rep.finish(t)
}

func checkCalc(ctx context.Context, s calcScenario, rep *report, where string) (diff []string) {
	up, ours := s.runUpstream(ctx), s.runOurs(ctx)
	diff = calcDiff(up, ours)
	if len(diff) == 0 {
		return nil
	}
	class := s.Method + ": " + strings.Join(diff, ",")
	rep.add(class, classifyCalc(s, up, ours, diff), fmt.Sprintf("  // %s\n  // upstream: %s\n  // kube-hpa: %s\n  %s,", where, up, ours, s.row()))
	return diff
}
