package alloc

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// checkBuddy verifies that MBS's free blocks are exactly the maximal free buddy
// blocks: every free block is fully free, blocks are disjoint and cover the free
// nodes, and no free block's parent is fully free.
func checkBuddy(t *testing.T, a *MBS) {
	t.Helper()
	n := a.g.N()
	covered := make([]bool, n)
	fullyFree := func(c, lv int) bool {
		side := 1 << lv
		for dy := 0; dy < side; dy++ {
			for dx := 0; dx < side; dx++ {
				if !a.st.IsFree(c + dx + dy*a.x) {
					return false
				}
			}
		}
		return true
	}
	for lv, bt := range a.free {
		count := 0
		for c := bt.next(0); c >= 0; c = bt.next(c + 1) {
			count++
			if !fullyFree(c, lv) {
				t.Fatalf("free block at %d (level %d) has busy nodes", c, lv)
			}
			side := 1 << lv
			for dy := 0; dy < side; dy++ {
				for dx := 0; dx < side; dx++ {
					v := c + dx + dy*a.x
					if covered[v] || int(a.rootOf[v]) != int(a.rootOf[c]) {
						t.Fatalf("free block at %d (level %d) overlaps or leaves its root at node %d", c, lv, v)
					}
					covered[v] = true
				}
			}
			if p := a.parent(c, lv); p >= 0 && fullyFree(p, lv+1) {
				t.Fatalf("free block at %d (level %d) should have merged into %d", c, lv, p)
			}
		}
		if count != a.nfree[lv] {
			t.Fatalf("level %d: %d free blocks counted %d", lv, count, a.nfree[lv])
		}
	}
	for v := range n {
		if covered[v] != a.st.IsFree(v) {
			t.Fatalf("node %d: free=%v but covered=%v", v, a.st.IsFree(v), covered[v])
		}
	}
}

func TestMBSRandom(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "mesh:24x24", "mesh:5x3", "mesh:7", "mesh:6x4x3", "torus:4x4"} {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewMBS(m)
		if err != nil {
			t.Fatal(err)
		}
		checkBuddy(t, a)
		rng := rand.New(rand.NewPCG(7, uint64(m.N())))
		replay(t, rng, a, 600, nil, func() { checkBuddy(t, a) })
		// Partial releases: free nodes one at a time, in random order.
		f := a.NumFree()
		all, err := a.Allocate(f)
		if err != nil {
			t.Fatal(err)
		}
		rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		for _, v := range all {
			if err := a.Release([]int{v}); err != nil {
				t.Fatal(err)
			}
			checkBuddy(t, a)
		}
		if a.NumFree() != f {
			t.Fatalf("%s: %d free after releasing, want %d", spec, a.NumFree(), f)
		}
	}
}

