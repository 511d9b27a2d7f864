package ptas

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// runLattice runs MM (or Gen-Alg) with TiesPReMAS on the lattice path, failing when
// the path does not take the input.
func runLattice(t *testing.T, pts [][]int, k int, mm bool, floor float64) ([]int, int) {
	t.Helper()
	return runLatticeTies(t, pts, k, mm, TiesPReMAS, floor)
}

func runLatticeTies(t *testing.T, pts [][]int, k int, mm bool, ties Ties, floor float64) ([]int, int) {
	t.Helper()
	pr, err := newProblem(pts, k)
	if err != nil {
		t.Fatal(err)
	}
	res, ok, err := searchLattice(context.Background(), pr, mm, ties, floor, false)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("the lattice path does not take %v", pts)
	}
	if got := int(newPairScorer(pr.pts, k).total(res.Indices)); got != int(res.Total) {
		t.Fatalf("reported total %v, its points total %d", res.Total, got)
	}
	return res.Indices, int(res.Total)
}

// randomMeshFree lists the free nodes of a random X x Y mesh at offset (ox, oy), each free
// with probability 1-busy, in free-list order (x outermost) or, shuffled, in any
// order (the working array starts in input order, so order matters).
func randomMeshFree(r *rand.Rand, X, Y, ox, oy int, busy float64, shuffle bool) [][]int {
	var pts [][]int
	for x := range X {
		for y := range Y {
			if r.Float64() >= busy {
				pts = append(pts, []int{x + ox, y + oy})
			}
		}
	}
	if shuffle {
		r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
	}
	return pts
}

// latticeTrial draws a random free set of a mesh of sides up to side, at an offset
// within ±off, shuffled or in free-list order, and a k below its size; ok is false
// when the set is too small.
func latticeTrial(r *rand.Rand, side, off int, shuffle bool) (pts [][]int, k int, ok bool) {
	pts = randomMeshFree(r, 1+r.IntN(side), 1+r.IntN(side), r.IntN(2*off+1)-off, r.IntN(2*off+1)-off, r.Float64(), shuffle)
	if len(pts) < 2 {
		return nil, 0, false
	}
	return pts, 1 + r.IntN(len(pts)-1), true
}

// useLatticeEverywhere makes the lattice path take every input it can (Gen-Alg
// included, which otherwise takes the grid's scan on ordered points), until the
// returned function restores the cost model.
func useLatticeEverywhere() (restore func()) {
	v, r, c, g := latticeSetup, latticeReach, latticeReachCached, genAlgGrid
	latticeSetup, latticeReach, latticeReachCached, genAlgGrid = 0, 0, 0, false
	return func() { latticeSetup, latticeReach, latticeReachCached, genAlgGrid = v, r, c, g }
}

// The lattice path gives the working array's answer (center, set and order) on free
// nodes of meshes up to 20x20, in free-list order and shuffled, for MM and Gen-Alg,
// with no floor, with the minimum score as the floor (the search stops at the first
// center reaching it) and with a floor just below it.
func TestLatticeMatchesWorkingArray(t *testing.T) {
	defer useLatticeEverywhere()()
	r := rand.New(rand.NewPCG(31, 32))
	trials := 3000
	if testing.Short() {
		trials = 600
	}
	for trial := range trials {
		pts, k, ok := latticeTrial(r, 20, 4, trial%3 == 2)
		if !ok {
			continue
		}
		mm := trial%2 == 0
		want, wantScore := runPath(t, pts, k, mm, "generic")
		for _, floor := range []float64{0, float64(wantScore), float64(wantScore - 1)} {
			got, score := runLattice(t, pts, k, mm, floor)
			if !slices.Equal(got, want) || score != wantScore {
				t.Fatalf("trial %d (%v, k=%d, mm %v, floor %v): %v score %d, working array %v score %d",
					trial, pts, k, mm, floor, got, score, want, wantScore)
			}
		}
	}
}

// Under TiesByIndex the lattice path gives the rule's answer (a fresh array in input
// order for every center, centers ascending for MM, indices ascending), checked
// against the definition on meshes up to 12x12, points in any order.
func TestLatticeMatchesByIndex(t *testing.T) {
	defer useLatticeEverywhere()()
	r := rand.New(rand.NewPCG(39, 40))
	trials := 600
	if testing.Short() {
		trials = 150
	}
	for trial := range trials {
		pts, k, ok := latticeTrial(r, 12, 2, trial%2 == 1)
		if !ok {
			continue
		}
		mm := trial%3 == 0
		centers := pts
		if mm {
			centers = refMMCenters(pts, TiesByIndex)
		}
		want := refSearch(pts, k, centers, metricL1, scorePairwise, TiesByIndex)
		got, _ := runLatticeTies(t, pts, k, mm, TiesByIndex, 0)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (k=%d, mm %v) on %v: %v, by definition %v", trial, k, mm, pts, got, want)
		}
	}
}

