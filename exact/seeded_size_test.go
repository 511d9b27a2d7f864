package exact

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/ctxtest"
)

// SubsetSeeded refuses more than MaxSubsetPoints points before any work: it ran
// MM+Inc on all of them first (polling its context), minutes for k = 5,000 of
// 150,000 free nodes, only for Subset to refuse them. At the bound it still solves.
func TestSubsetSeededRefusesTooManyPointsFirst(t *testing.T) {
	pts := make([]geom.PointF, MaxSubsetPoints+1)
	for i := range pts {
		pts[i] = geom.PointF{float64(i % 80), float64(i / 80)}
	}
	looks := ctxtest.NewCounting()
	_, err := SubsetSeeded(looks, pts, 40, SubsetOptions{})
	if err == nil || !strings.Contains(err.Error(), "accepts at most 4096") {
		t.Fatalf("%d points: %v, want the size refusal", len(pts), err)
	}
	if looks.Looks() != 0 {
		t.Fatalf("%d points: %d looks at the context before the refusal: work was done", len(pts), looks.Looks())
	}
	res, err := SubsetSeeded(ctxtest.NewCounting(), pts[:MaxSubsetPoints], 3, SubsetOptions{MaxNodes: 1000})
	if err != nil || len(res.Indices) != 3 {
		t.Fatalf("%d points: %+v, %v", MaxSubsetPoints, res, err)
	}
}
