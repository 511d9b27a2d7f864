package alloc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// incrGrids are the machines of the incremental-table tests: meshes and tori in
// 2D and 3D (first sides across the free map's words too), mixed wraparound, and
// 1D and 4D, where the tables are rebuilt whole.
func incrGrids(t *testing.T) []*topo.Grid {
	gs := []*topo.Grid{topo.Mesh(13, 11), topo.Torus(12, 9), topo.Mesh(70, 5), topo.Mesh(7, 6, 5), topo.Torus(6, 5, 7),
		topo.Mesh(66, 3, 4), topo.Torus(5, 4, 3, 2), topo.Mesh(130), topo.Torus(9)}
	g, err := topo.NewGrid([]int{6, 5, 4}, []bool{true, false, true})
	if err != nil {
		t.Fatal(err)
	}
	return append(gs, g)
}

// incrScenario runs a random sequence of allocations (balls around random
// centers, clipped to free nodes, scattered free nodes, or the free nodes of a
// range of indices, as a Mask holds a partition's outside; a third of these
// taken by MC1x1's Occupy and a third by its bitmap path OccupyFreeIn, which
// touch its tables themselves) and releases of whole jobs (a third by
// ReleaseIn) on g, touching the tables kept up to date as the allocators do
// (by the nodes' list or bitmap as they were changed),
// and after each step rebuilds a random choice of them (so that parts stay
// stale over several steps) and compares them with tables built from scratch:
// a gridIndex's free, wall and label prefix sums and 2D pyramid tables, MC's
// freeBoxes, and MC1x1's free sums, free list and positions (only: just the table of that
// name, "list" for the list). It returns the first difference, or "".
func incrScenario(t *testing.T, g *topo.Grid, seed uint64, steps int, only string) string {
	rng := rand.New(rand.NewPCG(seed, 77))
	n := g.N()
	st := NewState(n)
	x := newGridIndex(g)
	fb := newFreeBoxes(g, nil)
	a0, err := Parse("mc1x1", g, Options{NoMemo: true})
	if err != nil {
		t.Fatal(err)
	}
	a := a0.(*mc1x1)
	a.st = st
	var jobs [][]int
	for step := range steps {
		var nodes []int
		occupied := false // nodes taken by the allocator's Occupy, which touches its own tables
		bulk := rng.IntN(3) == 0
		bm := make([]uint64, (n+63)/64) // the nodes as a bitmap (bulk)
		if len(jobs) > 0 && (st.NumFree() == 0 || rng.IntN(5) < 2) {
			i := rng.IntN(len(jobs))
			nodes = jobs[i]
			jobs = slices.Delete(jobs, i, i+1)
			if bulk {
				for _, v := range nodes {
					bm[v>>6] |= 1 << (v & 63)
				}
				if err := a.ReleaseIn(bm); err != nil { // a.st is st
					t.Fatal(err)
				}
			} else if err := st.Release(nodes); err != nil {
				t.Fatal(err)
			}
		} else if st.NumFree() > 0 {
			k := 1 + rng.IntN(max(1, st.NumFree()/3))
			if r := rng.IntN(8); r < 2 {
				v0 := rng.IntN(n)
				for v := v0; v < n && len(nodes) < k; v++ {
					if st.IsFree(v) {
						nodes = append(nodes, v)
					}
				}
			} else if r < 4 {
				for v := range n {
					if st.IsFree(v) && rng.IntN(3) == 0 && len(nodes) < k {
						nodes = append(nodes, v)
					}
				}
			} else {
				c := rng.IntN(n)
				for r := 0; len(nodes) < k && r <= x.maxLinf; r++ {
					for v := range n {
						if st.IsFree(v) && x.linf(c, v) == r && len(nodes) < k {
							nodes = append(nodes, v)
						}
					}
				}
			}
			if len(nodes) == 0 {
				continue
			}
			switch {
			case bulk:
				for _, v := range nodes {
					bm[v>>6] |= 1 << (v & 63)
				}
				set := slices.Clone(bm) // and busy nodes, which stay busy
				for v := range n {
					if !st.IsFree(v) && rng.IntN(3) == 0 {
						set[v>>6] |= 1 << (v & 63)
					}
				}
				taken := make([]uint64, len(bm))
				if got := a.OccupyFreeIn(set, taken); got != len(nodes) || !slices.Equal(taken, bm) {
					t.Fatalf("OccupyFreeIn took %d nodes of %d free: %x, want %x", got, len(nodes), taken, bm)
				}
			case rng.IntN(2) == 0:
				occupied = true
				if err := a.Occupy(nodes); err != nil {
					t.Fatal(err)
				}
			default:
				if err := st.Take(nodes); err != nil {
					t.Fatal(err)
				}
			}
			jobs = append(jobs, nodes)
		}
		if bulk {
			x.touchIn(bm)
			fb.touchIn(bm)
		} else {
			x.touch(nodes)
			fb.touch(nodes)
			if !occupied {
				a.touch(nodes)
			}
		}
		parts := prefixParts(rng.IntN(16))
		if step == steps-1 {
			parts = prefixAll
		}
		if parts&prefixPyramid != 0 {
			parts |= prefixFree // the pyramid reads the free sums (as in search)
		}
		x.rebuild(st, parts)
		ref := newGridIndex(g)
		ref.rebuild(NewState(n), prefixAll) // another state, then st: from scratch
		ref.rebuild(st, prefixAll)
		type table struct {
			name      string
			got, want any
		}
		tabs := []table{}
		if parts&prefixFree != 0 {
			tabs = append(tabs, table{"free", x.free, ref.free})
			a.refresh(prefixFree) // the allocator's own, touched by its Occupy and by touch
			tabs = append(tabs, table{"free", a.x.free, ref.free})
		}
		if parts&prefixWall != 0 {
			tabs = append(tabs, table{"freeW", x.freeW, ref.freeW})
		}
		if parts&prefixHash != 0 {
			tabs = append(tabs, table{"freeH", x.freeH, ref.freeH})
		}
		if parts&prefixPyramid != 0 {
			tabs = append(tabs, table{"dg", x.dg, ref.dg}, table{"ad", x.ad, ref.ad}, table{"colX", x.colX, ref.colX}, table{"rowY", x.rowY, ref.rowY})
		}
		if rng.IntN(2) == 0 || step == steps-1 {
			fb.rebuild(st)
			want := newFreeBoxes(g, nil)
			want.rebuild(st)
			tabs = append(tabs, table{"freeBoxes", fb.pre, want.pre})
		}
		for _, tb := range tabs {
			if only != "" && only != tb.name {
				continue
			}
			if fmt.Sprint(tb.got) != fmt.Sprint(tb.want) {
				return fmt.Sprintf("%s step %d: %s differs from the table built from scratch", g.Spec(), step, tb.name)
			}
		}
		if (rng.IntN(2) == 0 || step == steps-1) && (only == "" || only == "list") {
			a.listFree()
			want := st.AppendFreeInOrder(nil, FreeListOrder(g))
			if !slices.Equal(a.fl, want) {
				return fmt.Sprintf("%s step %d: the free list differs from FreeListOrder's", g.Spec(), step)
			}
			for i, v := range want {
				if int(a.pos[v]) != i {
					return fmt.Sprintf("%s step %d: node %d at position %d, pos says %d", g.Spec(), step, v, i, a.pos[v])
				}
			}
		}
	}
	return ""
}

