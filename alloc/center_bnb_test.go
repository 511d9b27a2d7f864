package alloc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// bnbGrids are the machines of the branch-and-bound cross-checks: meshes and tori in
// one to three dimensions, sides that are not powers of two, partial wraparound.
func bnbGrids(t *testing.T) []*topo.Grid {
	gs := []*topo.Grid{topo.Mesh(13), topo.Torus(11), topo.Mesh(9, 7), topo.Mesh(16, 16), topo.Torus(9, 6),
		topo.Torus(12, 12), topo.Mesh(5, 4, 6), topo.Torus(5, 6, 4), topo.Torus(6, 6, 6), topo.Mesh(7, 7, 3), topo.Torus(3, 2, 5)}
	for _, w := range [][]bool{{false, true, true}, {true, false, false}} {
		g, err := topo.NewGrid([]int{6, 5, 4}, w)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	return gs
}

// randomFreeSet returns a free map with at least one free node: uniformly random,
// or with busy boxes placed at random (many tied centers), at a random density.
func randomFreeSet(rng *rand.Rand, g *topo.Grid) []bool {
	n := g.N()
	free := make([]bool, n)
	switch rng.IntN(3) {
	case 0, 1:
		p := []float64{0.15, 0.5, 0.85, 1}[rng.IntN(4)]
		for v := range free {
			free[v] = rng.Float64() < p
		}
	default:
		for v := range free {
			free[v] = true
		}
		dims := g.Dims()
		c := make([]int, len(dims))
		for range 1 + rng.IntN(4) {
			lo, side := make([]int, len(dims)), make([]int, len(dims))
			for j, dj := range dims {
				lo[j], side[j] = rng.IntN(dj), 1+rng.IntN(max(1, dj/2))
			}
			for v := range n {
				c = g.Coord(v, c)
				in := true
				for j, dj := range dims {
					in = in && (c[j]-lo[j]+dj)%dj < side[j]
				}
				if in {
					free[v] = false
				}
			}
		}
	}
	free[rng.IntN(n)] = true
	return free
}

// randomFreeMC1x1 returns the allocator of spec (an mc1x1 variant, without its
// memo) on g with a random free set drawn by randomFreeSet.
func randomFreeMC1x1(t *testing.T, rng *rand.Rand, g *topo.Grid, spec string) *mc1x1 {
	t.Helper()
	a0, err := Parse(spec, g, Options{NoMemo: true})
	if err != nil {
		t.Fatal(err)
	}
	a := a0.(*mc1x1)
	setFree(t, a, randomFreeSet(rng, g))
	return a
}

// randomJobSize draws a job size for a machine of n nodes with free > 1 of them
// free: half the time any size below free, half the time a small one (at most
// n/8 + 1), which ties more often.
func randomJobSize(rng *rand.Rand, free, n int) int {
	k := 1 + rng.IntN(free-1)
	if rng.IntN(2) == 0 {
		k = 1 + rng.IntN(min(free-1, 1+n/8))
	}
	return k
}

// stepOf is the first step r at which node v lies in the box of center c (along
// dimension j c_j-off_j-r .. c_j-off_j+width_j-1+r, around the ring on a torus),
// from coordinates alone.
func stepOf(g *topo.Grid, c, v []int, off, width []int) int {
	r := 0
	for j, dj := range g.Dims() {
		lo := c[j] - off[j]
		var s int
		if g.Wrap()[j] {
			// smallest s with (v - lo + s) mod dj <= width-1+2s, or the box the ring
			for s = 0; width[j]+2*s < dj; s++ {
				if ((v[j]-lo+s)%dj+dj)%dj <= width[j]-1+2*s {
					break
				}
			}
		} else {
			s = max(lo-v[j], v[j]-(lo+width[j]-1), 0)
		}
		r = max(r, s)
	}
	return r
}

// TestCenterSearchMatchesDefinition checks centerSearch against the cost written
// out node by node (each free node's step from every free center, the k smallest
// summed) on thousands of random free sets: the same least cost and the same set of
// centers that reach it (ties included), for L-infinity balls (MC1x1) and random
// box shapes (MC).
func TestCenterSearchMatchesDefinition(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 60
	}
	rng := rand.New(rand.NewPCG(32, 1))
	cases := 0
	for _, g := range bnbGrids(t) {
		n, d := g.N(), g.Dim()
		coords := make([][]int, n)
		for v := range n {
			coords[v] = g.Coord(v, nil)
		}
		for r := range rounds {
			free := randomFreeSet(rng, g)
			st := NewState(n)
			for v, f := range free {
				if !f {
					if err := st.Take([]int{v}); err != nil {
						t.Fatal(err)
					}
				}
			}
			fb := newFreeBoxes(g, nil)
			fb.rebuild(st)
			s := newCenterSearch(g, fb)
			if r%2 == 0 {
				for j := range d {
					s.off[j], s.width[j] = 0, 1
				}
			} else {
				for j, dj := range g.Dims() {
					s.width[j] = 1 + rng.IntN(dj)
					s.off[j] = (s.width[j] - 1) / 2
				}
			}
			k := 1 + rng.IntN(st.NumFree())
			// the definition
			best, want := -1, []int(nil)
			steps := make([]int, 0, n)
			for c := range n {
				if !free[c] {
					continue
				}
				steps = steps[:0]
				for v := range n {
					if free[v] {
						steps = append(steps, stepOf(g, coords[c], coords[v], s.off, s.width))
					}
				}
				slices.Sort(steps)
				cost := 0
				for _, x := range steps[:k] {
					cost += x
				}
				if best < 0 || cost < best {
					best, want = cost, want[:0]
				}
				if cost == best {
					want = append(want, c)
				}
			}
			var got []int
			for _, l := range s.search(st, k) {
				if l.cost != best {
					t.Fatalf("%s round %d k=%d off %v width %v: center %d cost %d, definition's least %d", g.Spec(), r, k, s.off, s.width, l.node, l.cost, best)
				}
				got = append(got, l.node)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s round %d k=%d off %v width %v free %v: centers %v, definition %v", g.Spec(), r, k, s.off, s.width, freeList(free), got, want)
			}
			// Only the first of least cost, in node-index order or in free-list
			// order (by coordinates, the first dimension most significant).
			s.first = true
			if r%4 < 2 {
				st := 1
				for j := d - 1; j >= 0; j-- {
					s.rank[j] = st
					st *= g.Dims()[j]
				}
			}
			first := slices.MinFunc(want, func(p, q int) int { return s.rankOf(coords[p]) - s.rankOf(coords[q]) })
			if l := s.search(st, k); len(l) != 1 || l[0].node != first || l[0].cost != best {
				t.Fatalf("%s round %d k=%d off %v width %v rank %v free %v: first center %v, definition %d (cost %d)", g.Spec(), r, k, s.off, s.width, s.rank, freeList(free), l, first, best)
			}
			cases++
		}
	}
	t.Logf("%d free sets", cases)
}

