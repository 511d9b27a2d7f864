package alloc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// textOf writes g as ReadGraph's text, its hosts declared in the order perm gives
// (perm[i] the old index of new host i; nil keeps g's order).
func textOf(g *topo.Graph, perm []int) string {
	var b strings.Builder
	if perm == nil {
		perm = make([]int, g.N())
		for i := range perm {
			perm[i] = i
		}
	}
	for _, v := range perm {
		fmt.Fprintf(&b, "%%node %s\n", g.Name(v))
	}
	var nb []int
	for v := range g.Vertices() {
		if g.IsSwitch(v) {
			fmt.Fprintf(&b, "%%switch %s\n", g.Name(v))
		}
	}
	for v := range g.Vertices() {
		nb = g.Neighbors(v, nb[:0])
		for _, w := range nb {
			if v < w {
				fmt.Fprintf(&b, "%s %s\n", g.Name(v), g.Name(w))
			}
		}
	}
	return b.String()
}

func readText(t *testing.T, text string) *topo.Graph {
	t.Helper()
	g, err := topo.ReadGraph(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// irregularGraph is a random network: switches in a random connected mesh of links,
// hosts on one switch (most), on two switches, on a switch and a host, or on one
// host only, declared in a random order; with split, a second component with hosts of its own.
func irregularGraph(rng *rand.Rand, split bool) string {
	var b strings.Builder
	ns, nh := 2+rng.IntN(8), 4+rng.IntN(30)
	for _, i := range rng.Perm(nh) { // host indices in a random order
		fmt.Fprintf(&b, "%%node h%d\n", i)
	}
	for i := range ns {
		fmt.Fprintf(&b, "%%switch s%d\n", i)
	}
	comp := ns
	if split {
		comp = max(1, ns/2)
	}
	linked := map[string]bool{}
	link := func(x, y string) {
		if x > y {
			x, y = y, x
		}
		if x != y && !linked[x+" "+y] {
			linked[x+" "+y] = true
			fmt.Fprintf(&b, "%s %s\n", x, y)
		}
	}
	sw := func(i int) string { return fmt.Sprintf("s%d", i) }
	for i := 1; i < ns; i++ { // a spanning tree of each component, then chords
		lo := 0
		if i >= comp {
			lo = comp
		}
		if i > lo {
			link(sw(lo+rng.IntN(i-lo)), sw(i))
		}
	}
	for range rng.IntN(ns + 1) {
		x, y := rng.IntN(ns), rng.IntN(ns)
		if (x < comp) == (y < comp) {
			link(sw(x), sw(y))
		}
	}
	for i := range nh {
		h := fmt.Sprintf("h%d", i)
		if rng.IntN(8) == 0 && i > 0 { // pendant on a host
			link(fmt.Sprintf("h%d", rng.IntN(i)), h)
			continue
		}
		s := rng.IntN(ns)
		link(h, sw(s))
		switch r := rng.IntN(10); {
		case r == 0: // a second switch of the same component
			if s2 := rng.IntN(ns); (s < comp) == (s2 < comp) {
				link(h, sw(s2))
			}
		case r == 1 && i > 0: // a host link
			link(fmt.Sprintf("h%d", rng.IntN(i)), h)
		}
	}
	return b.String()
}

// decideAsPlain makes free (ascending) a's free hosts, then one decision of k, and
// fails unless it takes the node set of the definition (plainGraphGenAlg).
func decideAsPlain(t *testing.T, a *graphGenAlg, g *topo.Graph, free []int, k int, what string) {
	t.Helper()
	busy := make([]int, 0, g.N())
	for v := range g.N() {
		if _, ok := slices.BinarySearch(free, v); !ok {
			busy = append(busy, v)
		}
	}
	a.st = NewState(g.N())
	if err := a.st.Take(busy); err != nil {
		t.Fatal(err)
	}
	want := plainGraphGenAlg(g, free, k)
	got, err := a.Allocate(k)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !slices.Equal(got, want) {
		if len(free) > 64 {
			t.Fatalf("%s: %d free, k = %d: got %v, the definition %v", what, len(free), k, got, want)
		}
		t.Fatalf("%s: free %v, k = %d: got %v, the definition %v", what, free, k, got, want)
	}
}

// graphsOf parses the machine specs (networks), keyed by spec.
func graphsOf(t *testing.T, specs ...string) map[string]*topo.Graph {
	t.Helper()
	ms := map[string]*topo.Graph{}
	for _, spec := range specs {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(spec, err)
		}
		ms[spec] = m.(*topo.Graph)
	}
	return ms
}

// genalgMachines are the small networks the cross-checks run on.
func genalgMachines(t *testing.T, rng *rand.Rand) map[string]*topo.Graph {
	ms := graphsOf(t,
		"fattree:4,2:4", "fattree:3,3:5", "fattree:4,4:4,4:4", "fattree:2,2:3,3:4", "fattree:3,2:2,2:3",
		"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5",
		"dragonfly:hosts_per_router=3,routers_per_group=3,intergroup_links=2,num_groups=4",
		"dragonfly:hosts_per_router=1,routers_per_group=5,intergroup_links=1,num_groups=6")
	// A dragonfly and a fat tree read from a file, their hosts declared in a random
	// order (the dragonfly keeps its recognised layout: PairDistSum's closed form).
	df := ms["dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5"]
	g := readText(t, textOf(df, nil))
	if _, ok := g.Dragonfly(); !ok {
		t.Fatal("the dragonfly read from a file is not recognised")
	}
	ms["dragonfly file"] = g
	ms["dragonfly file, hosts shuffled"] = readText(t, textOf(df, rng.Perm(df.N())))
	ft := ms["fattree:3,3:5"]
	ms["fat tree file, hosts shuffled"] = readText(t, textOf(ft, rng.Perm(ft.N())))
	for i := range 6 {
		ms[fmt.Sprintf("irregular %d", i)] = readText(t, irregularGraph(rng, false))
	}
	ms["irregular, two components"] = readText(t, irregularGraph(rng, true))
	hosts, err := topo.NewGraphFromEdges(7, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 4}, {4, 5}, {5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	ms["hosts only"] = hosts
	return ms
}

// randomFreeHosts returns a random free set of g's hosts in one of several shapes: every
// host, one host per anchor (leaf switch, router), a few hosts, or a random share.
func randomFreeHosts(rng *rand.Rand, g *topo.Graph) []int {
	n := g.N()
	var free []int
	switch rng.IntN(6) {
	case 0:
		for v := range n {
			free = append(free, v)
		}
	case 1: // one per switch neighbour set: the first host seen on each anchor
		seen := map[int]bool{}
		var nb []int
		for _, v := range rng.Perm(n) {
			nb = g.Neighbors(v, nb[:0])
			a := v
			if len(nb) == 1 {
				a = nb[0]
			}
			if !seen[a] {
				seen[a] = true
				free = append(free, v)
			}
		}
	case 2:
		free = rng.Perm(n)[:1+rng.IntN(min(n, 3))]
	default:
		p := rng.Float64()
		for v := range n {
			if rng.Float64() < p {
				free = append(free, v)
			}
		}
		if len(free) == 0 {
			free = append(free, rng.IntN(n))
		}
	}
	slices.Sort(free)
	return free
}

// TestGraphGenAlgMatchesPlain: on fat trees of 2 and 3 levels, dragonflies (one read
// from a file, one with its hosts renumbered), a fat tree from a file and irregular
// networks (hosts on two switches, host-host links, two components), the decision is
// the node set of the definition (plainGraphGenAlg) on thousands of random free sets
// and k: every host free, one per anchor, k = 1 and k = the free count included.
func TestGraphGenAlgMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 24))
	ms := genalgMachines(t, rng)
	names := make([]string, 0, len(ms))
	for name := range ms {
		names = append(names, name)
	}
	slices.Sort(names)
	trials := 250
	if testing.Short() {
		trials = 120
	}
	total := 0
	for _, name := range names {
		g := ms[name]
		a := newGraphGenAlg(g)
		for trial := range trials {
			free := randomFreeHosts(rng, g)
			var k int
			switch rng.IntN(4) {
			case 0:
				k = 1
			case 1:
				k = len(free)
			default:
				k = 1 + rng.IntN(len(free))
			}
			decideAsPlain(t, a, g, free, k, fmt.Sprintf("%s trial %d", name, trial))
			total++
		}
	}
	t.Logf("%d decisions on %d networks", total, len(names))
}

