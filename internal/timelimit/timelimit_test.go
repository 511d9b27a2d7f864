package timelimit

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWithTimeoutCause(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), time.Nanosecond, "--time-limit")
	defer cancel()
	<-ctx.Done()
	err := context.Cause(ctx)
	if got, want := err.Error(), "--time-limit 1ns reached"; got != want {
		t.Fatalf("cause %q, want %q", got, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatalf("cause %v: errors.Is DeadlineExceeded must hold and Canceled not", err)
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("ctx.Err() = %v, want DeadlineExceeded", ctx.Err())
	}
}

func TestCancelBeforeLimitIsNotReached(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), time.Hour, "--time-limit")
	cancel()
	var r Reached
	if err := context.Cause(ctx); errors.As(err, &r) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cause after cancel = %v, want context.Canceled", err)
	}
}

// Grace ends its context grace after the parent, with the parent's cause, and not
// before; a parent that never ends leaves it running until cancel.
func TestGrace(t *testing.T) {
	parent, cancelParent := WithTimeout(context.Background(), 10*time.Millisecond, "--time-limit")
	defer cancelParent()
	g, cancel := Grace(parent, 50*time.Millisecond)
	defer cancel()
	<-parent.Done()
	ended := time.Now()
	if g.Err() != nil {
		t.Fatalf("ended with its parent: %v", context.Cause(g))
	}
	<-g.Done()
	if d := time.Since(ended); d < 40*time.Millisecond {
		t.Errorf("ended %v after its parent, want about 50ms", d)
	}
	var r Reached
	if err := context.Cause(g); !errors.As(err, &r) || r.Name != "--time-limit" {
		t.Errorf("cause %v, want the parent's", err)
	}
	g2, cancel2 := Grace(context.Background(), time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	if g2.Err() != nil {
		t.Errorf("ended without its parent ending: %v", g2.Err())
	}
	cancel2()
	if !errors.Is(g2.Err(), context.Canceled) {
		t.Errorf("after cancel: %v", g2.Err())
	}
}
