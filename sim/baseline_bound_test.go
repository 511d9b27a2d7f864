package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// machineDist is the distance the replay measures between nodes u and v.
func machineDist(m topo.Machine, u, v int) int64 {
	switch g := m.(type) {
	case *topo.Grid:
		return int64(g.Dist(u, v))
	case *topo.Graph:
		return int64(g.Dist(u, v))
	}
	panic("machine")
}

// bruteOptimum is the least total pairwise distance of k of the nodes free, over
// every subset.
func bruteOptimum(m topo.Machine, free []int, k int) int64 {
	best := int64(math.MaxInt64)
	idx := make([]int, 0, k)
	var walk func(from int, sum int64)
	walk = func(from int, sum int64) {
		if sum >= best {
			return
		}
		if len(idx) == k {
			best = sum
			return
		}
		for i := from; i <= len(free)-(k-len(idx)); i++ {
			add := int64(0)
			for _, j := range idx {
				add += machineDist(m, free[j], free[i])
			}
			idx = append(idx, i)
			walk(i+1, sum+add)
			idx = idx[:len(idx)-1]
		}
	}
	walk(0, 0)
	return best
}

// randomTreeFabric is a tree-like fabric of 2-3 switch levels with random links:
// often not a fat tree whose level costs are its distances.
func randomTreeFabric(rng *rand.Rand) (*topo.Graph, error) {
	f := topo.NewFabric()
	leaves := 2 + rng.IntN(5)
	mid := 1 + rng.IntN(3)
	hosts := 0
	for l := range leaves {
		if err := f.AddSwitch(fmt.Sprintf("l%d", l)); err != nil {
			return nil, err
		}
	}
	for l := range leaves {
		for range 1 + rng.IntN(3) {
			name := fmt.Sprintf("h%d", hosts)
			hosts++
			if err := f.AddHost(name); err != nil {
				return nil, err
			}
			if err := f.Link(name, fmt.Sprintf("l%d", l)); err != nil {
				return nil, err
			}
		}
	}
	for m := range mid {
		name := fmt.Sprintf("m%d", m)
		if err := f.AddSwitch(name); err != nil {
			return nil, err
		}
		for l := range leaves {
			if rng.IntN(2) == 0 || l%mid == m {
				if err := f.Link(name, fmt.Sprintf("l%d", l)); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := f.AddSwitch("top"); err != nil {
		return nil, err
	}
	for m := range mid {
		if m == 0 || rng.IntN(2) == 0 {
			if err := f.Link("top", fmt.Sprintf("m%d", m)); err != nil {
				return nil, err
			}
		}
	}
	return f.Graph()
}

// checkDecisions draws random free sets of m and random allocations from them and
// checks the baseline's decision against the brute-force optimum: the bound never
// above it, the best found never below it, and equal to it when proven (always when
// alwaysProven).
func checkDecisions(t *testing.T, name string, m topo.Machine, rng *rand.Rand, trials, maxFree int, alwaysProven bool) (proven int) {
	t.Helper()
	ctx := context.Background()
	for trial := range trials {
		bl, err := newBaseline(ctx, Config{Machine: m, Baseline: &Baseline{TimeLimit: 10 * time.Second}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Keep at most maxFree free nodes.
		perm := rng.Perm(m.N())
		nfree := 2 + rng.IntN(min(maxFree, m.N())-1)
		bl.take(perm[nfree:])
		free := perm[:nfree]
		k := 2 + rng.IntN(nfree-1)
		chosen := free[:k]
		var total int64
		for i, u := range chosen {
			for _, v := range chosen[i+1:] {
				total += machineDist(m, u, v)
			}
		}
		res, err := bl.solve(ctx, k, chosen, total)
		if err != nil {
			t.Fatalf("%s trial %d: %v", name, trial, err)
		}
		opt := bruteOptimum(m, free, k)
		if res.bound > opt || res.total < opt || res.total > total || res.bound < 0 {
			t.Fatalf("%s trial %d k %d of %d free: bound %d, best %d, optimum %d, allocation %d", name, trial, k, nfree, res.bound, res.total, opt, total)
		}
		if res.proven != (res.bound == res.total) || (res.proven && res.total != opt) {
			t.Fatalf("%s trial %d: %+v, optimum %d", name, trial, res, opt)
		}
		if alwaysProven && !res.proven {
			t.Fatalf("%s trial %d k %d: not proven (%+v, optimum %d)", name, trial, k, res, opt)
		}
		if k >= 2 && res.bound <= 0 {
			t.Fatalf("%s trial %d: no positive bound for k %d", name, trial, k)
		}
		if res.proven {
			proven++
		}
	}
	return proven
}

// Every kind of machine: thousands of random free sets against the brute-force
// optimum. Fat trees (merlin's) and meshes/tori small enough for the search are
// proven every time; dragonflies and irregular tree fabrics only bounded.
func TestBaselineBoundsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 32))
	trials := 1000
	for _, c := range []struct {
		spec   string
		free   int
		proven bool
	}{
		{"mesh:5x5", 12, true},
		{"torus:5x4", 12, true},
		{"torus:4x3x2", 12, true},
		{"torus:7", 7, true},
		{"fattree:2,2:2,2:3", 12, true},
		{"fattree:4,4:4,4:8", 12, true},
		{"fattree:3,2:4", 12, true},
		{"dragonfly:hosts_per_router=2,routers_per_group=3,intergroup_links=1,num_groups=4", 12, false},
		{"dragonfly:hosts_per_router=3,routers_per_group=2,intergroup_links=2,num_groups=3", 12, false},
	} {
		m, err := topo.ParseMachine(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		p := checkDecisions(t, c.spec, m, rng, trials, c.free, c.proven)
		t.Logf("%s: %d of %d proven", c.spec, p, trials)
	}
	// A dragonfly file whose hosts and switches are numbered at random: the
	// hierarchy takes the routers topo recognised, not host / hosts per router.
	df, err := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=3,intergroup_links=1,num_groups=4")
	if err != nil {
		t.Fatal(err)
	}
	dg := df.(*topo.Graph)
	hostOrder, swOrder := rng.Perm(dg.N()), rng.Perm(dg.Vertices()-dg.N())
	var b strings.Builder
	for _, h := range hostOrder {
		fmt.Fprintf(&b, "%%node %s\n", dg.Name(h))
	}
	for _, s := range swOrder {
		fmt.Fprintf(&b, "%%switch %s\n", dg.Name(dg.N()+s))
	}
	var nb []int
	for v := range dg.Vertices() {
		for _, w := range dg.Neighbors(v, nb[:0]) {
			if v < w {
				fmt.Fprintf(&b, "%s %s\n", dg.Name(v), dg.Name(w))
			}
		}
	}
	f, err := topo.ReadGraph(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Dragonfly(); !ok {
		t.Fatalf("the randomly numbered dragonfly is not recognised: %s", f.DragonflyReason())
	}
	checkDecisions(t, "dragonfly numbered at random", f, rng, trials, 12, false)
	// Irregular tree fabrics: the hierarchy is a bound; exact when its check passes.
	fabrics, exactOnes, proven := 0, 0, 0
	for fabrics < 60 {
		g, err := randomTreeFabric(rng)
		if err != nil {
			t.Fatal(err)
		}
		if _, reason := g.TreeLevels(); reason != "" || !g.Connected() || g.N() < 3 {
			continue
		}
		fabrics++
		hb, err := newHierBaseline(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if hb.exact {
			exactOnes++
		}
		proven += checkDecisions(t, g.Spec(), g, rng, 30, 10, hb.exact)
	}
	t.Logf("irregular tree fabrics: %d of %d with exact level costs, %d of %d decisions proven", exactOnes, fabrics, proven, 30*fabrics)
	if exactOnes == 0 || exactOnes == fabrics {
		t.Errorf("the random fabrics should include both kinds: %d of %d exact", exactOnes, fabrics)
	}
}

// A replay with the baseline bounds every decision on every kind of machine: the
// ratio interval holds the proven ratio, the fields add up, and the summary's bounded
// fraction is 1.
func TestBaselineEveryDecisionBounded(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "torus:8x8", "torus:4x4x4", "fattree:4,4:4,4:4", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=8"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		a, err := alloc.Parse("bf:rcm", m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		jobs := randomJobs(rand.New(rand.NewPCG(3, 7)), 80, m.N()/3)
		r, err := Run(context.Background(), jobs, Config{Machine: m, Alloc: a, Baseline: &Baseline{TimeLimit: 200 * time.Millisecond}})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		proven := 0
		for _, j := range r.PerJob {
			if !j.OptBounded || j.OptLowerBound > j.OptTotalL1 || j.OptTotalL1 > j.TotalL1 {
				t.Fatalf("%s job %d: %+v", spec, j.ID, j)
			}
			if j.OptProven {
				proven++
				if j.OptLowerBound != j.OptTotalL1 || math.Abs(j.RatioUpper-j.RatioToOptimal) > 1e-12 {
					t.Fatalf("%s job %d: proven, bound %d, optimum %d, ratios %v %v", spec, j.ID, j.OptLowerBound, j.OptTotalL1, j.RatioUpper, j.RatioToOptimal)
				}
			}
		}
		s := r.Summary
		if *s.BaselineBounded != 1 || *s.BaselineDecisions != len(jobs) || *s.BaselineProvenDecisions != proven ||
			*s.MeanRatioToOptimalLower < 1 || *s.MeanRatioToOptimalUpper < *s.MeanRatioToOptimalLower {
			t.Fatalf("%s: bounded %v, decisions %v, proven %v (%d), ratio %v .. %v", spec, *s.BaselineBounded, *s.BaselineDecisions,
				*s.BaselineProvenDecisions, proven, *s.MeanRatioToOptimalLower, *s.MeanRatioToOptimalUpper)
		}
		for _, z := range s.BySize {
			if z.BaselineBounded == nil || *z.BaselineBounded != 1 || *z.MeanRatioToOptimalUpper < *z.MeanRatioToOptimalLower {
				t.Fatalf("%s size %d: %+v", spec, z.Procs, z)
			}
		}
		t.Logf("%s: %d of %d proven, ratio %.4f .. %.4f", spec, proven, len(jobs), *s.MeanRatioToOptimalLower, *s.MeanRatioToOptimalUpper)
	}
}

// A bound above an allocation is an error, never a certificate: a fat tree whose
// level costs are doubled, and a grid bound table raised above the truth.
func TestBaselineBoundAboveAllocationIsAnError(t *testing.T) {
	ctx := context.Background()
	m, err := topo.ParseMachine("fattree:4,4:4,4:8")
	if err != nil {
		t.Fatal(err)
	}
	bl, err := newBaseline(ctx, Config{Machine: m, Baseline: &Baseline{TimeLimit: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	for l := range bl.hier.h.PairCost {
		bl.hier.h.PairCost[l] *= 2
	}
	chosen := []int{0, 1, 2}
	if _, err := bl.solve(ctx, 3, chosen, 6); err == nil || !strings.Contains(err.Error(), "above") {
		t.Errorf("fat tree with doubled costs: %v", err)
	}
	g := topo.Mesh(6, 6)
	bl, err = newBaseline(ctx, Config{Machine: g, Baseline: &Baseline{TimeLimit: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	bl.grid.bound[4] = 100
	if _, err := bl.solve(ctx, 4, []int{0, 1, 6, 7}, 8); err == nil || !strings.Contains(err.Error(), "above") {
		t.Errorf("grid with a false bound: %v", err)
	}
}
