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
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
)

// Fault is a failure the adapter plays for a metric instead of answering it.
type Fault string

const (
	// NoFault answers the metric normally.
	NoFault Fault = ""
	// FaultError answers an error status (ErrorCode, 500 by default).
	FaultError Fault = "error"
	// FaultEmpty answers an empty item list (NotFound for a single object).
	FaultEmpty Fault = "empty"
	// FaultHang never answers: the request waits until its context ends.
	FaultHang Fault = "hang"
)

// faultNames lists the faults a ConfigMap may name, for error messages.
const faultNames = `"error", "empty" or "hang"`

func (f Fault) valid() bool {
	switch f {
	case NoFault, FaultError, FaultEmpty, FaultHang:
		return true
	}
	return false
}

// defaultErrorCode is the status of FaultError when the ConfigMap names none.
const defaultErrorCode = http.StatusInternalServerError

// play applies what m says besides its values: it waits m's delay, then
// returns the error of an invalid key or of an error or hang fault, or
// empty=true for an empty fault. what names the metric in error messages.
func play(ctx context.Context, clk clock.Clock, m *Metric, what string) (empty bool, err error) {
	if m.Invalid != nil {
		return false, apierrors.NewInternalError(fmt.Errorf("test metrics ConfigMap: %w", m.Invalid))
	}
	if m.Delay > 0 {
		if err := sleep(ctx, clk, m.Delay); err != nil {
			return false, err
		}
	}
	switch m.Fault {
	case FaultError:
		return false, faultStatus(m.ErrorCode, fmt.Sprintf("fault %q injected for %s by the test metrics ConfigMap", FaultError, what))
	case FaultEmpty:
		return true, nil
	case FaultHang:
		<-ctx.Done()
		return false, canceled(ctx)
	}
	return false, nil
}

// sleep returns after d, or with an error as soon as ctx ends.
func sleep(ctx context.Context, clk clock.Clock, d time.Duration) error {
	select {
	case <-ctx.Done():
		return canceled(ctx)
	case <-clk.After(d):
		return nil
	}
}

// canceled is the answer to a request whose context ended while the adapter
// held it; nobody reads it, but the fetch counter records it as a time-out.
func canceled(ctx context.Context) error {
	return apierrors.NewTimeoutError(fmt.Sprintf("request ended while the adapter held it: %v", context.Cause(ctx)), 0)
}

// faultStatus builds the error status of FaultError, with the reason that
// belongs to code so that clients classify it as they would a real one.
func faultStatus(code int, message string) *apierrors.StatusError {
	if code == 0 {
		code = defaultErrorCode
	}
	reason := metav1.StatusReasonUnknown
	switch code {
	case http.StatusBadRequest:
		reason = metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		reason = metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		reason = metav1.StatusReasonForbidden
	case http.StatusNotFound:
		reason = metav1.StatusReasonNotFound
	case http.StatusTooManyRequests:
		reason = metav1.StatusReasonTooManyRequests
	case http.StatusInternalServerError:
		reason = metav1.StatusReasonInternalError
	case http.StatusServiceUnavailable:
		reason = metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		reason = metav1.StatusReasonTimeout
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    int32(code),
		Reason:  reason,
		Message: message,
	}}
}
