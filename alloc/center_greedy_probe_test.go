package alloc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestGreedyProbeMatchesReference checks mc1x1-greedy's probe (a center collected
// before the others, allocateGreedy), which must change only the order in which
// centers are collected: with the probe from m >= 1 on, every allocation and tie
// count equals the literal reference's on random, young and empty free sets of
// meshes and tori, 2D and 3D; and a replay of allocations and partial releases
// gives the same allocations and tie counts with the probe on every decision as
// without it (and the same tie statistics), memo on.
func TestGreedyProbeMatchesReference(t *testing.T) {
	grids := []*topo.Grid{topo.Mesh(20, 18), topo.Mesh(8, 7, 9), topo.Torus(16, 14), topo.Torus(7, 8, 6), topo.Mesh(11, 13)}
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	rng := rand.New(rand.NewPCG(61, 7))
	checked, probed := 0, 0
	for _, g := range grids {
		n := g.N()
		for r := range rounds {
			free := greedyTestFree(rng, n, r, func() float64 { return 0.3 + 0.5*rng.Float64() })
			nf := len(freeList(free))
			if nf < 2 {
				continue
			}
			for _, k := range []int{1 + rng.IntN(min(nf-1, 12)), 1 + rng.IntN(min(nf-1, 48))} {
				ties := rng.IntN(2) == 0
				a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
				if err != nil {
					t.Fatal(err)
				}
				a.(*mc1x1).probeMin = 1
				a.(TieReporter).CountTies(ties)
				setFree(t, a, free)
				allocateMatchesRef(t, a, g, free, k, "mc1x1-greedy", ties, func() string { return fmt.Sprintf("%s round %d", g.Spec(), r) })
				checked++
				probed += a.(*mc1x1).probes
			}
		}
	}
	// a replay with the memo and the trees of runs on, the probe on every
	// decision against none
	for gi, g := range grids {
		ties := gi%2 == 0
		var al [2]Allocator
		for o := range 2 {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
			if err != nil {
				t.Fatal(err)
			}
			a.(TieReporter).CountTies(ties)
			al[o] = a
		}
		al[0].(*mc1x1).probeMin = 1
		al[1].(*mc1x1).probeMin = math.MaxInt32
		n := g.N()
		var held [][]int
		for range rounds * 10 {
			if len(held) > 0 && (rng.IntN(4) == 0 || al[0].NumFree() < n/6) {
				j := rng.IntN(len(held))
				held = releaseInLockstep(t, al[:], held, j, func() bool { return rng.IntN(3) != 0 })
				continue
			}
			k := 1 + rng.IntN(max(1, min(al[0].NumFree(), 3*n/4)/3))
			held = append(held, allocateInLockstep(t, al, k, ties, g.Spec()+", with the probe"))
			checked++
		}
		if s0, s1 := al[0].(*mc1x1).TieStats(), al[1].(*mc1x1).TieStats(); s0 != s1 {
			t.Fatalf("%s: tie statistics with the probe %+v, without %+v", g.Spec(), s0, s1)
		}
		probed += al[0].(*mc1x1).probes
	}
	t.Logf("%d allocations checked, %d with a probe other than the first center", checked, probed)
	if probed < checked/10 {
		t.Fatalf("only %d of %d allocations probed a center other than the first: the test no longer exercises the probe", probed, checked)
	}
}
