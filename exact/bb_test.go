package exact

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/ptas"
)

func TestSubsetMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	trials := 2000
	if testing.Short() {
		trials = 400
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(11)
		k := 1 + r.IntN(n)
		d := 1 + r.IntN(3)
		span := 1 + r.IntN(10)
		if trial%2 == 0 {
			span = 1 + r.IntN(3)
		}
		pts := make([]geom.PointF, n)
		ip := make([]geom.Point, n)
		for i := range pts {
			pts[i] = make(geom.PointF, d)
			ip[i] = make(geom.Point, d)
			for j := range pts[i] {
				ip[i][j] = r.IntN(span)
				pts[i][j] = float64(ip[i][j])
			}
		}
		want := bruteL1(ip, k)
		res, err := Subset(context.Background(), pts, k, SubsetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, res.Indices, n, k)
		if !res.Optimal || res.Total != float64(want) || res.Bound != res.Total ||
			geom.PairwiseL1Subset(pts, res.Indices) != res.Total {
			t.Fatalf("points %v k %d: %+v, brute %d", ip, k, res, want)
		}
	}
}

// Non-integer coordinates and a caller's incumbent.
func TestSubsetFloatWithIncumbent(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for trial := 0; trial < 300; trial++ {
		n := 2 + r.IntN(10)
		k := 2 + r.IntN(n-1)
		pts := make([]geom.PointF, n)
		for i := range pts {
			pts[i] = geom.PointF{float64(r.IntN(20)) / 4, float64(r.IntN(20)) / 4}
		}
		mm, err := ptas.MM(pts, k, ptas.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Subset(context.Background(), pts, k, SubsetOptions{Incumbent: mm.Indices})
		if err != nil {
			t.Fatal(err)
		}
		want := float64(bruteSubset(n, k, func(idx []int) int64 {
			return int64(4 * geom.PairwiseL1Subset(pts, idx))
		})) / 4
		if res.Total != want || !res.Optimal || res.Total > mm.Total {
			t.Fatalf("k %d: %+v, brute %g, MM %g", k, res, want, mm.Total)
		}
	}
}

// A stopped search never claims optimality and its bound is a true lower bound.
func TestSubsetStoppedReportsGap(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	pts := make([]geom.PointF, 0, 400)
	for len(pts) < 400 {
		pts = append(pts, geom.PointF{float64(r.IntN(40)), float64(r.IntN(40))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res, err := Subset(ctx, pts, 40, SubsetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Optimal {
		t.Skip("solved within 20 ms; nothing to check")
	}
	if res.Bound > res.Total || res.Gap <= 0 || res.Gap > 1 {
		t.Fatalf("stopped: %+v", res)
	}
	// What a stopped search returns is still a valid answer: k distinct points in
	// ascending order whose pairwise total is the Total reported, and the gap is the
	// one of that Total and Bound.
	if len(res.Indices) != 40 || !slices.IsSorted(res.Indices) || len(slices.Compact(slices.Clone(res.Indices))) != 40 {
		t.Fatalf("stopped: indices %v, want 40 distinct ascending", res.Indices)
	}
	if got := geom.PairwiseL1Subset(pts, res.Indices); got != res.Total {
		t.Errorf("stopped: Total %g, the indices' pairwise sum %g", res.Total, got)
	}
	if want := (res.Total - res.Bound) / res.Total; math.Abs(res.Gap-want) > 1e-12 {
		t.Errorf("stopped: Gap %g, (Total - Bound) / Total = %g", res.Gap, want)
	}
	full, err := Subset(context.Background(), pts[:60], 8, SubsetOptions{})
	if err != nil || !full.Optimal {
		t.Fatal(err)
	}
}

func TestSubsetErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Subset(ctx, []geom.PointF{{0, 0}}, 2, SubsetOptions{}); err == nil {
		t.Error("k > n accepted")
	}
	if _, err := Subset(ctx, []geom.PointF{{0, 0}, {1}}, 1, SubsetOptions{}); err == nil {
		t.Error("mixed dimensions accepted")
	}
	if _, err := Subset(ctx, []geom.PointF{{0, 0}, {1, 1}}, 2, SubsetOptions{Incumbent: []int{0, 0}}); err == nil {
		t.Error("bad incumbent accepted")
	}
	// A NaN or infinite coordinate is an error naming it (it panicked: index out of
	// range in the search's sorted distance rows).
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Subset(ctx, []geom.PointF{{0, 0}, {bad, 1}, {2, 2}}, 2, SubsetOptions{}); err == nil || !strings.Contains(err.Error(), "point 1 coordinate 0") {
			t.Errorf("coordinate %v: error %v, want one naming point 1 coordinate 0", bad, err)
		}
	}
}
