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

package adapter

import (
	"context"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
)

func TestFaultStatus(t *testing.T) {
	tests := []struct {
		code       int
		wantCode   int32
		wantReason metav1.StatusReason
	}{
		{code: 0, wantCode: 500, wantReason: metav1.StatusReasonInternalError},
		{code: 500, wantCode: 500, wantReason: metav1.StatusReasonInternalError},
		{code: 503, wantCode: 503, wantReason: metav1.StatusReasonServiceUnavailable},
		{code: 504, wantCode: 504, wantReason: metav1.StatusReasonTimeout},
		{code: 429, wantCode: 429, wantReason: metav1.StatusReasonTooManyRequests},
		{code: 403, wantCode: 403, wantReason: metav1.StatusReasonForbidden},
		{code: 502, wantCode: 502, wantReason: metav1.StatusReasonUnknown},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.code), func(t *testing.T) {
			err := faultStatus(tc.code, "boom")
			if err.ErrStatus.Code != tc.wantCode || err.ErrStatus.Reason != tc.wantReason {
				t.Errorf("code %d reason %q, want %d %q", err.ErrStatus.Code, err.ErrStatus.Reason, tc.wantCode, tc.wantReason)
			}
		})
	}
}

func TestDelayHoldsTheAnswerUntilTheClockPassesIt(t *testing.T) {
	clk := testingclock.NewFakeClock(testNow)
	m := &Metric{Delay: 2 * time.Second}
	done := make(chan error, 1)
	go func() {
		_, err := play(testContext(t, 10*time.Second), clk, m, "metric")
		done <- err
	}()
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	clk.Step(time.Second)
	select {
	case err := <-done:
		t.Fatalf("answered %v one second into a two-second delay", err)
	case <-time.After(20 * time.Millisecond):
	}
	clk.Step(time.Second)
	if err := <-done; err != nil {
		t.Fatalf("unexpected error after the delay: %v", err)
	}
}

func TestDelayEndsWithTheRequest(t *testing.T) {
	clk := testingclock.NewFakeClock(testNow)
	ctx, cancel := context.WithCancel(testContext(t, 10*time.Second))
	cancel()
	_, err := play(ctx, clk, &Metric{Delay: time.Hour, Fault: FaultError}, "metric")
	if !apierrors.IsTimeout(err) {
		t.Errorf("got %v, want a time-out once the request ended", err)
	}
}
