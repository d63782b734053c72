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
	"time"

	"k8s.io/client-go/util/workqueue"
)

// fixedIntervalLimiter delays every item by the sync period, whatever its
// history: the queue is how each HPA comes back once per period, not a
// back-off for failures (a failing HPA is retried at the same pace).
type fixedIntervalLimiter struct {
	interval time.Duration
}

var _ workqueue.TypedRateLimiter[hpaKey] = fixedIntervalLimiter{}

func (l fixedIntervalLimiter) When(hpaKey) time.Duration { return l.interval }
func (l fixedIntervalLimiter) NumRequeues(hpaKey) int    { return 1 }
func (l fixedIntervalLimiter) Forget(hpaKey)             {}
