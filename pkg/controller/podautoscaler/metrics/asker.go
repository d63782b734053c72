package metrics

import (
	"context"
	"time"
)

// Asker is who asks SharedExternal for a metric: an HPA (any stable key)
// in one of its passes (the pass's start).
type Asker struct {
	HPA  string
	Pass time.Time
}

// askerKey is the context key of WithAsker.
type askerKey struct{}

// WithAsker returns a context whose asks SharedExternal never answers with
// the asker's own fetch of an earlier pass. HPAs reconciled on a fixed grid
// (spread reconciles) come back a period after their last pass started,
// while their own answer is a little younger than that: within a window of
// one period it would be given back to them, and they would act twice on
// one reading. Another HPA's fetch, always newer than the asker's last
// pass, is still shared.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// askerOf returns the asker of ctx, or the zero Asker when it does not
// say.
func askerOf(ctx context.Context) Asker {
	a, _ := ctx.Value(askerKey{}).(Asker)
	return a
}

// ownEarlier reports whether a fetch made by owner is a's own from an
// earlier pass. An asker that does not say is never the owner.
func (a Asker) ownEarlier(owner Asker) bool {
	return a.HPA != "" && owner.HPA == a.HPA && !owner.Pass.Equal(a.Pass)
}
