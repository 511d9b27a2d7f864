package alloc

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestSquaresKnownAndAgainstMBS: D of known free sets, and D equals the number of
// free buddy blocks MBS keeps (its free blocks are the maximal free aligned squares)
// along random sequences.
func TestSquaresKnownAndAgainstMBS(t *testing.T) {
	all := func(int) bool { return true }
	for spec, want := range map[string]int{"mesh:16x16": 1, "mesh:32x16": 2, "mesh:4x16": 4, "mesh:1x1": 1} {
		m, _ := topo.ParseSpec(spec)
		if d, err := Squares(m, all); err != nil || d != want {
			t.Errorf("D(%s all free) = %d, %v; want %d", spec, d, err, want)
		}
	}
	m4 := topo.Mesh(4, 4)
	if d, _ := Squares(m4, func(v int) bool { return v != 5 }); d != 6 {
		t.Errorf("D(4x4 without (1,1)) = %d, want 3 + 3", d)
	}
	if d, _ := Squares(m4, func(int) bool { return false }); d != 0 {
		t.Errorf("D(nothing free) = %d", d)
	}
	if _, err := Squares(topo.Mesh(6, 4), all); err == nil {
		t.Error("Squares on 6x4 accepted")
	}
	for _, spec := range []string{"mesh:16x16", "mesh:16x8", "mesh:8x32"} {
		m, _ := topo.ParseSpec(spec)
		a, _ := NewMBS(m)
		check := func() {
			d, err := Squares(m, a.State().IsFree)
			blocks := 0
			for _, c := range a.nfree {
				blocks += c
			}
			if err != nil || d != blocks {
				t.Fatalf("%s: D = %d (%v), MBS has %d free blocks", spec, d, err, blocks)
			}
		}
		replay(t, rand.New(rand.NewPCG(3, uint64(m.N()))), a, 300, nil, check)
	}
}

// minSquares is the least D any choice of k of the free nodes can leave, by
// enumerating every k-subset (small meshes only).
func minSquares(m topo.Machine, free []bool, k int) int {
	var fr []int
	for v, f := range free {
		if f {
			fr = append(fr, v)
		}
	}
	best := 1 << 30
	cur := slices.Clone(free)
	var rec func(i, left int)
	rec = func(i, left int) {
		if left == 0 {
			d, _ := Squares(m, func(v int) bool { return cur[v] })
			best = min(best, d)
			return
		}
		if len(fr)-i < left {
			return
		}
		cur[fr[i]] = false
		rec(i+1, left-1)
		cur[fr[i]] = true
		rec(i+1, left)
	}
	rec(0, k)
	return best
}