// TestGraphGenAlgSequence: a stream of allocations and releases on a fat tree and a
// dragonfly, each decision the definition's on the free set it meets.
func TestGraphGenAlgSequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, spec := range []string{"fattree:4,4:4,4:4", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=2,num_groups=5"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		a, err := Parse("genalg", g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var jobs [][]int
		for step := range 300 {
			if len(jobs) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(jobs))
				if err := a.Release(jobs[i]); err != nil {
					t.Fatal(err)
				}
				jobs = slices.Delete(jobs, i, i+1)
				continue
			}
			k := 1 + rng.IntN(12)
			if k > a.NumFree() {
				continue
			}
			free := a.(*graphGenAlg).st.AppendFree(nil)
			want := plainGraphGenAlg(g, free, k)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s step %d: k = %d got %v, the definition %v", spec, step, k, got, want)
			}
			jobs = append(jobs, got)
		}
	}
}

// TestGraphGenAlgCancelled: a decision under an ended context returns its cause and
// leaves the state as it was, on a network whose hop index is built and on one whose
// is not yet.
func TestGraphGenAlgCancelled(t *testing.T) {
	for _, spec := range []string{"fattree:8,8:8,8:16", "dragonfly:hosts_per_router=4,routers_per_group=8,intergroup_links=2,num_groups=9"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		for _, warm := range []bool{false, true} {
			a := newGraphGenAlg(g)
			if warm {
				first, err := a.Allocate(5)
				if err != nil {
					t.Fatal(err)
				}
				if err := a.Release(first[:2]); err != nil {
					t.Fatal(err)
				}
			}
			before := a.st.AppendFree(nil)
			cause := errors.New("stop here")
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(cause)
			got, err := a.AllocateContext(ctx, 7)
			if !errors.Is(err, cause) || got != nil {
				t.Fatalf("%s (warm %v): AllocateContext under an ended context = %v, %v; want the cause", spec, warm, got, err)
			}
			if after := a.st.AppendFree(nil); !slices.Equal(before, after) {
				t.Fatalf("%s (warm %v): the free set changed: %d free before, %d after", spec, warm, len(before), len(after))
			}
		}
	}
}

