package alloc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo"
)

// mc1x1-greedy's AllocateContext stops at every point where it asks the context:
// between centers (every 256) and between the orbit check's runs on an empty torus.
// Each decision of a replay is stopped after 0, 1, 2, ... looks until it finishes;
// every stop returns context.Canceled with the free set and the tie statistics
// unchanged, and the decision that finishes is the one an allocator never stopped
// makes (so nothing a stopped decision left behind, in the memo of bounds, the
// trees of runs or the decision memo, changes a later one). With and without tie
// counting (without it an empty torus takes the orbit check), on tori and a mesh.
func TestGreedyAllocateContextStops(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(10, 10, 10), topo.Torus(12, 12, 6), topo.Mesh(24, 24), topo.Torus(40, 40)}
	jobs := 12
	if testing.Short() {
		grids, jobs = grids[:3], 6
	}
	rng := rand.New(rand.NewPCG(32, 1))
	midStops := 0 // stops after a look that had let the decision go on
	for _, g := range grids {
		for _, ties := range []bool{true, false} {
			a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
			a.(TieReporter).CountTies(ties)
			ref.(TieReporter).CountTies(ties)
			ca := a.(ContextAllocator)
			var held [][]int
			for j := range jobs {
				if len(held) > 0 && rng.IntN(3) == 0 {
					held = releaseHeld(t, held, rng.IntN(len(held)), a, ref)
				}
				k := 1 + rng.IntN(max(1, a.NumFree()/3))
				want, werr := ref.Allocate(k)
				if werr != nil {
					t.Fatal(werr)
				}
				what := fmt.Sprintf("%v ties=%v job %d (k=%d)", g, ties, j, k)
				got, stops := decideStoppedAtEveryLook(t, what, ca, k, func() string {
					return fmt.Sprintf("%d free, tie stats %+v", a.NumFree(), a.(TieReporter).TieStats())
				})
				if !slices.Equal(got, want) || a.(TieReporter).LastTies() != ref.(TieReporter).LastTies() {
					t.Fatalf("%s: %v (ties %d), never stopped %v (ties %d)", what, got, a.(TieReporter).LastTies(), want, ref.(TieReporter).LastTies())
				}
				held = append(held, got)
				midStops += stops
			}
			if a.(TieReporter).TieStats() != ref.(TieReporter).TieStats() {
				t.Errorf("%v ties=%v: tie stats %+v, never stopped %+v", g, ties, a.(TieReporter).TieStats(), ref.(TieReporter).TieStats())
			}
		}
	}
	if midStops == 0 {
		t.Fatal("no decision was stopped after its first look: the stops in the middle are not exercised")
	}
}

// A long decision stops soon after its context is cancelled: the first decision of
// issue 32's workload on an empty torus:48x48x48 counting ties (16,960 nodes; every
// one of the 110,592 centers ties and is worked out, about 20 s of CPU uncancelled),
// cancelled after 100 ms, returns context.Canceled with every node free. The 5 s
// bound is a safety margin on a loaded machine, not a speed goal: the context is
// asked about every 50 ms of work there.
func TestGreedyAllocateContextStopsLongDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("a 110,592-node torus")
	}
	g := topo.Torus(48, 48, 48)
	a, err := Parse("mc1x1-greedy", g, Options{Compat: CompatPReMAS})
	if err != nil {
		t.Fatal(err)
	}
	a.(TieReporter).CountTies(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	time.AfterFunc(100*time.Millisecond, cancel)
	nodes, err := a.(ContextAllocator).AllocateContext(ctx, 16960)
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) || nodes != nil {
		t.Fatalf("cancelled after 100 ms: %d nodes, %v (after %v)", len(nodes), err, took)
	}
	if took > 5*time.Second {
		t.Fatalf("cancelled after 100 ms, returned after %v", took)
	}
	if a.NumFree() != g.N() || a.(TieReporter).TieStats() != (TieStats{}) {
		t.Fatalf("after the stopped decision: %d free of %d, tie stats %+v", a.NumFree(), g.N(), a.(TieReporter).TieStats())
	}
}