// TestMC1x1BoundsMatchPlain checks that MC1x1 (plain and with tie-breaking) chooses
// the same nodes and counts the same ties whether its centers of least score come
// from centerSearch or from scoring every free node, on random free sets and on
// random allocate/release sequences of meshes and tori in 2D and 3D.
func TestMC1x1BoundsMatchPlain(t *testing.T) {
	rounds := 120
	if testing.Short() {
		rounds = 40
	}
	rng := rand.New(rand.NewPCG(32, 2))
	total := 0
	for _, g := range bnbGrids(t) {
		for _, spec := range []string{"mc1x1", "mc1x1:tb=3,9,3,2", "mc1x1:tb=2,13,20,6"} {
			t.Run(g.Spec()+"/"+spec, func(t *testing.T) {
				mk := func(mode centerMode) *mc1x1 {
					a, err := Parse(spec, g, Options{NoMemo: true})
					if err != nil {
						t.Fatal(err)
					}
					m := a.(*mc1x1)
					m.centers = mode
					return m
				}
				for r := range rounds {
					plain, fast := mk(centersPlain), mk(centersBounds)
					if r%4 >= 2 {
						// the default: on a 2D mesh the branch and bound within a
						// budget, else the loop (a budget of one count, r%4 == 3)
						fast.centers = centersAuto
						if r%4 == 3 {
							fast.budgetShare = g.N()
						}
					}
					counts := r%3 != 2
					plain.CountTies(counts)
					fast.CountTies(counts)
					free := randomFreeSet(rng, g)
					setFree(t, plain, free)
					setFree(t, fast, free)
					// a few allocations and releases from there
					total += lockstep(t, rng, g, plain, fast, 6, r, free, func(k int) {
						if plain.LastTies() != fast.LastTies() {
							t.Fatalf("round %d k=%d: bounds counted %d ties, plain %d", r, k, fast.LastTies(), plain.LastTies())
						}
					})
					if plain.TieStats() != fast.TieStats() {
						t.Fatalf("round %d: tie statistics %+v, plain %+v", r, fast.TieStats(), plain.TieStats())
					}
				}
			})
		}
	}
	t.Logf("%d allocations compared", total)
}