// TestCompactnessOfAllocators checks Definition 1 by brute force on a 4x4 mesh:
// after each allocation of random sequences, D against the least D that any choice
// of the same number of free nodes could leave. It reports, per allocator, how many
// allocations were compact; docs/io.md quotes the result. Liu et al. §6 state that
// MBS is compact; this test checks the claim and fails if it does not hold for mbs
// on these sequences.
func TestCompactnessOfAllocators(t *testing.T) {
	m, _ := topo.ParseSpec("mesh:4x4:io=left")
	for _, spec := range []string{"mbs", "scbt", "bt", "sbt:4", "dbt:1/4", "ind-bt", "d-bt", "d-dbt:1/4", "plas", "freelist:hilbert"} {
		a, err := Parse(spec, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		st := a.(interface{ State() *State })
		rng := rand.New(rand.NewPCG(7, 7))
		steps, compact := 0, 0
		var worst string
		seqs := 30
		if testing.Short() {
			seqs = 8
		}
		for seq := range seqs {
			var jobs [][]int
			for range 8 {
				if len(jobs) > 0 && rng.IntN(3) == 0 {
					j := rng.IntN(len(jobs))
					a.Release(jobs[j])
					jobs = slices.Delete(jobs, j, j+1)
					continue
				}
				if a.NumFree() == 0 {
					break
				}
				k := 1 + rng.IntN(min(a.NumFree(), 6))
				free := make([]bool, 16)
				for v := range free {
					free[v] = st.State().IsFree(v)
				}
				before := a.NumFree()
				got, err := a.Allocate(k)
				if errors.Is(err, ErrFragmented) {
					continue // a contiguous allocator waits; nothing was allocated
				}
				if err != nil {
					t.Fatal(err)
				}
				// The least D over every choice of as many nodes as the allocator
				// took (bt, sbt and dbt take a whole block of the next power of two).
				best := minSquares(m, free, before-a.NumFree())
				d, _ := Squares(m, st.State().IsFree)
				steps++
				if d == best {
					compact++
				} else if worst == "" {
					worst = sprintFree(free) + " k=" + itoa(k) + " D=" + itoa(d) + " least=" + itoa(best)
				}
				jobs = append(jobs, got)
			}
			for _, j := range jobs {
				a.Release(j)
			}
			_ = seq
		}
		t.Logf("%-16s compact after %d of %d allocations; first miss: %s", spec, compact, steps, worst)
		if spec == "mbs" && compact != steps {
			t.Errorf("mbs is not compact (Definition 1) on a 4x4 mesh: %s", worst)
		}
	}
}

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

func sprintFree(free []bool) string {
	b := []byte{}
	for y := 3; y >= 0; y-- {
		for x := range 4 {
			if free[x+4*y] {
				b = append(b, '.')
			} else {
				b = append(b, '#')
			}
		}
		if y > 0 {
			b = append(b, '/')
		}
	}
	return string(b)
}

// TestSCBTLemma2: on allocation-only sequences and with releases in last-in
// first-out order, scbt's free set satisfies Lemma 1's condition (Lemma 2) after
// every step; a release out of that order can break it (Lemma 2 assumes allocations
// only), which the last part shows on a fixed sequence.
func TestSCBTLemma2(t *testing.T) {
	for _, spec := range []string{"mesh:16x16:io=left", "mesh:32x16", "mesh:8x16:io=top"} {
		m, _ := topo.ParseSpec(spec)
		for seed := range 20 {
			a, _ := NewSCBT(m)
			rng := rand.New(rand.NewPCG(uint64(seed), 11))
			var stack [][]int
			for step := range 200 {
				if len(stack) > 0 && (rng.IntN(3) == 0 || a.NumFree() == 0) {
					a.Release(stack[len(stack)-1])
					stack = stack[:len(stack)-1]
				} else {
					k := 1 + rng.IntN(min(a.NumFree(), 40))
					got, err := a.Allocate(k)
					if err != nil {
						t.Fatal(err)
					}
					stack = append(stack, got)
				}
				if ok, why, err := SpatiallyCompact(m, a.State().IsFree); err != nil || !ok {
					t.Fatalf("%s seed %d step %d: not spatially compact: %s %v", spec, seed, step, why, err)
				}
			}
		}
	}
	m := topo.Mesh(4, 4)
	a, _ := NewSCBT(m)
	var jobs [][]int
	for range 4 {
		j, _ := a.Allocate(1)
		jobs = append(jobs, j)
	}
	a.Release(jobs[1])
	a.Release(jobs[3])
	if ok, _, _ := SpatiallyCompact(m, a.State().IsFree); ok {
		t.Error("two free single nodes in different pairs passed Lemma 1's condition")
	}
	// bt is not spatially compact even without releases: jobs of 2, 1, 2 take
	// leaves 0-1, 2, then 4-5 (the first free pair), leaving leaf 3 and the pair 6-7
	// free, and the pair's parent (leaves 4-7) is not an ancestor of leaf 3.
	b, _ := Parse("bt", m, Options{})
	b.Allocate(2)
	b.Allocate(1)
	b.Allocate(2)
	if ok, _, _ := SpatiallyCompact(m, b.(*BinaryTree).State().IsFree); ok {
		t.Error("bt after 2, 1, 2 passed Lemma 1's condition")
	}
}

// TestSCBTMatchesTreeWalk compares scbt with a literal implementation of the walk of
// §4.1.1 on allocation-only sequences: same nodes for every request.
func TestSCBTMatchesTreeWalk(t *testing.T) {
	for _, spec := range []string{"mesh:8x8:io=left", "mesh:16x8", "mesh:4x8:io=bottom"} {
		m, _ := topo.ParseSpec(spec)
		tr, _ := newDivTree(m, "test")
		for seed := range 30 {
			a, _ := NewSCBT(m)
			free := make([]int, 2*tr.n()) // S(p)
			for i := 1; i < len(free); i++ {
				free[i] = tr.area(i)
			}
			take := func(p int) []int { // all free leaves of p, in leaf order, marked taken
				var out []int
				var rec func(q int)
				rec = func(q int) {
					if free[q] == 0 {
						return
					}
					if q >= tr.n() {
						out = append(out, int(tr.x0[q])+int(tr.y0[q])*tr.x)
						return
					}
					rec(2 * q)
					rec(2*q + 1)
				}
				rec(p)
				for _, v := range out {
					for q := int(tr.leaf[v]); q >= 1; q /= 2 {
						free[q]--
					}
				}
				return out
			}
			rng := rand.New(rand.NewPCG(uint64(seed), 5))
			for a.NumFree() > 0 {
				k := 1 + rng.IntN(a.NumFree())
				var want []int
				for i := bits.Len(uint(k)) - 1; i >= 0; i-- {
					if k>>i&1 == 0 {
						continue
					}
					p, z := 1, 1<<i
					for z > 0 {
						if p >= tr.n() || free[p] == z {
							want = append(want, take(p)...)
							break
						}
						if free[2*p] >= z {
							p = 2 * p
							continue
						}
						z -= free[2*p]
						want = append(want, take(2*p)...)
						p = 2*p + 1
					}
				}
				got, err := a.Allocate(k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
					t.Fatalf("%s seed %d: scbt %d = %v, tree walk %v", spec, seed, k, got, want)
				}
			}
		}
	}
}

// squaresRef is D by recursion over the aligned squares (the definition).
func squaresRef(X, Y int, free []bool) int {
	count := 0
	var rec func(x0, y0, s int) bool
	rec = func(x0, y0, s int) bool {
		if s == 1 {
			return free[x0+y0*X]
		}
		h, c := s/2, 0
		for _, q := range [4][2]int{{0, 0}, {h, 0}, {0, h}, {h, h}} {
			if rec(x0+q[0], y0+q[1], h) {
				c++
			}
		}
		if c == 4 {
			return true
		}
		count += c
		return false
	}
	side := min(X, Y)
	for y0 := 0; y0 < Y; y0 += side {
		for x0 := 0; x0 < X; x0 += side {
			if rec(x0, y0, side) {
				count++
			}
		}
	}
	return count
}

// One Compactness reused over many free sets gives the definition's D every time.
func TestSquaresReusedMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, dims := range [][2]int{{16, 16}, {32, 8}, {4, 16}, {1, 1}, {2, 8}} {
		c, err := NewCompactness(topo.Mesh(dims[0], dims[1]))
		if err != nil {
			t.Fatal(err)
		}
		free := make([]bool, dims[0]*dims[1])
		for range 200 {
			p := r.Float64()
			for v := range free {
				free[v] = r.Float64() < p
			}
			if got, want := c.Squares(func(v int) bool { return free[v] }), squaresRef(dims[0], dims[1], free); got != want {
				t.Fatalf("%v: D = %d, definition %d", dims, got, want)
			}
		}
	}
}

