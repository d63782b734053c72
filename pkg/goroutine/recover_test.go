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

package goroutine

import (
	"errors"
	"sync"
	"testing"

	"k8s.io/klog/v2/ktesting"
)

type countingObserver struct {
	mu    sync.Mutex
	names []string
}

func (o *countingObserver) ObservePanic(name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.names = append(o.names, name)
}

func (o *countingObserver) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.names)
}

var errBoom = errors.New("boom")

func TestRecover(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         func()
		wantErr   bool
		wantCount int
	}{
		{name: "a function that returns is no error and counts nothing", f: func() {}},
		{name: "a panic is returned as a PanicError and counted once", f: func() { panic("bug") }, wantErr: true, wantCount: 1},
		{name: "a panic with an error value unwraps to it", f: func() { panic(errBoom) }, wantErr: true, wantCount: 1},
		{name: "a PanicError raised again for its waiter is not counted twice", f: func() { panic(&PanicError{Name: "below", Value: "bug"}) }, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			o := &countingObserver{}
			err := Recover(WithObserver(ctx, o), "work", tc.f)
			var pe *PanicError
			if got := errors.As(err, &pe); got != tc.wantErr {
				t.Fatalf("Recover returned %v; want a PanicError: %v", err, tc.wantErr)
			}
			if got := o.count(); got != tc.wantCount {
				t.Errorf("counted %d panics, want %d", got, tc.wantCount)
			}
			if tc.wantErr && pe.Name == "work" && len(pe.Stack) == 0 {
				t.Error("the PanicError carries no stack")
			}
		})
	}
	t.Run("an error value is seen through the PanicError", func(t *testing.T) {
		_, ctx := ktesting.NewTestContext(t)
		if err := Recover(ctx, "work", func() { panic(errBoom) }); !errors.Is(err, errBoom) {
			t.Errorf("errors.Is(%v, errBoom) is false", err)
		}
	})
}

// signallingObserver hands each count over a channel, so that a test
// waits for the recovery of a goroutine it cannot join.
type signallingObserver chan string

func (o signallingObserver) ObservePanic(name string) { o <- name }

func TestGoRecoversAndCounts(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	o := make(signallingObserver, 1)
	Go(WithObserver(ctx, o), "stray", func() { panic("bug") })
	// Reaching the count means the panic was recovered: the process is
	// alive to see it.
	if got := <-o; got != "stray" {
		t.Errorf("counted under %q, want %q", got, "stray")
	}
}

func TestGroupWait(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fs        []func()
		wantPanic bool
	}{
		{name: "functions that return leave Wait nil", fs: []func(){func() {}, func() {}}},
		{name: "one panic among several is Wait's error, and the others still ran", fs: []func(){func() {}, func() { panic("bug") }, func() {}}, wantPanic: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			o := &countingObserver{}
			g := NewGroup(WithObserver(ctx, o), "evaluate")
			var mu sync.Mutex
			ran := 0
			for _, f := range tc.fs {
				g.Start(func() {
					mu.Lock()
					ran++
					mu.Unlock()
					f()
				})
			}
			err := g.Wait()
			var pe *PanicError
			if got := errors.As(err, &pe); got != tc.wantPanic {
				t.Fatalf("Wait returned %v; want a PanicError: %v", err, tc.wantPanic)
			}
			if ran != len(tc.fs) {
				t.Errorf("%d of %d functions ran", ran, len(tc.fs))
			}
			if tc.wantPanic && o.count() != 1 {
				t.Errorf("counted %d panics, want 1", o.count())
			}
		})
	}
}