// TestMCBoundsMatchPlain checks that MC chooses the same nodes whether its centres
// of least cost come from centerSearch or from costing every free node, on random
// allocate/release sequences from random free sets of meshes in 1D to 3D.
func TestMCBoundsMatchPlain(t *testing.T) {
	rounds := 150
	if testing.Short() {
		rounds = 50
	}
	rng := rand.New(rand.NewPCG(32, 3))
	for _, g := range bnbGrids(t) {
		if g.Wraps() {
			continue
		}
		t.Run(g.Spec(), func(t *testing.T) {
			for r := range rounds {
				plain, err := NewMC(g)
				if err != nil {
					t.Fatal(err)
				}
				fast, _ := NewMC(g)
				plain.plain = true
				free := randomFreeSet(rng, g)
				setFree(t, plain, free)
				setFree(t, fast, free)
				lockstep(t, rng, g, plain, fast, 8, r, free, nil)
			}
		})
	}
}

// TestTieScoreOnFreeToriMatchesReference checks Johnson's tie-breaking on tori whose
// free sets are whole or nearly whole (the tie score's counts are then read off
// the balls' sizes) against the literal reference, tie counts included.
func TestTieScoreOnFreeToriMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 4))
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	for _, g := range []*topo.Grid{topo.Torus(6, 5), topo.Torus(4, 4, 3), topo.Torus(9), topo.Torus(7, 7)} {
		for _, spec := range []string{"mc1x1:tb=3,9,3,2", "mc1x1:tb=1,2,0,5"} {
			tb, err := ParseTieBreak(spec[len("mc1x1:tb="):])
			if err != nil {
				t.Fatal(err)
			}
			for r := range rounds {
				free := make([]bool, g.N())
				for v := range free {
					free[v] = true
				}
				for range rng.IntN(3) {
					free[rng.IntN(g.N())] = false
				}
				free[rng.IntN(g.N())] = true
				a, err := Parse(spec, g, Options{Compat: CompatPReMAS})
				if err != nil {
					t.Fatal(err)
				}
				a.(TieReporter).CountTies(true)
				setFree(t, a, free)
				k := 1 + rng.IntN(a.NumFree())
				want, wantTies := refCenter(g, free, k, "mc1x1", &tb)
				got, err := a.Allocate(k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) || a.(TieReporter).LastTies() != wantTies {
					t.Fatalf("%s %s round %d k=%d free %v: got %v (%d ties), reference %v (%d ties)", g.Spec(), spec, r, k, freeList(free), got, a.(TieReporter).LastTies(), want, wantTies)
				}
			}
		}
	}
}

// lockstep plays the same random steps on plain and fast (the plain definition and a
// fast path over the same free set, free, of round r): a release of a live job one time in three,
// else a job of random size (half of them at most an eighth of the machine),
// failing when the two choose differently; after is called after each allocation.
// It returns the number of allocations compared.
func lockstep(t *testing.T, rng *rand.Rand, g *topo.Grid, plain, fast Allocator, steps, r int, free []bool, after func(k int)) int {
	t.Helper()
	var live [][]int
	n := 0
	for step := range steps {
		if len(live) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(live))
			if err := plain.Release(live[i]); err != nil {
				t.Fatal(err)
			}
			if err := fast.Release(live[i]); err != nil {
				t.Fatal(err)
			}
			live = slices.Delete(live, i, i+1)
			continue
		}
		if plain.NumFree() == 0 {
			break
		}
		k := 1 + rng.IntN(plain.NumFree())
		if rng.IntN(2) == 0 {
			k = 1 + rng.IntN(min(plain.NumFree(), 1+g.N()/8))
		}
		want, err := plain.Allocate(k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fast.Allocate(k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d step %d k=%d free %v: bounds chose %v, plain %v", r, step, k, freeList(free), got, want)
		}
		if after != nil {
			after(k)
		}
		live = append(live, got)
		n++
	}
	return n
}

