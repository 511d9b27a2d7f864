package ptas

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Issue 13 item 14: a PTAS stopped by its deadline still returns a subset (the MM
// seed, with MM's guarantee); an interrupt is an error.
func TestPTASDeadlineKeepsTheSeed(t *testing.T) {
	pts := [][]float64{{0, 0}, {1, 0}, {0, 1}, {5, 5}, {6, 6}, {2, 2}, {3, 1}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	res, err := PTASWithM(ctx, pts, 4, 3)
	if (err != nil && !errors.Is(err, context.DeadlineExceeded)) || len(res.Indices) != 4 {
		t.Fatalf("deadline: %v, %+v", err, res)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := PTASWithM(ctx, pts, 4, 3); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupt: %v", err)
	}
}
