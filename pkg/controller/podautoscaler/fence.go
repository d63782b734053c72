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
)

// Fence is asked right before each write of a pass (a scale update, a
// status update and each of its conflict retries). A sharded replica's
// shard can move to another replica while a pass is in flight; a write
// that lands after that would undo the new owner's decision, so once the
// fence refuses, the pass writes nothing more.
type Fence interface {
	// Allow returns nil while the work of ctx may still write the HPAs of
	// namespace, and the reason once it may not.
	Allow(ctx context.Context, namespace string) error
}

// allowWrite asks the fence, if any, whether the pass may write now.
func (p *pass) allowWrite() error {
	if p.c.opts.Fence == nil {
		return nil
	}
	if err := p.c.opts.Fence.Allow(p.ctx, p.hpa.Namespace); err != nil {
		return fencedError{fmt.Errorf("not writing %s/%s: %w", p.hpa.Namespace, p.hpa.Name, err)}
	}
	return nil
}

// fencedError is a write the fence refused. It is no failure of the HPA's:
// its shard is, or may be, another replica's, which reports on the HPA from
// then on; an event from the fenced pass would be a write after the
// handover, and a warning about nothing the HPA's owner can act on.
type fencedError struct{ err error }

func (e fencedError) Error() string { return e.err.Error() }
func (e fencedError) Unwrap() error { return e.err }

func isFenced(err error) bool { return errors.As(err, new(fencedError)) }