// TestTieWinnerMatchesPlain checks tieSearch (the winner under Johnson's
// tie-breaking by a branch and bound on tie scores, used when ties are not
// counted and many centers tie) against scoring every free node and then every
// tied one, on thousands of random free sets (many with large free blocks:
// thousands of tied centers) followed by random allocations and releases, on
// meshes and tori in 1D-3D, with the published factors and with negative and zero
// ones (each term's bound taken at its other end); from centerSearch's first
// center of least score and from the loop's (2D meshes, and a centerSearch out of
// budget), and with the default number of tied centers scored one by one.
func TestTieWinnerMatchesPlain(t *testing.T) {
	rounds := 90
	if testing.Short() {
		rounds = 30
	}
	rng := rand.New(rand.NewPCG(32, 5))
	total, tied := 0, 0
	grids := append(bnbGrids(t), topo.Mesh(24, 20), topo.Torus(14, 13), topo.Torus(9, 8, 7))
	for _, g := range grids {
		for _, spec := range []string{"mc1x1:tb=3,9,3,2", "mc1x1:tb=2,13,20,6", "mc1x1:tb=1,-2,0.5,-3", "mc1x1:tb=4,0,-3,1.25", "mc1x1:tb=0,9,3,2"} {
			t.Run(g.Spec()+"/"+spec, func(t *testing.T) {
				mk := func(mode centerMode) *mc1x1 {
					a, err := Parse(spec, g, Options{NoMemo: true})
					if err != nil {
						t.Fatal(err)
					}
					m := a.(*mc1x1)
					m.centers = mode
					return m
				}
				for r := range rounds {
					plain, fast := mk(centersPlain), mk(centersBounds)
					if r%4 == 3 {
						forceLists(plain)
						forceLists(fast)
					}
					// tieSearch from the centerSearch's first center or from the
					// loop's (a 2D mesh by default, or when the branch and bound
					// runs out of budget), with any number of tied centers, or only
					// beyond defaultScoredTies
					switch r % 5 {
					case 1, 2:
						fast.centers = centersAuto
						if r%5 == 2 {
							fast.budgetShare = g.N()
						}
					}
					if r%5 != 4 {
						fast.scoredTies, fast.tieCost = 1, 0
					}
					free := randomFreeSet(rng, g)
					setFree(t, plain, free)
					setFree(t, fast, free)
					total += lockstep(t, rng, g, plain, fast, 6, r, free, func(int) {
						if len(plain.tied) > 1 {
							tied++
						}
					})
				}
			})
		}
	}
	t.Logf("%d allocations compared, %d of them with tied centers", total, tied)
}

