package alloc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// tiesArcsGrids are the machines of the mayShareArcs tests: 2D and 3D tori, 3D
// meshes, a grid wrapped along some dimensions only, a ring, and tori whose
// balls cover a short ring.
func tiesArcsGrids(t *testing.T) []*topo.Grid {
	partial, err := topo.NewGrid([]int{5, 4, 3}, []bool{false, true, true})
	if err != nil {
		t.Fatal(err)
	}
	return []*topo.Grid{topo.Torus(6, 6), topo.Torus(7, 5), topo.Torus(10, 3), topo.Torus(4, 4, 4),
		topo.Torus(5, 4, 3), topo.Torus(6, 5, 2), topo.Mesh(5, 4, 4), topo.Mesh(4, 3, 3), partial, topo.Torus(11), topo.Mesh(9)}
}

// busyBoxes returns a free map of g with a few random boxes busy (around the
// ring on a torus): large free blocks, where many centers tie.
func busyBoxes(rng *rand.Rand, g *topo.Grid, boxes int) []bool {
	dims := g.Dims()
	free := make([]bool, g.N())
	for i := range free {
		free[i] = true
	}
	c := make([]int, len(dims))
	for range boxes {
		lo, ln := make([]int, len(dims)), make([]int, len(dims))
		for j, dj := range dims {
			lo[j], ln[j] = rng.IntN(dj), 1+rng.IntN(max(1, dj/2))
		}
		for v := range g.N() {
			c = g.Coord(v, c)
			in := true
			for j, dj := range dims {
				off := c[j] - lo[j]
				if g.Wrap()[j] {
					off = (off + dj) % dj
				}
				in = in && off >= 0 && off < ln[j]
			}
			if in {
				free[v] = false
			}
		}
	}
	return free
}

// TestMayShareArcsMatchesReference checks MC1x1's tie counts (and nodes) on tori,
// 3D meshes and rings, on lists (mayShareArcs runs on machines too large for
// the ball-mask table), against the literal reference (refCenter), on free sets
// where ties are what mayShareArcs is for: the empty machine, a few busy boxes
// (across the seams on tori), and a random share free; job sizes squares, cubes
// and random. It also checks that both cases occurred on every machine: sets left
// unworked (counted from box counts alone) and sets shared by several tied
// centers.
func TestMayShareArcsMatchesReference(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	ks := []int{2, 3, 4, 8, 9, 16, 25, 27, 36, 64, 125}
	for gi, g := range tiesArcsGrids(t) {
		t.Run(g.Spec(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(gi), 33))
			var unworked, shared, tied int
			for r := range rounds {
				var free []bool
				switch r % 4 {
				case 0:
					free = busyBoxes(rng, g, 0)
				case 1, 2:
					free = busyBoxes(rng, g, 1+rng.IntN(3))
				default:
					free = randomFree(rng, g.N(), 0.85)
				}
				k, ok := tieJobSize(rng, free, ks, r)
				if !ok {
					continue
				}
				a, err := Parse("mc1x1", g, Options{Compat: CompatPReMAS})
				if err != nil {
					t.Fatal(err)
				}
				mc := a.(*mc1x1)
				forceLists(mc) // as on machines too large for bitsets, where mayShareArcs runs
				mc.CountTies(true)
				setFree(t, a, free)
				before := mc.TieStats()
				allocateMatchesRef(t, a, g, free, k, "mc1x1", true, func() string {
					return fmt.Sprintf("round %d, free %v", r, freeList(free))
				})
				st := mc.TieStats()
				if st.Tied > before.Tied {
					tied++
					if st.TiedCandidates-before.TiedCandidates < st.TiedCenters-before.TiedCenters {
						shared++
					}
				}
				if len(mc.tied) > 1 && len(mc.share) == len(mc.tied) {
					for _, s := range mc.share {
						if !s {
							unworked++
						}
					}
				}
			}
			t.Logf("%d tied decisions, %d with shared sets; %d tied centers counted from box counts", tied, shared, unworked)
			if unworked == 0 || shared == 0 {
				t.Fatalf("the free sets do not exercise mayShareArcs: %d unworked, %d decisions with shared sets", unworked, shared)
			}
		})
	}
}

