package alloc

import (
	"errors"
	"fmt"
	"math/bits"
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

// shuffledSlurmLine is the machine mesh:n with the names n1..nN in random
// order (Slurm indices, the names' order, are then not the node numbers).
func shuffledSlurmLine(t *testing.T, rng *rand.Rand, n int) (topo.Machine, []string) {
	t.Helper()
	m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
	if err != nil {
		t.Fatal(err)
	}
	names := slurmNames(n)
	rng.Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
	return m, names
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
		m, names := shuffledSlurmLine(t, rng, n)
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

// checkRingFree checks a's current incremental ring state against its free
// nodes read one by one: each ring's free positions, the rings by free count,
// the free nodes on some ring.
func checkRingFree(t *testing.T, a *SlurmAllocator, where string) {
	t.Helper()
	rs, rf := a.ring, a.rf
	on := 0
	for _, s := range rs.onAny {
		if a.free(s) {
			on++
		}
	}
	if rf.onFree != on {
		t.Fatalf("%s: %d free ring nodes counted, %d free", where, rf.onFree, on)
	}
	for i, ring := range rs.ring {
		var m uint16
		for p, s := range ring {
			if a.free(s) {
				m |= 1 << p
			}
		}
		if rf.mask[i] != m {
			t.Fatalf("%s: ring %d free positions %b, want %b", where, i, rf.mask[i], m)
		}
		for c := range slurm.MaxRingSize + 1 {
			in := rf.byIdle[c*rs.words+i>>6]>>(i&63)&1 != 0
			if in != (c == bits.OnesCount16(m)) {
				t.Fatalf("%s: ring %d (%d free) in the list of %d free: %v", where, i, bits.OnesCount16(m), c, in)
			}
		}
	}
}

// TestSlurmRingIncrementalMatchesScan plays random histories (allocations,
// releases, nodes occupied outside the emulation, partitions' views made and
// switched, will-run clones) on 6-60 random rings of up to 16 nodes, shared
// nodes and nodes on no ring, with weights of randomSlurmWeights' four kinds:
// after every step the incremental state is the free nodes' (checkRingFree),
// and every decision equals the plain scan's (ringSelectScan) on the same
// state, placed or refused alike.
func TestSlurmRingIncrementalMatchesScan(t *testing.T) {
	trials := 60
	if testing.Short() {
		trials = 20
	}
	var placed, waited, cloned int
	for trial := range trials {
		rng := rand.New(rand.NewPCG(uint64(trial), 1207))
		n := 40 + rng.IntN(400)
		m, names := shuffledSlurmLine(t, rng, n)
		weights := randomSlurmWeights(rng, n, trial)
		var b strings.Builder
		b.WriteString("- topology: rings\n  ring:\n    rings:\n")
		for i := range 6 + rng.IntN(55) {
			size := 1 + rng.IntN(slurm.MaxRingSize)
			var nm []string
			for _, v := range rng.Perm(n)[:size] {
				nm = append(nm, names[v])
			}
			fmt.Fprintf(&b, "      - ring: r%d\n        nodes: %s\n", i, strings.Join(nm, ","))
		}
		top, err := slurm.ParseTopologyYAML(strings.NewReader(b.String()), "")
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewSlurm(m, SlurmConfig{Names: names, Weights: weights, Rings: top.Rings})
		if err != nil {
			t.Fatal(err)
		}
		var jobs [][]int
		views := []int{0}
		for step := range 300 {
			where := fmt.Sprintf("trial %d step %d", trial, step)
			switch op := rng.IntN(10); {
			case op < 5 && a.NumFree() > 0:
				k := 1 + rng.IntN(min(a.NumFree(), slurm.MaxRingSize+2))
				c := a.Clone().(*SlurmAllocator)
				want, werr := c.ringSelectScan(k)
				got, err := a.ringSelect(k)
				if (err == nil) != (werr == nil) || !slices.Equal(got, want) {
					t.Fatalf("%s k=%d: incremental %v, %v; scan %v, %v", where, k, got, err, want, werr)
				}
				if err != nil {
					waited++
					continue
				}
				out, err := a.Allocate(k)
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				jobs = append(jobs, out)
				placed++
			case op < 8 && len(jobs) > 0:
				j := rng.IntN(len(jobs))
				if err := a.Release(jobs[j]); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				jobs = slices.Delete(jobs, j, j+1)
			case op == 8:
				var occ []int
				for v := range n {
					if a.vb.on() && !a.vb.truth.IsFree(v) || !a.vb.on() && !a.IsFree(v) {
						continue
					}
					if rng.IntN(20) == 0 {
						occ = append(occ, v)
					}
				}
				if err := a.Occupy(occ); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				jobs = append(jobs, occ)
			default:
				if len(views) < 4 && rng.IntN(2) == 0 {
					away := make([]uint64, (n+63)/64)
					lo := rng.IntN(n)
					for v := lo; v < min(n, lo+n/3); v++ {
						away[v>>6] |= 1 << (v & 63)
					}
					id, err := a.AddView(away)
					if err != nil {
						t.Fatal(err)
					}
					views = append(views, id)
				}
				if err := a.UseView(views[rng.IntN(len(views))]); err != nil {
					t.Fatal(err)
				}
			}
			checkRingFree(t, a, where)
			if step%50 == 49 {
				c := a.Clone().(*SlurmAllocator)
				checkRingFree(t, c, where+" (clone)")
				cloned++
			}
		}
	}
	t.Logf("%d placements and %d waits equal the scan's, %d clones checked", placed, waited, cloned)
	if placed < 100 || waited < 100 {
		t.Errorf("too few cases: %d placed, %d waits", placed, waited)
	}
}

// BenchmarkSlurmRing131k: one release and one k-node decision (k 2-16) on
// 131,072 nodes in 8,192 rings of 16 (Slurm's largest), half busy, Weight
// equal or the node's rank (distinct); scan/ the same decisions by the plain
// scan of every ring (ringSelectScan), the state left as it is.
//
//	go test -run '^$' -bench SlurmRing131k ./alloc
func BenchmarkSlurmRing131k(b *testing.B) {
	const n, size = 131072, 16
	var yb strings.Builder
	yb.WriteString("- topology: rings\n  ring:\n    rings:\n")
	for r := range n / size {
		fmt.Fprintf(&yb, "      - ring: r%d\n        nodes: n[%d-%d]\n", r, size*r+1, size*r+size)
	}
	top, err := slurm.ParseTopologyYAML(strings.NewReader(yb.String()), "")
	if err != nil {
		b.Fatal(err)
	}
	m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", n))
	if err != nil {
		b.Fatal(err)
	}
	for _, weighted := range []bool{false, true} {
		var w []uint32
		name := "equal"
		if weighted {
			name = "rank"
			w = make([]uint32, n)
			for v, r := range rand.New(rand.NewPCG(2, 2)).Perm(n) {
				w[v] = uint32(r + 1)
			}
		}
		a, err := NewSlurm(m, SlurmConfig{Names: slurmNames(n), Weights: w, Rings: top.Rings})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		var live [][]int
		for a.NumFree() > n/2 {
			if got, err := a.Allocate(2 + rng.IntN(size-1)); err == nil {
				live = append(live, got)
			}
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				j := rng.IntN(len(live))
				if live[j] != nil {
					if err := a.Release(live[j]); err != nil {
						b.Fatal(err)
					}
				}
				live[j] = nil
				if got, err := a.Allocate(2 + rng.IntN(size-1)); err == nil {
					live[j] = got
				}
			}
		})
		b.Run("scan/"+name, func(b *testing.B) {
			for b.Loop() {
				_, _ = a.ringSelectScan(2 + rng.IntN(size-1))
			}
		})
	}
}
