package alloc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestGreedyCountsMatchPlain checks the counts BenchmarkGreedyCounts reports
// (greedyCounts) against the plain definition on every decision: the slack added
// is the least score by the plain collector (greedyCollectPlain, every free
// center with its exact shell L and count m) less the least count bound
// (shellScore) over the free centers; the decided centers are those the memo,
// the trees of runs or a collection decided; and no more collections gave up than
// were made. Young free sets (jobs packed by the allocator itself, some released)
// and random ones, on 2D and 3D tori and meshes, with the memo and the trees of
// runs on as in a replay.
func TestGreedyCountsMatchPlain(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(10, 9), topo.Mesh(11, 10), topo.Torus(7, 6, 7), topo.Mesh(6, 7, 6)}
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	rng := rand.New(rand.NewPCG(34, 5))
	decisions, slackDecisions, gaveUp := 0, 0, int64(0)
	for _, g := range grids {
		a, err := Parse("mc1x1-greedy", g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mc := a.(*mc1x1)
		au := &greedyAudit{}
		mc.audit = au
		var prev greedyCounts
		au.check = func(k int) {
			least, best := math.MaxInt, math.MaxInt
			for _, c := range mc.fl {
				lower, L, m, _ := mc.shellScore(c, k, math.MaxInt)
				least = min(least, lower)
				score, _ := mc.greedyCollectPlain(c, L, m)
				best = min(best, score)
			}
			cur := mc.counts
			if got := cur.slack - prev.slack; got != int64(best-least) {
				t.Fatalf("%s, k=%d, %d free: slack %d, want best %d less least bound %d", g.Spec(), k, len(mc.fl), got, best, least)
			}
			if best != au.best {
				t.Fatalf("%s, k=%d: the decision's best %d, the plain collector's %d", g.Spec(), k, au.best, best)
			}
			dec := cur.decided - prev.decided
			if parts := cur.memo - prev.memo + cur.translated - prev.translated + cur.collected - prev.collected; parts != dec {
				t.Fatalf("%s, k=%d: %d centers decided, %d by the memo, the trees and collections", g.Spec(), k, dec, parts)
			}
			if gu, co := cur.gaveUp-prev.gaveUp, cur.collected-prev.collected; gu > co {
				t.Fatalf("%s, k=%d: %d collections gave up of %d", g.Spec(), k, gu, co)
			}
			gaveUp += cur.gaveUp - prev.gaveUp
			if best > least {
				slackDecisions++
			}
			decisions++
			prev = cur
		}
		n := g.N()
		for r := range rounds {
			// a young free set: jobs packed by the allocator itself, every
			// other one released
			var held [][]int
			for range 6 {
				k := 2 + rng.IntN(max(1, n/5))
				if k > a.NumFree() {
					break
				}
				nodes, err := a.Allocate(k)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, nodes)
			}
			var rest []int
			for i, nodes := range held {
				if i%2 == 0 {
					if err := a.Release(nodes); err != nil {
						t.Fatal(err)
					}
				} else {
					rest = append(rest, nodes...)
				}
			}
			for range 2 {
				if k := 2 + rng.IntN(max(1, a.NumFree()/3)); k < a.NumFree() {
					nodes, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					rest = append(rest, nodes...)
				}
			}
			if err := a.Release(rest); err != nil {
				t.Fatal(err)
			}
			// a random free set
			free := greedyTestFree(rng, n, r, func() float64 { return 0.2 + 0.5*rng.Float64() })
			setFree(t, a, free)
			if nf := a.NumFree(); nf > 2 {
				nodes, err := a.Allocate(2 + rng.IntN(nf-2))
				if err != nil {
					t.Fatal(err)
				}
				if err := a.Release(nodes); err != nil {
					t.Fatal(err)
				}
			}
			var busy []int // the machine empty again
			for v, f := range free {
				if !f {
					busy = append(busy, v)
				}
			}
			if len(busy) > 0 {
				if err := a.Release(busy); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("%d decisions, %d with the best above the least bound; %d collections gave up", decisions, slackDecisions, gaveUp)
	if decisions < 50 || slackDecisions < 10 || gaveUp < 10 {
		t.Fatalf("%d decisions, %d with slack, %d give-ups: the test no longer exercises the counts", decisions, slackDecisions, gaveUp)
	}
}