// TestTieBoundBelowEveryCenter checks tieSearch's bound itself, not only the
// winner it leads to: on random free sets and random boxes of centers, the bound
// is at most the tie score of every center of the box that has the least shell
// score (its tie score as the plain loop computes it), and a box said to hold
// none holds none; for one center it is that center's tie score.
func TestTieBoundBelowEveryCenter(t *testing.T) {
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	rng := rand.New(rand.NewPCG(32, 6))
	grids := append(bnbGrids(t), topo.Mesh(24, 20), topo.Torus(14, 13))
	boxes := 0
	for _, g := range grids {
		for _, spec := range []string{"mc1x1:tb=3,9,3,2", "mc1x1:tb=2,13,20,6", "mc1x1:tb=1,-2,0.5,-3", "mc1x1:tb=4,0,-3,1.25", "mc1x1:tb=2,1,-40,0"} {
			for r := range rounds {
				a0, err := Parse(spec, g, Options{NoMemo: true})
				if err != nil {
					t.Fatal(err)
				}
				a := a0.(*mc1x1)
				a.centers = centersPlain
				free := randomFreeSet(rng, g)
				setFree(t, a, free)
				if a.NumFree() < 2 {
					continue
				}
				k := 1 + rng.IntN(a.NumFree()-1)
				if rng.IntN(3) == 0 {
					k = 1 + rng.IntN(min(a.NumFree()-1, 1+g.N()/8))
				}
				// the plain loop's tied centers and their tie scores
				a.refresh(prefixFree | prefixPyramid | prefixWall)
				a.fl = a.st.AppendFreeInOrder(a.fl[:0], a.order)
				for i, v := range a.fl {
					a.pos[v] = int32(i)
				}
				best := math.MaxInt
				a.tied = a.tied[:0]
				for i, c := range a.fl {
					score, L, m, ok := a.shellScore(c, k, best)
					if !ok {
						continue
					}
					if score < best {
						best, a.tied = score, a.tied[:0]
					}
					a.tied = append(a.tied, tieCand{i, L, m})
				}
				ts := map[int]float64{}
				for _, tc := range a.tied {
					ts[a.fl[tc.i]] = a.tieScore(tc.i, tc.L, tc.m, -1)
				}
				a.buildBoxes()
				s := a.newTieSearch()
				t0 := a.tied[0]
				s.full = t0.L - 1
				s.setTorusL0(k)
				dims := g.Dims()
				lo, e, c := make([]int, len(dims)), make([]int, len(dims)), make([]int, len(dims))
				for range 20 {
					single := rng.IntN(3) == 0
					for j, dj := range dims {
						lo[j], e[j] = rng.IntN(dj), 1
						if !single {
							e[j] = 1 + rng.IntN(dj-lo[j])
						}
					}
					least, any := math.Inf(1), false
					var walk func(j int)
					walk = func(j int) {
						if j < 0 {
							if v, ok := ts[g.Index(c)]; ok {
								least, any = min(least, v), true
							}
							return
						}
						for x := lo[j]; x < lo[j]+e[j]; x++ {
							c[j] = x
							walk(j - 1)
						}
					}
					walk(len(dims) - 1)
					lb, ok := s.bound(lo, e, k, best)
					switch {
					case any && !ok:
						t.Fatalf("%s %s round %d k=%d box %v+%v: no center of score %d, but one ties with tie score %v", g.Spec(), spec, r, k, lo, e, best, least)
					case any && lb > least:
						t.Fatalf("%s %s round %d k=%d box %v+%v: bound %v above the tie score %v of a center in it", g.Spec(), spec, r, k, lo, e, lb, least)
					case any && single && lb != least && a.x.anyWall == false:
						t.Fatalf("%s %s round %d k=%d center %v: bound %v, tie score %v", g.Spec(), spec, r, k, lo, lb, least)
					}
					boxes++
				}
			}
		}
	}
	t.Logf("%d boxes checked", boxes)
}

