package exact

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/procalloc/procalloc/geom"
)

// gridNodes lists the coordinates of every node of a grid.
func gridNodes(sides []int) [][]int {
	out := [][]int{{}}
	for _, L := range sides {
		var next [][]int
		for _, c := range out {
			for x := range L {
				next = append(next, append(append([]int(nil), c...), x))
			}
		}
		out = next
	}
	return out
}

func gridDist(a, b []int, sides []int, wrap []bool) int64 {
	var d int64
	for j := range a {
		t := a[j] - b[j]
		if t < 0 {
			t = -t
		}
		if wrap[j] {
			t = min(t, sides[j]-t)
		}
		d += int64(t)
	}
	return d
}

// bruteMinByK is the least total pairwise distance of every k (index) of the given
// nodes under dist, over all subsets (n <= 20).
func bruteMinByK(n int, dist func(i, j int) int64) []int64 {
	best := make([]int64, n+1)
	for k := range best {
		best[k] = math.MaxInt64
	}
	for mask := 0; mask < 1<<n; mask++ {
		var idx []int
		for i := range n {
			if mask>>i&1 == 1 {
				idx = append(idx, i)
			}
		}
		var t int64
		for a, i := range idx {
			for _, j := range idx[a+1:] {
				t += dist(i, j)
			}
		}
		best[len(idx)] = min(best[len(idx)], t)
	}
	return best
}

// GridBound never exceeds the brute-force optimum of every k on small meshes, tori
// and mixed grids (every subset), equals it for k = n, and for k <= 1 is 0.
func TestGridBoundBruteForce(t *testing.T) {
	cases := []struct {
		sides []int
		wrap  []bool
	}{
		{[]int{4, 4}, []bool{false, false}},
		{[]int{4, 4}, []bool{true, true}},
		{[]int{3, 3}, []bool{true, true}},
		{[]int{5, 3}, []bool{true, false}},
		{[]int{2, 2, 4}, []bool{true, true, true}},
		{[]int{2, 3, 3}, []bool{false, false, false}},
		{[]int{6, 3}, []bool{true, true}},
		{[]int{18}, []bool{true}},
		{[]int{17}, []bool{false}},
		{[]int{2, 2, 2, 2}, []bool{true, false, true, false}},
	}
	for _, c := range cases {
		nodes := gridNodes(c.sides)
		opt := bruteMinByK(len(nodes), func(i, j int) int64 { return gridDist(nodes[i], nodes[j], c.sides, c.wrap) })
		tight := 0
		for k := range opt {
			lb, err := GridBound(c.sides, c.wrap, k)
			if err != nil {
				t.Fatal(err)
			}
			if lb > opt[k] || lb < 0 {
				t.Fatalf("%v wrap %v k %d: bound %d above the optimum %d", c.sides, c.wrap, k, lb, opt[k])
			}
			if lb == opt[k] {
				tight++
			}
		}
		if lb, _ := GridBound(c.sides, c.wrap, len(nodes)); lb != opt[len(nodes)] && (!slices.Contains(c.wrap, true) || !slices.Contains(c.wrap, false)) {
			t.Errorf("%v wrap %v: every node: bound %d, total %d", c.sides, c.wrap, lb, opt[len(nodes)])
		}
		t.Logf("%v wrap %v: bound = optimum for %d of %d k", c.sides, c.wrap, tight, len(opt))
	}
	// The lattice bound is not used around a torus: torus:3x3 with all 9 nodes.
	if lb, _ := GridBound([]int{3, 3}, []bool{true, true}, 9); lb != 54 {
		t.Errorf("torus:3x3, 9 nodes: bound %d, want 54", lb)
	}
	for _, bad := range []struct {
		sides []int
		wrap  []bool
		k     int
	}{{[]int{4, 4}, []bool{false}, 2}, {[]int{0, 4}, []bool{false, false}, 2}, {[]int{4, 4}, []bool{false, false}, 17}, {[]int{4, 4}, []bool{false, false}, -1}} {
		if _, err := GridBound(bad.sides, bad.wrap, bad.k); err == nil {
			t.Errorf("%v %v k %d: no error", bad.sides, bad.wrap, bad.k)
		}
	}
}

