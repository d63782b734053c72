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
	"sync"
)

// Go runs f on a goroutine of its own and recovers its panic (logged and
// counted by Recover). Work whose outcome someone waits for hands it over
// itself: use a Group, or Recover inside f.
func Go(ctx context.Context, name string, f func()) {
	go func() { _ = Recover(ctx, name, f) }()
}

// Group runs functions on goroutines and waits for them, like a
// sync.WaitGroup whose Wait also returns the panics of its functions. The
// zero Group is not usable: make one with NewGroup.
type Group struct {
	ctx  context.Context
	name string
	wg   sync.WaitGroup

	mu     sync.Mutex
	panics []error
}

// NewGroup returns a Group whose panics are logged and counted through ctx
// under name.
func NewGroup(ctx context.Context, name string) *Group {
	return &Group{ctx: ctx, name: name}
}

// Start runs f on a goroutine of the group. It is not called Go, so that
// the guard test can tell it from sync.WaitGroup.Go without type
// information.
func (g *Group) Start(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := Recover(g.ctx, g.name, f); err != nil {
			g.mu.Lock()
			g.panics = append(g.panics, err)
			g.mu.Unlock()
		}
	}()
}

// Wait waits for every function started so far and returns nil, or the
// first panic among them (each was logged and counted already).
func (g *Group) Wait() error {
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.panics) == 0 {
		return nil
	}
	return g.panics[0]
}