func TestMBSExamples(t *testing.T) {
	a, err := NewMBS(topo.Mesh(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	// 5 = 4 + 1: the 2x2 block at the corner, then the 1x1 at the corner of the
	// next 2x2 block (x = 2..3, y = 0..1), split for it.
	got, _ := a.Allocate(5)
	if want := []int{0, 1, 4, 5, 2}; !slices.Equal(got, want) {
		t.Errorf("4x4, k=5: %v, want %v", got, want)
	}
	// 4 more: no free 2x2 block is left whole except (0,2) and (2,2): corner 8.
	got, _ = a.Allocate(4)
	if want := []int{8, 9, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("4x4, then k=4: %v, want %v", got, want)
	}
	// Roots of non-power-of-two meshes.
	for _, tc := range []struct {
		dims  []int
		sides []int
	}{
		{[]int{24, 24}, []int{16, 8, 8, 8, 8, 8}},
		{[]int{5, 3}, []int{2, 2, 1, 1, 1, 1, 1, 1, 1}},
		{[]int{2, 2, 2}, []int{2, 2}},
	} {
		g, _ := topo.NewGrid(tc.dims, nil)
		b, _ := NewMBS(g)
		var sides []int
		area := 0
		for _, r := range b.roots {
			sides = append(sides, 1<<r.level)
			area += 1 << (2 * r.level)
		}
		if !slices.Equal(sides, tc.sides) || area != g.N() {
			t.Errorf("%v: root sides %v (area %d), want %v", tc.dims, sides, area, tc.sides)
		}
	}
	if _, err := NewMBS(mustGraph(t)); err == nil {
		t.Error("mbs on a graph accepted")
	}
	if _, err := Parse("mbs:x", topo.Mesh(4, 4), Options{}); err == nil {
		t.Error("mbs with an argument accepted")
	}
}

func mustGraph(t *testing.T) topo.Machine {
	g, err := topo.NewGraphFromEdges(3, [][2]int{{0, 1}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// refMBS computes the MBS allocation of k nodes from the free set alone: it finds
// the maximal free buddy blocks by brute force, then serves the request by the rules
// (largest blocks first; lowest corner; split the smallest larger block; else four
// requests of half the side).
func refMBS(a *MBS, free func(int) bool, k int) []int {
	top := 0
	for _, r := range a.roots {
		top = max(top, r.level)
	}
	lists := make([][]int, top+1) // corners of free blocks per level
	block := func(c, lv int) []int {
		var v []int
		for dy := 0; dy < 1<<lv; dy++ {
			for dx := 0; dx < 1<<lv; dx++ {
				v = append(v, c+dx+dy*a.x)
			}
		}
		return v
	}
	var walk func(c, lv int)
	walk = func(c, lv int) {
		all := true
		for _, v := range block(c, lv) {
			all = all && free(v)
		}
		if all {
			lists[lv] = append(lists[lv], c)
			return
		}
		if lv > 0 {
			h := 1 << (lv - 1)
			for _, d := range []int{c, c + h, c + h*a.x, c + h + h*a.x} {
				walk(d, lv-1)
			}
		}
	}
	for _, r := range a.roots {
		walk(r.corner, r.level)
	}
	popMin := func(lv int) int {
		i := slices.Index(lists[lv], slices.Min(lists[lv]))
		c := lists[lv][i]
		lists[lv] = slices.Delete(lists[lv], i, i+1)
		return c
	}
	need := make([]int, top+1)
	rest := k
	for i := top; i >= 0; i-- {
		need[i] = rest / (1 << (2 * i))
		rest -= need[i] * (1 << (2 * i))
	}
	var nodes []int
	for i := top; i >= 0; i-- {
		for need[i] > 0 {
			for len(lists[i]) == 0 {
				j := i + 1
				for j <= top && len(lists[j]) == 0 {
					j++
				}
				if j > top {
					break
				}
				c := popMin(j)
				h := 1 << (j - 1)
				lists[j-1] = append(lists[j-1], c, c+h, c+h*a.x, c+h+h*a.x)
			}
			if len(lists[i]) == 0 {
				need[i]--
				need[i-1] += 4
				continue
			}
			nodes = append(nodes, block(popMin(i), i)...)
			need[i]--
		}
	}
	return nodes
}

func TestMBSMatchesReference(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "mesh:16x16", "mesh:24x24", "mesh:5x3", "mesh:6x4x3"} {
		m, _ := topo.ParseSpec(spec)
		a, err := NewMBS(m)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, uint64(m.N())))
		replay(t, rng, a, 800, func(k int) []int { return refMBS(a, a.st.IsFree, k) }, nil)
	}
}

// TestMBSBitmapPathKeepsMaximalBlocks: after OccupyFreeIn and ReleaseIn (the
// Mask's bitmap path, remake: only the blocks holding a node of the bitmap made
// anew) the free blocks are exactly the maximal free buddy blocks (checkBuddy,
// the definition checked node by node), on random histories of decisions,
// releases and bitmaps of every shape a replay gives: random nodes, ranges of
// indices (a partition of consecutive hosts), rows, and a few nodes, on meshes
// of one root and of many, layered 3D ones and a torus.
func TestMBSBitmapPathKeepsMaximalBlocks(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "mesh:24x24", "mesh:40x30", "mesh:128x5", "mesh:13x11", "mesh:7x5x2", "mesh:9", "torus:16x8"} {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewMBS(m)
		if err != nil {
			t.Fatal(err)
		}
		n := m.N()
		rng := rand.New(rand.NewPCG(11, uint64(n)))
		var jobs [][]int
		held := make([]uint64, (n+63)/64) // the nodes the bitmap path holds
		taken := make([]uint64, len(held))
		for step := range 300 {
			set := make([]uint64, len(held))
			switch rng.IntN(4) {
			case 0:
				p := rng.Float64()
				for v := range n {
					if rng.Float64() < p {
						set[v>>6] |= 1 << (v & 63)
					}
				}
			case 1:
				lo := rng.IntN(n)
				for v := lo; v < min(n, lo+1+rng.IntN(n)); v++ {
					set[v>>6] |= 1 << (v & 63)
				}
			case 2:
				x := m.Dims()[0]
				y := rng.IntN(max(1, n/x))
				for v := y * x; v < min(n, (y+1+rng.IntN(3))*x); v++ {
					set[v>>6] |= 1 << (v & 63)
				}
			default:
				for range 1 + rng.IntN(3) {
					v := rng.IntN(n)
					set[v>>6] |= 1 << (v & 63)
				}
			}
			switch r := rng.IntN(10); {
			case r < 3 && a.NumFree() > 0:
				nodes, err := a.Allocate(1 + rng.IntN(a.NumFree()))
				if err != nil {
					t.Fatal(err)
				}
				jobs = append(jobs, nodes)
			case r < 5 && len(jobs) > 0:
				j := rng.IntN(len(jobs))
				if err := a.Release(jobs[j]); err != nil {
					t.Fatal(err)
				}
				jobs = slices.Delete(jobs, j, j+1)
			case r < 8:
				k := a.OccupyFreeIn(set, taken)
				got := 0
				for w, x := range taken {
					if x&^set[w] != 0 || x&held[w] != 0 {
						t.Fatalf("%s step %d: took nodes outside the set or held", spec, step)
					}
					held[w] |= x
					got += bits.OnesCount64(x)
				}
				if got != k {
					t.Fatalf("%s step %d: %d taken, %d reported", spec, step, got, k)
				}
			default:
				for w := range set {
					set[w] &= held[w]
				}
				if err := a.ReleaseIn(set); err != nil {
					t.Fatalf("%s step %d: %v", spec, step, err)
				}
				for w, x := range set {
					held[w] &^= x
				}
			}
			checkBuddy(t, a)
		}
	}
}

// TestMBSViewAddedWhileBusy: a view added while jobs run (Viewer.AddView at any
// time) has as free nodes the machine's outside its set, its free blocks are
// the maximal buddy blocks of those (checkBuddy), and it decides as the
// machine with the set occupied; switching back, the machine's state is intact.
func TestMBSViewAddedWhileBusy(t *testing.T) {
	for _, spec := range []string{"mesh:8x8", "mesh:24x24", "mesh:7x5x2"} {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := NewMBS(m)
		ref, _ := NewMBS(m)
		n := m.N()
		rng := rand.New(rand.NewPCG(5, uint64(n)))
		for range 4 {
			k := 1 + rng.IntN(n/6)
			x, err1 := a.Allocate(k)
			y, err2 := ref.Allocate(k)
			if err1 != nil || err2 != nil || !slices.Equal(x, y) {
				t.Fatalf("%s: %v %v", spec, err1, err2)
			}
		}
		away := make([]uint64, (n+63)/64)
		var list []int
		for v := range n {
			if rng.IntN(3) == 0 {
				away[v>>6] |= 1 << (v & 63)
				list = append(list, v)
			}
		}
		id, err := a.AddView(away)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.UseView(id); err != nil {
			t.Fatal(err)
		}
		checkBuddy(t, a)
		for v := range n {
			if want := ref.IsFree(v) && away[v>>6]>>(v&63)&1 == 0; a.IsFree(v) != want {
				t.Fatalf("%s: node %d free %v in the view, want %v", spec, v, a.IsFree(v), want)
			}
		}
		k := 1 + rng.IntN(a.NumFree())
		got, err1 := a.Allocate(k)
		want, _, err2 := AllocateWithout(context.Background(), ref, k, list, nil)
		if err1 != nil || err2 != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: the view gives %v (%v), AllocateWithout %v (%v)", spec, got, err1, want, err2)
		}
		if err := a.UseView(0); err != nil {
			t.Fatal(err)
		}
		checkBuddy(t, a)
		for v := range n {
			if a.IsFree(v) != ref.IsFree(v) {
				t.Fatalf("%s: node %d free %v in the machine, want %v", spec, v, a.IsFree(v), ref.IsFree(v))
			}
		}
		a.DropViews()
	}
}
