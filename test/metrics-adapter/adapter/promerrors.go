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
	"errors"
	"fmt"
	"net/http"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// queryError turns a failed query into the status a production adapter
// would answer, so that the HPA controller sees what it would see behind
// prometheus-adapter: the status says whether Prometheus was unreachable,
// too slow, or refused the query, and the message quotes what it said.
// what names the metric and its query.
func queryError(ctx context.Context, err error, what string) error {
	if ctx.Err() != nil {
		// The client gave up first; nobody reads the answer.
		return canceled(ctx)
	}
	var apiErr *promv1.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return faultStatus(http.StatusGatewayTimeout, fmt.Sprintf("%s: Prometheus did not answer in time: %v", what, err))
	case errors.As(err, &apiErr):
		return faultStatus(apiErrorCode(apiErr.Type), fmt.Sprintf("%s: Prometheus answered %s: %s", what, apiErr.Type, apiErr.Msg))
	default:
		// A refused or reset connection: the server is down.
		return faultStatus(http.StatusServiceUnavailable, fmt.Sprintf("%s: Prometheus is unreachable: %v", what, err))
	}
}

// apiErrorCode is the status of an error of Prometheus's HTTP API by its
// errorType.
func apiErrorCode(t promv1.ErrorType) int {
	switch t {
	case promv1.ErrBadData:
		return http.StatusBadRequest
	case promv1.ErrTimeout, promv1.ErrCanceled:
		return http.StatusGatewayTimeout
	case promv1.ErrServer:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}