// On large meshes the bound is the lattice optimum for small k and the star bound
// near k = n (every node: exactly the mesh's total).
func TestGridBoundLarge(t *testing.T) {
	lb, err := GridBound([]int{32, 32}, []bool{false, false}, 21)
	if err != nil || lb != 632 {
		t.Fatalf("mesh 32x32 k 21: %d %v, want Bender's 632", lb, err)
	}
	// All 1024 nodes of mesh:32x32: 2 x 32^2 x C(33, 3).
	lb, err = GridBound([]int{32, 32}, []bool{false, false}, 1024)
	if want := int64(2 * 32 * 32 * 5456); err != nil || lb != want {
		t.Fatalf("mesh 32x32 all nodes: %d %v, want %d", lb, err, want)
	}
	// A torus of 10^5 nodes: no overflow, increasing in k.
	prev := int64(-1)
	for _, k := range []int{2, 10, 1000, 50000, 100000} {
		lb, err := GridBound([]int{50, 50, 40}, []bool{true, true, true}, k)
		if err != nil || lb <= prev {
			t.Fatalf("torus 50x50x40 k %d: %d %v (previous %d)", k, lb, err, prev)
		}
		prev = lb
	}
}

// randomHierarchy builds a random hierarchy of up to 4 levels over at most 7 leaves
// with at most 4 free hosts each.
func randomHierarchy(rng *rand.Rand) Hierarchy {
	levels := 1 + rng.IntN(4)
	leaves := 1 + rng.IntN(7)
	if levels == 1 {
		leaves = 1
	}
	h := Hierarchy{Free: make([]int, leaves)}
	for i := range h.Free {
		h.Free[i] = rng.IntN(5)
	}
	size := leaves
	for l := 0; l < levels-1; l++ {
		parents := 1
		if l < levels-2 {
			parents = 1 + rng.IntN(size)
		}
		up := make([]int32, size)
		for i := range up {
			up[i] = int32(rng.IntN(parents))
		}
		// Make every parent id used, so that the next level is dense.
		for p := range min(parents, size) {
			up[p] = int32(p)
		}
		h.Up = append(h.Up, up)
		size = min(parents, size)
	}
	c := int64(rng.IntN(3))
	for range levels {
		h.PairCost = append(h.PairCost, c)
		c += int64(rng.IntN(3))
	}
	return h
}

// hierarchyCost is the total pairwise cost of taking m[i] hosts of leaf i.
func hierarchyCost(h Hierarchy, m []int) int64 {
	counts := append([]int(nil), m...)
	var total, prev int64
	// Level by level: pairs whose smallest common group is of level l.
	for l := range h.PairCost {
		var same int64
		for _, c := range counts {
			same += choose2(c)
		}
		total += (same - prev) * h.PairCost[l]
		prev = same
		if l < len(h.Up) {
			next := make([]int, 0)
			for i, c := range counts {
				g := int(h.Up[l][i])
				for len(next) <= g {
					next = append(next, 0)
				}
				next[g] += c
			}
			counts = next
		}
	}
	return total
}

// HierarchyMin equals the minimum over every way of taking k hosts from the leaves,
// on thousands of random hierarchies.
func TestHierarchyMinBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	trials := 4000
	if testing.Short() {
		trials = 1500
	}
	for trial := range trials {
		h := randomHierarchy(rng)
		free := 0
		for _, f := range h.Free {
			free += f
		}
		best := make([]int64, free+1)
		for k := range best {
			best[k] = math.MaxInt64
		}
		m := make([]int, len(h.Free))
		var walk func(i, k int)
		walk = func(i, k int) {
			if i == len(m) {
				best[k] = min(best[k], hierarchyCost(h, m))
				return
			}
			for c := 0; c <= h.Free[i]; c++ {
				m[i] = c
				walk(i+1, k+c)
			}
		}
		walk(0, 0)
		for k := range best {
			got, err := HierarchyMin(context.Background(), h, k)
			if err != nil {
				t.Fatalf("trial %d %+v k %d: %v", trial, h, k, err)
			}
			if got != best[k] {
				t.Fatalf("trial %d %+v k %d: %d, brute force %d", trial, h, k, got, best[k])
			}
		}
		if _, err := HierarchyMin(context.Background(), h, free+1); err == nil {
			t.Fatalf("trial %d: k beyond the free hosts accepted", trial)
		}
	}
}

