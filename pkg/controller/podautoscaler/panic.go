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
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/monitor"
	"github.com/kube-hpa/kube-hpa/pkg/goroutine"
)

// A panic in one HPA's pass (a bug meeting an object nobody foresaw) is
// that HPA's error: the process, its other HPAs and the leader lease stay.
// Upstream lets it end kube-controller-manager, and with it every
// controller of the cluster.

// errPanic is the error of a pass that panicked, on the worker's stack or
// in a goroutine of the pass (a metric's evaluation, a fetch).
type errPanic struct{ cause *goroutine.PanicError }

func (e errPanic) Error() string { return fmt.Sprintf("reconcile panicked: %v", e.cause.Value) }

func (e errPanic) Unwrap() error { return e.cause }

// reconcileKeyRecovering is reconcileFound with a panic turned into the
// pass's error: logged with its stack and counted by pkg/goroutine, counted
// as an internal error of a reconciliation, reported as a Warning event on
// the HPA.
func (c *Controller) reconcileKeyRecovering(ctx context.Context, key hpaKey, found hpaLookup) (next turn, deleted bool, err error) {
	start := c.opts.Clock.Now()
	recovered := goroutine.Recover(klog.NewContext(ctx, klog.LoggerWithValues(klog.FromContext(ctx), "key", key)), "HPA pass", func() {
		next, deleted, err = c.reconcileFound(ctx, key, found)
	})
	var pe *goroutine.PanicError
	if !errors.As(recovered, &pe) {
		return next, deleted, err
	}
	err = errPanic{cause: pe}
	c.opts.Monitor.ObserveReconciliationResult(monitor.ActionLabelNone, monitor.ErrorLabelInternal, c.opts.Clock.Since(start))
	source := c.opts.Sources[key.source]
	if hpa, ok, gerr := source.Get(key.namespace, key.name); gerr == nil && ok {
		c.opts.EventRecorder.Eventf(source.EventObject(hpa), corev1.EventTypeWarning, "FailedReconcile", "%s", err.Error())
	}
	return turn{}, false, err
}
