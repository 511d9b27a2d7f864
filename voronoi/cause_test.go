package voronoi

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// A context ended with a cause (the command's "interrupted", a named time limit)
// stops KNearestSetsContext with that cause in its error.
func TestKNearestSetsReturnsCause(t *testing.T) {
	var many []geom.Point
	for i := range 40 {
		many = append(many, geom.Point{i % 3, i % 2})
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := KNearestSetsContext(ctx, many, 15, 0); !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the context's cause", err)
	}
}
