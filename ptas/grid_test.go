package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGridMatchesSweep checks that mmGrid returns exactly mmSweep's subset and center
// (both TiesByIndex MM) on random integer point sets in the plane: partly occupied
// meshes in free-list and shuffled order, and clustered points with duplicates and
// gaps between coordinate values (in random and in ascending (x, y) order), for k
// from 1 to n-1; and mmGrid on the same points as float64.
func TestGridMatchesSweep(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		var pts [][]int
		switch trial % 3 {
		case 0, 1: // mesh with a random fraction busy
			X, Y := 1+r.IntN(20), 1+r.IntN(20)
			busy := r.Float64()
			for x := 0; x < X; x++ {
				for y := 0; y < Y; y++ {
					if r.Float64() >= busy {
						pts = append(pts, []int{x - 5, y + 3})
					}
				}
			}
			if trial%3 == 1 {
				r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
			}
		default: // duplicates and gaps
			n, span := 2+r.IntN(60), 1+r.IntN(12)
			for i := 0; i < n; i++ {
				pts = append(pts, []int{3 * r.IntN(span), r.IntN(span) * (1 + r.IntN(2))})
			}
			if trial%2 == 0 { // ascending (x, y): cells of several points read in order
				slices.SortStableFunc(pts, func(a, b []int) int { return slices.Compare(a, b) })
			}
		}
		if len(pts) < 2 {
			continue
		}
		fpts := make([][]float64, len(pts))
		for i, p := range pts {
			fpts[i] = []float64{float64(p[0]), float64(p[1])}
		}
		for _, k := range []int{1, 2, 1 + r.IntN(len(pts)-1), len(pts) / 2, len(pts) - 1} {
			if k < 1 || k >= len(pts) {
				continue
			}
			pr, err := newProblem(pts, k)
			if err != nil {
				t.Fatal(err)
			}
			if !mmGridFits(pr) {
				t.Fatalf("trial %d: grid does not fit", trial)
			}
			gi, gc, err := mmGrid(context.Background(), pr, 0)
			if err != nil {
				t.Fatal(err)
			}
			si, scen, err := mmSweep(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gi, si) || !slices.Equal(gc, scen) {
				t.Fatalf("trial %d, n = %d, k = %d: grid %v at %v, sweep %v at %v\npoints %v", trial, len(pts), k, gi, gc, si, scen, pts)
			}
			// The same points as float64 (integral values) take the grid too.
			fpr, err := newProblem(fpts, k)
			if err != nil {
				t.Fatal(err)
			}
			if !mmGridFits(fpr) {
				t.Fatalf("trial %d: grid does not fit float64 points", trial)
			}
			fi, fc, err := mmGrid(context.Background(), fpr, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(fi, gi) || fc[0] != float64(gc[0]) || fc[1] != float64(gc[1]) {
				t.Fatalf("trial %d, k = %d: float64 grid %v at %v, int grid %v at %v", trial, k, fi, fc, gi, gc)
			}
		}
	}
}
