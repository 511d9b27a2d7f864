package alloc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/topo"
)

// refCenter is the slow, literal reference of the PReMAS center-based allocators
// (reference-simulators.md), the oracle of these tests: one working array, initially
// the free list, stable-sorted in place by distance from each center in turn; the
// first k entries are the candidate; the first strictly smaller (score, tie score)
// wins. variant is "mc1x1", "mc1x1-greedy", "genalg" or "mm". It also returns how
// many candidates had the best score.
func refCenter(g *topo.Grid, free []bool, k int, variant string, tb *TieBreak) ([]int, int) {
	var fl []int
	for _, v := range FreeListOrder(g) {
		if free[v] {
			fl = append(fl, v)
		}
	}
	if k == len(fl) {
		return slices.Sorted(slices.Values(fl)), 0
	}
	d := g.Dim()
	coord := func(v int) []int { return g.Coord(v, nil) }
	axis := func(j, a, b int) int { // coordinate distance, wrapped on tori
		t := a - b
		if t < 0 {
			t = -t
		}
		if g.Wrap()[j] && g.Dims()[j]-t < t {
			t = g.Dims()[j] - t
		}
		return t
	}
	linf := func(c []int, v int) int {
		p, m := coord(v), 0
		for j := range d {
			m = max(m, axis(j, c[j], p[j]))
		}
		return m
	}
	l1 := func(c []int, v int) int { // plain L1 (package ptas measures no wraparound)
		p, s := coord(v), 0
		for j := range d {
			t := c[j] - p[j]
			if t < 0 {
				t = -t
			}
			s += t
		}
		return s
	}
	var centers [][]int
	if variant == "mm" {
		vals := make([][]int, d)
		for j := range d {
			seen := map[int]bool{}
			for _, v := range fl {
				if x := coord(v)[j]; !seen[x] {
					seen[x] = true
					vals[j] = append(vals[j], x)
				}
			}
		}
		var rec func(j int, c []int)
		rec = func(j int, c []int) {
			if j == d {
				centers = append(centers, slices.Clone(c))
				return
			}
			for _, x := range vals[j] {
				rec(j+1, append(c, x))
			}
		}
		rec(0, nil)
	} else {
		for _, v := range fl {
			centers = append(centers, coord(v))
		}
	}
	dist := l1
	if strings_HasPrefix(variant, "mc1x1") {
		dist = linf
	}
	work := slices.Clone(fl)
	var best []int
	bestScore, bestTie, ties := math.MaxInt, 0.0, 0
	var tiedSets []string
	for _, c := range centers {
		slices.SortStableFunc(work, func(a, b int) int { return dist(c, a) - dist(c, b) })
		cand := slices.Clone(work[:k])
		score := 0
		if strings_HasPrefix(variant, "mc1x1") {
			for _, v := range cand {
				score += linf(c, v)
			}
		} else {
			pts := make([]geom.Point, k)
			for i, v := range cand {
				pts[i] = coord(v)
			}
			score = oracle.PairwiseL1Brute(pts)
		}
		if variant == "mc1x1-greedy" {
			L := linf(c, cand[k-1])
			var chosen, outer []int
			for _, v := range work {
				switch dv := linf(c, v); {
				case dv < L:
					chosen = append(chosen, v)
				case dv >= L: // PReMAS: the outer shell and everything beyond it
					outer = append(outer, v)
				}
			}
			hop := func(a, b int) int { return g.Dist(a, b) }
			for len(chosen) < k {
				bi, bs := -1, 0
				for i, s := range outer {
					t := 0
					for _, u := range chosen {
						t += hop(s, u)
					}
					if bi < 0 || t < bs || t == bs && (hop(g.Index(c), s) < hop(g.Index(c), outer[bi]) ||
						hop(g.Index(c), s) == hop(g.Index(c), outer[bi]) && geom.Compare(coord(s), coord(outer[bi])) < 0) {
						bi, bs = i, t
					}
				}
				chosen = append(chosen, outer[bi])
				outer = slices.Delete(outer, bi, bi+1)
			}
			cand = chosen
			score = 0 // scored on the set returned
			for _, v := range cand {
				score += linf(c, v)
			}
		}
		tie := 0.0
		// PReMAS's tie score sees only the greedy collector's returned set: 0.
		if tb != nil && tb.SR > 0 && variant != "mc1x1-greedy" {
			slices.SortStableFunc(work, func(a, b int) int { return linf(c, a) - linf(c, b) })
			last := linf(c, work[k-1])
			look := last + tb.SR
			w := func(dv int) float64 { return float64(look - dv + 1) }
			in := map[int]bool{}
			for _, v := range cand {
				in[v] = true
			}
			for _, v := range work {
				if dv := linf(c, v); !in[v] && dv <= look {
					tie += tb.AF * w(dv)
				}
			}
			for _, v := range cand {
				if g.OnBoundary(coord(v)) {
					tie -= tb.WF * w(linf(c, v))
				}
			}
			for v := range g.N() {
				if !free[v] && linf(c, v) == last+1 {
					tie -= tb.BF * w(last+1)
				}
			}
		}
		if score < bestScore {
			tiedSets = tiedSets[:0]
		}
		if score < bestScore || score == bestScore && tie < bestTie {
			bestScore, bestTie, best = score, tie, cand
		}
		if score == bestScore {
			tiedSets = append(tiedSets, fmt.Sprint(slices.Sorted(slices.Values(cand))))
		}
	}
	// Ties are counted as distinct node sets (TieStats).
	slices.Sort(tiedSets)
	ties = len(slices.Compact(tiedSets))
	return slices.Sorted(slices.Values(best)), ties
}

