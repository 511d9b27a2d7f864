package ctxtest

import (
	"context"
	"iter"
	"sync/atomic"
)

// Countdown is a context whose Err turns to context.Canceled once it has been
// asked more than the looks it was given.
type Countdown struct {
	context.Context
	left atomic.Int64
}

// StopAfter returns a Countdown whose Err is nil for the first looks calls and
// context.Canceled after.
func StopAfter(looks int64) *Countdown {
	c := &Countdown{Context: context.Background()}
	c.left.Store(looks)
	return c
}

// Err is context.Canceled once the looks are used up.
func (c *Countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// Counting is a context that counts the calls of its Err and never ends.
type Counting struct {
	context.Context
	calls atomic.Int64
}

// NewCounting returns a Counting context with no looks yet.
func NewCounting() *Counting { return &Counting{Context: context.Background()} }

// Err counts the look and returns nil.
func (c *Counting) Err() error {
	c.calls.Add(1)
	return nil
}

// Looks returns the calls of Err so far.
func (c *Counting) Looks() int64 { return c.calls.Load() }

// Stops returns the contexts a test ends a call with, at every point of a
// call that looks at its context looks times: a context already cancelled
// (k = -1), then StopAfter(k) for k = 0 and every max(1, looks/parts) looks
// after, below looks. A call given each must stop with context.Canceled.
func Stops(looks, parts int64) iter.Seq2[int64, context.Context] {
	return func(yield func(int64, context.Context) bool) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if !yield(-1, ctx) {
			return
		}
		for k := int64(0); k < looks; k += max(1, looks/parts) {
			if !yield(k, StopAfter(k)) {
				return
			}
		}
	}
}
