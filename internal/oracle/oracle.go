package oracle

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/topo"
)

// ObjectiveBrute is the O(n^2) definition of curves.Objective: F of the ordering o
// (o[r] = node of rank r) of m with weights w (w[t-1] for rank difference t; with
// ring, differences around the ring).
func ObjectiveBrute(m topo.Machine, o []int, w []float64, ring bool) float64 {
	n := len(o)
	var f float64
	for r := 0; r < n; r++ {
		for s := r + 1; s < n; s++ {
			t := s - r
			if ring {
				t = min(t, n-t)
			}
			if t <= len(w) {
				f += w[t-1] * float64(m.Dist(o[r], o[s]))
			}
		}
	}
	return f
}

// PairwiseL1Brute is the O(d k^2) definition of geom.PairwiseL1: the sum of the L1
// distances of all pairs of points.
func PairwiseL1Brute[P ~[]T, T geom.Number](pts []P) T {
	var s T
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			s += geom.L1(pts[i], pts[j])
		}
	}
	return s
}

// TripleSweep is an exact method for k = 3 independent of exact.Triple (at least three
// points): points sorted by x; a triple whose x-extent alone is at least half the best
// total found so far cannot improve it (total = 2(x-extent + y-extent)), so for each
// leftmost point only the points within that x-window are combined. Exact for any
// input; fast when the optimum is small compared with the spread of x.
// It returns the indices of the best triple, ascending (the lexicographically first
// among equal totals), and its total pairwise L1 distance.
func TripleSweep(pts []geom.Point) ([]int, int64) {
	n := len(pts)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return pts[a][0] - pts[b][0] })
	type triple struct {
		idx   []int
		total int64
	}
	best := triple{total: -1}
	for ii := 0; ii < n; ii++ {
		a := pts[order[ii]]
		for jj := ii + 1; jj < n; jj++ {
			b := pts[order[jj]]
			if best.total >= 0 && 2*int64(b[0]-a[0]) > best.total {
				break
			}
			for ll := jj + 1; ll < n; ll++ {
				c := pts[order[ll]]
				if best.total >= 0 && 2*int64(c[0]-a[0]) > best.total {
					break
				}
				h := max(a[1], b[1], c[1]) - min(a[1], b[1], c[1])
				v := 2 * int64(c[0]-a[0]+h)
				idx := []int{order[ii], order[jj], order[ll]}
				slices.Sort(idx)
				if best.total < 0 || v < best.total || (v == best.total && slices.Compare(idx, best.idx) < 0) {
					best = triple{idx, v}
				}
			}
		}
	}
	return best.idx, best.total
}

// MinOverPermutations returns the least f(p) over the n! permutations p of 0..n-1,
// the brute-force oracle of the solvers on tiny instances.
func MinOverPermutations(n int, f func(p []int) float64) float64 {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	best := math.Inf(1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			best = min(best, f(p))
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
	return best
}

// RandomGraph returns a connected random graph on n nodes: a random tree plus extra
// random edges (loops and repeats dropped), the tests' irregular machines.
func RandomGraph(rng *rand.Rand, n, extra int) *topo.Graph {
	seen := map[[2]int]bool{}
	var edges [][2]int
	add := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		if a != b && !seen[[2]int{a, b}] {
			seen[[2]int{a, b}] = true
			edges = append(edges, [2]int{a, b})
		}
	}
	for v := 1; v < n; v++ {
		add(v, rng.IntN(v))
	}
	for range extra {
		add(rng.IntN(n), rng.IntN(n))
	}
	g, err := topo.NewGraphFromEdges(n, edges)
	if err != nil {
		panic(err)
	}
	return g
}

// LatticeKNearestSets calls visit with every k-set of pts (indices ascending) that
// is the k nearest points, in L1 with ties completed every way, of some center on the
// quarter lattice of the points' bounding box. The arrangement of all L1 bisectors of
// plane points has its vertices there, every region of centers of one k-nearest set
// is closed and piecewise linear with edges of slope 0, infinity and ±1 through
// half-integers, and outside the box the distance order does not change: so these are
// all the k-nearest sets of the plane (voronoi.KNearestSets' definition, and the
// candidates of the plane MM, exact.PlaneMM). A set may be visited more than once.
func LatticeKNearestSets(pts []geom.Point, k int, visit func(idx []int)) {
	b := geom.BoundingBox(pts)
	type pd struct {
		i int
		d int64
	}
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	for x4 := 4 * b.Min[0]; x4 <= 4*b.Max[0]; x4++ {
		for y4 := 4 * b.Min[1]; y4 <= 4*b.Max[1]; y4++ {
			ds := make([]pd, len(pts))
			for i, p := range pts {
				ds[i] = pd{i, abs(int64(4*p[0]-x4)) + abs(int64(4*p[1]-y4))}
			}
			slices.SortFunc(ds, func(a, b pd) int { return cmp.Compare(a.d, b.d) })
			r := ds[k-1].d
			var inner, shell []int
			for _, e := range ds {
				if e.d < r {
					inner = append(inner, e.i)
				} else if e.d == r {
					shell = append(shell, e.i)
				}
			}
			need := k - len(inner)
			var rec func(start int, pick []int)
			rec = func(start int, pick []int) {
				if len(pick) == need {
					idx := append(slices.Clone(inner), pick...)
					slices.Sort(idx)
					visit(idx)
					return
				}
				for i := start; i <= len(shell)-(need-len(pick)); i++ {
					rec(i+1, append(pick, shell[i]))
				}
			}
			rec(0, nil)
		}
	}
}