// TestIncrementalTablesMatchScratch: the prefix sums, pyramid tables and free
// list brought up to date from the dirty corner after random allocations and
// releases equal those built from scratch, on meshes and tori in 2D and 3D.
func TestIncrementalTablesMatchScratch(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 40
	}
	for gi, g := range incrGrids(t) {
		for seed := range uint64(3) {
			if msg := incrScenario(t, g, seed*31+uint64(gi), steps, ""); msg != "" {
				t.Fatal(msg)
			}
		}
	}
}

// TestIncrementalTablesBroken: with the dirty corners moved one step too far
// (breakDirtyCorner), the comparison of TestIncrementalTablesMatchScratch finds a
// difference in every table kept up to date from the corner, on every 2D and 3D
// machine: the free sums, MC's freeBoxes and the free list everywhere, and on 2D
// meshes the wall and label sums and the pyramid tables too.
func TestIncrementalTablesBroken(t *testing.T) {
	breakDirtyCorner = true
	defer func() { breakDirtyCorner = false }()
	caught := 0
	for gi, g := range incrGrids(t) {
		d := g.Dim()
		if d < 2 || d > 3 {
			continue // rebuilt whole: nothing to break
		}
		kinds := []string{"free", "freeBoxes", "list"}
		if d == 2 && !g.Wraps() {
			kinds = append(kinds, "freeW", "freeH", "dg", "ad", "colX", "rowY")
		}
		for _, kind := range kinds {
			msg := ""
			for seed := uint64(0); seed < 5 && msg == ""; seed++ {
				msg = incrScenario(t, g, seed*31+uint64(gi), 40, kind)
			}
			if msg == "" {
				t.Errorf("%s: the broken update of %s went unnoticed", g.Spec(), kind)
			} else {
				caught++
			}
		}
	}
	t.Logf("%d broken tables caught", caught)
}