// TestFreeRadiiBoundEveryBall checks tieSearch's counts of all-free balls from
// the coordinates alone (freeRadii, ballGeom) against every ball of the box's
// centers, node by node: each ball's size and wall nodes lie within the bounds,
// which are exact for one center.
func TestFreeRadiiBoundEveryBall(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 11))
	checked := 0
	for _, g := range append(bnbGrids(t), topo.Mesh(24, 20), topo.Mesh(3, 17), topo.Mesh(2, 9)) {
		a0, err := Parse("mc1x1:tb=3,9,3,2", g, Options{NoMemo: true})
		if err != nil {
			t.Fatal(err)
		}
		a := a0.(*mc1x1)
		a.buildBoxes()
		s := a.newTieSearch()
		dims := g.Dims()
		d := len(dims)
		lo, e, c, x := make([]int, d), make([]int, d), make([]int, d), make([]int, d)
		for range 300 {
			single := rng.IntN(4) == 0
			for j, dj := range dims {
				lo[j] = rng.IntN(dj)
				e[j] = 1
				if !single {
					e[j] = 1 + rng.IntN(dj-lo[j])
				}
			}
			r := rng.IntN(1 + max(dims[0], dims[d-1]))
			s.freeWalls = s.fw != nil
			s.rs = s.rs[:0]
			s.freeRadii(lo, e, r, r+1)
			got := s.rs[0]
			allLo, allHi, wLo, wHi := s.ballGeom(lo, e, r, s.fw != nil)
			if allLo != got.allLo || allHi != got.allHi || got.fLo != allLo || got.fHi != allHi || wHi != got.wHi || wLo > got.wLo {
				t.Fatalf("%v box %v+%v r=%d: freeRadii %+v, ballGeom %d %d %d %d", dims, lo, e, r, got, allLo, allHi, wLo, wHi)
			}
			// every center of the box, every node of its ball
			for ci := range g.N() {
				g.Coord(ci, c)
				in := true
				for j := range d {
					in = in && c[j] >= lo[j] && c[j] < lo[j]+e[j]
				}
				if !in {
					continue
				}
				size, walls := 0, 0
				for v := range g.N() {
					g.Coord(v, x)
					near := true
					for j, dj := range dims {
						dist := x[j] - c[j]
						if dist < 0 {
							dist = -dist
						}
						if g.Wrap()[j] {
							dist = min(dist, dj-dist)
						}
						near = near && dist <= r
					}
					if !near {
						continue
					}
					size++
					if s.fw != nil && g.OnBoundary(x) {
						walls++
					}
				}
				checked++
				if size < got.allLo || size > got.allHi || walls < got.wLo || walls > got.wHi {
					t.Fatalf("%v box %v+%v r=%d: the ball of %v has %d nodes, %d on walls, outside %+v", dims, lo, e, r, c, size, walls, got)
				}
				if single && (size != got.allLo || size != got.allHi || walls != got.wLo || walls != got.wHi) {
					t.Fatalf("%v one center %v r=%d: %d nodes, %d on walls, bounds %+v", dims, c, r, size, walls, got)
				}
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d balls checked", checked)
	}
	t.Logf("%d balls checked", checked)
}

// TestWallPrefixMatchesCount checks the prefix sums of free wall nodes (built row
// by row from the wall nodes alone on a 2D mesh, rebuild2D) against counting the
// free wall nodes of random boxes node by node.
func TestWallPrefixMatchesCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 12))
	for _, g := range []*topo.Grid{topo.Mesh(9, 7), topo.Mesh(16, 16), topo.Mesh(24, 20), topo.Mesh(3, 17), topo.Mesh(2, 9), topo.Mesh(1, 5)} {
		for range 10 {
			a := randomFreeMC1x1(t, rng, g, "mc1x1:tb=3,9,3,2")
			a.refresh(prefixAll)
			dims := g.Dims()
			lo, hi, c := make([]int, 2), make([]int, 2), make([]int, 2)
			for range 50 {
				for j, dj := range dims {
					lo[j] = rng.IntN(dj)
					hi[j] = lo[j] + rng.IntN(dj-lo[j])
				}
				want := 0
				for v := range g.N() {
					g.Coord(v, c)
					if c[0] >= lo[0] && c[0] <= hi[0] && c[1] >= lo[1] && c[1] <= hi[1] && g.OnBoundary(c) && a.st.IsFree(v) {
						want++
					}
				}
				if got := a.x.box(a.x.freeW, lo, hi); got != want {
					t.Fatalf("%v box %v..%v: %d free wall nodes from the prefix sums, %d counted", dims, lo, hi, got, want)
				}
			}
		}
	}
}

// TestFreePrefixSumsMatchCount checks freePrefixSums (slab by slab of the last
// dimension) entry by entry against counting the free nodes at or below each
// entry's coordinates, on random free sets of grids in 1D-4D whose first side
// is not a multiple of 64 (lines that cross the free map's words), padding
// entries zero; the array is filled over stale values, as between decisions.
func TestFreePrefixSumsMatchCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 17))
	grids := append(bnbGrids(t), topo.Mesh(70, 3), topo.Torus(3, 4, 5, 2), topo.Mesh(2, 3, 2, 3), topo.Mesh(130), topo.Mesh(65, 2, 3))
	checked := 0
	for _, g := range grids {
		dims := g.Dims()
		fb := newFreeBoxes(g, nil)
		c := make([]int, len(dims))
		for range 20 {
			free := randomFreeSet(rng, g)
			fb.rebuild(stateOf(t, free))
			for p := range fb.pre {
				// the entry's layout coordinates: node coordinates + 1, 0 padding
				rest, pad := p, false
				for j, dj := range dims {
					c[j] = rest%(dj+1) - 1
					rest /= dj + 1
					pad = pad || c[j] < 0
				}
				want := 0
				if !pad {
					u := make([]int, len(dims))
					for v := range g.N() {
						u = g.Coord(v, u)
						below := free[v]
						for j := range dims {
							below = below && u[j] <= c[j]
						}
						if below {
							want++
						}
					}
				}
				if int(fb.pre[p]) != want {
					t.Fatalf("%s entry %d (coordinates %v): %d, counted %d", g.Spec(), p, c, fb.pre[p], want)
				}
				checked++
			}
		}
	}
	t.Logf("%d entries checked", checked)
}

