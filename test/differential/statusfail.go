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
	"errors"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// The kinds of a failed status write (fault.StatusFail).
const (
	statusFail500     = "500"
	statusFailTimeout = "timeout"
)

// statusFailures fails, in a world, the first status update of the HPA
// that follows the step's first scale update: the API server answers 500
// or times out, and stores nothing. Both worlds meet it, so that the
// controllers must agree on what a lost status write leaves, but for a
// lost scale to zero: upstream reads the zero whose ScaledToZero it never
// stored as a person's pause, kube-hpa stored it before the zero (the
// allow-list's "status write lost after a scale to zero").
type statusFailures struct {
	mu   sync.Mutex
	kind string
	// scaled: a scale update of the step landed; zero: it set 0.
	scaled, zero bool
	tally        statusFailTally
}

// statusFailTally counts the steps armed with a failed status write, the
// writes failed, and those that followed a scale to zero.
type statusFailTally struct{ Armed, Fired, AfterZero int }

func (t *statusFailTally) add(o statusFailTally) {
	t.Armed += o.Armed
	t.Fired += o.Fired
	t.AfterZero += o.AfterZero
}

func (w *statusFailures) arm(f *fault) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kind, w.scaled, w.zero = "", false, false
	if f != nil && f.StatusFail != "" {
		w.kind = f.StatusFail
		w.tally.Armed++
	}
}

// scaledTo is told of every scale update of the HPA's target that landed.
func (w *statusFailures) scaledTo(replicas int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kind != "" && !w.scaled {
		w.scaled, w.zero = true, replicas == 0
	}
}

// fail returns the error the status update meets, or nil.
func (w *statusFailures) fail() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kind == "" || !w.scaled {
		return nil
	}
	kind := w.kind
	w.kind = ""
	w.tally.Fired++
	w.tally.AfterZero += boolCount(w.zero)
	if kind == statusFailTimeout {
		return apierrors.NewTimeoutError("request did not complete within the allotted timeout", 0)
	}
	return apierrors.NewInternalError(errors.New("etcdserver: leader changed"))
}

func (w *statusFailures) counts() statusFailTally {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tally
}

// failStatusUpdates has the HPA's status update fail when w says so.
func failStatusUpdates(client *fake.Clientset, w *statusFailures) {
	client.PrependReactor("update", "horizontalpodautoscalers", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" || a.(clienttesting.UpdateAction).GetObject().(metav1.Object).GetName() != "web" {
			return false, nil, nil
		}
		if err := w.fail(); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
}
