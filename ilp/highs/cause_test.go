//go:build highs

package highs

import (
	"context"
	"errors"
	"testing"
)

// A context ended with a cause (the command's "interrupted", a named time limit)
// refuses the solve with that cause, not a plain context.Canceled.
func TestSolveReturnsCause(t *testing.T) {
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := Solve(ctx, smallMIP(), nil, Options{}); err != stop {
		t.Fatalf("err = %v, want the context's cause", err)
	}
}
