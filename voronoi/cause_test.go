package voronoi

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/ctxtest"
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

// The walk looks at the context every walkPoll points, not only every 1,024
// families: a point near the hull can cost tens of milliseconds on 10^5 points
// and report nothing, so Ctrl-C waited for the families to come.
func TestKNearestSetsLooksPerPoints(t *testing.T) {
	var pts []geom.Point
	for i := range 3000 {
		pts = append(pts, geom.Point{(i * 7919) % 1000, (i * 104729) % 997})
	}
	ctx := ctxtest.NewCounting()
	if _, err := KNearestSetsContext(ctx, pts, 1, 0); err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * (len(pts) / walkPoll)); ctx.Looks() < want {
		t.Errorf("%d looks at the context for %d points (two passes), want at least %d", ctx.Looks(), len(pts), want)
	}
}
