package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

// randomBoxFree lists the free nodes of a random X x Y x Z box at a random offset,
// each free with probability 1-busy, in free-list order (x outermost) or shuffled.
func randomBoxFree(r *rand.Rand, side int, busy float64) [][]int {
	X, Y, Z := 1+r.IntN(side), 1+r.IntN(side), 1+r.IntN(side)
	ox, oy, oz := r.IntN(7)-3, r.IntN(7)-3, r.IntN(7)-3
	var pts [][]int
	for x := range X {
		for y := range Y {
			for z := range Z {
				if r.Float64() >= busy {
					pts = append(pts, []int{x + ox, y + oy, z + oz})
				}
			}
		}
	}
	if r.IntN(2) == 0 {
		r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	}
	return pts
}

// The 3D ball path gives the definition's answer (a fresh array in input order for
// every center, centers ascending for MM, the first strictly best) for MM and
// Gen-Alg on thousands of random free sets of boxes up to 6x6x6 (a third mostly
// free, where most centers take the full-ball shortcut), ties included,
// with no floor and with the best total as the floor; MM+Inc then equals the
// definition's swaps from the definition's MM (up to 60 points). Odd trials take
// grid3Search (which takes ordered free sets before the ball path), even ones the
// ball path.
func TestBallMatchesByIndex(t *testing.T) {
	ballAlways = true // MM takes the ball path even with few full balls
	defer func() { ballAlways, grid3On = false, true }()
	r := rand.New(rand.NewPCG(71, 72))
	trials := 3000
	if testing.Short() {
		trials = 600
	}
	taken := 0
	for trial := range trials {
		// A third mostly free with small k: many full balls (ballSearch.full).
		busy := r.Float64()
		if trial%3 == 0 {
			busy /= 20
		}
		pts := randomBoxFree(r, 6, busy)
		if len(pts) < 2 {
			continue
		}
		grid3On = trial%2 == 1
		k := 1 + r.IntN(len(pts)-1)
		if trial%3 == 0 {
			k = 1 + r.IntN(min(len(pts)-1, 25))
		}
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		if s := newBallSearch(pr); s == nil {
			t.Fatalf("the ball path does not take %v", pts)
		} else {
			s.release()
		}
		taken++
		for _, mm := range []bool{true, false} {
			centers := pts
			run := GenAlg[[]int, int]
			if mm {
				centers = refMMCenters(pts, TiesByIndex)
				run = MM[[]int, int]
			}
			want := refSearch(pts, k, centers, metricL1, scorePairwise, TiesByIndex)
			wantTot := float64(oracle.PairwiseL1Brute(subset(pts, want)))
			for _, floor := range []float64{0, wantTot} {
				res, err := run(pts, k, Options{Floor: floor})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.Indices, want) || res.Total != wantTot {
					t.Fatalf("trial %d (mm %v, k=%d, floor %v) on %v: %v (total %v), by definition %v (total %v)",
						trial, mm, k, floor, pts, res.Indices, res.Total, want, wantTot)
				}
			}
			if mm && len(pts) <= 60 {
				inc, err := MMInc(pts, k, Options{})
				if err != nil {
					t.Fatal(err)
				}
				wantInc := refImprove(pts, want)
				slices.Sort(wantInc)
				if !slices.Equal(inc.Indices, wantInc) {
					t.Fatalf("trial %d (k=%d) on %v: MM+Inc %v, by definition %v", trial, k, pts, inc.Indices, wantInc)
				}
			}
		}
	}
	if taken < trials/2 {
		t.Fatalf("only %d of %d trials ran", taken, trials)
	}
	// Empty boxes up to 11x11x11, and with a cell or two busy, small k: many
	// centers share a class of distances to the faces (ballSearch.clipClass; the
	// ball path, grid3Search off).
	grid3On = false
	boxes := 18
	if testing.Short() {
		boxes = 6
	}
	for trial := range boxes {
		X, Y, Z := 8+r.IntN(4), 8+r.IntN(4), 8+r.IntN(4)
		holes := map[[3]int]bool{}
		for range trial % 3 {
			holes[[3]int{r.IntN(X), r.IntN(Y), r.IntN(Z)}] = true
		}
		var pts [][]int
		for x := range X {
			for y := range Y {
				for z := range Z {
					if !holes[[3]int{x, y, z}] {
						pts = append(pts, []int{x, y - 2, z + 1})
					}
				}
			}
		}
		k := 1 + r.IntN(4)
		for _, mm := range []bool{true, false} {
			centers, run := pts, GenAlg[[]int, int]
			if mm {
				centers, run = refMMCenters(pts, TiesByIndex), MM[[]int, int]
			}
			want := refSearch(pts, k, centers, metricL1, scorePairwise, TiesByIndex)
			res, err := run(pts, k, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Indices, want) {
				t.Fatalf("box %dx%dx%d less %v (mm %v, k=%d): %v, by definition %v", X, Y, Z, holes, mm, k, res.Indices, want)
			}
		}
	}
}