// Measure, which updates its counts only for the nodes that changed since its last
// call, equals the full scans (Squares and SpatiallyCompact) after every step of
// random take/release sequences, small steps and whole-machine ones alike.
func TestMeasureIncrementalMatchesScans(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, dims := range [][2]int{{16, 16}, {32, 8}, {4, 16}, {1, 1}, {2, 8}, {64, 64}} {
		g := topo.Mesh(dims[0], dims[1])
		inc, err := NewCompactness(g)
		if err != nil {
			t.Fatal(err)
		}
		scan, _ := NewCompactness(g)
		n := g.N()
		st := NewState(n)
		for step := range 300 {
			var busy, free []int
			for v := range n {
				if st.IsFree(v) {
					free = append(free, v)
				} else {
					busy = append(busy, v)
				}
			}
			switch {
			case step%50 == 49 && len(busy) > 0: // release everything
				if err := st.Release(busy); err != nil {
					t.Fatal(err)
				}
			case len(free) > 0 && (len(busy) == 0 || r.IntN(2) == 0):
				r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
				if err := st.Take(free[:1+r.IntN(min(len(free), 1+n/8))]); err != nil {
					t.Fatal(err)
				}
			default:
				r.Shuffle(len(busy), func(i, j int) { busy[i], busy[j] = busy[j], busy[i] })
				if err := st.Release(busy[:1+r.IntN(len(busy))]); err != nil {
					t.Fatal(err)
				}
			}
			d, ok := inc.Measure(st)
			wantD := scan.Squares(st.IsFree)
			wantOK, _ := scan.SpatiallyCompact(st.IsFree)
			if d != wantD || ok != wantOK {
				t.Fatalf("%v step %d: Measure = %d, %v; scans %d, %v", dims, step, d, ok, wantD, wantOK)
			}
		}
	}
}