// TestGraphGenAlgMatchesPlainWithoutTable: on a dragonfly of 4,160 routers (more
// than the hop index's key table takes: rows in closed form), a few decisions on
// random free sets are the definition's.
func TestGraphGenAlgMatchesPlainWithoutTable(t *testing.T) {
	if testing.Short() {
		t.Skip("the definition costs seconds a decision at 4,160 hosts")
	}
	m, err := topo.ParseMachine("dragonfly:hosts_per_router=1,routers_per_group=65,intergroup_links=1,num_groups=64")
	if err != nil {
		t.Fatal(err)
	}
	g := m.(*topo.Graph)
	rng := rand.New(rand.NewPCG(11, 12))
	a := newGraphGenAlg(g)
	for trial, k := range []int{1, 7, 300} {
		var free []int
		for v := range g.N() {
			if rng.IntN(3) != 0 {
				free = append(free, v)
			}
		}
		decideAsPlain(t, a, g, free, k, fmt.Sprintf("trial %d", trial))
	}
}

// TestGraphGenAlgStopsAtEveryLook: a decision stopped at any of the places it looks
// at its context (the rows, the keys, the anchors' jobs) returns context.Canceled
// and leaves the free set as it was; let run, it makes the definition's choice.
func TestGraphGenAlgStopsAtEveryLook(t *testing.T) {
	defer func(w int) { genalgCtxWork = w }(genalgCtxWork)
	genalgCtxWork = 1 // a look at every key and anchor
	// (a fat tree built, a dragonfly, a fat tree read from a file)
	for _, spec := range []string{"fattree:8,8:8,8:16", "dragonfly:hosts_per_router=4,routers_per_group=8,intergroup_links=2,num_groups=17", "file:fattree:4,4:4,4:4,4:3"} {
		inner, file := strings.CutPrefix(spec, "file:")
		m, err := topo.ParseMachine(inner)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Graph)
		if file { // in its order: class jobs from counts, the winner listed after
			g = readText(t, textOf(g, nil))
		}
		if err := g.BuildHopIndex(context.Background()); err != nil { // its looks are not the decision's
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		var free, busy []int
		for v := range g.N() {
			if rng.IntN(2) == 0 {
				busy = append(busy, v)
			} else {
				free = append(free, v)
			}
		}
		for _, k := range []int{3, 40, len(free) / 2} {
			fresh := func() *graphGenAlg {
				a := newGraphGenAlg(g)
				if err := a.st.Take(busy); err != nil {
					t.Fatal(err)
				}
				return a
			}
			counting := ctxtest.NewCounting()
			want, err := fresh().AllocateContext(counting, k)
			if err != nil {
				t.Fatal(err)
			}
			if plain := plainGraphGenAlg(g, free, k); !slices.Equal(want, plain) {
				t.Fatalf("%s k = %d: %v, the definition %v", spec, k, want, plain)
			}
			looks := counting.Looks()
			if looks < 3 {
				t.Fatalf("%s k = %d: the decision looked at its context %d times", spec, k, looks)
			}
			for at, ctx := range ctxtest.Stops(looks, 40) {
				a := fresh()
				got, err := a.AllocateContext(ctx, k)
				if !errors.Is(err, context.Canceled) || got != nil {
					t.Fatalf("%s k = %d, stopped at look %d of %d: %v, %v", spec, k, at, looks, got, err)
				}
				if now := a.st.AppendFree(nil); !slices.Equal(now, free) {
					t.Fatalf("%s k = %d, stopped at look %d: %d free, want %d", spec, k, at, len(now), len(free))
				}
			}
		}
	}
}

