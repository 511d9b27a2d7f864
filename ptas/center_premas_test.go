package ptas

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// runPath runs MM (or Gen-Alg) with TiesPReMAS on one of the searcher's paths: "grid"
// (the default on small integer coordinates: counting sort on int32 columns) or
// "generic".
func runPath(t *testing.T, pts [][]int, k int, mm bool, path string) ([]int, int) {
	t.Helper()
	pr, err := newProblem(pts, k)
	if err != nil {
		t.Fatal(err)
	}
	sr := newSearcher(pr, TiesPReMAS, metricL1, scorePairwise)
	switch path {
	case "grid":
		if sr.grid == nil {
			t.Fatal("the grid path is not used")
		}
	case "generic":
		sr.grid = nil
	}
	if mm {
		if err := mmCenters(context.Background(), pr, TiesPReMAS, func(c []int) bool { sr.try(c); return false }); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, p := range pr.pts {
			sr.try(p)
		}
	}
	res := sr.result(1)
	return res.Indices, int(sr.bestScore)
}

// The grid path of TiesPReMAS gives the generic path's answer, order included, on
// the free nodes of meshes up to 16x16 in free-list order.
func TestPReMASGridMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	trials := 400
	if testing.Short() {
		trials = 120
	}
	for trial := range trials {
		X, Y := 1+r.IntN(16), 1+r.IntN(16)
		busy := r.Float64()
		var pts [][]int
		for x := range X {
			for y := range Y {
				if r.Float64() >= busy {
					pts = append(pts, []int{x + 3, y - 2}) // any offset
				}
			}
		}
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts)-1)
		mm := trial%2 == 0
		want, wantScore := runPath(t, pts, k, mm, "generic")
		for _, path := range []string{"grid"} {
			got, score := runPath(t, pts, k, mm, path)
			if !slices.Equal(got, want) || score != wantScore {
				t.Fatalf("trial %d (%dx%d, k=%d, mm %v) %s path: %v score %d, generic %v score %d", trial, X, Y, k, mm, path, got, score, want, wantScore)
			}
		}
	}
}
