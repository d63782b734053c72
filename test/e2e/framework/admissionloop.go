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

package framework

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Pace of an AdmissionLoop: a round is a create of a valid HPA and a dry
// run of an invalid one, every admissionLoopPause; one create in
// admissionLoopStoreEvery is stored, the others are dry runs, so that the
// loop does not load the controller with hundreds of HPAs.
const (
	admissionLoopPause      = 50 * time.Millisecond
	admissionLoopStoreEvery = 10
	admissionCallTimeout    = 15 * time.Second
)

// AdmissionLoop creates HPAs through kube-apiserver and the webhook
// without pause until stopped: a valid one must be accepted, and one that
// only the webhook refuses must be refused by it, naming its field. Any
// other answer is a failure.
type AdmissionLoop struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	tally AdmissionTally
}

// AdmissionTally counts what an AdmissionLoop saw.
type AdmissionTally struct {
	// Calls are the admission requests made; Stored the HPAs created
	// for real.
	Calls, Stored int
	// Failures are the calls that were not answered as they should, each
	// with its time and error.
	Failures []string
}

// StartAdmissionLoop runs an AdmissionLoop in the spec's namespace.
func (f *Framework) StartAdmissionLoop(ctx context.Context) *AdmissionLoop {
	ctx, cancel := context.WithCancel(ctx)
	l := &AdmissionLoop{cancel: cancel, done: make(chan struct{})}
	go l.run(ctx, f.Environment, f.Namespace)
	return l
}

func (l *AdmissionLoop) run(ctx context.Context, env *Environment, namespace string) {
	defer close(l.done)
	valid, invalid := AdmissionProbeHPAs("admission-loop")
	stored := valid.DeepCopy()
	stored.Name, stored.GenerateName = "", "admission-loop-"
	for round := 0; ; round++ {
		hpa, dryRun := valid.DeepCopy(), true
		if round%admissionLoopStoreEvery == 0 {
			hpa, dryRun = stored.DeepCopy(), false
		}
		// A target of its own each round: the webhook refuses a second
		// autoscaler on a target, and the loop's stored HPAs stay.
		hpa.Spec.ScaleTargetRef.Name = fmt.Sprintf("admission-loop-%d", round)
		err := call(ctx, func(ctx context.Context) error { return env.TryCreateHPA(ctx, namespace, hpa, dryRun) })
		if ctx.Err() != nil {
			return
		}
		l.record(err, !dryRun, "a valid HPA refused")
		err = call(ctx, func(ctx context.Context) error { return env.TryCreateHPA(ctx, namespace, invalid, true) })
		if ctx.Err() != nil {
			return
		}
		switch {
		case err == nil:
			err = fmt.Errorf("accepted")
		case IsWebhookRefusal(err):
			err = nil
		}
		l.record(err, false, "an HPA that only the webhook refuses")
		select {
		case <-ctx.Done():
			return
		case <-time.After(admissionLoopPause):
		}
	}
}

func call(ctx context.Context, do func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, admissionCallTimeout)
	defer cancel()
	return do(ctx)
}

func (l *AdmissionLoop) record(err error, stored bool, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tally.Calls++
	if err != nil {
		l.tally.Failures = append(l.tally.Failures, fmt.Sprintf("%s %s: %v", time.Now().Format("15:04:05.000"), what, err))
		return
	}
	if stored {
		l.tally.Stored++
	}
}

// Tally is what the loop saw so far.
func (l *AdmissionLoop) Tally() AdmissionTally {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.tally
	t.Failures = append([]string(nil), t.Failures...)
	return t
}

// Stop ends the loop, waiting for its call in flight, and returns its
// tally. A call cut short by Stop is not counted.
func (l *AdmissionLoop) Stop() AdmissionTally {
	l.cancel()
	<-l.done
	return l.Tally()
}