// refImprove is MM+Inc's local search by its definition: while some swap of a chosen
// point o for an unchosen i lowers the total (recomputed from scratch), take the
// largest decrease, ties to the chosen point earliest in the slice, then the
// unchosen point of smallest index; i takes o's place.
func refImprove[T geom.Number](pts [][]T, start []int) []int {
	sel := slices.Clone(start)
	total := func(s []int) T { return oracle.PairwiseL1Brute(subset(pts, s)) }
	for {
		cur := total(sel)
		var bestDelta T
		bo, bi := -1, -1
		for oi := range sel {
			for i := range pts {
				if slices.Contains(sel, i) {
					continue
				}
				try := slices.Clone(sel)
				try[oi] = i
				if delta := total(try) - cur; delta < bestDelta {
					bestDelta, bo, bi = delta, oi, i
				}
			}
		}
		if bo < 0 {
			return sel
		}
		sel[bo] = bi
	}
}

// MM+Inc's swaps from a start (the definition's MM under TiesByIndex, in 2D and 3D)
// are the definition's, on both paths: per-dimension sums by counts
// (improveByCounts) and the scan over every point (float coordinates).
func TestImproveMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	trials := 600
	if testing.Short() {
		trials = 200
	}
	for trial := range trials {
		var pts [][]int
		if trial%2 == 0 {
			pts = randomBoxFree(r, 5, r.Float64())
		} else {
			pts = randomMeshFree(r, 1+r.IntN(9), 1+r.IntN(9), r.IntN(5)-2, r.IntN(5)-2, r.Float64(), r.IntN(2) == 0)
		}
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts)-1)
		start := refSearch(pts, k, refMMCenters(pts, TiesByIndex), metricL1, scorePairwise, TiesByIndex)
		r.Shuffle(len(start), func(i, j int) { start[i], start[j] = start[j], start[i] })
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		want := refImprove(pts, start)
		for _, scan := range []bool{false, true} {
			improveByScan = scan
			got := improve(pr, slices.Clone(start))
			improveByScan = false
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d (k=%d, scan %v) on %v from %v: %v, by definition %v", trial, k, scan, pts, start, got, want)
			}
		}
	}
}

// The full-ball shortcut (one total for every center whose ball holds k points
// on a fully occupied patch of lattice) of mmGrid, and of the lattice path's
// Gen-Alg under TiesByIndex, gives the definition's answer (mmGrid's radius walk
// with and without its rotated counts) on mostly
// free meshes up to 16x16 in free-list order, where most centers take it, with a
// few points busy or duplicated; and on shuffled points, where it is off.
func TestFullBallsShortcut(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	trials := 1500
	if testing.Short() {
		trials = 300
	}
	for trial := range trials {
		X, Y := 2+r.IntN(15), 2+r.IntN(15)
		busy := []float64{0, 0.02, 0.1}[trial%3]
		var pts [][]int
		for x := range X {
			for y := range Y {
				if r.Float64() >= busy {
					pts = append(pts, []int{x - 2, y + 1})
				}
			}
		}
		switch {
		case trial%10 == 7:
			r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
		case trial%10 == 8 && len(pts) > 2:
			i := r.IntN(len(pts) - 1)
			pts = slices.Insert(pts, i+1, slices.Clone(pts[i]))
		}
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts)-1)
		if trial%2 == 0 {
			k = 1 + r.IntN(min(len(pts)-1, 30)) // small balls: many full ones
		}
		pr, err := newProblem(pts, k)
		if err != nil {
			t.Fatal(err)
		}
		if trial%4 == 3 {
			rotBallsMaxCells = 0 // the walk's counts from the columns
		}
		got, _, err := mmGrid(t.Context(), pr, 0)
		rotBallsMaxCells = 4 * maxGridCells
		if err != nil {
			t.Fatal(err)
		}
		want := refSearch(pts, k, refMMCenters(pts, TiesByIndex), metricL1, scorePairwise, TiesByIndex)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (k=%d) on %v: %v, by definition %v", trial, k, pts, got, want)
		}
		if trial%10 == 8 {
			continue // the lattice path takes distinct points only
		}
		restore := useLatticeEverywhere()
		fullBallsMinCells = 0
		got, _ = runLatticeTies(t, pts, k, false, TiesByIndex, 0)
		fullBallsMinCells = 4096
		restore()
		slices.Sort(got)
		if want := refSearch(pts, k, pts, metricL1, scorePairwise, TiesByIndex); !slices.Equal(got, want) {
			t.Fatalf("trial %d (k=%d) on %v: Gen-Alg %v, by definition %v", trial, k, pts, got, want)
		}
	}
}
