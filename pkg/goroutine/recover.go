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
	"context"
	"fmt"
	"runtime/debug"

	"k8s.io/klog/v2"
)

// Observer counts recovered panics, by the name of the work that panicked.
type Observer interface {
	ObservePanic(name string)
}

type observerKey struct{}

// WithObserver returns a context whose recovered panics are counted by o.
// The context carries it, rather than each package's options, so that
// every goroutine started below the binary's root context is counted
// without threading a counter through every constructor.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// PanicError is a recovered panic: its value, where it happened and the
// stack of the goroutine that panicked.
type PanicError struct {
	// Name names the work that panicked.
	Name  string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%s panicked: %v", e.Name, e.Value)
}

// Unwrap returns the panic's value when it is an error, so that
// errors.Is and errors.As see through a recovered panic(err).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Recover runs f on the caller's goroutine and returns its panic, if any,
// as a *PanicError. A panic whose value is already a *PanicError (one
// recovered below and raised again for its waiter) is returned as it is:
// it was logged and counted once, where it happened.
func Recover(ctx context.Context, name string, f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if pe, ok := r.(*PanicError); ok {
			err = pe
			return
		}
		pe := &PanicError{Name: name, Value: r, Stack: debug.Stack()}
		klog.FromContext(ctx).Error(pe, "Recovered a panic", "goroutine", name, "stack", string(pe.Stack))
		if o, ok := ctx.Value(observerKey{}).(Observer); ok {
			o.ObservePanic(name)
		}
		err = pe
	}()
	f()
	return nil
}
