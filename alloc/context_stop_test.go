package alloc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// genalg on a network, opt and slurm:tree take seconds to minutes a decision on
// large machines (genalg sorts the free hosts once per free host; opt runs MM+Inc
// and a branch and bound; topology/tree adds leaves one by one, each compared with
// every candidate), so a replay's Ctrl-C waited for the decision and was cut by the
// 2 s watchdog with its results removed (sim on fattree:32,32:32,32:196 and its
// topology.conf). They are ContextAllocators now: each decision of a replay is stopped after 0, 1, 2, ...
// looks until it finishes; every stop returns context.Canceled with the free set
// (and opt's counts) unchanged, and the decision that finishes is the one an
// allocator never stopped makes.
func TestSlowAllocatorsStopOnContext(t *testing.T) {
	ft, err := topo.ParseMachine("fattree:4,4:4,4:4")
	if err != nil {
		t.Fatal(err)
	}
	parsed := func(spec string, m topo.Machine) func() Allocator {
		return func() Allocator {
			a, err := Parse(spec, m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
	}
	// slurm:tree on 32 nodes under 8 leaves of 4, two spines, a root.
	var tree strings.Builder
	for l := range 8 {
		fmt.Fprintf(&tree, "SwitchName=leaf%d Nodes=n[%d-%d]\n", l, 4*l+1, 4*l+4)
	}
	tree.WriteString("SwitchName=s0 Switches=leaf[0-3]\nSwitchName=s1 Switches=leaf[4-7]\nSwitchName=root Switches=s[0-1]\n")
	cases := []struct {
		spec string
		mk   func() Allocator
	}{{"genalg", parsed("genalg", ft)}, {"opt", parsed("opt", topo.Mesh(6, 6))}, {"opt:nodes=50", parsed("opt:nodes=50", topo.Torus(5, 5))},
		{"slurm:tree", func() Allocator { return newSlurmT(t, 32, nil, tree.String()) }}}
	rng := rand.New(rand.NewPCG(6, 12))
	for _, c := range cases {
		a, ref := c.mk(), c.mk()
		ca, ok := a.(ContextAllocator)
		if !ok {
			t.Fatalf("%s: not a ContextAllocator: Ctrl-C waits for a whole decision", c.spec)
		}
		midStops := 0
		var held [][]int
		for j := range 8 {
			if len(held) > 0 && rng.IntN(3) == 0 {
				held = releaseHeld(t, held, rng.IntN(len(held)), a, ref)
			}
			k := 2 + rng.IntN(max(1, a.NumFree()/4))
			want, werr := ref.Allocate(k)
			if werr != nil {
				t.Fatal(werr)
			}
			state := func() string {
				if fc, ok := a.(FallbackCounter); ok {
					d, f := fc.Fallbacks()
					return fmt.Sprint(a.NumFree(), " free, counts ", d, f)
				}
				return fmt.Sprint(a.NumFree(), " free")
			}
			what := fmt.Sprintf("%s job %d (k=%d)", c.spec, j, k)
			got, stops := decideStoppedAtEveryLook(t, what, ca, k, state)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %v, never stopped %v", what, got, want)
			}
			held = append(held, got)
			midStops += stops
		}
		if fa, ok := a.(FallbackCounter); ok {
			d1, f1 := fa.Fallbacks()
			d2, f2 := ref.(FallbackCounter).Fallbacks()
			if d1 != d2 || f1 != f2 {
				t.Errorf("%s: counts %d/%d, never stopped %d/%d", c.spec, d1, f1, d2, f2)
			}
		}
		if midStops == 0 {
			t.Errorf("%s: no decision was stopped after its first look", c.spec)
		}
	}
}

// releaseHeld releases the job held[i] on every allocator of allocs (one that
// mirrors another) and returns held without it.
func releaseHeld(t *testing.T, held [][]int, i int, allocs ...Allocator) [][]int {
	t.Helper()
	for _, a := range allocs {
		if err := a.Release(held[i]); err != nil {
			t.Fatal(err)
		}
	}
	return slices.Delete(held, i, i+1)
}

// decideStoppedAtEveryLook makes a's decision of k nodes stopped after 0, 1, 2, ...
// looks at its context until one finishes, and returns its nodes and how many stops
// came after a first look (in the middle of the decision). Every stop must return
// context.Canceled and no nodes, and leave state() as it was (what names the
// decision in the messages).
func decideStoppedAtEveryLook(t *testing.T, what string, a ContextAllocator, k int, state func() string) (nodes []int, midStops int) {
	t.Helper()
	for looks := int64(0); ; looks++ {
		before := state()
		got, err := a.AllocateContext(ctxtest.StopAfter(looks), k)
		if err == nil {
			return got, midStops
		}
		if !errors.Is(err, context.Canceled) || got != nil {
			t.Fatalf("%s stopped after %d looks: %v, %v", what, looks, got, err)
		}
		if after := state(); after != before {
			t.Fatalf("%s: the decision stopped after %d looks changed the state: %s, was %s", what, looks, after, before)
		}
		if looks > 0 {
			midStops++
		}
	}
}

// opt refuses a machine its solver cannot take at the start: every decision on the
// empty machine of more than exact.MaxSubsetPoints nodes (but k = 1 or all) failed,
// after MM+Inc's incumbent over all of them (minutes on mesh:448x448).
func TestOptRefusesTooLargeMachine(t *testing.T) {
	if _, err := Parse("opt", topo.Mesh(64, 64), Options{}); err != nil {
		t.Fatalf("mesh:64x64 (4096 nodes): %v", err)
	}
	_, err := Parse("opt", topo.Mesh(65, 64), Options{})
	if err == nil || !strings.Contains(err.Error(), "at most 4096 nodes") {
		t.Fatalf("mesh:65x64: %v, want a refusal naming the limit", err)
	}
}

// A decision the context stopped is not one for the Clock: neither counted nor
// timed (its part of a decision read as a whole one in bench's latencies and a
// replay's time per decision); a finished one and an allocator's own refusal are.
func TestClockSkipsStoppedDecisions(t *testing.T) {
	ft, err := topo.ParseMachine("fattree:4,4:4,4:4")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse("genalg", ft, Options{})
	if err != nil {
		t.Fatal(err)
	}
	clk := &Clock{Record: true}
	if _, err := clk.AllocateContext(ctxtest.StopAfter(3), a, 5); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped after 3 looks: %v", err)
	}
	if r := clk.Snapshot(); r.Allocations != 0 || len(r.Latencies) != 0 || r.Allocate != 0 {
		t.Fatalf("after a stopped decision: %+v", r)
	}
	if _, err := clk.AllocateContext(context.Background(), a, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := clk.AllocateContext(context.Background(), a, ft.N()); !errors.Is(err, ErrNotEnoughFree) {
		t.Fatalf("more than free: %v", err)
	}
	if r := clk.Snapshot(); r.Allocations != 2 || len(r.Latencies) != 2 {
		t.Fatalf("after a decision and a refusal: %+v", r)
	}
}