// allocateMatchesRef allocates k nodes with a, whose free set is free, and fails
// the test unless they are refCenter's for variant (no tie-breaking) and, when
// ties is set, a's tie count is the reference's; where names the case in the
// message (called only on failure). It returns the nodes allocated.
func allocateMatchesRef(t *testing.T, a Allocator, g *topo.Grid, free []bool, k int, variant string, ties bool, where func() string) []int {
	t.Helper()
	want, wantTies := refCenter(g, free, k, variant, nil)
	got, err := a.Allocate(k)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s, k=%d: got %v, reference %v", where(), k, got, want)
	}
	if ties && a.(TieReporter).LastTies() != wantTies {
		t.Fatalf("%s, k=%d: %d tied, reference %d", where(), k, a.(TieReporter).LastTies(), wantTies)
	}
	return got
}

func strings_HasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// setFree puts a fresh allocator into the state where exactly the nodes with free[v]
// are free: it takes every node, then releases the free ones.
func setFree(t *testing.T, a Allocator, free []bool) {
	t.Helper()
	all, err := a.Allocate(a.Machine().N())
	if err != nil {
		t.Fatal(err)
	}
	var rel []int
	for _, v := range all {
		if free[v] {
			rel = append(rel, v)
		}
	}
	if len(rel) > 0 {
		if err := a.Release(rel); err != nil {
			t.Fatal(err)
		}
	}
}

func randomFree(rng *rand.Rand, n int, p float64) []bool {
	free := make([]bool, n)
	for i := range free {
		free[i] = rng.Float64() < p
	}
	free[rng.IntN(n)] = true
	return free
}

