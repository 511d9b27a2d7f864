package alloc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// randomSlurmWeights returns nil (all equal), a few weights, distinct weights, or
// runs of equal weights, by kind.
func randomSlurmWeights(rng *rand.Rand, n, kind int) []uint32 {
	var w []uint32
	switch kind % 4 {
	case 1:
		w = make([]uint32, n)
		for i := range w {
			w[i] = uint32(1 + rng.IntN(3))
		}
	case 2:
		w = make([]uint32, n)
		for i, v := range rng.Perm(n) {
			w[i] = uint32(v + 1)
		}
	case 3:
		w = make([]uint32, n)
		cur := uint32(1 + rng.IntN(5))
		for i := range w {
			if rng.IntN(8) == 0 {
				cur = uint32(1 + rng.IntN(5))
			}
			w[i] = cur
		}
	}
	return w
}

// flipRandom frees or occupies a random set of nodes on every allocator (the same
// nodes on each), so that the free sets are random rather than what placements leave.
func flipRandom(t *testing.T, rng *rand.Rand, as ...*SlurmAllocator) {
	t.Helper()
	n := as[0].m.N()
	var take, give []int
	p := rng.Float64() * 0.6
	for v := range n {
		if rng.Float64() >= p {
			continue
		}
		if as[0].IsFree(v) {
			take = append(take, v)
		} else {
			give = append(give, v)
		}
	}
	for _, a := range as {
		if err := a.Occupy(take); err != nil {
			t.Fatal(err)
		}
		if err := a.Release(give); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 29 item 9: slurm:consec read from the incremental weight order places every
// job where the scan of every node (consecScan) does, on random free sets (random
// flips, then placements and releases), with equal, few, distinct and run-wise
// weights, machines up to 9,000 nodes (several count blocks) and names whose
// natural order is not the machine's.
func TestSlurmConsecMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 9))
	checked := 0
	for trial := range 120 {
		n := 2 + rng.IntN(150)
		steps := 60
		if trial%20 == 19 {
			n, steps = 4000+rng.IntN(5000), 15
		}
		m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, n)
		for i, v := range rng.Perm(n) {
			names[i] = fmt.Sprintf("c%d", v+1)
		}
		a, err := NewSlurm(m, SlurmConfig{Names: names, Weights: randomSlurmWeights(rng, n, trial)})
		if err != nil {
			t.Fatal(err)
		}
		for range steps {
			flipRandom(t, rng, a)
			for range 3 {
				if a.NumFree() == 0 {
					break
				}
				k := 1 + rng.IntN(a.NumFree())
				if rng.IntN(2) == 0 {
					k = 1 + rng.IntN(min(a.NumFree(), 12))
				}
				got, want := a.consec(k), a.consecScan(k)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d n=%d k=%d: incremental %v, scan %v", trial, n, k, got, want)
				}
				checked++
				nodes := make([]int, len(got))
				for i, s := range got {
					nodes[i] = int(a.at[s])
				}
				if err := a.Occupy(nodes); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("%d selections compared", checked)
	if checked < 5000 {
		t.Errorf("only %d selections compared", checked)
	}
}

// twoSpineTree is a topology.conf over n1..nN whose leaves are each listed by two
// of several roots (a fat tree's spines without a switch above them): leaves with
// two parents on the sums path, twin classes of leaves with the same links.
func twoSpineTree(rng *rand.Rand, n int) string {
	perm := rng.Perm(n)
	var b strings.Builder
	var leaves []string
	for pos := 0; pos < n; {
		size := 1 + rng.IntN(min(6, n-pos))
		var names []string
		for _, v := range perm[pos : pos+size] {
			names = append(names, fmt.Sprintf("n%d", v+1))
		}
		pos += size
		leaves = append(leaves, fmt.Sprintf("leaf%d", len(leaves)))
		fmt.Fprintf(&b, "SwitchName=%s Nodes=%s\n", leaves[len(leaves)-1], strings.Join(names, ","))
	}
	spines := 2 + rng.IntN(3)
	kids := make([][]string, spines)
	for _, l := range leaves {
		x := rng.IntN(spines)
		y := (x + 1 + rng.IntN(spines-1)) % spines
		kids[x] = append(kids[x], l)
		kids[y] = append(kids[y], l)
	}
	for s, ks := range kids {
		if len(ks) > 0 {
			fmt.Fprintf(&b, "SwitchName=spine%d Switches=%s\n", s, strings.Join(ks, ","))
		}
	}
	return b.String()
}

