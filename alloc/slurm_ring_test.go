package alloc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// ringModel is topology/ring's choice by its plain definition (topology.yaml(5),
// eval_nodes_ring.c read as a rule, not as a loop): every segment of k
// consecutive ring positions whose nodes are all free, on a ring with at least
// k positions and k free nodes, keyed (its heaviest node's weight, its ring's
// free nodes, the ring's index, the start position), the least key wins. One
// node: the free node of lowest weight, lowest index. No free node on any
// ring: nil, false (slurm:consec's rule applies). No segment: nil, true.
func ringModel(rings [][]int32, free func(int32) bool, w []uint32, k int) (picked []int32, ringRule bool) {
	if k == 1 {
		best := int32(-1)
		for s := range int32(len(w)) {
			if free(s) && (best < 0 || w[s] < w[best]) {
				best = s
			}
		}
		return []int32{best}, true
	}
	anyFree := false
	for _, r := range rings {
		for _, s := range r {
			anyFree = anyFree || free(s)
		}
	}
	if !anyFree {
		return nil, false
	}
	type seg struct {
		w                 uint32
		idle, ring, start int
	}
	var segs []seg
	for i, r := range rings {
		idle := 0
		for _, s := range r {
			if free(s) {
				idle++
			}
		}
		if len(r) < k || idle < k {
			continue
		}
	starts:
		for st := range r {
			var mw uint32
			for j := range k {
				s := r[(st+j)%len(r)]
				if !free(s) {
					continue starts
				}
				mw = max(mw, w[s])
			}
			segs = append(segs, seg{mw, idle, i, st})
		}
	}
	if len(segs) == 0 {
		return nil, true
	}
	b := slices.MinFunc(segs, func(x, y seg) int {
		switch {
		case x.w != y.w:
			return cmpU(x.w, y.w)
		case x.idle != y.idle:
			return x.idle - y.idle
		case x.ring != y.ring:
			return x.ring - y.ring
		}
		return x.start - y.start
	})
	r := rings[b.ring]
	for j := range k {
		picked = append(picked, r[(b.start+j)%len(r)])
	}
	slices.Sort(picked)
	return picked, true
}

func cmpU(a, b uint32) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// randomRingsYAML is a seeded topology.yaml of 1-5 rings over nodes n1..nN: each
// ring a random 1-16 of the nodes in random order (rings may share nodes, nodes
// may be on none).
func randomRingsYAML(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("- topology: rings\n  ring:\n    rings:\n")
	for i := range 1 + rng.IntN(5) {
		size := 1 + rng.IntN(min(n, slurm.MaxRingSize))
		perm := rng.Perm(n)[:size]
		var names []string
		for _, v := range perm {
			names = append(names, fmt.Sprintf("n%d", v+1))
		}
		fmt.Fprintf(&b, "      - ring: r%d\n        nodes: %s\n", i, strings.Join(names, ","))
	}
	return b.String()
}

// TestSlurmRingMatchesModel checks slurm:ring against ringModel on random rings,
// weights (equal, or 1-3) and free sets, every k from 1 to the free count; a
// state where no ring node is free against slurm:consec on the same free set.
// Node names are not in node order (the Slurm index is the name's).
func TestSlurmRingMatchesModel(t *testing.T) {
	trials := 400
	if testing.Short() {
		trials = 100
	}
	var placed, waited, common int
	for trial := range trials {
		rng := rand.New(rand.NewPCG(uint64(trial), 77))
		n := 4 + rng.IntN(30)
		m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
		if err != nil {
			t.Fatal(err)
		}
		names := slurmNames(n)
		rng.Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
		var weights []uint32
		if trial%2 == 1 {
			weights = make([]uint32, n)
			for v := range weights {
				weights[v] = uint32(1 + rng.IntN(3))
			}
		}
		yml := randomRingsYAML(rng, n)
		top, err := slurm.ParseTopologyYAML(strings.NewReader(yml), "")
		if err != nil {
			t.Fatalf("trial %d: %v\n%s", trial, err, yml)
		}
		a, err := NewSlurm(m, SlurmConfig{Names: names, Weights: weights, Rings: top.Rings})
		if err != nil {
			t.Fatal(err)
		}
		flat, err := NewSlurm(m, SlurmConfig{Names: names, Weights: weights})
		if err != nil {
			t.Fatal(err)
		}
		busy := rng.Perm(n)[:rng.IntN(n)]
		if trial%7 == 0 {
			// Every ring node busy: the common selection.
			busy = nil
			for _, r := range top.Rings.Rings {
				for _, nm := range r.Nodes {
					busy = append(busy, slices.Index(names, nm))
				}
			}
			slices.Sort(busy)
			busy = slices.Compact(busy)
		}
		if len(busy) == n {
			continue
		}
		if err := a.Occupy(busy); err != nil {
			t.Fatal(err)
		}
		if err := flat.Occupy(busy); err != nil {
			t.Fatal(err)
		}
		rings := make([][]int32, len(top.Rings.Rings))
		for i, r := range top.Rings.Rings {
			for _, nm := range r.Nodes {
				rings[i] = append(rings[i], a.idx[slices.Index(names, nm)])
			}
		}
		for k := 1; k <= a.NumFree(); k++ {
			c := a.Clone().(*SlurmAllocator)
			got, err := c.Allocate(k)
			want, ringRule := ringModel(rings, a.free, a.w, k)
			if !ringRule {
				fc := flat.Clone().(*SlurmAllocator)
				fw, ferr := fc.Allocate(k)
				if ferr != nil || err != nil || !slices.Equal(got, fw) {
					t.Fatalf("trial %d k=%d (no ring node free): got %v, %v; slurm:consec %v, %v\n%s", trial, k, got, err, fw, ferr, yml)
				}
				common++
				continue
			}
			if want == nil {
				if !errors.Is(err, ErrFragmented) {
					t.Fatalf("trial %d k=%d: got %v, %v; the model places none\n%s", trial, k, got, err, yml)
				}
				waited++
				continue
			}
			if err != nil {
				t.Fatalf("trial %d k=%d: %v; the model places %v\n%s", trial, k, err, want, yml)
			}
			gs := make([]int32, len(got))
			for i, v := range got {
				gs[i] = a.idx[v]
			}
			slices.Sort(gs)
			if !slices.Equal(gs, want) {
				t.Fatalf("trial %d k=%d: got Slurm indices %v, the model %v\n%s", trial, k, gs, want, yml)
			}
			placed++
		}
	}
	t.Logf("%d placements equal the model's, %d waits, %d by slurm:consec's rule", placed, waited, common)
	if placed == 0 || waited == 0 || common == 0 {
		t.Errorf("a case not reached: %d placed, %d waits, %d common", placed, waited, common)
	}
}