// TestFreeListMatchesOrder checks mc1x1's free list enumerated from the
// coordinates (listFree) against the free nodes read in FreeListOrder, and the
// positions it sets, on random free sets of grids in 1D-4D.
func TestFreeListMatchesOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 19))
	grids := append(bnbGrids(t), topo.Torus(3, 4, 5, 2), topo.Mesh(70, 3), topo.Mesh(1, 5, 2))
	for _, g := range grids {
		for range 20 {
			a := randomFreeMC1x1(t, rng, g, "mc1x1")
			a.listFree()
			want := a.st.AppendFreeInOrder(nil, FreeListOrder(g))
			if !slices.Equal(a.fl, want) {
				t.Fatalf("%s: free list %v, in FreeListOrder %v", g.Spec(), a.fl, want)
			}
			for i, v := range want {
				if int(a.pos[v]) != i {
					t.Fatalf("%s: node %d at position %d, pos says %d", g.Spec(), v, i, a.pos[v])
				}
			}
		}
	}
}

// TestCountSizeMatchesScan checks freeBoxes.countSize, free nodes and nodes of a
// box, against a scan of the machine, on random boxes that lie inside, are
// clipped by a mesh's sides, cross a torus's seams (once, from below or above,
// along one to three dimensions), cover a ring whole or are empty.
func TestCountSizeMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 41))
	grids := append(bnbGrids(t), topo.Torus(7, 9, 8), topo.Torus(2, 3, 2), topo.Mesh(70, 3), topo.Torus(5, 3, 2, 2))
	checked, seams := 0, 0
	for _, g := range grids {
		dims, wrap, d := g.Dims(), g.Wrap(), g.Dim()
		fb := newFreeBoxes(g, nil)
		lo, hi, u := make([]int, d), make([]int, d), make([]int, d)
		for range 10 {
			free := randomFreeSet(rng, g)
			fb.rebuild(stateOf(t, free))
			for range 200 {
				crossed := 0
				for j, dj := range dims {
					lo[j] = rng.IntN(3*dj) - dj
					hi[j] = lo[j] + rng.IntN(dj+3) - 1
					if wrap[j] && (lo[j] < 0 || hi[j] >= dj) && hi[j]-lo[j]+1 < dj {
						crossed++
					}
				}
				if crossed > 0 {
					seams++
				}
				// the scan: coordinate u[j] is in the box when some t in
				// lo..hi is u[j] (mod dj on a ring)
				in := func(j int) bool {
					for t := lo[j]; t <= hi[j]; t++ {
						if t == u[j] || wrap[j] && ((t%dims[j])+dims[j])%dims[j] == u[j] {
							return true
						}
					}
					return false
				}
				wantFree, wantSize := 0, 0
				for v := range g.N() {
					u = g.Coord(v, u)
					inBox := true
					for j := range d {
						inBox = inBox && in(j)
					}
					if inBox {
						wantSize++
						if free[v] {
							wantFree++
						}
					}
				}
				if gotFree, gotSize := fb.countSize(lo, hi); gotFree != wantFree || gotSize != wantSize {
					t.Fatalf("%s box %v..%v: countSize %d free of %d, scanned %d of %d", g.Spec(), lo, hi, gotFree, gotSize, wantFree, wantSize)
				}
				checked++
			}
		}
	}
	t.Logf("%d boxes checked, %d across a seam", checked, seams)
	if seams == 0 {
		t.Fatal("no box crossed a seam")
	}
}

// mustGrid is topo.NewGrid for a test's fixed grids (mixed wraparound), failing the
// test on an error.
func mustGrid(t testing.TB, dims []int, wrap []bool) *topo.Grid {
	t.Helper()
	g, err := topo.NewGrid(dims, wrap)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// stateOf is a State whose busy nodes are those not free in free.
func stateOf(t testing.TB, free []bool) *State {
	t.Helper()
	st := NewState(len(free))
	var busy []int
	for v, f := range free {
		if !f {
			busy = append(busy, v)
		}
	}
	if err := st.Take(busy); err != nil {
		t.Fatal(err)
	}
	return st
}
