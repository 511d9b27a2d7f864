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