// TestSlurmRingInPartition checks that slurm:ring counts only the nodes of the
// current view (a partition) as free: a segment through a node outside it is no
// segment, and a partition with no ring node free goes to slurm:consec.
func TestSlurmRingInPartition(t *testing.T) {
	m, err := topo.ParseSpec("mesh:8")
	if err != nil {
		t.Fatal(err)
	}
	yml := "- topology: r\n  ring:\n    rings:\n      - ring: a\n        nodes: n[1-6]\n"
	top, err := slurm.ParseTopologyYAML(strings.NewReader(yml), "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewSlurm(m, SlurmConfig{Names: slurmNames(8), Rings: top.Rings})
	if err != nil {
		t.Fatal(err)
	}
	// Partition n4..n8: the ring's free nodes there are n4-n6 (positions 3-5);
	// the segment of 3 is n4-n6, not n6,n1,n2 (the wrap leaves the partition).
	v, err := a.AddView(bitsOf(8, 0, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.UseView(v); err != nil {
		t.Fatal(err)
	}
	got, err := a.Allocate(3)
	if err != nil || !slices.Equal(got, []int{3, 4, 5}) {
		t.Fatalf("got %v, %v; want [3 4 5]", got, err)
	}
	// No ring node free in the partition: slurm:consec's rule takes n7, n8.
	got, err = a.Allocate(2)
	if err != nil || !slices.Equal(got, []int{6, 7}) {
		t.Fatalf("got %v, %v; want [6 7]", got, err)
	}
}

func bitsOf(n int, vs ...int) []uint64 {
	b := make([]uint64, (n+63)/64)
	for _, v := range vs {
		b[v/64] |= 1 << (v % 64)
	}
	return b
}

// TestSlurmRingErrors checks what slurm:ring refuses and warns of.
func TestSlurmRingErrors(t *testing.T) {
	m, err := topo.ParseSpec("mesh:20")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rings *slurm.Rings
		want  string
	}{
		{&slurm.Rings{Rings: []slurm.Ring{{Name: "big", Line: 3, Nodes: slurmNames(17)}}}, "line 3: ring big has 17 nodes; Slurm's rings hold at most 16"},
		{&slurm.Rings{Rings: []slurm.Ring{{Name: "x", Line: 4, Nodes: []string{"n1", "zz"}}}}, `ring x lists node "zz", which is not a node of the machine`},
		{&slurm.Rings{}, "without rings"},
	} {
		_, err := NewSlurm(m, SlurmConfig{Names: slurmNames(20), Rings: c.rings})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.rings, err, c.want)
		}
	}
	a, err := NewSlurm(m, SlurmConfig{Names: slurmNames(20), Rings: &slurm.Rings{Rings: []slurm.Ring{{Name: "a", Nodes: slurmNames(16)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Warnings(); len(w) != 1 || !strings.Contains(w[0], "4 of the machine's 20 nodes are on no ring") {
		t.Errorf("warnings %q", w)
	}
	if _, err := a.Allocate(17); !errors.Is(err, ErrFragmented) || !strings.Contains(err.Error(), "the largest ring has 16 nodes") {
		t.Errorf("k=17: %v", err)
	}
}