// Issue 29 item 9: slurm:tree from the incremental leaf counts (treeSelectSum) places
// every job where the reference over every switch's node list and every leaf's own
// distance (treeSelectRef) does, on random free sets of random trees (one parent per
// switch, or leaves under two roots), with every kind of weights.
func TestSlurmTreeIncrementalMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 10))
	checked, refused := 0, 0
	for trial := range 200 {
		n := 4 + rng.IntN(120)
		conf := randomSharedTree(rng, n, false)
		if trial%3 == 2 {
			conf = twoSpineTree(rng, n)
		}
		w := randomSlurmWeights(rng, n, trial)
		fast := newSlurmT(t, n, w, conf)
		ref := newSlurmT(t, n, w, conf)
		st, err := newSlurmTreeState(context.Background(), ref.tree, slurmNames(n), ref.idx, true)
		if err != nil {
			t.Fatal(err)
		}
		ref.setTreeState(st)
		if fast.tr.ref != nil {
			t.Fatalf("trial %d: a tree without shared descendants takes the reference path\n%s", trial, conf)
		}
		fast.tree2411, ref.tree2411 = trial/4%2 == 1, trial/4%2 == 1 // Slurm 24.11's rules on both paths
		c, r := playAgainstReference(t, rng, fast, ref, n, fmt.Sprintf("trial %d (24.11 rules %v)", trial, fast.tree2411), conf, nil)
		checked, refused = checked+c, refused+r
	}
	t.Logf("%d selections compared, %d refused by both", checked, refused)
	if checked < 5000 {
		t.Errorf("only %d selections compared", checked)
	}
}

// Issue 34 item 3: on fat trees as procalloc's writer gives them to Slurm (every
// upper switch under several parents, leaves under several level-1 switches, one
// or several roots covering every leaf), slurm:tree from the free counts carried up
// from the changed leaves places every job where the reference over every switch's
// node list does, with every kind of weights and leaf orders from two orderings:
// on copies after random flips (playAgainstReference), then placing and releasing
// on the allocators themselves.
func TestSlurmTreeFatTreeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 31))
	checked, refused := 0, 0
	for trial, spec := range []string{"fattree:4,4:4,4:8", "fattree:2,2:2,2:2,2:4", "fattree:3,3:3,3:6", "fattree:4,2:4,2:4", "fattree:2,3:3,2:2,2:4"} {
		g, err := topo.FatTree(strings.TrimPrefix(spec, "fattree:"))
		if err != nil {
			t.Fatal(err)
		}
		n := g.N()
		names := curves.NodeNames(g)
		for kind := range 16 {
			o, err := curves.Generate([]string{"name-order", "rcm"}[kind%2], g)
			if err != nil {
				t.Fatal(err)
			}
			var conf bytes.Buffer
			if _, err := slurm.WriteTopology(&conf, g, o, nil); err != nil {
				t.Fatal(err)
			}
			tree, err := slurm.ParseTree(bytes.NewReader(conf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			parents := make([]int, len(tree.Switches))
			for _, u := range tree.Switches {
				for _, c := range u.Children {
					parents[c]++
				}
			}
			multi := false
			for i, sw := range tree.Switches {
				multi = multi || (sw.Level > 0 && parents[i] > 1)
			}
			if !multi {
				t.Fatalf("%s: no upper switch with several parents", spec)
			}
			w := randomSlurmWeights(rng, n, kind/2%4)
			fast, err := NewSlurm(g, SlurmConfig{Names: names, Weights: w, Tree: tree})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := NewSlurm(g, SlurmConfig{Names: names, Weights: w, Tree: tree})
			if err != nil {
				t.Fatal(err)
			}
			st, err := newSlurmTreeState(context.Background(), ref.tree, names, ref.idx, true)
			if err != nil {
				t.Fatal(err)
			}
			ref.setTreeState(st)
			if fast.tr.ref != nil {
				t.Fatalf("%s: a fat tree takes the reference path", spec)
			}
			fast.tree2411, ref.tree2411 = kind >= 8, kind >= 8 // Slurm 24.11's rules on both paths
			what := fmt.Sprintf("trial %d %s kind %d (24.11 rules %v)", trial, spec, kind, fast.tree2411)
			c, r := playAgainstReference(t, rng, fast, ref, n, what, conf.String(), nil)
			checked, refused = checked+c, refused+r
			var busy []int
			for v := range n {
				if !fast.IsFree(v) {
					busy = append(busy, v)
				}
			}
			if err := fast.Release(busy); err != nil {
				t.Fatal(err)
			}
			if err := ref.Release(busy); err != nil {
				t.Fatal(err)
			}
			allocReleaseAgainstReference(t, rng, fast, ref, 200, what, conf.String())
		}
	}
	t.Logf("%d selections compared, %d refused by both", checked, refused)
	if checked < 2000 {
		t.Errorf("only %d selections compared", checked)
	}
}

// Issue 29 item 9: slurm:block from the incremental base-block counts places every
// job where the same passes over counts scanned from the node lists do, on random
// free sets of random block files (nodes in no block, a node in two blocks), with
// every kind of weights.
func TestSlurmBlockIncrementalMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	checked, refused := 0, 0
	for trial := range 200 {
		n := 4 + rng.IntN(100)
		conf := randomSlurmBlocks(rng, n, trial%2 == 1, trial%4 == 3, func(i int) string { return fmt.Sprintf("n%d", i+1) })
		b, err := slurm.ParseBlocks(strings.NewReader(conf))
		if err != nil {
			t.Fatal(err)
		}
		m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
		if err != nil {
			t.Fatal(err)
		}
		w := randomSlurmWeights(rng, n, trial/2)
		fast, err := NewSlurm(m, SlurmConfig{Names: slurmNames(n), Weights: w, Blocks: b})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NewSlurm(m, SlurmConfig{Names: slurmNames(n), Weights: w, Blocks: b})
		if err != nil {
			t.Fatal(err)
		}
		ref.blk.scan = true
		c, r := playAgainstReference(t, rng, fast, ref, n, fmt.Sprintf("trial %d", trial), conf, ErrFragmented)
		checked, refused = checked+c, refused+r
	}
	t.Logf("%d selections compared, %d refused by both", checked, refused)
	if checked < 5000 {
		t.Errorf("only %d selections compared", checked)
	}
}

