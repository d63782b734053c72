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

import "context"

// WorkerLimit bounds the workers that run passes at once across every
// controller that shares it. A sharded replica runs one controller per
// shard it holds, each with workers of its own, and
// --concurrent-horizontal-pod-autoscaler-syncs is the process's bound, not
// each shard's: without it a replica holding eight shards would run eight
// times the passes (and the metric fetches) the flag allows.
//
// A worker takes a slot once it has an HPA to pass and gives it back when
// it is free again: when the pass ended, or when it went on in the slow
// lane (cadence/lane.go), which holds no worker and so no slot.
type WorkerLimit struct {
	slots chan struct{}
}

// NewWorkerLimit returns a limit of n workers at once (at least one).
func NewWorkerLimit(n int) *WorkerLimit {
	return &WorkerLimit{slots: make(chan struct{}, max(n, 1))}
}

// acquire waits for a slot, and returns false if ctx ended first.
func (l *WorkerLimit) acquire(ctx context.Context) bool {
	select {
	case l.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (l *WorkerLimit) release() { <-l.slots }
