package alloc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestGreedyPoolAccountsForEveryCenter checks that mc1x1-greedy's search over
// centers loses none (greedyAudit): on every decision every free center is
// either collected (afresh, by the memo or by the trees of runs) or not, exactly
// once; and every center not collected (its bound above the best, or equal to it
// after the winner in free-list order, or still in the heap at the end) can
// neither win nor tie: its score by the plain collector (greedyCollectPlain, with
// the exact shell L and count m) is above the best, or equal to it with a later
// free-list position when ties are not counted. With the probe on every decision
// (probeMin 1) the pool's lazily bounded centers (greedyShellScore's L < 0: a
// busy node within the empty machine's shell, or a mesh's face) are scored with
// the pool's limit as bound; one scored above it must go back into the heap, and
// a version that drops it instead fails here (its center is missing), although
// no allocation in the other tests changes.
func TestGreedyPoolAccountsForEveryCenter(t *testing.T) {
	grids := []*topo.Grid{topo.Mesh(14, 12), topo.Torus(12, 10), topo.Mesh(7, 6, 8), topo.Torus(7, 8, 6), topo.Mesh(40)}
	rounds := 12
	if testing.Short() {
		rounds = 6
	}
	rng := rand.New(rand.NewPCG(29, 3))
	decisions, uncollected, lazyPool := 0, 0, 0
	for gi, g := range grids {
		for _, probeMin := range []int{1, 0} {
			ties := gi%2 == 0
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS, NoMemo: true})
			if err != nil {
				t.Fatal(err)
			}
			a.(TieReporter).CountTies(ties)
			mc := a.(*mc1x1)
			mc.probeMin = probeMin
			au := &greedyAudit{}
			mc.audit = au
			au.check = func(k int) {
				n := len(mc.fl)
				seen := make([]int, n)
				for _, i := range au.collected {
					seen[i]++
				}
				for _, i := range au.uncollected {
					seen[i]++
				}
				for i, s := range seen {
					if s != 1 {
						t.Fatalf("%s, k=%d, probe from m >= %d: center %d (free-list position %d) accounted for %d times, not once", g.Spec(), k, probeMin, mc.fl[i], i, s)
					}
				}
				for _, i := range au.uncollected {
					c := mc.fl[i]
					_, L, m, _ := mc.shellScore(c, k, math.MaxInt)
					score, _ := mc.greedyCollectPlain(c, L, m)
					if score < au.best || score == au.best && (ties || int(i) < au.bestPos) {
						t.Fatalf("%s, k=%d: center %d (position %d) not collected scores %d, best %d at position %d (ties counted: %v)", g.Spec(), k, c, i, score, au.best, au.bestPos, ties)
					}
					uncollected++
				}
				if probeMin == 1 {
					// lazily bounded centers the pool would score
					for _, c := range mc.fl {
						if _, L, _ := mc.greedyShellScore(c, k); L < 0 {
							lazyPool++
							break
						}
					}
				}
				decisions++
			}
			n := g.N()
			for r := range rounds {
				free := greedyTestFree(rng, n, r, func() float64 { return 0.2 + 0.6*rng.Float64() })
				setFree(t, a, free)
				nf := a.NumFree()
				for range 3 {
					if nf < 2 {
						break
					}
					k := 1 + rng.IntN(min(nf-1, n/3))
					nodes, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					if err := a.Release(nodes); err != nil {
						t.Fatal(err)
					}
				}
				// a young free set: jobs packed by the allocator itself
				var held []int
				for range 4 {
					k := 1 + rng.IntN(max(1, n/6))
					if k > a.NumFree() {
						break
					}
					nodes, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					held = append(held, nodes...)
				}
				for v, f := range free { // the machine empty again for the next round
					if !f {
						held = append(held, v)
					}
				}
				if err := a.Release(held); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("%d decisions, %d centers not collected, each checked; %d decisions with lazily bounded centers", decisions, uncollected, lazyPool)
	if decisions < 100 || lazyPool < 50 {
		t.Fatalf("%d decisions, %d with lazily bounded centers: the test no longer exercises the pool", decisions, lazyPool)
	}
}
