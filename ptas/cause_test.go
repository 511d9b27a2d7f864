package ptas

import (
	"context"
	"errors"
	"testing"
)

// A context ended with a cause (the command's "interrupted", a named time limit)
// stops MM, MM+Inc and the PTAS with that cause, not a plain context.Canceled.
func TestStoppedReturnsCause(t *testing.T) {
	var pts [][]float64
	for i := range 3000 {
		pts = append(pts, []float64{float64(i % 61), float64(i / 61)})
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := MMContext(ctx, pts, 50, Options{}); !errors.Is(err, stop) {
		t.Errorf("MM: err = %v, want the context's cause", err)
	}
	if _, err := MMIncContext(ctx, pts, 50, Options{}); !errors.Is(err, stop) {
		t.Errorf("MM+Inc: err = %v, want the context's cause", err)
	}
	if _, err := PTASWithM(ctx, pts[:40], 5, 2); !errors.Is(err, stop) {
		t.Errorf("PTAS: err = %v, want the context's cause", err)
	}
}
