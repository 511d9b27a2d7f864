package alloc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// mc1x1-greedy with jobs of a sixth to two thirds of the machine (runs of many
// nodes beyond shell L, whose trees of runs get room by the decision's m:
// shiftBudget) against the literal reference: the issue-32 stream's start (a large
// job, released, then twice as large on the empty machine, then another on the
// young free set left) and random large jobs and releases, on 3D and 2D tori and a
// 3D mesh, ties counted every other grid.
func TestGreedyLargeJobsMatchReference(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(7, 7, 7), topo.Torus(6, 8, 5), topo.Mesh(7, 6, 7), topo.Torus(16, 16), topo.Torus(8, 8, 8)}
	steps := 6
	if testing.Short() {
		grids = grids[:4]
		steps = 3
	}
	rng := rand.New(rand.NewPCG(34, 5))
	checked := 0
	for gi, g := range grids {
		a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
		if err != nil {
			t.Fatal(err)
		}
		tr := a.(TieReporter)
		ties := gi%2 == 0
		tr.CountTies(ties)
		n := g.N()
		free := make([]bool, n)
		for i := range free {
			free[i] = true
		}
		var held [][]int
		alloc := func(k int) {
			got := allocateMatchesRef(t, a, g, free, k, "mc1x1-greedy", ties, func() string {
				return fmt.Sprintf("%s on %d free", g.Spec(), countFree(free))
			})
			for _, v := range got {
				free[v] = false
			}
			held = append(held, got)
			checked++
		}
		release := func(j int) {
			if err := a.Release(held[j]); err != nil {
				t.Fatal(err)
			}
			for _, v := range held[j] {
				free[v] = true
			}
			held = slices.Delete(held, j, j+1)
		}
		alloc(n / 6)
		release(0)
		alloc(n / 3)
		alloc(n / 3)
		for range steps {
			if len(held) > 0 && (rng.IntN(3) == 0 || countFree(free) < n/6) {
				release(rng.IntN(len(held)))
				continue
			}
			alloc(n/6 + rng.IntN(countFree(free)-n/6+1))
		}
	}
	t.Logf("%d allocations checked", checked)
}

func countFree(free []bool) int {
	c := 0
	for _, f := range free {
		if f {
			c++
		}
	}
	return c
}