// The same on the replays' inputs through the public functions, where the path is
// taken only when it pays: the answers never depend on which path ran.
func TestLatticePublicMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for trial := range 200 {
		X, Y := 1+r.IntN(16), 1+r.IntN(16)
		pts := randomMeshFree(r, X, Y, 0, 0, r.Float64(), false)
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts)-1)
		for _, c := range []struct {
			name    string
			f       func([][]int, int, Options) (Result, error)
			centers [][]int
		}{
			{"mm", MM[[]int, int], refMMCenters(pts, TiesPReMAS)},
			{"genalg", GenAlg[[]int, int], pts},
		} {
			got, err := c.f(pts, k, Options{Ties: TiesPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			want := refSearch(pts, k, c.centers, metricL1, scorePairwise, TiesPReMAS)
			if !slices.Equal(got.Indices, want) {
				t.Fatalf("trial %d %s k=%d on %v: %v, reference %v", trial, c.name, k, pts, got.Indices, want)
			}
		}
	}
}

// searchLattice scores the center nearest the points' medians first (prescore);
// on whole meshes every interior center ties with it for small k, and the first
// center in order must still win, on a full mesh and with a few nodes busy, under
// both tie rules, with and without the floor.
func TestLatticePrescoreTies(t *testing.T) {
	defer useLatticeEverywhere()()
	r := rand.New(rand.NewPCG(41, 42))
	for _, side := range [][2]int{{5, 5}, {8, 6}, {16, 16}} {
		for _, busy := range []float64{0, 0.05} {
			pts := randomMeshFree(r, side[0], side[1], 0, 0, busy, false)
			for _, k := range []int{2, 3, 5, 9, 13, len(pts) - 1} {
				for _, mm := range []bool{true, false} {
					want, wantScore := runPath(t, pts, k, mm, "generic")
					for _, floor := range []float64{0, float64(wantScore)} {
						if got, score := runLattice(t, pts, k, mm, floor); !slices.Equal(got, want) || score != wantScore {
							t.Fatalf("%v busy %v k=%d mm %v floor %v: %v score %d, working array %v score %d",
								side, busy, k, mm, floor, got, score, want, wantScore)
						}
					}
					centers := pts
					if mm {
						centers = refMMCenters(pts, TiesByIndex)
					}
					want = refSearch(pts, k, centers, metricL1, scorePairwise, TiesByIndex)
					if got, _ := runLatticeTies(t, pts, k, mm, TiesByIndex, 0); !slices.Equal(got, want) {
						t.Fatalf("%v busy %v k=%d mm %v by index: %v, by definition %v", side, busy, k, mm, got, want)
					}
				}
			}
		}
	}
}

// Inputs the lattice path must refuse, so that the working array answers: repeated
// points, fractional coordinates, other dimensions, coordinate spans beyond its
// grid.
func TestLatticeRefuses(t *testing.T) {
	defer useLatticeEverywhere()()
	for _, c := range []struct {
		name string
		pts  [][]float64
	}{
		{"repeated point", [][]float64{{0, 0}, {1, 0}, {0, 0}, {2, 2}}},
		{"fractional", [][]float64{{0, 0}, {1.5, 0}, {0, 1}, {2, 2}}},
		{"3D", [][]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 1}, {2, 2, 2}}},
		{"1D", [][]float64{{0}, {1}, {3}, {4}}},
		{"wide", [][]float64{{0, 0}, {1, 0}, {0, 1}, {1 << 13, 2}}},
	} {
		pr, err := newProblem(c.pts, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, mm := range []bool{true, false} {
			if _, ok, err := searchLattice(context.Background(), pr, mm, TiesPReMAS, 0, false); ok || err != nil {
				t.Errorf("%s (mm %v): taken (%v, %v)", c.name, mm, ok, err)
			}
		}
	}
}

