package exact

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/ptas"
	"github.com/procalloc/procalloc/voronoi"
)

func randPts(r *rand.Rand, n, span int, mode int) []geom.Point {
	pts := make([]geom.Point, n)
	for i := range pts {
		x, y := r.IntN(span), r.IntN(span)
		switch mode {
		case 1: // collinear along axes and diagonals
			switch r.IntN(3) {
			case 0:
				y = x
			case 1:
				y = span - x
			default:
				y = 3
			}
		case 2: // duplicates
			if i > 0 && r.IntN(2) == 0 {
				j := r.IntN(i)
				x, y = pts[j][0], pts[j][1]
			}
		}
		pts[i] = geom.Point{x, y}
	}
	return pts
}

func bruteL1(pts []geom.Point, k int) int64 {
	return bruteSubset(len(pts), k, func(idx []int) int64 {
		return int64(geom.PairwiseL1Subset(pts, idx))
	})
}

func TestTripleMatchesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	trials := 3000
	if testing.Short() {
		trials = 600
	}
	for trial := 0; trial < trials; trial++ {
		n := 3 + r.IntN(10)
		span := 1 + r.IntN(12)
		if trial%3 == 0 {
			span = 1 + r.IntN(3)
		}
		pts := randPts(r, n, span, trial%3)
		got, err := Triple(context.Background(), pts)
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, got.Indices, n, 3)
		want := bruteL1(pts, 3)
		if got.Total != want || int64(geom.PairwiseL1Subset(pts, got.Indices)) != want {
			t.Fatalf("points %v: Triple %d %v, brute %d", pts, got.Total, got.Indices, want)
		}
		if err := voronoi.CheckWitness(pts, got.Indices, got.Center2); err != nil {
			t.Fatalf("points %v: witness: %v", pts, err)
		}
		swIdx, swTotal := oracle.TripleSweep(pts)
		if swTotal != want || !slices.Equal(swIdx, got.Indices) {
			t.Fatalf("points %v: sweep %d %v, Triple %d %v", pts, swTotal, swIdx, got.Total, got.Indices)
		}
	}
}

func TestTripleMatchesSweepMedium(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for trial := 0; trial < 60; trial++ {
		n := 200 + r.IntN(2000)
		span := 10 + r.IntN(5000)
		pts := randPts(r, n, span, trial%3)
		got, err := Triple(context.Background(), pts)
		if err != nil {
			t.Fatal(err)
		}
		swIdx, swTotal := oracle.TripleSweep(pts)
		if got.Total != swTotal || !slices.Equal(swIdx, got.Indices) {
			t.Fatalf("n %d: Triple %d %v, sweep %d %v", n, got.Total, got.Indices, swTotal, swIdx)
		}
	}
}

func TestPlaneMM(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	trials := 1500
	if testing.Short() {
		trials = 300
	}
	for trial := 0; trial < trials; trial++ {
		n := 1 + r.IntN(10)
		k := 1 + r.IntN(n)
		span := 1 + r.IntN(8)
		pts := randPts(r, n, span, trial%3)
		got, err := PlaneMM(context.Background(), pts, k)
		if err != nil {
			t.Fatal(err)
		}
		checkIndices(t, got.Indices, n, k)
		if v := int64(geom.PairwiseL1Subset(pts, got.Indices)); v != got.Total {
			t.Fatalf("reported %d, indices cost %d", got.Total, v)
		}
		if err := voronoi.CheckWitness(pts, got.Indices, got.Center2); err != nil {
			t.Fatalf("points %v k %d: %v", pts, k, err)
		}
		opt := bruteL1(pts, k)
		if got.Total < opt || (k <= 3 && got.Total != opt) {
			t.Fatalf("points %v k %d: plane MM %d, optimum %d", pts, k, got.Total, opt)
		}
		for _, ties := range []ptas.Ties{ptas.TiesByIndex, ptas.TiesPReMAS} {
			mm, err := ptas.MM(pts, k, ptas.Options{Ties: ties})
			if err != nil {
				t.Fatal(err)
			}
			if float64(got.Total) > mm.Total {
				t.Fatalf("points %v k %d: plane MM %d worse than MM (%v) %g", pts, k, got.Total, ties, mm.Total)
			}
		}
		// Brute force over the quarter lattice of centers: best k-nearest set.
		if want := brutePlaneMM(pts, k); got.Total != want {
			t.Fatalf("points %v k %d: plane MM %d, lattice brute force %d", pts, k, got.Total, want)
		}
	}
}

// brutePlaneMM: best k-nearest set (every tie completion) over the quarter lattice
// (oracle.LatticeKNearestSets).
func brutePlaneMM(pts []geom.Point, k int) int64 {
	best := int64(-1)
	oracle.LatticeKNearestSets(pts, k, func(idx []int) {
		if v := int64(geom.PairwiseL1Subset(pts, idx)); best < 0 || v < best {
			best = v
		}
	})
	return best
}

func TestTripleErrors(t *testing.T) {
	if _, err := Triple(context.Background(), []geom.Point{{0, 0}, {1, 1}}); err == nil {
		t.Error("n < 3 accepted")
	}
	if _, err := Triple(context.Background(), []geom.Point{{0, 0, 1}, {1, 1, 1}, {2, 2, 2}}); err == nil {
		t.Error("3D accepted")
	}
}

// TestPlaneMMStopsOnContext: PlaneMM looks at ctx while it scans (ctxtest.Counting),
// and one that ends halfway (ctxtest.StopAfter) gets an error wrapping
// context.Canceled with a valid k-nearest set no better than the full scan's, or none.
func TestPlaneMMStopsOnContext(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pts := randPts(r, 40, 6, 0)
	const k = 10
	counting := ctxtest.NewCounting()
	full, err := PlaneMM(counting, pts, k)
	if err != nil {
		t.Fatal(err)
	}
	looks := counting.Looks()
	if looks < 4 {
		t.Fatalf("PlaneMM looked at ctx %d times; want a few", looks)
	}
	got, err := PlaneMM(ctxtest.StopAfter(looks/2), pts, k)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped halfway: error %v, want context.Canceled", err)
	}
	if got.Indices == nil {
		return
	}
	checkIndices(t, got.Indices, len(pts), k)
	if v := int64(geom.PairwiseL1Subset(pts, got.Indices)); v != got.Total || v < full.Total {
		t.Fatalf("stopped halfway: reported %d, indices cost %d, full scan %d", got.Total, v, full.Total)
	}
	if err := voronoi.CheckWitness(pts, got.Indices, got.Center2); err != nil {
		t.Fatal(err)
	}
}

// TestTripleStopsOnContext: Triple on a context already cancelled stops in the walk
// and says so (an error wrapping context.Canceled), instead of scanning the input.
func TestTripleStopsOnContext(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	pts := randPts(r, 2000, 300, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Triple(ctx, pts); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: error %v, want context.Canceled", err)
	}
	if _, err := Triple(context.Background(), pts); err != nil {
		t.Fatal(err)
	}
}
