package exact

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
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

// HierarchyMin asks ctx before every merge of a child's table, not once a level: a
// level's merges took seconds at the top of fattree:32,32:32,32:196 (196 children,
// k = 24,320), and sim --baseline exact's Ctrl-C waited for the watchdog. Stopped
// after any number of looks short of all, it returns the context's error; given
// them all, the same minimum.
func TestHierarchyMinAsksPerMerge(t *testing.T) {
	// 8 leaves of 3 free hosts, 4 groups of 2 leaves, 2 of 2 groups, the top.
	h := Hierarchy{Free: []int{3, 3, 3, 3, 3, 3, 3, 3}, Up: [][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 1, 1}, {0, 0}}, PairCost: []int64{2, 4, 6, 8}}
	want, err := HierarchyMin(context.Background(), h, 10)
	if err != nil {
		t.Fatal(err)
	}
	looks := ctxtest.NewCounting()
	if _, err := HierarchyMin(looks, h, 10); err != nil {
		t.Fatal(err)
	}
	if merges := int64(4 + 2); looks.Looks() < merges {
		t.Fatalf("%d looks at the context for %d merges", looks.Looks(), merges)
	}
	for n := range looks.Looks() {
		if _, err := HierarchyMin(ctxtest.StopAfter(n), h, 10); !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped after %d of %d looks: %v, want context.Canceled", n, looks.Looks(), err)
		}
	}
	if got, err := HierarchyMin(ctxtest.StopAfter(looks.Looks()), h, 10); err != nil || got != want {
		t.Fatalf("given every look: %d, %v; want %d", got, err, want)
	}
}