// TestCenterMatchesReference checks every center-based family against the literal
// reference on random free sets of small meshes and tori.
func TestCenterMatchesReference(t *testing.T) {
	// Mesh(12, 11) and Torus(9, 8) have more than 64 nodes: MC1x1's node sets span
	// several bitset words (rows straddling words on the mesh).
	grids := []*topo.Grid{topo.Mesh(6, 5), topo.Mesh(4, 3, 3), topo.Mesh(9, 1), topo.Mesh(11), topo.Torus(5, 4), topo.Torus(3, 4, 2), topo.Torus(7), topo.Mesh(12, 11), topo.Torus(9, 8)}
	partial, err := topo.NewGrid([]int{5, 4, 3}, []bool{false, true, true}) // Cplant-like: wrap in y and z
	if err != nil {
		t.Fatal(err)
	}
	grids = append(grids, partial)
	cases := []struct {
		spec, variant string
		tb            *TieBreak
		meshOnly      bool
	}{
		{"mc1x1", "mc1x1", nil, false},
		{"mc1x1:tb=3,9,3,2", "mc1x1", &TieBreak{3, 9, 3, 2}, false},
		{"mc1x1:tb=2,13,20,6", "mc1x1", &TieBreak{2, 13, 20, 6}, false},
		{"mc1x1:tb=1,1,0,0", "mc1x1", &TieBreak{1, 1, 0, 0}, false},
		{"mc1x1:tb=2,0,1,0", "mc1x1", &TieBreak{2, 0, 1, 0}, false},
		{"mc1x1:tb=2,0,0,1", "mc1x1", &TieBreak{2, 0, 0, 1}, false},
		{"mc1x1-greedy", "mc1x1-greedy", nil, false},
		{"mc1x1-greedy:tb=2,13,20,6", "mc1x1-greedy", &TieBreak{2, 13, 20, 6}, false},
		{"genalg", "genalg", nil, true},
		{"mm", "mm", nil, true},
	}
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range grids {
		for _, tc := range cases {
			if tc.meshOnly && g.Wraps() {
				continue
			}
			t.Run(g.Spec()+"/"+tc.spec, func(t *testing.T) {
				for r := range rounds {
					a, err := Parse(tc.spec, g, Options{Compat: CompatPReMAS})
					if err != nil {
						t.Fatal(err)
					}
					// Tie counting on in even rounds, off in odd ones: the
					// allocation must not depend on it.
					tr, counts := a.(TieReporter)
					// MC1x1 works tied node sets out on bitsets where the
					// machine is small enough, on lists otherwise: both, in turn.
					if mc, ok := a.(*mc1x1); ok && r/2%2 == 1 {
						forceLists(mc)
					}
					if counts {
						tr.CountTies(r%2 == 0)
					}
					free := randomFree(rng, g.N(), []float64{0.3, 0.6, 0.9}[r%3])
					setFree(t, a, free)
					nf := a.NumFree()
					k := 1 + rng.IntN(nf)
					want, wantTies := refCenter(g, free, k, tc.variant, tc.tb)
					got, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("round %d, free %v, k=%d: got %v, reference %v", r, freeList(free), k, got, want)
					}
					if counts && r%2 == 0 && tr.LastTies() != wantTies {
						t.Fatalf("round %d, k=%d: %d tied candidates, reference %d", r, k, tr.LastTies(), wantTies)
					}
					if counts && r%2 == 1 && tr.LastTies() != 0 {
						t.Fatalf("round %d: tie counting off, but LastTies = %d", r, tr.LastTies())
					}
					if a.NumFree() != nf-k {
						t.Fatalf("NumFree %d after allocating %d of %d", a.NumFree(), k, nf)
					}
				}
			})
		}
	}
}

func freeList(free []bool) []int {
	var l []int
	for i, f := range free {
		if f {
			l = append(l, i)
		}
	}
	return l
}