// MMContext stops on the lattice path when its context ends.
func TestLatticeContext(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	pts := randomMeshFree(r, 64, 64, 0, 0, 0.5, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MMContext(ctx, pts, 40, Options{Ties: TiesPReMAS}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled MM: %v", err)
	}
}

// FuzzLattice checks the lattice path against the working array on fuzzed free sets
// (a bitmap over a small mesh), orders and k.
func FuzzLattice(f *testing.F) {
	f.Add(uint8(4), uint8(4), []byte{0xff, 0x0f}, uint8(3), uint8(0), true)
	f.Add(uint8(7), uint8(3), []byte{0xa5, 0x5a, 0x33}, uint8(5), uint8(9), false)
	f.Fuzz(func(t *testing.T, X, Y uint8, bits []byte, k uint8, seed uint8, mm bool) {
		defer useLatticeEverywhere()()
		w, h := 1+int(X%12), 1+int(Y%12)
		var pts [][]int
		for i := range w * h {
			if i/8 < len(bits) && bits[i/8]>>(i%8)&1 == 1 {
				pts = append(pts, []int{i / h, i % h})
			}
		}
		if len(pts) < 2 {
			return
		}
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		if seed%2 == 1 {
			r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
		}
		kk := 1 + int(k)%(len(pts)-1)
		want, wantScore := runPath(t, pts, kk, mm, "generic")
		got, score := runLattice(t, pts, kk, mm, 0)
		if !slices.Equal(got, want) || score != wantScore {
			t.Fatalf("%dx%d k=%d mm %v on %v: %v score %d, working array %v score %d", w, h, kk, mm, pts, got, score, want, wantScore)
		}
	})
}

// Options.Floor never changes an answer: with the true optimum (brute force) as the
// floor, MM and Gen-Alg under both tie rules and on every path return what they
// return without it.
func TestFloorKeepsAnswer(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for trial := range 300 {
		var pts [][]int
		if trial%2 == 0 {
			pts = randomMeshFree(r, 2+r.IntN(5), 2+r.IntN(5), 0, 0, 0.4, trial%4 == 0)
		} else {
			pts = randomInts(r, 3+r.IntN(9), 2, 6)
		}
		if len(pts) < 3 || len(pts) > 13 {
			continue
		}
		k := 2 + r.IntN(len(pts)-2)
		floor := bruteOpt(pts, k)
		for _, ties := range []Ties{TiesByIndex, TiesPReMAS} {
			for name, f := range map[string]func([][]int, int, Options) (Result, error){"mm": MM[[]int, int], "genalg": GenAlg[[]int, int]} {
				want, err := f(pts, k, Options{Ties: ties})
				if err != nil {
					t.Fatal(err)
				}
				got, err := f(pts, k, Options{Ties: ties, Floor: floor})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Indices, want.Indices) || got.Total != want.Total || !slices.Equal(got.Center, want.Center) {
					t.Fatalf("trial %d %s %v k=%d floor %v on %v: %+v, without the floor %+v", trial, name, ties, k, floor, pts, got, want)
				}
			}
		}
	}
}

// Options.Ascending gives the same points, center and total, in ascending order, for
// every algorithm and tie rule, with the cost model's choice of path and then with
// the lattice path wherever it applies.
func TestAscendingSamePoints(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	algos := map[string]func([][]int, int, Options) (Result, error){
		"MM": MM[[]int, int], "GenAlg": GenAlg[[]int, int], "MC1x1": MC1x1[[]int, int], "MMInc": MMInc[[]int, int]}
	for trial := range 600 {
		if trial == 300 {
			defer useLatticeEverywhere()()
		}
		pts, k, ok := latticeTrial(r, 14, 3, trial%2 == 1)
		if !ok {
			continue
		}
		for name, f := range algos {
			for _, ties := range []Ties{TiesByIndex, TiesPReMAS} {
				want, err := f(pts, k, Options{Ties: ties})
				if err != nil {
					t.Fatal(err)
				}
				got, err := f(pts, k, Options{Ties: ties, Ascending: true})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.IsSorted(got.Indices) {
					t.Fatalf("%s %v: indices %v not ascending", name, ties, got.Indices)
				}
				w := slices.Sorted(slices.Values(want.Indices))
				if !slices.Equal(got.Indices, w) || got.Total != want.Total || !slices.Equal(got.Center, want.Center) {
					t.Fatalf("%s %v k=%d on %v: ascending %v (%v, center %v), default %v (%v, center %v)",
						name, ties, k, pts, got.Indices, got.Total, got.Center, want.Indices, want.Total, want.Center)
				}
			}
		}
	}
}
