package alloc

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

func TestShapeIsTheMostSquareBoxThatFits(t *testing.T) {
	for _, tc := range []struct {
		k    int
		dims []int
		want []int
	}{
		{1, []int{16, 16}, []int{1, 1}},
		{6, []int{16, 16}, []int{3, 2}},
		{7, []int{16, 16}, []int{3, 3}},
		{16, []int{16, 22}, []int{4, 4}},
		{128, []int{16, 16}, []int{12, 11}},
		{320, []int{16, 22}, []int{16, 20}}, // ceil(sqrt 320) = 18 > 16
		{352, []int{16, 22}, []int{16, 22}},
		{30, []int{8, 8, 8}, []int{4, 3, 3}},
	} {
		got := Shape(tc.k, tc.dims)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Shape(%d, %v) = %v, want %v", tc.k, tc.dims, got, tc.want)
		}
	}
	// Every k on a few machines: the box fits and holds k.
	for _, dims := range [][]int{{16, 22}, {5, 3}, {4, 4, 4}, {7}} {
		n := 1
		for _, d := range dims {
			n *= d
		}
		for k := 1; k <= n; k++ {
			s := Shape(k, dims)
			prod := 1
			for j, v := range s {
				if v < 1 || v > dims[j] {
					t.Fatalf("Shape(%d, %v) = %v does not fit", k, dims, s)
				}
				prod *= v
			}
			if prod < k {
				t.Fatalf("Shape(%d, %v) = %v holds %d", k, dims, s, prod)
			}
		}
	}
}

// mcSlow is MC by its definition: every free centre, every free node's shell number
// (L-infinity distance to the centred box), the k smallest.
func mcSlow(g *topo.Grid, free []bool, k int) (cost int, nodes []int) {
	shape := Shape(k, g.Dims())
	best := -1
	for c := range g.N() {
		if !free[c] {
			continue
		}
		cc := g.Coord(c, nil)
		type cand struct{ sh, l1, v int }
		var cs []cand
		for v := range g.N() {
			if !free[v] {
				continue
			}
			x := g.Coord(v, nil)
			sh, l1 := 0, 0
			for j := range x {
				b0 := cc[j] - (shape[j]-1)/2
				b1 := b0 + shape[j] - 1
				sh = max(sh, b0-x[j], x[j]-b1)
				l1 += abs(x[j] - cc[j])
			}
			cs = append(cs, cand{sh, l1, v})
		}
		slices.SortFunc(cs, func(p, q cand) int {
			if p.sh != q.sh {
				return p.sh - q.sh
			}
			if p.l1 != q.l1 {
				return p.l1 - q.l1
			}
			return p.v - q.v
		})
		s := 0
		for _, x := range cs[:k] {
			s += x.sh
		}
		if best < 0 || s < cost {
			best, cost = c, s
			nodes = nil
			for _, x := range cs[:k] {
				nodes = append(nodes, x.v)
			}
		}
	}
	return cost, nodes
}

func TestMCMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, spec := range []string{"mesh:8x8", "mesh:16x6", "mesh:4x3x3", "mesh:9"} {
		g, _ := topo.ParseSpec(spec)
		a, err := NewMC(g)
		if err != nil {
			t.Fatal(err)
		}
		var live [][]int
		for step := range 400 {
			if len(live) > 0 && (rng.IntN(3) == 0 || a.NumFree() == 0) {
				i := rng.IntN(len(live))
				if err := a.Release(live[i]); err != nil {
					t.Fatal(err)
				}
				live = slices.Delete(live, i, i+1)
				continue
			}
			k := 1 + rng.IntN(max(1, min(a.NumFree(), g.N()/3)))
			free := make([]bool, g.N())
			for v := range free {
				free[v] = a.st.IsFree(v)
			}
			_, want := mcSlow(g, free, k)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s step %d k=%d: MC chose %v, the definition %v", spec, step, k, got, want)
			}
			live = append(live, got)
		}
	}
}

func TestPagingPageSizeZeroIsTheSortedFreeList(t *testing.T) {
	g, _ := topo.ParseSpec("mesh:16x16")
	p, err := Parse("paging:hilbert:0", g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Parse("freelist:hilbert", g, Options{})
	rng := rand.New(rand.NewPCG(1, 1))
	var live [][]int
	for range 2000 {
		if len(live) > 0 && (rng.IntN(2) == 0 || p.NumFree() < 10) {
			i := rng.IntN(len(live))
			if err := p.Release(live[i]); err != nil {
				t.Fatal(err)
			}
			if err := f.Release(live[i]); err != nil {
				t.Fatal(err)
			}
			live = slices.Delete(live, i, i+1)
			continue
		}
		k := 1 + rng.IntN(min(p.NumFree(), 40))
		a, err := p.Allocate(k)
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Allocate(k)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("paging s=0 took %v, freelist %v", a, b)
		}
		live = append(live, a)
	}
}

func TestPagingTakesWholePages(t *testing.T) {
	g, _ := topo.ParseSpec("mesh:16x22")
	a, err := NewPaging("paging:hilbert-trunc:1", g, "hilbert-trunc", 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pageOrder, _ := curves.Generate("hilbert-trunc", topo.Mesh(8, 11))
	x, err := a.Allocate(5) // two pages: the first two along the page curve, 3 nodes idle
	if err != nil {
		t.Fatal(err)
	}
	if a.NumFree() != 352-8 {
		t.Fatalf("after taking 5 nodes in 2-node pages: %d free, want %d", a.NumFree(), 352-8)
	}
	for i, v := range x {
		page := (v%16)/2 + 8*((v/16)/2)
		if page != pageOrder[i/4] {
			t.Fatalf("node %d (entry %d) is in page %d, want page %d", v, i, page, pageOrder[i/4])
		}
	}
	if err := a.Release(x); err != nil {
		t.Fatal(err)
	}
	if a.NumFree() != 352 {
		t.Fatalf("after release: %d free", a.NumFree())
	}
	if err := a.Release(x); err == nil {
		t.Fatal("double release accepted")
	}
	// sides must be multiples of 2^s
	if _, err := NewPaging("p", g, "hilbert-trunc", 2, Options{}); err == nil {
		t.Fatal("22 is not a multiple of 4: accepted")
	}
	// the free-count contract: a request the free pages cannot hold is refused
	for a.NumFree() >= 4 {
		if _, err := a.Allocate(4); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Allocate(1); err == nil {
		t.Fatal("allocation with no free page accepted")
	}
}

// TestNewMCRefusesWraparound: NewMC, like Parse("mc"), refuses a grid that wraps
// (it built an MC on a torus, whose shells ignore the wrap, without a word).
func TestNewMCRefusesWraparound(t *testing.T) {
	for _, spec := range []string{"torus:4x4", "mesh:4x4x4:wrap=z"} {
		g, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewMC(g); err == nil || !strings.Contains(err.Error(), "without wraparound") {
			t.Errorf("NewMC(%s): error %v, want a refusal", spec, err)
		}
	}
}
