package timelimit

import (
	"context"
	"errors"
	"testing"
)

// countingCtx counts the looks (Err calls) at its context.
type countingCtx struct {
	context.Context
	looks int
}

func (c *countingCtx) Err() error { c.looks++; return c.Context.Err() }

// A Looker looks at its first Stopped when made by NewLooker, then exactly once
// per LookEvery units of work however they come (one at a time, in lumps, added to
// Work directly), and returns the context's cause, unwrapped, once it has ended.
func TestLookerLooksEveryLookEvery(t *testing.T) {
	for _, step := range []int{1, 3, 100, LookEvery - 1, LookEvery, 5 * LookEvery} {
		c := &countingCtx{Context: context.Background()}
		l := NewLooker(c)
		if err := l.Stopped(0); err != nil || c.looks != 1 {
			t.Fatalf("step %d: first Stopped: %v, %d looks; want nil and one look", step, err, c.looks)
		}
		units, want := 0, 1
		since := 0
		for units < 20*LookEvery {
			if err := l.Stopped(step); err != nil {
				t.Fatal(err)
			}
			units += step
			if since += step; since >= LookEvery {
				want, since = want+1, 0
			}
			if c.looks != want {
				t.Fatalf("step %d: %d looks after %d units, want %d", step, c.looks, units, want)
			}
		}
	}
	cause := errors.New("the user's Ctrl-C")
	ctx, cancel := context.WithCancelCause(context.Background())
	l := NewLooker(ctx)
	if err := l.Stopped(1); err != nil {
		t.Fatalf("live context: %v", err)
	}
	cancel(cause)
	for i := 1; i < LookEvery; i++ {
		if err := l.Stopped(1); err != nil {
			t.Fatalf("looked after %d units of LookEvery %d: %v", i, LookEvery, err)
		}
	}
	if err := l.Stopped(1); err != cause {
		t.Fatalf("after LookEvery units of a cancelled context: %v, want the cause itself", err)
	}
	if err := NewLooker(ctx).Stopped(0); err != cause {
		t.Fatalf("NewLooker of a cancelled context: %v, want the cause at once", err)
	}
	if err := (&Looker{Ctx: ctx}).Stopped(0); err != nil {
		t.Fatalf("a zero Work Looker looked at once: %v", err)
	}
}
