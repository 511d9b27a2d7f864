package exact

import (
	"context"
	"errors"
	"testing"
)

// A context ended with a cause (the command's "interrupted", a named time limit)
// stops HierarchyMin with that cause, not a plain context.Canceled.
func TestHierarchyMinReturnsCause(t *testing.T) {
	h := Hierarchy{Free: []int{2, 2, 2, 2}, Up: [][]int32{{0, 0, 1, 1}, {0, 0}}, PairCost: []int64{2, 4, 6}}
	if _, err := HierarchyMin(context.Background(), h, 3); err != nil {
		t.Fatalf("uncancelled: %v", err)
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := HierarchyMin(ctx, h, 3); err != stop {
		t.Fatalf("err = %v, want the context's cause %v", err, stop)
	}
}
