package timelimit

import (
	"context"
	"time"
)

// Reached is the cause of a context whose time limit passed: Name says which limit
// (a flag such as "--time-limit", or a library field such as "baseline TimeLimit").
type Reached struct {
	Name  string        // the limit's name, e.g. "--time-limit"
	Limit time.Duration // the limit's length
}

// Error returns "NAME LIMIT reached", e.g. "--time-limit 1m0s reached".
func (r Reached) Error() string { return r.Name + " " + r.Limit.String() + " reached" }

// Is makes Reached context.DeadlineExceeded to errors.Is.
func (r Reached) Is(target error) bool { return target == context.DeadlineExceeded }

// WithTimeout is context.WithTimeout whose deadline ends ctx with Reached{name, d}
// as its cause.
func WithTimeout(ctx context.Context, d time.Duration, name string) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, Reached{Name: name, Limit: d})
}

// Grace returns a context that ends grace after ctx ends, with ctx's cause, or when
// its cancel is called: for short work that completes a result after the solve that
// produced it was stopped (re-verifying its objective), bounded so that Ctrl-C or
// the time limit still ends the command within about a second.
// With grace <= 0 it ends with ctx.
func Grace(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	if grace <= 0 {
		g, cancel := context.WithCancelCause(ctx)
		return g, func() { cancel(context.Canceled) }
	}
	g, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, func() { cancel(context.Cause(ctx)) })
		context.AfterFunc(g, func() { t.Stop() })
	})
	return g, func() {
		stop()
		cancel(context.Canceled)
	}
}