// TestCenterSequence runs long random allocate/release sequences against the
// reference, so that the state carried between allocations is exercised too, with
// tie counting on (MC1x1 also with its tied node sets worked out on lists).
func TestCenterSequence(t *testing.T) {
	g := topo.Mesh(8, 8)
	steps := 300
	if testing.Short() {
		steps = 80
	}
	for _, spec := range []string{"mc1x1", "mc1x1:tb=3,9,3,2", "mc1x1/lists", "mc1x1:tb=3,9,3,2/lists", "genalg", "mm"} {
		t.Run(spec, func(t *testing.T) {
			spec, lists := strings.CutSuffix(spec, "/lists")
			variant, tb := spec, (*TieBreak)(nil)
			if spec == "mc1x1:tb=3,9,3,2" {
				variant, tb = "mc1x1", &TieBreak{3, 9, 3, 2}
			}
			a, err := Parse(spec, g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			if lists {
				forceLists(a)
			}
			tr, counts := a.(TieReporter)
			if counts {
				tr.CountTies(true)
			}
			rng := rand.New(rand.NewPCG(7, 8))
			free := make([]bool, g.N())
			for i := range free {
				free[i] = true
			}
			var jobs [][]int
			for s := range steps {
				if len(jobs) > 0 && (rng.IntN(3) == 0 || a.NumFree() == 0) {
					i := rng.IntN(len(jobs))
					if err := a.Release(jobs[i]); err != nil {
						t.Fatal(err)
					}
					for _, v := range jobs[i] {
						free[v] = true
					}
					jobs = slices.Delete(jobs, i, i+1)
					continue
				}
				k := 1 + rng.IntN(min(a.NumFree(), 12))
				want, wantTies := refCenter(g, free, k, variant, tb)
				got, err := a.Allocate(k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("step %d, k=%d: got %v, reference %v", s, k, got, want)
				}
				if counts && tr.LastTies() != wantTies {
					t.Fatalf("step %d, k=%d: %d tied candidates, reference %d", s, k, tr.LastTies(), wantTies)
				}
				for _, v := range got {
					free[v] = false
				}
				jobs = append(jobs, got)
			}
		})
	}
}

func TestCenterErrors(t *testing.T) {
	g := topo.Mesh(4, 4)
	for _, spec := range []string{"mc1x1:tb=1,2,3", "mc1x1:tb=-1,1,1,1", "mc1x1:tb=1,x,1,1", "mc1x1:foo", "mm:x", "genalg:3"} {
		if _, err := Parse(spec, g, Options{}); err == nil {
			t.Errorf("Parse(%q) accepted", spec)
		}
	}
	gr, err := topo.NewGraphFromEdges(3, [][2]int{{0, 1}, {1, 2}})
	if err == nil {
		if _, err := Parse("mc1x1", gr, Options{}); err == nil {
			t.Errorf("mc1x1 accepted a graph machine")
		}
	}
	a, _ := Parse("mc1x1", g, Options{})
	if _, err := a.Allocate(17); err == nil {
		t.Errorf("Allocate(17) on 16 nodes succeeded")
	}
	if _, err := a.Allocate(0); err == nil {
		t.Errorf("Allocate(0) succeeded")
	}
	nodes, err := a.Allocate(5)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Release([]int{nodes[0], nodes[0]}); err == nil {
		t.Errorf("double release accepted")
	}
	if a.NumFree() != 11 {
		t.Errorf("NumFree %d after a rejected release, want 11", a.NumFree())
	}
	if tb, err := ParseTieBreak("3,9,3,2"); err != nil || tb.String() != "3,9,3,2" {
		t.Errorf("ParseTieBreak round trip: %v %v", tb, err)
	}
}

// TestMMIncNoWorseThanMM: MM+Inc starts from MM's choice and only takes improving
// swaps, so on the same free set its total pairwise L1 is never larger.
func TestMMIncNoWorseThanMM(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, g := range []*topo.Grid{topo.Mesh(7, 6), topo.Mesh(4, 4, 3)} {
		for r := range 40 {
			free := randomFree(rng, g.N(), []float64{0.3, 0.7}[r%2])
			var chosen [2][]int
			for i, spec := range []string{"mm", "mminc"} {
				a, err := Parse(spec, g, Options{Compat: CompatPReMAS})
				if err != nil {
					t.Fatal(err)
				}
				setFree(t, a, free)
				k := 1 + rng.IntN(a.NumFree())
				if i == 1 {
					k = len(chosen[0])
				}
				if chosen[i], err = a.Allocate(k); err != nil {
					t.Fatal(err)
				}
			}
			total := func(nodes []int) int {
				pts := make([]geom.Point, len(nodes))
				for i, v := range nodes {
					pts[i] = g.Coord(v, nil)
				}
				return oracle.PairwiseL1Brute(pts)
			}
			if mm, inc := total(chosen[0]), total(chosen[1]); inc > mm {
				t.Fatalf("%s: MM+Inc total %d > MM %d (k=%d)", g.Spec(), inc, mm, len(chosen[0]))
			}
			for _, v := range chosen[1] {
				if !free[v] {
					t.Fatalf("MM+Inc chose busy node %d", v)
				}
			}
		}
	}
}
