package alloc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

func slurmNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i+1)
	}
	return names
}

func newSlurmT(t *testing.T, n int, weights []uint32, tree string) *SlurmAllocator {
	t.Helper()
	m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
	if err != nil {
		t.Fatal(err)
	}
	cfg := SlurmConfig{Names: slurmNames(n), Weights: weights}
	if tree != "" {
		if cfg.Tree, err = slurm.ParseTree(strings.NewReader(tree)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := NewSlurm(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// occupy marks the 1-based nodes busy.
func occupy(t *testing.T, a *SlurmAllocator, nodes ...int) {
	t.Helper()
	for i := range nodes {
		nodes[i]--
	}
	if err := a.Occupy(nodes); err != nil {
		t.Fatal(err)
	}
}

func oneBased(nodes []int) []int {
	out := make([]int, len(nodes))
	for i, v := range nodes {
		out[i] = v + 1
	}
	return out
}

// TestSlurmConsecHand checks _eval_nodes' rules on hand-made free maps: the tightest
// run that fits (earliest of equal runs), else the largest and repeat; lower weights
// first, taken whole.
func TestSlurmConsecHand(t *testing.T) {
	// n1..n16, busy 3, 7, 9, 14: free runs 1-2, 4-6, 8, 10-13, 15-16.
	cases := []struct {
		k    int
		want []int
	}{
		{1, []int{8}},                             // the only run of exactly 1
		{2, []int{1, 2}},                          // runs 1-2 and 15-16 fit exactly: the earlier
		{3, []int{4, 5, 6}},                       // tightest fit
		{4, []int{10, 11, 12, 13}},                // tightest fit
		{5, []int{8, 10, 11, 12, 13}},             // none fits: largest (10-13), then 1 more: run 8
		{7, []int{4, 5, 6, 10, 11, 12, 13}},       // largest, then 3 more: run 4-6 fits exactly
		{9, []int{1, 2, 4, 5, 6, 10, 11, 12, 13}}, // 10-13, then largest 4-6, then 1-2 (earlier exact fit)
	}
	for _, c := range cases {
		a := newSlurmT(t, 16, nil, "")
		occupy(t, a, 3, 7, 9, 14)
		got, err := a.Allocate(c.k)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(oneBased(got), c.want) {
			t.Errorf("k=%d: got %v, want %v", c.k, oneBased(got), c.want)
		}
	}
	// Weights: 1 1 2 2 1 1 1 2 (n1..n8). k=6: the weight-1 runs (1-2, 5-7) are taken
	// whole, then one node of weight 2: the run of exactly one (n8), not n3.
	a := newSlurmT(t, 8, []uint32{1, 1, 2, 2, 1, 1, 1, 2}, "")
	got, err := a.Allocate(6)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 5, 6, 7, 8}; !slices.Equal(oneBased(got), want) {
		t.Errorf("weights: got %v, want %v", oneBased(got), want)
	}
	// A lower weight wins even when its run is too small and a higher one fits: k=2
	// on weights 5 1 5 5 takes n2 and then the tightest weight-5 run (n3-n4 has 2,
	// n1 has 1: rem 1 fits n1 exactly).
	a = newSlurmT(t, 4, []uint32{5, 1, 5, 5}, "")
	if got, _ = a.Allocate(2); !slices.Equal(oneBased(got), []int{1, 2}) {
		t.Errorf("lower weight first: got %v, want [1 2]", oneBased(got))
	}
}

// slurmConsecRef is the consec rule restated as a sort: the best run is the least by
// (weight, not sufficient, size if sufficient else -size, start).
func slurmConsecRef(free []bool, w []uint32, k int) []int {
	type run struct{ start, n, w int }
	var runs []run
	for i := range free {
		if !free[i] {
			continue
		}
		if l := len(runs) - 1; l >= 0 && runs[l].start+runs[l].n == i && runs[l].w == int(w[i]) {
			runs[l].n++
			continue
		}
		runs = append(runs, run{i, 1, int(w[i])})
	}
	var out []int
	rem := k
	for rem > 0 {
		key := func(r run) []int {
			if r.n >= rem {
				return []int{r.w, 0, r.n, r.start}
			}
			return []int{r.w, 1, -r.n, r.start}
		}
		bi := -1
		for i, r := range runs {
			if r.n > 0 && (bi < 0 || slices.Compare(key(r), key(runs[bi])) < 0) {
				bi = i
			}
		}
		take := min(rem, runs[bi].n)
		for j := 0; j < take; j++ {
			out = append(out, runs[bi].start+j)
		}
		rem -= take
		runs[bi].n = 0
	}
	slices.Sort(out)
	return out
}

// TestSlurmConsecRandom replays random allocate/release sequences against the sort
// restatement, with no weights, few weights and distinct weights (where the rule is
// a sorted free list: the k free nodes of lowest weight).
func TestSlurmConsecRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 60; trial++ {
		n := 5 + rng.IntN(40)
		w := randomSlurmWeights(rng, n, trial%3) // none, few, distinct
		a := newSlurmT(t, n, w, "")
		ww := w
		if ww == nil {
			ww = make([]uint32, n)
		}
		// Slurm index s is node s here: names n1..nN sort naturally in index order.
		var live [][]int
		for step := 0; step < 200; step++ {
			if a.NumFree() == 0 || (len(live) > 0 && rng.IntN(2) == 0) {
				i := rng.IntN(len(live))
				if err := a.Release(live[i]); err != nil {
					t.Fatal(err)
				}
				live = slices.Delete(live, i, i+1)
				continue
			}
			free := make([]bool, n)
			for i := range free {
				free[i] = a.st.IsFree(i)
			}
			k := 1 + rng.IntN(a.NumFree())
			want := slurmConsecRef(free, ww, k)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d step %d k=%d: got %v, want %v", trial, step, k, got, want)
			}
			if trial%3 == 2 {
				var fl []int
				for i := range free {
					if free[i] {
						fl = append(fl, i)
					}
				}
				slices.SortFunc(fl, func(x, y int) int { return cmp.Compare(w[x], w[y]) })
				fl = fl[:k]
				slices.Sort(fl)
				if !slices.Equal(got, fl) {
					t.Fatalf("distinct weights, k=%d: got %v, want the lowest weights %v", k, got, fl)
				}
			}
			live = append(live, got)
		}
	}
}

// TestSlurmNaturalOrder: node indices are the names in natural order, whatever the
// machine's numbering.
func TestSlurmNaturalOrder(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:4")
	a, err := NewSlurm(m, SlurmConfig{Names: []string{"c10", "c9", "c1", "c2"}})
	if err != nil {
		t.Fatal(err)
	}
	// Index order: c1 (node 2), c2 (3), c9 (1), c10 (0). Busy c2: runs {c1}, {c9, c10}.
	if err := a.Occupy([]int{3}); err != nil {
		t.Fatal(err)
	}
	got, _ := a.Allocate(2)
	if !slices.Equal(got, []int{1, 0}) {
		t.Errorf("got nodes %v, want [1 0] (c9 and c10, the run of two, in index order)", got)
	}
	if _, err := NewSlurm(m, SlurmConfig{Names: []string{"a", "b", "a", "c"}}); err == nil {
		t.Error("duplicate node names accepted")
	}
}

// The test topology of alloc/slurm_real_test.go with n1..n16: leaves of 4, 4, 5, 3
// nodes, listed out of name order.
const slurmTestTree = `SwitchName=leafA Nodes=n[5-8]
SwitchName=leafB Nodes=n16,n[1-3]
SwitchName=leafC Nodes=n[9-13]
SwitchName=leafD Nodes=n[14-15],n4
SwitchName=spine1 Switches=leafA,leafB
SwitchName=spine2 Switches=leafC,leafD
SwitchName=core Switches=spine[1-2]
`

// TestSlurmTreeHand checks _eval_nodes_topo's rules on hand-worked cases.
func TestSlurmTreeHand(t *testing.T) {
	cases := []struct {
		name    string
		tree    string
		n       int
		busy    []int
		weights []uint32
		k       int
		want    []int
		why     string
	}{
		{"tightest leaf", slurmTestTree, 16, nil, nil, 3, []int{4, 14, 15}, "leafD (3 free) is the tightest leaf that fits; its nodes in index order"},
		{"equal leaves", slurmTestTree, 16, nil, nil, 4, []int{5, 6, 7, 8}, "leafA and leafB both fit exactly: the earlier in the file"},
		{"index order in a leaf", slurmTestTree, 16, []int{5, 6, 7, 14}, nil, 3, []int{1, 2, 3}, "leafB is the only tight fit; Nodes=n16,n[1-3] gives n1-n3 (index order), not n16 first"},
		{"no leaf fits: climb", slurmTestTree, 16, nil, nil, 6, []int{1, 2, 5, 6, 7, 8}, "no leaf has 6: leafC (5) against leafA (4) climbs to the spines (8 and 8: a tie), leafA stays; then the nearest leaf, leafB, gives the last 2"},
		{"weights: required leaf first", slurmTestTree, 16, nil, []uint32{2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2}, 3, []int{9, 10, 11}, "n9 (weight 1) is required: its leaf leafC is filled first, not the tightest leafD"},
		{"weights win over leaves", slurmTestTree, 16, nil, []uint32{2, 2, 2, 2, 1, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2}, 2, []int{5, 9}, "the two weight-1 nodes make the job: only they are candidates, on two leaves"},
		{"22.05 distance rule", `SwitchName=a Nodes=n[1-3]
SwitchName=x Nodes=n[4-5]
SwitchName=y Nodes=n6
SwitchName=s1 Switches=a,y
SwitchName=s2 Switches=x
SwitchName=root Switches=s[1-2]
`, 6, nil, nil, 5, []int{1, 2, 3, 4, 5}, "after leaf a, y is closer but cannot hold the last 2 and x can: 22.05 keeps x (Slurm 22.05.8 gave node[01-05])"},
	}
	for _, c := range cases {
		a := newSlurmT(t, c.n, c.weights, c.tree)
		if c.busy != nil {
			occupy(t, a, slices.Clone(c.busy)...)
		}
		got, err := a.Allocate(c.k)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(oneBased(got), c.want) {
			t.Errorf("%s: got %v, want %v (%s)", c.name, oneBased(got), c.want, c.why)
		}
	}
}

// slurmDragonflyTree is the topology.conf plan writes for the 16-host dragonfly
// (hosts_per_router=2, routers_per_group=4, two groups) along rcm: a leaf per
// router, in ordering order, under a virtual switch per group, under one root.
const slurmDragonflyTree = `SwitchName=G0R1 Nodes=n[3-4]
SwitchName=G0R2 Nodes=n[5-6]
SwitchName=G0R3 Nodes=n[7-8]
SwitchName=G0R0 Nodes=n[1-2]
SwitchName=G1R0 Nodes=n[9-10]
SwitchName=G1R1 Nodes=n[11-12]
SwitchName=G1R2 Nodes=n[13-14]
SwitchName=G1R3 Nodes=n[15-16]
SwitchName=group1 Switches=G0R[1-3,0]
SwitchName=group2 Switches=G1R[0-3]
SwitchName=root Switches=group[1-2]
`

// TestSlurmTree2411 checks SlurmConfig.Tree2411 on the two placements of the
// dragonfly's tree that Slurm 26.05.3 made in plan's TestApplyStepsOnSlurm (seed
// 905, steps 1 and 15), and the 22.05 rules' placements of the same jobs.
func TestSlurmTree2411(t *testing.T) {
	cases := []struct {
		name      string
		busy      []int
		k         int
		want, old []int
		why       string
	}{
		{"a closer leaf must fit", []int{3, 15, 16}, 3, []int{9, 10, 11}, []int{4, 9, 10},
			"after G1R0 (group2 has 6 free against group1's 7: the tighter group), 1 node is left: G1R1 (2 free) is closer than G0R1 (1 free) and holds it, so 24.11 takes it; 22.05 keeps the tighter G0R1 (tcs -1). Slurm 26.05.3: node[09-11]"},
		{"counts lowered above a used leaf", []int{3}, 13, []int{1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, []int{1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
			"after G1R0, group2's count drops from 8 to 6, below group1's 7, so the next leaf is G0R2 and the groups alternate; the fitting rule without the lowering took group2 whole (n[4-16]); 22.05's rules reach Slurm's set another way. Slurm 26.05.3: node[01-02,04-14]"},
	}
	m, err := topo.ParseSpec("mesh:16")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := slurm.ParseTree(strings.NewReader(slurmDragonflyTree))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, v2411 := range []bool{true, false} {
			a, err := NewSlurm(m, SlurmConfig{Names: slurmNames(16), Tree: tree, Tree2411: v2411})
			if err != nil {
				t.Fatal(err)
			}
			occupy(t, a, slices.Clone(c.busy)...)
			got, err := a.Allocate(c.k)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := c.want
			if !v2411 {
				want = c.old
			}
			if got := slices.Sorted(slices.Values(oneBased(got))); !slices.Equal(got, want) {
				t.Errorf("%s, Tree2411 %v: got %v, want %v (%s)", c.name, v2411, got, want, c.why)
			}
		}
	}
}

// TestSlurmTreeContract replays random sequences on random trees (leaves at several
// depths, nodes listed in random order, random weights, nodes on no leaf): every
// allocation is k distinct free nodes under one switch that held k free nodes, and
// a refusal (ErrFragmented) happens only when no switch holds k free nodes.
func TestSlurmTreeContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 40; trial++ {
		n := 4 + rng.IntN(40)
		perm := rng.Perm(n)
		var b strings.Builder
		var level []string // switches not yet given a parent
		pos := 0
		for pos < n-rng.IntN(2) { // sometimes a node on no leaf
			size := 1 + rng.IntN(min(6, n-pos))
			var names []string
			for _, v := range perm[pos : pos+size] {
				names = append(names, fmt.Sprintf("n%d", v+1))
			}
			pos += size
			name := fmt.Sprintf("leaf%d", len(level))
			fmt.Fprintf(&b, "SwitchName=%s Nodes=%s\n", name, strings.Join(names, ","))
			level = append(level, name)
		}
		for up := 0; len(level) > 1; up++ {
			var next []string
			for len(level) > 0 {
				g := min(len(level), 1+rng.IntN(3))
				if g == 1 && len(next) == 0 && len(level) == 1 {
					next = append(next, level[0]) // carried up unchanged: leaves at two depths
					level = nil
					break
				}
				name := fmt.Sprintf("up%d_%d", up, len(next))
				fmt.Fprintf(&b, "SwitchName=%s Switches=%s\n", name, strings.Join(level[:g], ","))
				next = append(next, name)
				level = level[g:]
			}
			level = next
		}
		var w []uint32
		if trial%2 == 1 {
			w = make([]uint32, n)
			for i := range w {
				w[i] = uint32(1 + rng.IntN(3))
			}
		}
		a := newSlurmT(t, n, w, b.String())
		if trial%4 >= 2 { // Slurm 24.11's rules (SlurmConfig.Tree2411)
			tree, err := slurm.ParseTree(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			if a, err = NewSlurm(a.m, SlurmConfig{Names: slurmNames(n), Weights: w, Tree: tree, Tree2411: true}); err != nil {
				t.Fatal(err)
			}
		}
		var live [][]int
		for step := 0; step < 150; step++ {
			if a.NumFree() == 0 || (len(live) > 0 && rng.IntN(2) == 0) {
				i := rng.IntN(len(live))
				if err := a.Release(live[i]); err != nil {
					t.Fatal(err)
				}
				live = slices.Delete(live, i, i+1)
				continue
			}
			k := 1 + rng.IntN(a.NumFree())
			fits := false
			for i := range a.tree.Switches {
				c := 0
				for _, s := range switchNodes(a, i) {
					if a.free(s) {
						c++
					}
				}
				fits = fits || c >= k
			}
			before := a.NumFree()
			got, err := a.Allocate(k)
			if err != nil {
				if fits || !errors.Is(err, ErrFragmented) || a.NumFree() != before {
					t.Fatalf("trial %d step %d k=%d: %v (a switch holds k: %v)\n%s", trial, step, k, err, fits, b.String())
				}
				continue
			}
			if !fits || len(got) != k || a.NumFree() != before-k {
				t.Fatalf("trial %d step %d k=%d: got %v (a switch holds k: %v)", trial, step, k, got, fits)
			}
			seen := map[int]bool{}
			for _, v := range got {
				if seen[v] {
					t.Fatalf("node %d twice in %v", v, got)
				}
				seen[v] = true
			}
			live = append(live, got)
		}
	}
}

// BenchmarkSlurm: one allocate/release decision on a 16384-node machine half busy,
// jobs of 1 to 256 nodes; the tree has 32-node leaves under 16 spines. tree-ref is
// the same tree through the reference path (treeSelectRef, per-switch node lists),
// which trees whose switches share nodes take.
func BenchmarkSlurm(b *testing.B) {
	const n = 16384
	var tb strings.Builder
	for l := 0; l < n/32; l++ {
		fmt.Fprintf(&tb, "SwitchName=l%d Nodes=n[%d-%d]\n", l, 32*l+1, 32*l+32)
	}
	for s := 0; s < 16; s++ {
		fmt.Fprintf(&tb, "SwitchName=s%d Switches=l[%d-%d]\n", s, s*n/32/16, (s+1)*n/32/16-1)
	}
	tb.WriteString("SwitchName=root Switches=s[0-15]\n")
	for _, mode := range []string{"consec", "tree", "tree-ref"} {
		b.Run(mode, func(b *testing.B) {
			tree := ""
			if mode != "consec" {
				tree = tb.String()
			}
			w := make([]uint32, n)
			for i := range w {
				w[i] = uint32(1 + i%3)
			}
			a := newSlurmT(&testing.T{}, n, w, tree)
			if mode == "tree-ref" {
				st, err := newSlurmTreeState(context.Background(), a.tree, slurmNames(n), a.idx, true)
				if err != nil {
					b.Fatal(err)
				}
				a.setTreeState(st)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			var live [][]int
			for a.NumFree() > n/2 {
				got, _ := a.Allocate(1 + rng.IntN(256))
				live = append(live, got)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := rng.IntN(len(live))
				if err := a.Release(live[j]); err != nil {
					b.Fatal(err)
				}
				got, err := a.Allocate(1 + rng.IntN(min(256, a.NumFree())))
				if err != nil {
					b.Fatal(err)
				}
				live[j] = got
			}
		})
	}
}

// Issue 29: names that mix zero padding are in Slurm's node order (strnatcmp):
// x[010-016] come before x1, so on an empty cluster without weights or topology
// slurm:consec's first job takes x010, x011, x012, and the name-order curve agrees.
func TestSlurmMixedPaddingOrder(t *testing.T) {
	names, err := hostlist.Expand("x[1-9],x[010-016]")
	if err != nil {
		t.Fatal(err)
	}
	line, err := topo.NewGrid([]int{len(names)}, []bool{false})
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewSlurm(line, SlurmConfig{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Allocate(3)
	if err != nil {
		t.Fatal(err)
	}
	var gotNames []string
	for _, v := range got {
		gotNames = append(gotNames, names[v])
	}
	slices.SortFunc(gotNames, hostlist.NaturalCompare)
	if !slices.Equal(gotNames, []string{"x010", "x011", "x012"}) {
		t.Errorf("3 nodes: %v, want x010 x011 x012", gotNames)
	}
	got, _ = a.Allocate(8)
	gotNames = gotNames[:0]
	for _, v := range got {
		gotNames = append(gotNames, names[v])
	}
	slices.SortFunc(gotNames, hostlist.NaturalCompare)
	if !slices.Equal(gotNames, []string{"x013", "x014", "x015", "x016", "x1", "x2", "x3", "x4"}) {
		t.Errorf("8 more nodes: %v, want x013-x016 then x1-x4", gotNames)
	}
}

// switchNodes returns the distinct Slurm indices below switch i (test helper).
func switchNodes(a *SlurmAllocator, i int) []int32 {
	var out []int32
	var walk func(i int)
	walk = func(i int) {
		out = append(out, a.tr.leaf[i]...)
		for _, c := range a.tree.Switches[i].Children {
			walk(c)
		}
	}
	walk(i)
	slices.Sort(out)
	return slices.Compact(out)
}

// randomSharedTree is a random topology.conf over n1..nN like the fuzzed trees above,
// and, when shared, with nodes on two leaves and upper switches over overlapping
// children (two spines, a switch over a leaf and its parent), which the reference
// path handles.
func randomSharedTree(rng *rand.Rand, n int, shared bool) string {
	perm := rng.Perm(n)
	var b strings.Builder
	var level []string
	for pos := 0; pos < n; {
		size := 1 + rng.IntN(min(8, n-pos))
		var names []string
		for _, v := range perm[pos : pos+size] {
			names = append(names, fmt.Sprintf("n%d", v+1))
		}
		if shared && rng.IntN(4) == 0 {
			names = append(names, fmt.Sprintf("n%d", 1+rng.IntN(n)))
		}
		pos += size
		name := fmt.Sprintf("leaf%d", len(level))
		fmt.Fprintf(&b, "SwitchName=%s Nodes=%s\n", name, strings.Join(names, ","))
		level = append(level, name)
	}
	var all []string
	for up := 0; len(level) > 1; up++ {
		var next []string
		for len(level) > 0 {
			g := min(len(level), 1+rng.IntN(4))
			kids := slices.Clone(level[:g])
			if shared && len(all) > 0 && rng.IntN(3) == 0 {
				kids = append(kids, all[rng.IntN(len(all))])
			}
			slices.Sort(kids)
			kids = slices.Compact(kids)
			name := fmt.Sprintf("up%d_%d", up, len(next))
			fmt.Fprintf(&b, "SwitchName=%s Switches=%s\n", name, strings.Join(kids, ","))
			if shared && rng.IntN(3) == 0 {
				fmt.Fprintf(&b, "SwitchName=%s_b Switches=%s\n", name, strings.Join(kids, ","))
			}
			all = append(all, level[:g]...)
			next = append(next, name)
			level = level[g:]
		}
		level = next
	}
	return b.String()
}

// Issue 34: the per-switch sums (treeSelectSum) place every job where the reference
// over every switch's node list (treeCountsRef) does, on random trees, weights and
// submission/release sequences; and trees with shared descendants take the reference
// path.
func TestSlurmTreeSumsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 3))
	for trial := range 300 {
		n := 4 + rng.IntN(60)
		shared := trial%3 == 2
		conf := randomSharedTree(rng, n, shared)
		w := randomSlurmWeights(rng, n, []int{0, 1, 0, 2}[trial%4]) // none, few, none, distinct
		fast := newSlurmT(t, n, w, conf)
		ref := newSlurmT(t, n, w, conf)
		st, err := newSlurmTreeState(context.Background(), ref.tree, slurmNames(n), ref.idx, true)
		if err != nil {
			t.Fatal(err)
		}
		ref.setTreeState(st)
		if !shared && fast.tr.ref != nil {
			t.Fatalf("trial %d: a tree without shared descendants takes the reference path\n%s", trial, conf)
		}
		fast.tree2411, ref.tree2411 = trial/4%2 == 1, trial/4%2 == 1 // Slurm 24.11's rules on both paths
		allocReleaseAgainstReference(t, rng, fast, ref, 120, fmt.Sprintf("trial %d (24.11 rules %v)", trial, fast.tree2411), conf)
	}
}

// allocReleaseAgainstReference plays steps of placements (random sizes) and
// releases (of a random running job) on fast and ref themselves, not on copies, so
// that each decision starts from the state the previous ones left; both must place
// every job on the same nodes or both refuse it.
func allocReleaseAgainstReference(t *testing.T, rng *rand.Rand, fast, ref *SlurmAllocator, steps int, what, conf string) {
	t.Helper()
	var live [][]int
	for step := range steps {
		if fast.NumFree() == 0 || (len(live) > 0 && rng.IntN(3) == 0) {
			live = releaseHeld(t, live, rng.IntN(len(live)), fast, ref)
			continue
		}
		k := 1 + rng.IntN(fast.NumFree())
		got, err1 := fast.Allocate(k)
		want, err2 := ref.Allocate(k)
		if (err1 == nil) != (err2 == nil) || !slices.Equal(got, want) {
			t.Fatalf("%s step %d k=%d: sums %v (%v), reference %v (%v)\n%s", what, step, k, got, err1, want, err2, conf)
		}
		if err1 == nil {
			live = append(live, got)
		}
		checkTreeCounts(t, fast, ref, fmt.Sprintf("%s step %d", what, step))
	}
}

// checkTreeCounts checks fast's incremental per-switch state, once brought up to
// date, against a scan of ref's node list of every switch (ref on the reference
// path over the same tree): free nodes below each switch and, with unequal
// weights, their lowest weight.
func checkTreeCounts(t *testing.T, fast, ref *SlurmAllocator, what string) {
	t.Helper()
	if fast.tf == nil || ref.tr.ref == nil {
		return
	}
	uniform := fast.wo.uniform()
	fast.flushTree(uniform)
	for i, nodes := range ref.tr.ref {
		c, lw := int32(0), uint32(0)
		for _, s := range nodes {
			if ref.free(s) {
				if c == 0 || ref.w[s] < lw {
					lw = ref.w[s]
				}
				c++
			}
		}
		if fast.tf.cnt[i] != c || (!uniform && fast.tf.lw[i] != lw) {
			t.Fatalf("%s: switch %s: %d free, lowest weight %d; a scan finds %d and %d", what, fast.tree.Switches[i].Name, fast.tf.cnt[i], fast.tf.lw[i], c, lw)
		}
	}
}

// Issue 29: with two trees Slurm never places a job larger than the larger tree; the
// error says so, and TreeCapacity is that size.
func TestSlurmTreeCapacity(t *testing.T) {
	a := newSlurmT(t, 10, nil, "SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-10]\n")
	if c := a.TreeCapacity(); c != 6 {
		t.Errorf("capacity %d, want 6", c)
	}
	if _, err := a.Allocate(7); err == nil || !strings.Contains(err.Error(), "the largest switch holds 6 nodes") {
		t.Errorf("7 nodes: %v", err)
	}
	b := newSlurmT(t, 10, nil, "SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-10]\nSwitchName=t Switches=s[1-2]\n")
	if c := b.TreeCapacity(); c != 10 {
		t.Errorf("one tree: capacity %d, want 10", c)
	}
}

// The rows fillRows measures by twin class (one search per class) are the rows
// leafDistances measures one switch at a time, for every switch of random trees
// with shared descendants, of fat trees (twin leaves under twin spines, several
// parents per switch) and of two separate trees (no route between them).
func TestSlurmTreeFillRowsMatchesSearches(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 9))
	confs := []string{
		// A two-level fat tree: leaves l1-l4 under both spines; a pod of two.
		"SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[3-4]\nSwitchName=l3 Nodes=n[5-6]\nSwitchName=l4 Nodes=n[7-8]\n" +
			"SwitchName=a1 Switches=l[1-2]\nSwitchName=a2 Switches=l[1-2]\nSwitchName=a3 Switches=l[3-4]\nSwitchName=a4 Switches=l[3-4]\n" +
			"SwitchName=s1 Switches=a1,a3\nSwitchName=s2 Switches=a2,a4\n",
		// Two trees: no route from one to the other; a lone leaf is its own class.
		"SwitchName=l1 Nodes=n[1-3]\nSwitchName=l2 Nodes=n[4-5]\nSwitchName=t1 Switches=l[1-2]\nSwitchName=l3 Nodes=n[6-8]\n",
	}
	for range 40 {
		confs = append(confs, randomSharedTree(rng, 8+rng.IntN(60), rng.IntN(2) == 0))
	}
	for ci, conf := range confs {
		n := 0
		for _, f := range strings.Fields(conf) {
			if nodes, ok := strings.CutPrefix(f, "Nodes="); ok {
				names, err := hostlist.Expand(nodes)
				if err != nil {
					t.Fatal(err)
				}
				n += len(names)
			}
		}
		checkFillRows(t, newSlurmT(t, n, nil, conf), newSlurmT(t, n, nil, conf), fmt.Sprintf("tree %d (%q)", ci, conf))
	}
}

// checkFillRows fails unless the rows fillRows measures on byClass are those
// leafDistances measures on one (the same tree, read twice), switch by switch.
func checkFillRows(t *testing.T, one, byClass *SlurmAllocator, what string) {
	t.Helper()
	one.tr.filled = true // never fills: rows one search at a time
	byClass.tr.rows = make([][]uint16, byClass.tr.rowKeys)
	byClass.tr.fillRows(byClass.tree)
	for i, s := range one.tree.Switches {
		want := slices.Clone(one.tr.leafDistances(one.tree, i))
		if got := byClass.tr.rows[byClass.tr.rowKey[i]]; !slices.Equal(got, want) {
			t.Fatalf("%s, switch %s: rows by class %v, by search %v", what, s.Name, got, want)
		}
	}
}