// TestMayShareArcsSequence replays random allocate/release sequences from the
// empty machine on tori and 3D meshes (young free sets, then fragmented ones),
// each decision's nodes and tie count against the reference.
func TestMayShareArcsSequence(t *testing.T) {
	steps := 400
	if testing.Short() {
		steps = 100
	}
	for gi, g := range []*topo.Grid{topo.Torus(6, 6, 6), topo.Torus(12, 10), topo.Mesh(6, 5, 5)} {
		t.Run(g.Spec(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(gi), 44))
			a, err := Parse("mc1x1", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			a.(TieReporter).CountTies(true)
			forceLists(a)
			free := make([]bool, g.N())
			for i := range free {
				free[i] = true
			}
			var jobs [][]int
			for s := range steps {
				if len(jobs) > 0 && (rng.IntN(4) == 0 || a.NumFree() < 2) {
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
				k := 1 + rng.IntN(min(a.NumFree()-1, 40))
				got := allocateMatchesRef(t, a, g, free, k, "mc1x1", true, func() string { return fmt.Sprintf("step %d", s) })
				for _, v := range got {
					free[v] = false
				}
				jobs = append(jobs, got)
			}
		})
	}
}

// TestShareWindowHoldsEveryPartner checks mayShareArcs's window by the plain
// definition: every node within R of each free node within r of c (the partners
// a tied center c can share its set with) lies in shareWindow's box, on rings and
// tori where balls cover most of a ring (so that the balls around the ends of
// A(c) meet on the far side), meshes and a partly wrapped grid, with sparse free
// sets (slabs without a free node). It also requires some window to leave nodes
// out along a wrapped dimension, so that the test can fail.
func TestShareWindowHoldsEveryPartner(t *testing.T) {
	partial, err := topo.NewGrid([]int{7, 6, 4}, []bool{false, true, true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 55))
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	narrowed := 0
	for _, g := range []*topo.Grid{topo.Torus(26), topo.Torus(13), topo.Torus(26, 5), topo.Torus(7, 6, 5), topo.Mesh(12, 5, 3), partial} {
		for round := range rounds {
			a, err := Parse("mc1x1", g, Options{})
			if err != nil {
				t.Fatal(err)
			}
			mc := a.(*mc1x1)
			x := mc.x
			free := randomFree(rng, g.N(), []float64{0.15, 0.5, 0.9}[round%3])
			setFree(t, a, free)
			mc.refresh(prefixFree)
			for range 20 {
				c := rng.IntN(g.N())
				if !free[c] {
					continue
				}
				r := rng.IntN(x.maxLinf + 1)
				R := r + 1 + rng.IntN(x.maxLinf+1)
				win := arcGeom{x}.shareWindow(c, r, R)
				for w := range g.N() {
					partner := true
					for u := range g.N() {
						if free[u] && x.linf(c, u) <= r && x.linf(w, u) > R {
							partner = false
							break
						}
					}
					in := true
					for j := range x.d {
						cj, ok := int32(x.coord[w*x.d+j]), false
						for _, iv := range win.iv[j][:win.n[j]] {
							ok = ok || iv[0] <= cj && cj <= iv[1]
						}
						in = in && ok
					}
					if partner && !in {
						t.Fatalf("%s, free %v, c=%d r=%d R=%d: node %d is within R of every free node of the ball, not in the window %+v", g.Spec(), freeList(free), c, r, R, w, win)
					}
					if !in && !partner {
						narrowed++
					}
				}
			}
		}
	}
	if narrowed == 0 {
		t.Fatal("no window left a node out")
	}
}