// TestGraphGenAlgByCountsMatchesPlain: the decisions scored from counts (a built fat
// tree's groups, a dragonfly's routers) against the definition where they differ
// most from listing: k from a leaf's or router's hosts up to all free hosts but
// one, with every host free, whole leaves or routers free (many anchors and groups
// tied), all but a few hosts free, or a random share; on fat trees of 3 and 4
// levels and dragonflies, one read from a file with its hosts shuffled (hosts of a
// router not consecutive: the merge and the walk of the free list).
func TestGraphGenAlgByCountsMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 7))
	ms := graphsOf(t,
		"fattree:4,4:4,4:4,4:3", "fattree:6,3:4,2:5",
		"dragonfly:hosts_per_router=4,routers_per_group=8,intergroup_links=2,num_groups=12",
		"dragonfly:hosts_per_router=3,routers_per_group=4,intergroup_links=1,num_groups=9")
	df := ms["dragonfly:hosts_per_router=3,routers_per_group=4,intergroup_links=1,num_groups=9"]
	ms["dragonfly file, hosts shuffled"] = readText(t, textOf(df, rng.Perm(df.N())))
	// Fat trees read from a file in their order (a pod's hosts consecutive: class
	// jobs scored from counts, classCount) and shuffled (listed and scored).
	for _, spec := range []string{"fattree:4,4:4,4:4,4:3", "fattree:6,3:4,2:5"} {
		ft := ms[spec]
		ms[spec+" file"] = readText(t, textOf(ft, nil))
		ms[spec+" file, hosts shuffled"] = readText(t, textOf(ft, rng.Perm(ft.N())))
	}
	names := slices.Sorted(maps.Keys(ms))
	trials := 60
	if testing.Short() {
		trials = 25
	}
	for _, name := range names {
		g := ms[name]
		n := g.N()
		anchor, per := hostAnchors(g) // a host's leaf switch or router; hosts on host 0's
		a := newGraphGenAlg(g)
		for trial := range trials {
			var free []int
			switch trial % 4 {
			case 0:
				for v := range n {
					free = append(free, v)
				}
			case 1: // whole anchors
				on := map[int]bool{}
				for v := range n {
					if _, seen := on[anchor[v]]; !seen {
						on[anchor[v]] = rng.IntN(3) > 0
					}
					if on[anchor[v]] {
						free = append(free, v)
					}
				}
			case 2:
				free = allButAFew(rng, n, 6)
			default:
				free = randomShare(rng, n, 0.3+0.7*rng.Float64())
			}
			if len(free) < 2 {
				continue
			}
			f := len(free)
			k := []int{min(per, f-1), min(per+1, f-1), min(2*per+rng.IntN(per), f-1), max(1, f/4+rng.IntN(f/2+1)), f - 1}[rng.IntN(5)]
			decideAsPlain(t, a, g, free, k, fmt.Sprintf("%s trial %d", name, trial))
		}
	}
}

