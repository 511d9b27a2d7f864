package alloc

import (
	"fmt"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestGreedyEmptyTorusMatchesReference checks the orbit check on empty tori
// (center_mc1x1_greedy_orbit.go), ties not counted: on tori of two and three axes,
// equal and unequal sides (fewer symmetries), odd and even, job sizes from 2 to n-1
// on a fresh allocator, the allocation equals that of an allocator without the
// check (which decides every center: TestGreedySweepMatchesReference and the
// others check it against the reference), and on the smaller tori the literal
// reference collector's; whether the check settled the decision or gave it back.
// Both must happen, and some settled decisions must have tried runs.
func TestGreedyEmptyTorusMatchesReference(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(5, 5, 5), topo.Torus(6, 6, 6), topo.Torus(7, 7, 7), topo.Torus(6, 8, 5),
		topo.Torus(4, 4, 6), topo.Torus(12, 12), topo.Torus(13, 13), topo.Torus(9, 12), topo.Torus(8, 8, 8),
		topo.Torus(10, 10, 10), topo.Torus(32, 32)}
	settled, tried, withRuns, allocs := 0, 0, 0, 0
	for _, g := range grids {
		n := g.N()
		step := max(1, n/60)
		if testing.Short() {
			step = max(1, n/15)
		}
		free := make([]bool, n)
		for i := range free {
			free[i] = true
		}
		for k := 2; k < n; k += step {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			m := a.(*mc1x1)
			where := func() string { return fmt.Sprintf("%s, empty", g.Spec()) }
			var got []int
			if n <= 150 {
				got = allocateMatchesRef(t, a, g, free, k, "mc1x1-greedy", false, where)
			} else if got, err = a.Allocate(k); err != nil {
				t.Fatal(err)
			}
			b, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			b.(*mc1x1).orbit.off = true
			want, err := b.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, k=%d (orbit check settled %d, %d runs tried): got %v, without the check %v", where(), k, m.orbit.settled, m.orbit.runs, got, want)
			}
			settled += m.orbit.settled
			tried += m.orbit.tried
			if m.orbit.settled > 0 && m.orbit.runs > 0 {
				withRuns++
			}
			allocs++
		}
	}
	if settled == 0 || settled == tried || withRuns == 0 {
		t.Fatalf("the orbit check settled %d of %d decisions (%d after trying runs): the test does not reach every outcome", settled, tried, withRuns)
	}
	t.Logf("%d allocations: the orbit check settled %d of %d tried (%d after trying runs)", allocs, settled, tried, withRuns)
}
