package alloc

import (
	"fmt"
	"math"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// sweepGrids are empty tori of two and three axes, equal and unequal sides (fewer
// symmetries), odd and even, for the sweep tests.
var sweepGrids = []*topo.Grid{topo.Torus(7, 7, 7), topo.Torus(6, 8, 5), topo.Torus(16, 16), topo.Torus(9, 12), topo.Torus(6, 6, 6), topo.Torus(14, 10)}

// TestGreedySweepMatchesReference checks the sweeps of the trees of runs over boxes
// of centers (center_mc1x1_greedy_sweep.go) on empty tori: every allocation against
// the literal reference collector, and every answer the sweep gives against the
// plain collector around that center (the same score; where the sweep says the
// center gave up, a score that can neither win nor tie).
func TestGreedySweepMatchesReference(t *testing.T) {
	answers := 0
	grids, ks := sweepGrids, []float64{0, 1. / 12, 1. / 5, 1. / 3}
	if testing.Short() {
		grids, ks = grids[:4], ks[1:3]
	}
	// every other allocation drops its sweep after a few boxes (as a decision
	// whose boxes pend far more often than they are answered does), so the
	// lookups must take over mid-decision from whatever the sweep answered
	defer func(b, r int) { sweepGiveUpBoxes, sweepGiveUpRatio = b, r }(sweepGiveUpBoxes, sweepGiveUpRatio)
	dropped, alloc := 0, 0
	for _, g := range grids {
		n := g.N()
		free := make([]bool, n)
		for i := range free {
			free[i] = true
		}
		for _, f := range ks {
			k := max(2, int(f*float64(n)))
			alloc++
			sweepGiveUpBoxes, sweepGiveUpRatio = 1024, 8
			if alloc%2 == 1 {
				sweepGiveUpBoxes, sweepGiveUpRatio = 2+alloc%5, 0
			}
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			m := a.(*mc1x1)
			m.orbit.off = true // an empty torus: the orbit check would settle most
			m.sweep.check = func(c, L, mm, score, best int, countEqual bool) {
				answers++
				plain, _ := m.greedyCollectPlain(c, L, mm)
				if score >= 0 && plain != score || score < 0 && (plain < best || plain == best && countEqual) {
					t.Fatalf("%s, k=%d, center %d: swept %d, plain collector %d (best %d)", g.Spec(), k, c, score, plain, best)
				}
			}
			allocateMatchesRef(t, a, g, free, k, "mc1x1-greedy", false, func() string {
				return fmt.Sprintf("%s, empty", g.Spec())
			})
			if sw := &m.sweep; !sw.on && sw.boxes >= sweepGiveUpBoxes {
				dropped++
			}
		}
	}
	if answers == 0 || dropped == 0 {
		t.Fatalf("the sweeps answered %d centers and %d were dropped: the test does not reach both", answers, dropped)
	}
	t.Logf("%d answers of the sweeps checked, %d sweeps dropped mid-decision", answers, dropped)
}

// TestGreedySweepMatchesLookup sweeps the tree of runs an allocation on an empty
// torus left, again from its root with stops around the runs' scores (so that some
// boxes give up), and checks every center's answer against shiftLookup's: the
// same run's score, a give-up, or no answer (the lookup would resume a run).
func TestGreedySweepMatchesLookup(t *testing.T) {
	answers, gaveUp, none := 0, 0, 0
	for _, g := range sweepGrids {
		n := g.N()
		for _, k := range []int{n / 12, n / 5, n / 3} {
			if k < 2 {
				continue
			}
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			m := a.(*mc1x1)
			m.orbit.off = true // an empty torus: the orbit check would settle most
			if _, err := a.Allocate(k); err != nil {
				t.Fatal(err)
			}
			sw := &m.sweep
			if sw.root < 0 {
				continue // decided by one center (its run scores its bound)
			}
			L, mm := sw.L, sw.m
			run, _ := m.shiftLookup(0, L, mm, math.MaxInt)
			if run == nil {
				t.Fatalf("%s, k=%d: center 0 has no run", g.Spec(), k)
			}
			s0 := run.score
			for _, stop := range []int{s0 - 3, s0 - 1, s0, s0 + 2, math.MaxInt} {
				box := make([]int32, 0, 2*g.Dim())
				for _, side := range g.Dims() {
					box = append(box, 0, int32(side-1))
				}
				sw.pending = append(sw.pending[:0], sweepBox{node: int32(sw.root), kids: -1, box: box})
				sw.cur++
				m.sweepAdvance(stop)
				for c := range n {
					run, gu := m.shiftLookup(c, L, mm, stop)
					known := sw.stamp[c] == sw.cur
					switch {
					case gu && !(known && sw.score[c] < 0):
						t.Fatalf("%s, k=%d, stop %d, center %d: the lookup gives up, the sweep: %v %d", g.Spec(), k, stop, c, known, sw.score[c])
					case run != nil && !(known && sw.score[c] == run.score):
						t.Fatalf("%s, k=%d, stop %d, center %d: the lookup's run scores %d, the sweep: %v %d", g.Spec(), k, stop, c, run.score, known, sw.score[c])
					case !gu && run == nil && known:
						t.Fatalf("%s, k=%d, stop %d, center %d: no answer from the lookup, the sweep: %d", g.Spec(), k, stop, c, sw.score[c])
					case gu:
						gaveUp++
					case run != nil:
						answers++
					default:
						none++
					}
				}
			}
		}
	}
	if answers == 0 || gaveUp == 0 {
		t.Fatalf("%d runs and %d give-ups compared: the test does not reach them", answers, gaveUp)
	}
	t.Logf("%d runs, %d give-ups and %d centers without an answer compared", answers, gaveUp, none)
}