// TestGraphGenAlgDragonflyCutoffBuckets: on dragonflies of 192 and 160 routers (3
// buckets of 64 keys each in routerJob's cutoff), built, read from a file in order
// (keys ascending with the hosts: the bucket walk) and with the hosts shuffled (the
// merge), with k past a group's hosts (the cutoff among the routers two hops away
// or farther), half the free hosts or all but a few, and uneven free counts (whole
// routers free or busy: tied routers; routers all free, all busy or a random share),
// the decision is the definition's. Walking the buckets from the last fails it
// alone.
func TestGraphGenAlgDragonflyCutoffBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 12))
	ms := graphsOf(t,
		"dragonfly:hosts_per_router=2,routers_per_group=8,intergroup_links=1,num_groups=24",
		"dragonfly:hosts_per_router=1,routers_per_group=16,intergroup_links=1,num_groups=10")
	for _, spec := range slices.Sorted(maps.Keys(ms)) {
		g := ms[spec]
		ms[spec+" file"] = readText(t, textOf(g, nil))
		ms[spec+" file, hosts shuffled"] = readText(t, textOf(g, rng.Perm(g.N())))
	}
	trials := 16
	if testing.Short() {
		trials = 6
	}
	for _, name := range slices.Sorted(maps.Keys(ms)) {
		g := ms[name]
		n := g.N()
		sh, ok := g.Dragonfly()
		if !ok {
			t.Fatalf("%s: not recognised as a dragonfly", name)
		}
		router, _ := hostAnchors(g)
		a := newGraphGenAlg(g)
		for trial := range trials {
			share := make(map[int]float64) // per router: the chance each of its hosts is free
			var free []int
			for v := range n {
				r := router[v]
				p, seen := share[r]
				if !seen {
					switch trial % 3 {
					case 0: // whole routers free or busy
						p = float64(rng.IntN(2))
					case 1:
						p = []float64{0, 1, rng.Float64()}[rng.IntN(3)]
					default:
						p = 0.2 + 0.8*rng.Float64()
					}
					share[r] = p
				}
				if rng.Float64() < p {
					free = append(free, v)
				}
			}
			if len(free) < 4 {
				continue
			}
			f := len(free)
			for _, k := range []int{
				min(f-1, sh.HostsPerRouter*sh.RoutersPerGroup+1+rng.IntN(f/2+1)),
				max(1, f/2+rng.IntN(f/3+1)),
				max(1, f-1-rng.IntN(max(1, f/8))),
			} {
				decideAsPlain(t, a, g, free, k, fmt.Sprintf("%s trial %d", name, trial))
			}
		}
	}
}

