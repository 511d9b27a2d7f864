package alloc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// occupyCase is an allocator spec on a machine for the Occupy tests.
type occupyCase struct {
	spec string
	m    topo.Machine
}

// notOccupiers are the families that are not Occupiers by their definition,
// with the words NoRestriction must give: bt, sbt and dbt free a job's whole
// block, nodes it was not given included (bintree.go); as-run places recorded
// node lists (an Occupier, but it decides nothing: TestAsRunContract).
var notOccupiers = map[string]string{
	"bt": "reserves a whole block", "sbt": "reserves a whole block", "dbt": "reserves a whole block",
}

// occupyCases is every registered family on the machines of
// TestAllFamiliesContract that it accepts (familySpec), and variants: ring
// curves, a curve along a Hilbert order, paging with pages of one node, MC1x1
// and its greedy variant with Johnson's tie-breaking, Gen-Alg on fat trees and a
// dragonfly, curves along a network's ordering. families lists the families met.
func occupyCases(t *testing.T) (cases []occupyCase, families map[string]bool) {
	t.Helper()
	families = map[string]bool{}
	parse := func(spec string) topo.Machine {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, ms := range []string{"mesh:8x8", "mesh:5x3x2", "torus:4x4"} {
		m := parse(ms)
		for _, f := range Names() {
			if f == "as-run" || notOccupiers[f] != "" {
				continue
			}
			if _, ok := refuses[f][ms]; ok {
				continue
			}
			cases = append(cases, occupyCase{familySpec(f), m})
			families[f] = true
		}
	}
	for _, c := range []struct{ spec, m string }{
		{"ff:hilbert:ring", "mesh:8x8"}, {"bf:snake:ring", "mesh:6x5"}, {"sos:morton:ring", "torus:4x4x2"},
		{"bf:hilbert", "mesh:8x8"}, {"freelist:snake", "mesh:7x3"}, {"paging:hilbert:0", "mesh:8x8"},
		{"mc1x1:tb=3,9,3,2", "mesh:8x7"}, {"mc1x1-greedy:tb=3,9,3,2", "mesh:7x7"}, {"mc1x1", "torus:5x4x3"},
		{"mc1x1-greedy", "torus:6x5"}, {"mm", "mesh:4x3x3"}, {"mminc", "torus:5x5"}, {"genalg", "mesh:4x4x3"},
		{"mbs", "mesh:6x10"}, {"mbs", "mesh:4x4x2"}, {"ind-dbt:1/8", "mesh:8x4"}, {"d-bt", "mesh:4x8:io=right"},
		{"genalg", "fattree:4,4:4,4:4"}, {"genalg", "fattree:3,3:5"},
		{"genalg", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5"},
		{"bf:rcm", "fattree:4,4:4,4:4"}, {"ff:bfs:ring", "fattree:3,3:5"},
	} {
		cases = append(cases, occupyCase{c.spec, parse(c.m)})
	}
	return cases, families
}

// TestOccupyIsTakenByJobs: for every allocator that is an Occupier, on random
// histories of starts, releases and Occupy calls (the nodes of a job or of an
// Occupy released together or a few at a time), every decision AllocateWithout(k, away) makes
// is exactly the one a fresh allocator of the same kind makes on the free
// nodes outside away, every other node taken by a job of one node (n jobs of
// one node, then the free ones released): the same nodes in the same order,
// ties included, or the same refusal. That is the definition of Occupy: the
// nodes are busy as if jobs held them, whatever the allocator's incremental
// tables (prefix sums, shells, interval indexes, buddy lists, tree counts, the
// remembered decisions). After each decision the allocator's free nodes must
// be those before it (AllocateWithout frees what it occupied), and its
// decision on them is kept as a running job; before every step the busy nodes
// must be exactly those of the running jobs (a release frees the nodes it
// names, no more, no fewer). The families that are not
// Occupiers must say why (NoRestriction).
func TestOccupyIsTakenByJobs(t *testing.T) {
	cases, families := occupyCases(t)
	for _, f := range Names() {
		if f != "as-run" && notOccupiers[f] == "" && !families[f] {
			t.Errorf("family %s is in no case", f)
		}
	}
	steps := 120
	if testing.Short() {
		steps = 60
	}
	decisions := 0
	for ci, c := range cases {
		decisions += occupyHistory(t, rand.New(rand.NewPCG(uint64(ci), 41)), c, steps)
	}
	t.Logf("%d cases, %d decisions as on a machine where jobs took the nodes kept away", len(cases), decisions)
	m, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	for f, why := range notOccupiers {
		a, err := Parse(familySpec(f), m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.(Occupier); ok {
			t.Errorf("%s is an Occupier", f)
		}
		_, _, err = AllocateWithout(context.Background(), a, 2, []int{0, 1}, nil)
		if !errors.Is(err, ErrNoRestriction) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s kept off nodes: %v, want ErrNoRestriction saying %q", f, err, why)
		}
	}
	a, err := Parse("paging:hilbert:1", m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := AllocateWithout(context.Background(), a, 2, []int{0, 1}, nil); !errors.Is(err, ErrNoRestriction) || !strings.Contains(err.Error(), "whole pages of 2x2 nodes") {
		t.Errorf("paging:hilbert:1 kept off nodes: %v", err)
	}
}

// occupyHistory plays one random history of c (TestOccupyIsTakenByJobs) and
// returns the decisions checked.
func occupyHistory(t *testing.T, rng *rand.Rand, c occupyCase, steps int) int {
	t.Helper()
	a0, err := Parse(c.spec, c.m, Options{})
	if err != nil {
		t.Fatalf("%s on %s: %v", c.spec, c.m.Spec(), err)
	}
	a, ok := a0.(Occupier)
	if !ok {
		t.Fatalf("%s on %s is not an Occupier: %v", c.spec, c.m.Spec(), NoRestriction(a0))
	}
	what := fmt.Sprintf("%s on %s", c.spec, c.m.Spec())
	n := c.m.N()
	type job struct {
		nodes []int
		occ   bool // occupied, not allocated
	}
	var running []job
	decisions := 0
	busy := make([]bool, n) // the nodes of running jobs: exactly the busy ones
	mark := func(nodes []int, b bool) {
		for _, v := range nodes {
			busy[v] = b
		}
	}
	for step := range steps {
		for v := range n {
			if a.IsFree(v) == busy[v] {
				t.Fatalf("%s: before step %d: node %d free %v, busy by the jobs %v", what, step, v, a.IsFree(v), busy[v])
			}
		}
		switch r := rng.IntN(10); {
		case r < 3 && len(running) > 0:
			j := rng.IntN(len(running))
			nodes := running[j].nodes
			if len(nodes) > 1 && rng.IntN(4) == 0 {
				// some of the nodes (as a Mask releases a job's nodes inside
				// the current partition and holds the others): each is busy
				// on its own
				cut := 1 + rng.IntN(len(nodes)-1)
				if err := a.Release(nodes[:cut]); err != nil {
					t.Fatalf("%s: step %d: releasing %d of %d nodes (occupied %v): %v", what, step, cut, len(nodes), running[j].occ, err)
				}
				mark(nodes[:cut], false)
				running[j].nodes = nodes[cut:]
				continue
			}
			if err := a.Release(nodes); err != nil {
				t.Fatalf("%s: step %d: release %v: %v", what, step, nodes, err)
			}
			mark(nodes, false)
			running = slices.Delete(running, j, j+1)
		case r < 5 && a.NumFree() > 0:
			var nodes []int
			p := 0.1 + 0.5*rng.Float64()
			for v := range n {
				if a.IsFree(v) && rng.Float64() < p {
					nodes = append(nodes, v)
				}
			}
			rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
			free := a.NumFree()
			if len(nodes) > 0 {
				bad := append(slices.Clone(nodes), nodes[0]) // all or nothing
				if err := a.Occupy(bad); err == nil || a.NumFree() != free {
					t.Fatalf("%s: step %d: occupying a node twice: %v, %d free of %d", what, step, err, a.NumFree(), free)
				}
			}
			if err := a.Occupy(nodes); err != nil {
				t.Fatalf("%s: step %d: occupy %v: %v", what, step, nodes, err)
			}
			if a.NumFree() != free-len(nodes) {
				t.Fatalf("%s: step %d: %d free after occupying %d of %d", what, step, a.NumFree(), len(nodes), free)
			}
			if len(nodes) > 0 {
				running = append(running, job{nodes, true})
				mark(nodes, true)
			}
		default:
			var away []int
			if rng.IntN(4) != 0 {
				p := 0.6 * rng.Float64()
				for v := range n {
					if rng.Float64() < p {
						away = append(away, v)
					}
				}
			}
			freeBefore := freeNodes(a)
			outside := 0
			for _, v := range freeBefore {
				if !slices.Contains(away, v) {
					outside++
				}
			}
			if outside == 0 {
				continue
			}
			k := 1 + rng.IntN(outside)
			if rng.IntN(3) != 0 {
				k = 1 + rng.IntN(max(1, outside/3))
			}
			got, _, gerr := AllocateWithout(context.Background(), a, k, away, nil)
			want, werr := freshOn(t, c, freeBefore, away, got, k)
			decisions++
			if (gerr == nil) != (werr == nil) || !slices.Equal(got, want) {
				t.Fatalf("%s: step %d: %d nodes off %d kept away: %v (%v), a fresh %s with them taken by jobs: %v (%v)", what, step, k, len(away), got, gerr, c.spec, want, werr)
			}
			if gerr != nil {
				if !errors.Is(gerr, ErrFragmented) {
					t.Fatalf("%s: step %d: %v", what, step, gerr)
				}
				continue
			}
			after := freeNodes(a)
			for _, v := range got {
				i, found := slices.BinarySearch(after, v)
				if found {
					t.Fatalf("%s: step %d: node %d given and free", what, step, v)
				}
				after = slices.Insert(after, i, v)
			}
			if !slices.Equal(after, freeBefore) {
				t.Fatalf("%s: step %d: the free nodes besides the decision's changed", what, step)
			}
			running = append(running, job{got, false})
			mark(got, true)
		}
	}
	for _, j := range running {
		if err := a.Release(j.nodes); err != nil {
			t.Fatalf("%s: final release: %v", what, err)
		}
	}
	if a.NumFree() != n {
		t.Fatalf("%s: %d of %d free after every release", what, a.NumFree(), n)
	}
	return decisions
}

// freeNodes lists a's free nodes, ascending.
func freeNodes(a Occupier) []int {
	var out []int
	for v := range a.Machine().N() {
		if a.IsFree(v) {
			out = append(out, v)
		}
	}
	return out
}

// freshOn is the decision for k nodes of a fresh allocator of c's kind on
// whose machine every node was taken by a job of one node and the nodes of
// free outside away were released: the definition of a decision kept off
// away. got (the decision checked) names the nodes of the error message only.
func freshOn(t *testing.T, c occupyCase, free, away, got []int, k int) ([]int, error) {
	t.Helper()
	b, err := Parse(c.spec, c.m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := c.m.N()
	for range n {
		if _, err := b.Allocate(1); err != nil {
			t.Fatalf("%s: a fresh allocator refused a job of one node: %v", c.spec, err)
		}
	}
	for _, v := range free {
		if slices.Contains(away, v) {
			continue
		}
		if err := b.Release([]int{v}); err != nil {
			t.Fatalf("%s: a fresh allocator: releasing node %d: %v", c.spec, v, err)
		}
	}
	return b.Allocate(k)
}