func TestHierarchyBadInput(t *testing.T) {
	for _, h := range []Hierarchy{
		{Free: []int{1, 2}, PairCost: []int64{2}},                                             // two top groups
		{Free: []int{1, 2}, Up: [][]int32{{0, 0}}, PairCost: []int64{4, 2}},                   // decreasing
		{Free: []int{1, -2}, Up: [][]int32{{0, 0}}, PairCost: []int64{2, 4}},                  // negative
		{Free: []int{1, 2}, Up: [][]int32{{0}}, PairCost: []int64{2, 4}},                      // short map
		{Free: []int{1, 2}, Up: [][]int32{{0, 0}, {0}}, PairCost: []int64{2, 4}},              // maps and levels
		{Free: []int{3 << 30, 3 << 30}, Up: [][]int32{{0, 0}}, PairCost: []int64{2, 1 << 40}}, // overflow
	} {
		if _, err := HierarchyMin(context.Background(), h, min(1<<31, h.Free[0]+h.Free[1])); err == nil {
			t.Errorf("%+v: no error", h)
		}
	}
}

// Subset with Periods is exact on a torus: against every subset of random free sets
// of small tori, and its result's total is the torus total.
func TestSubsetPeriodsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	for trial := range 400 {
		sides := []int{2 + rng.IntN(5), 2 + rng.IntN(5)}
		wrap := []bool{true, rng.IntN(2) == 0}
		all := gridNodes(sides)
		var pts []geom.PointF
		var nodes [][]int
		for _, c := range all {
			if len(nodes) < 14 && rng.IntN(3) != 0 {
				nodes = append(nodes, c)
				pts = append(pts, geom.PointF{float64(c[0]), float64(c[1])})
			}
		}
		if len(nodes) < 2 {
			continue
		}
		periods := make([]float64, 2)
		for j := range periods {
			if wrap[j] {
				periods[j] = float64(sides[j])
			}
		}
		opt := bruteMinByK(len(nodes), func(i, j int) int64 { return gridDist(nodes[i], nodes[j], sides, wrap) })
		k := 2 + rng.IntN(len(nodes)-1)
		lb, err := GridBound(sides, wrap, k)
		if err != nil || lb > opt[k] {
			t.Fatalf("trial %d: grid bound %d %v above %d", trial, lb, err, opt[k])
		}
		res, err := SubsetSeeded(context.Background(), pts, k, SubsetOptions{Periods: periods,
			SizeBound: func(m int) float64 { b, _ := GridBound(sides, wrap, m); return float64(b) }})
		if err != nil || !res.Optimal || int64(res.Total) != opt[k] || len(res.Indices) != k {
			t.Fatalf("trial %d %v wrap %v k %d: %+v %v, brute force %d", trial, sides, wrap, k, res, err, opt[k])
		}
		var tot int64
		for a, i := range res.Indices {
			for _, j := range res.Indices[a+1:] {
				tot += gridDist(nodes[i], nodes[j], sides, wrap)
			}
		}
		if tot != opt[k] {
			t.Fatalf("trial %d: indices total %d, reported %v", trial, tot, res.Total)
		}
	}
}

// Around larger tori the lattice optimum bounds small sets (GridBound uses it while
// it is below L(k-1)/2 plus the other dimensions' bounds): against the exact search
// on every node of torus:10x10, torus:9x7 and torus:5x5x4 for small k.
func TestGridBoundTorusLattice(t *testing.T) {
	for _, sides := range [][]int{{10, 10}, {9, 7}, {5, 5, 4}} {
		wrap := make([]bool, len(sides))
		periods := make([]float64, len(sides))
		for j := range sides {
			wrap[j], periods[j] = true, float64(sides[j])
		}
		var pts []geom.PointF
		for _, c := range gridNodes(sides) {
			p := make(geom.PointF, len(c))
			for j, x := range c {
				p[j] = float64(x)
			}
			pts = append(pts, p)
		}
		lattice := 0
		for k := 2; k <= 9; k++ {
			lb, err := GridBound(sides, wrap, k)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			res, err := Subset(ctx, pts, k, SubsetOptions{Periods: periods})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if float64(lb) > res.Bound {
				t.Fatalf("%v k %d: bound %d above the search's proven %v (optimal %v, total %v)", sides, k, lb, res.Bound, res.Optimal, res.Total)
			}
			if f := int64(LatticeBound(len(sides), k)); lb == f {
				lattice++
			}
		}
		if lattice == 0 {
			t.Errorf("%v: the lattice bound never used", sides)
		}
		t.Logf("%v: the lattice optimum is the bound for %d of k = 2..9", sides, lattice)
	}
}
