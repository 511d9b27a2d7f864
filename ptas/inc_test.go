package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPoints draws n integer points of dimension d in a box of side up to side
// at an offset within ±3, with duplicates when dup; sorted by coordinates (as
// free lists are) or not.
func randomPoints(r *rand.Rand, n, d, side int, dup, sorted bool) [][]int {
	sides := make([]int, d)
	offs := make([]int, d)
	for j := range d {
		sides[j] = 1 + r.IntN(side)
		offs[j] = r.IntN(7) - 3
	}
	pts := make([][]int, 0, n)
	for len(pts) < n {
		p := make([]int, d)
		for j := range d {
			p[j] = offs[j] + r.IntN(sides[j])
		}
		if !dup && slices.ContainsFunc(pts, func(q []int) bool { return slices.Equal(p, q) }) {
			if len(pts) >= volume(sides) {
				break
			}
			continue
		}
		pts = append(pts, p)
	}
	if sorted {
		slices.SortFunc(pts, slices.Compare)
	}
	return pts
}

func volume(sides []int) int {
	v := 1
	for _, s := range sides {
		v *= s
	}
	return v
}

// improveByCounts (per-line lists, candidates by per-dimension intervals, the
// previous round's candidates as a bound) makes the definition's swaps, in the
// same order to the same final set and order: in 1 to 4 dimensions, sparse and
// dense, with duplicates, sorted as free lists are and not, from MM's answer and
// from random starts (many rounds).
func TestImproveByCountsMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	trials := 3000
	if testing.Short() {
		trials = 800
	}
	rounds := 0
	for trial := range trials {
		d := 1 + trial%4
		n := 2 + r.IntN(34)
		side := []int{40, 9, 5, 3}[d-1]
		if trial%5 == 4 {
			side *= 4 // sparse: most lines empty
		}
		pts := randomPoints(r, n, d, side, trial%7 == 6, trial%3 != 0)
		if len(pts) < 3 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		var start []int
		if trial%2 == 0 {
			start = r.Perm(len(pts))[:k]
		} else {
			start = refSearch(pts, k, refMMCenters(pts, TiesByIndex), metricL1, scorePairwise, TiesByIndex)
			r.Shuffle(len(start), func(i, j int) { start[i], start[j] = start[j], start[i] })
		}
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		want := refImprove(pts, start)
		got, ok := improveByCounts(pr, slices.Clone(start))
		if !ok {
			t.Fatalf("trial %d: improveByCounts does not apply to %v", trial, pts)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (d=%d, k=%d) on %v from %v: %v, by definition %v", trial, d, k, pts, start, got, want)
		}
		for i := range start {
			if start[i] != want[i] {
				rounds++
			}
		}
	}
	if rounds < trials {
		t.Fatalf("only %d points swapped over %d trials: the swaps are barely exercised", rounds, trials)
	}
}