// TestGraphGenAlgClassCountIsListed: on fat trees read from a file in their order
// (classCounts), every key's class job scored from counts (classCount) has the
// score of the same job listed and scored host by host (PairDistSum), on random
// free sets and k past a pod's free hosts; and at least one class job a decision
// is scored from counts.
func TestGraphGenAlgClassCountIsListed(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 25))
	ctx := context.Background()
	for _, spec := range []string{"fattree:4,4:4,4:4,4:3", "fattree:6,3:4,2:5", "fattree:2,2:3,3:4"} {
		ft := graphsOf(t, spec)[spec]
		g := readText(t, textOf(ft, nil))
		a := newGraphGenAlg(g)
		counted := 0
		for trial := range 40 {
			free := randomFreeHosts(rng, g)
			if len(free) < 3 {
				continue
			}
			k := 1 + rng.IntN(len(free)-1)
			decideAsPlain(t, a, g, free, k, fmt.Sprintf("%s file trial %d", spec, trial))
			if !a.classCounts {
				t.Fatalf("%s file: not scored from counts", spec)
			}
			// The same free set, every key's job both ways.
			if err := a.st.Release(a.best); err != nil {
				t.Fatal(err)
			}
			a.group()
			poll := func(int) error { return nil }
			err := a.hk.Rows(ctx, a.keys, func(i int, row []int32) {
				x := a.keys[i]
				a.dist = a.dist[:0]
				for _, y := range a.keys {
					a.dist = append(a.dist, row[y])
				}
				a.bestCenter, a.bestLazy = -1, false
				if err := a.decideKey(x, a.keys, a.dist, -1, k, poll); err != nil {
					t.Fatal(err)
				}
				if !a.bestLazy {
					return // not a class job, or not from counts
				}
				counted++
				fromCounts := a.bestScore
				a.listing, a.bestCenter = true, -1
				if err := a.decideKey(x, a.keys, a.dist, -1, k, poll); err != nil {
					t.Fatal(err)
				}
				a.listing = false
				if a.bestScore != fromCounts {
					t.Fatalf("%s file trial %d, key %d, k = %d: %d from counts, %d listed (%v)", spec, trial, x, k, fromCounts, a.bestScore, a.best)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if counted == 0 {
			t.Fatalf("%s file: no class job scored from counts", spec)
		}
	}
}

// TestGraphGenAlgDragonflySmallK: decideRouters's cuts (routers skipped by their
// bound, or by it raised past the first ring; candidates walked to distance 1 only) against the definition on
// small dragonflies, built and read from a file with the hosts shuffled (centers
// not ascending with the routers: the bound's tie rule), every k from 1 to a few
// routers' hosts, on free sets of whole routers free or busy, of routers holding
// one of two free counts (many routers tied), of one router all free and the others
// fewer (the most on another router than the one at hand), all free but a few
// hosts, and a random share. It fails unless each path (skipped, skipped past the first ring, distance 1,
// distance 2) was taken at least 100 times.
func TestGraphGenAlgDragonflySmallK(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 256))
	ms := graphsOf(t,
		"dragonfly:hosts_per_router=4,routers_per_group=4,intergroup_links=1,num_groups=5",
		"dragonfly:hosts_per_router=3,routers_per_group=6,intergroup_links=2,num_groups=7",
		"dragonfly:hosts_per_router=2,routers_per_group=3,intergroup_links=1,num_groups=4")
	for _, spec := range slices.Sorted(maps.Keys(ms)) {
		g := ms[spec]
		ms[spec+" file, hosts shuffled"] = readText(t, textOf(g, rng.Perm(g.N())))
	}
	trials := 20
	if testing.Short() {
		trials = 10
	}
	var skipped, skipped1, ring1, ring2 int
	for _, name := range slices.Sorted(maps.Keys(ms)) {
		g := ms[name]
		n := g.N()
		router, per := hostAnchors(g)
		a := newGraphGenAlg(g)
		for trial := range trials {
			var free []int
			switch trial % 5 {
			case 0, 1, 4: // whole routers free or busy; each router free up to one of two counts; or one router free, the others fewer
				want := map[int]int{}
				c1, c2 := 1+rng.IntN(per), 1+rng.IntN(per)
				if trial%5 == 0 {
					c1, c2 = per, 0
				}
				if trial%5 == 4 {
					want[router[rng.IntN(n)]] = per
				}
				for _, v := range rng.Perm(n) {
					r := router[v]
					if _, ok := want[r]; !ok {
						want[r] = []int{c1, c2, 0}[rng.IntN(3)]
						if trial%5 == 4 {
							want[r] = rng.IntN(per)
						}
					}
					if want[r] > 0 {
						want[r]--
						free = append(free, v)
					}
				}
			case 2:
				free = allButAFew(rng, n, 4)
			default:
				free = randomShare(rng, n, 0.2+0.8*rng.Float64())
			}
			slices.Sort(free)
			for k := 1; k <= min(len(free)-1, 4*per+2); k++ {
				decideAsPlain(t, a, g, free, k, fmt.Sprintf("%s trial %d", name, trial))
			}
		}
		skipped, skipped1 = skipped+a.dfSkipped, skipped1+a.dfSkipped1
		ring1, ring2 = ring1+a.dfRing1, ring2+a.dfRing2
	}
	t.Logf("routers skipped %d, skipped past the first ring %d, walked to distance 1 %d, to 2 %d", skipped, skipped1, ring1, ring2)
	if skipped < 100 || skipped1 < 100 || ring1 < 100 || ring2 < 100 {
		t.Fatalf("routers skipped %d, skipped past the first ring %d, walked to distance 1 %d, to 2 %d: want at least 100 each", skipped, skipped1, ring1, ring2)
	}
}

// TestGraphGenAlgRouterBound: decideRouters's bounds (routerBound, without and
// with the first ring's free hosts) are at most the score of the candidate of
// every free host as center (the definition's: the free hosts by distance and
// index, the first k scored by PairDistSum), on small dragonflies, every k from 1
// to four routers' hosts, free sets of whole routers (sparse and dense) and random
// shares; and each bound equals the score in at least 50 cases (a bound one too
// high fails).
func TestGraphGenAlgRouterBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 99))
	ms := graphsOf(t,
		"dragonfly:hosts_per_router=3,routers_per_group=4,intergroup_links=1,num_groups=5",
		"dragonfly:hosts_per_router=2,routers_per_group=6,intergroup_links=2,num_groups=7")
	var tight, tight1 int
	for _, name := range slices.Sorted(maps.Keys(ms)) {
		g := ms[name]
		n := g.N()
		router, _ := hostAnchors(g)
		for trial := range 12 {
			var free []int
			on := map[int]bool{}
			share := []float64{0.15, 0.4, 0.8}[trial%3]
			for v := range n {
				if _, seen := on[router[v]]; !seen {
					on[router[v]] = rng.Float64() < share
				}
				if on[router[v]] && (trial%2 == 0 || rng.IntN(4) > 0) {
					free = append(free, v)
				}
			}
			cnt, host := map[int]int64{}, map[int]int{} // per router: free hosts, one of them
			for _, v := range free {
				cnt[router[v]]++
				host[router[v]] = v
			}
			per := 0
			for v := range n {
				if router[v] == router[0] {
					per++
				}
			}
			var cand []int64
			for k := 1; k <= min(len(free), 4*per); k++ {
				for _, c := range free {
					cand = cand[:0]
					for _, v := range free {
						cand = append(cand, int64(g.Dist(c, v))<<32|int64(v))
					}
					slices.Sort(cand)
					set := make([]int, k)
					for i, key := range cand[:k] {
						set[i] = int(key & (1<<32 - 1))
					}
					s, _ := g.PairDistSum(set)
					x := router[c]
					var fo, c1 int64
					for r, m := range cnt {
						if r != x {
							fo = max(fo, m)
							if g.Dist(c, host[r]) == 3 { // a router one hop from x
								c1 += m
							}
						}
					}
					lb := routerBound(int64(k), cnt[x], fo, -1)
					lb1 := routerBound(int64(k), cnt[x], fo, c1)
					if lb > s || lb1 > s {
						t.Fatalf("%s: free %v, k = %d, center %d: bounds %d, %d past the score %d", name, free, k, c, lb, lb1, s)
					}
					if lb == s {
						tight++
					}
					if lb1 == s && int64(k)-cnt[x] > c1 {
						tight1++
					}
				}
			}
		}
	}
	t.Logf("bounds equal to the score: %d, past the first ring %d", tight, tight1)
	if tight < 50 || tight1 < 50 {
		t.Fatalf("bounds equal to the score: %d, past the first ring %d: want at least 50 each", tight, tight1)
	}
}

// allButAFew is the nodes 0..n-1 but 1 to most of them drawn at random (a
// draw may repeat), in order.
func allButAFew(rng *rand.Rand, n, most int) []int {
	out := map[int]bool{}
	for range 1 + rng.IntN(most) {
		out[rng.IntN(n)] = true
	}
	var free []int
	for v := range n {
		if !out[v] {
			free = append(free, v)
		}
	}
	return free
}

// randomShare is each of the nodes 0..n-1 with probability p, in order.
func randomShare(rng *rand.Rand, n int, p float64) []int {
	var free []int
	for v := range n {
		if rng.Float64() < p {
			free = append(free, v)
		}
	}
	return free
}

// hostAnchors is each host's anchor (its one neighbour: a leaf switch or a
// router) of a network whose hosts all hang on one, and the number of hosts on
// host 0's.
func hostAnchors(g *topo.Graph) (anchor []int, per int) {
	var nb []int
	anchor = make([]int, g.N())
	for v := range anchor {
		anchor[v] = g.Neighbors(v, nb[:0])[0]
	}
	for v := range anchor {
		if anchor[v] == anchor[0] {
			per++
		}
	}
	return anchor, per
}