// Issue 29: Slurm 26.05 places a one-node job outside the plugin's selection
// (select/cons_tres _get_one_res): the free node of lowest weight, the first in
// node-index order; 22.05 uses the plugin's rule (consec: the smallest run; tree:
// the tightest leaf). Hand-worked on 16 nodes n1..n16.
func TestSlurmOneNodeByWeight(t *testing.T) {
	mk := func(w []uint32, tree string, on bool) *SlurmAllocator {
		a := newSlurmT(t, 16, w, tree)
		a.oneNodeByWeight = on
		return a
	}
	heavyFirst := make([]uint32, 16)
	for i := range heavyFirst {
		heavyFirst[i] = 5
	}
	heavyFirst[11] = 2 // n12
	cases := []struct {
		name string
		tree string
		w    []uint32
		busy []int
		old  int // 22.05 (the plugin's rule)
		new  int // 26.05
	}{
		{"consec: smallest run vs first free", "", nil, []int{5, 7}, 6, 1},
		{"consec: weight first", "", heavyFirst, []int{5, 7}, 12, 12},
		{"tree: tightest leaf vs first free", slurmTestTree, nil, []int{14}, 4, 1},
		{"tree: weight first", slurmTestTree, heavyFirst, nil, 12, 12},
		{"tree: first free index", slurmTestTree, nil, []int{1, 2, 3, 14}, 16, 4},
	}
	for _, c := range cases {
		for _, on := range []bool{false, true} {
			a := mk(c.w, c.tree, on)
			if c.busy != nil {
				occupy(t, a, slices.Clone(c.busy)...)
			}
			got, err := a.Allocate(1)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := c.old
			if on {
				want = c.new
			}
			if got[0]+1 != want {
				t.Errorf("%s (26.05 rule %v): n%d, want n%d", c.name, on, got[0]+1, want)
			}
		}
	}
}

// sortPicked sorts like slices.Sort, through its bitset or not, on random sets of
// distinct indices (dense, sparse, sorted), and leaves its bitset zeroed.
func TestSlurmSortPicked(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 12))
	a := newSlurmT(t, 4, nil, "")
	for trial := range 2000 {
		span := 1 + rng.IntN(20000)
		k := 1 + rng.IntN(min(span, 600))
		perm := rng.Perm(span)[:k]
		got := make([]int32, k)
		for i, v := range perm {
			got[i] = int32(v + rng.IntN(3)*span)
		}
		got = slices.Compact(slices.Sorted(slices.Values(got)))
		if trial%5 != 0 {
			rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		}
		want := slices.Sorted(slices.Values(got))
		a.sortPicked(got)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
		for _, w := range a.sortBits {
			if w != 0 {
				t.Fatal("bitset not left zeroed")
			}
		}
	}
}

// playAgainstReference plays 25 rounds on fast and ref (the incremental emulator and
// its reference over the same configuration conf of n nodes): random nodes flipped,
// then up to three jobs of random size chosen by both from clones, which must agree
// (nodes, or both refusing, with refusal wrapping refusal when it is not nil) and
// are then placed on both. It returns the selections compared and how many both
// refused.
func playAgainstReference(t *testing.T, rng *rand.Rand, fast, ref *SlurmAllocator, n int, what, conf string, refusal error) (checked, refused int) {
	t.Helper()
	for range 25 {
		flipRandom(t, rng, fast, ref)
		for range 3 {
			if fast.NumFree() == 0 {
				break
			}
			k := 1 + rng.IntN(min(fast.NumFree(), 1+rng.IntN(n)))
			got, err1 := fast.Clone().(*SlurmAllocator).Allocate(k)
			want, err2 := ref.Clone().(*SlurmAllocator).Allocate(k)
			if (err1 == nil) != (err2 == nil) || !slices.Equal(got, want) || (err1 != nil && refusal != nil && !errors.Is(err1, refusal)) {
				t.Fatalf("%s k=%d: incremental %v (%v), reference %v (%v)\n%s", what, k, got, err1, want, err2, conf)
			}
			checked++
			if err1 != nil {
				refused++
				continue
			}
			if err := fast.Occupy(got); err != nil {
				t.Fatal(err)
			}
			if err := ref.Occupy(got); err != nil {
				t.Fatal(err)
			}
		}
	}
	return checked, refused
}
