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

package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWithTimeoutNamesTheBoundThatEndedIt: a hanging call ends at the
// fetch time-out or at the caller's earlier deadline (a pass's fetch
// budget), whichever comes first, and its error names that bound.
func TestWithTimeoutNamesTheBoundThatEndedIt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timeout   time.Duration
		callerHas time.Duration // 0: no deadline
		want      string
	}{
		{name: "the fetch time-out when the caller has no deadline", timeout: 50 * time.Millisecond, want: "no answer within 50ms"},
		{name: "the fetch time-out when it comes first", timeout: 50 * time.Millisecond, callerHas: time.Minute, want: "no answer within 50ms"},
		{name: "the caller's deadline when it comes first", timeout: time.Minute, callerHas: 50 * time.Millisecond, want: "no answer within 50ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.callerHas > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.callerHas)
				defer cancel()
			}
			_, err := withTimeout(ctx, tc.timeout, func(ctx context.Context) (int, error) {
				<-ctx.Done()
				return 0, ctx.Err()
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error = %v, want one containing %q that is a deadline", err, tc.want)
			}
		})
	}
}
