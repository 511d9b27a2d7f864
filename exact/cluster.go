package exact

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/procalloc/procalloc/geom"
)

// ClusterResult is an optimal unconstrained cluster: k points of Z^d with minimum
// total pairwise L1 distance.
type ClusterResult struct {
	K       int          // points in the cluster
	Dim     int          // dimension d of the lattice
	Total   int64        // total pairwise L1 distance of Points
	Points  []geom.Point // lexicographically sorted, the smallest at the origin
	Optimal bool         // Total is proven least
	Bound   int64        // proven lower bound (== Total when Optimal)
}

// MaxClusterK is the largest cluster size Cluster and Clusters accept: the largest
// machines of the users (200,000 nodes). The incumbent, the final arrangement of the
// planes and the points themselves take O(k log k) time and O(k) memory that a time
// limit cannot shorten (about 3 s and 100 MB at this size), and the searches' work
// grows much faster than k, so larger sizes are refused rather than run out of memory.
const MaxClusterK = 200000

// ClusterBytes estimates the memory Cluster needs for k points beyond the search
// itself (the incumbent's lattice box, the down-set, the arranged points): about 500
// bytes per point, measured at k = MaxClusterK (100 MB). Used to say why a k is
// refused.
func ClusterBytes(k int) float64 { return 500 * float64(k) }

// Clusters computes the optimal unconstrained clusters of Z^dim for sizes 1..kmax
// (Bender et al. 2005, §1, Fig. 2 shows k = 2..21 in the plane), each by Cluster. The
// sequence stops early when ctx ends; the last entry then carries Optimal = false and
// its proven bound.
func Clusters(ctx context.Context, dim, kmax int) ([]ClusterResult, error) {
	if kmax < 1 || kmax > MaxClusterK {
		return nil, fmt.Errorf("exact: cluster size %d must be in 1..%d", kmax, MaxClusterK)
	}
	var out []ClusterResult
	var prev []geom.Point
	store := &dpStore{}
	for k := 1; k <= kmax; k++ {
		res, err := cluster(ctx, dim, k, prev, store)
		if err != nil {
			return nil, err
		}
		prev = res.Points
		out = append(out, res)
		if !res.Optimal {
			break
		}
	}
	return out, nil
}

// Cluster returns an optimal cluster of k points of Z^dim: k points with minimum total
// pairwise L1 distance. It searches over plane counts, not point sets (marginal.go):
// the optimum is the least Σ_axes lineCost over down-sets of k cells, Ferrers diagrams
// in 2D (ferrersDP, a dynamic program along the boundary, for k <= ferrersDPMaxK;
// ferrersSearch beyond), plane partitions in 3D (planeSearch), and the reported
// points are the best down-set with the planes of every axis in their optimal order,
// so Total is always the cost of the returned points. When ctx ends first, the result
// is the best cluster found with a proven Bound (Optimal only when the bound, e.g. a
// tabulated optimum of LatticeBound, meets it).
func Cluster(ctx context.Context, dim, k int) (ClusterResult, error) {
	return cluster(ctx, dim, k, nil, nil)
}

// cluster is Cluster with the optimal cluster of k-1 points (or nil), one cell more
// being a candidate incumbent, and the 2D program's layers to reuse (or nil).
func cluster(ctx context.Context, dim, k int, prev []geom.Point, store *dpStore) (ClusterResult, error) {
	if dim < 1 || dim > 3 {
		return ClusterResult{}, fmt.Errorf("exact: cluster dimension %d: must be 1, 2 or 3", dim)
	}
	if k < 1 || k > MaxClusterK {
		return ClusterResult{}, fmt.Errorf("exact: cluster size %d must be in 1..%d", k, MaxClusterK)
	}
	res := ClusterResult{K: k, Dim: dim}
	var cells []geom.Point
	// The searches stop early enough to leave time for laying out and scoring the
	// result after them, so that the whole call ends near ctx's deadline.
	ctx, cancel := searchContext(ctx, k)
	defer cancel()
	switch dim {
	case 1:
		// k consecutive points (Line): Σ_{i<j} (j - i) = (k^3 - k)/6.
		for i := range k {
			cells = append(cells, geom.Point{i})
		}
		res.Optimal = true
	case 2:
		inc := ferrersIncumbent(ctx, k, prev)
		var cols []int
		var bound int64
		var opt bool
		if k <= ferrersDPMaxK {
			cols, _, opt = ferrersDPOptimum(ctx, k, inc, store)
		} else {
			cols, _, bound, opt, _ = ferrersOptimum(ctx, k, inc)
		}
		for x, h := range cols {
			for y := range h {
				cells = append(cells, geom.Point{x, y})
			}
		}
		res.Optimal, res.Bound = opt, bound
	case 3:
		inc := planeIncumbent(k, prev)
		layers, _, bound, opt, _ := planeOptimum(ctx, k, inc)
		for z, l := range layers {
			for x, h := range l {
				for y := range h {
					cells = append(cells, geom.Point{x, y, z})
				}
			}
		}
		res.Optimal, res.Bound = opt, bound
	}
	res.Points = arrangePlanes(cells)
	res.Total = int64(geom.PairwiseL1(res.Points))
	if res.Optimal {
		res.Bound = res.Total
	} else if dim > 1 {
		res.Bound = max(res.Bound, int64(math.Ceil(LatticeBound(dim, k)-1e-9)))
		res.Bound = min(res.Bound, res.Total)
		// The table holds proven optima (TestLatticeTable recomputes them).
		res.Optimal = res.Bound == res.Total
	}
	return res, nil
}

// finishPerPoint is what laying out and scoring a cluster costs per point after the
// search (arrangePlanes, PairwiseL1, the lattice bound): about 4 µs measured at k =
// 200,000 on the project's machines, with a margin.
const finishPerPoint = 5 * time.Microsecond

// searchContext returns the context the searches of a size-k cluster run under: ctx
// ended finishPerPoint x k before its deadline (ctx itself without one).
func searchContext(ctx context.Context, k int) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, dl.Add(-time.Duration(k)*finishPerPoint))
}

// latticeBox lists the points of {-r..r}^dim.
func latticeBox(dim, r int) []geom.Point {
	var out []geom.Point
	p := make(geom.Point, dim)
	var rec func(j int)
	rec = func(j int) {
		if j == dim {
			out = append(out, slices.Clone(p))
			return
		}
		for v := -r; v <= r; v++ {
			p[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	return out
}

// roundPoints returns the k points of Z^dim nearest the origin in Euclidean distance
// (ties by coordinates): the incumbent of the cluster searches. It works on flat
// keys (k may be MaxClusterK): the box {-r..r}^dim with at least 4k points, sorted by
// (squared norm, coordinates).
func roundPoints(dim, k int) []geom.Point {
	r := 1
	for {
		side := 2*r + 1
		n := side
		for range dim - 1 {
			n *= side
		}
		if n >= 4*k {
			break
		}
		r++
	}
	type key struct {
		norm int
		p    [3]int
	}
	var keys []key
	var p [3]int
	var rec func(j int)
	rec = func(j int) {
		if j == dim {
			n := 0
			for _, v := range p[:dim] {
				n += v * v
			}
			keys = append(keys, key{n, p})
			return
		}
		for v := -r; v <= r; v++ {
			p[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	slices.SortFunc(keys, func(a, b key) int {
		if a.norm != b.norm {
			return a.norm - b.norm
		}
		for j := range dim {
			if a.p[j] != b.p[j] {
				return a.p[j] - b.p[j]
			}
		}
		return 0
	})
	flat := make([]int, k*dim)
	out := make([]geom.Point, k)
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
		copy(out[i], keys[i].p[:dim])
	}
	return out
}

// downSet pushes the points of every axis-parallel line to the start of the line,
// axis after axis, until nothing moves: a down-set of N^d with no larger plane-count
// cost (marginal.go). The points must be distinct (d <= 3); the result's order is
// unspecified.
func downSet(pts []geom.Point) []geom.Point {
	d := len(pts[0])
	q := make([][3]int, len(pts))
	lo := slices.Clone(pts[0])
	for _, p := range pts {
		for j := range d {
			lo[j] = min(lo[j], p[j])
		}
	}
	for i, p := range pts {
		for j := range d {
			q[i][j] = p[j] - lo[j]
		}
	}
	for moved := true; moved; {
		moved = false
		for axis := range d {
			// Sort by the other coordinates, then by this one; renumber each line.
			slices.SortFunc(q, func(a, b [3]int) int {
				for j := range d {
					if j != axis && a[j] != b[j] {
						return a[j] - b[j]
					}
				}
				return a[axis] - b[axis]
			})
			n := 0
			for i := range q {
				same := i > 0
				for j := range d {
					if j != axis && i > 0 && q[i][j] != q[i-1][j] {
						same = false
					}
				}
				if !same {
					n = 0
				}
				if q[i][axis] != n {
					q[i][axis], moved = n, true
				}
				n++
			}
		}
	}
	flat := make([]int, len(q)*d)
	out := make([]geom.Point, len(q))
	for i := range q {
		out[i] = flat[i*d : (i+1)*d : (i+1)*d]
		copy(out[i], q[i][:d])
	}
	return out
}

// columnsOf returns the column heights (nonincreasing) of a 2D down-set.
func columnsOf(ds []geom.Point) []int {
	var cols []int
	for _, p := range ds {
		for len(cols) <= p[0] {
			cols = append(cols, 0)
		}
		cols[p[0]]++
	}
	return cols
}

// layersOf returns the z-layers of a 3D down-set, each as its column heights.
func layersOf(ds []geom.Point) [][]int {
	var layers [][]int
	for _, p := range ds {
		for len(layers) <= p[2] {
			layers = append(layers, nil)
		}
		l := layers[p[2]]
		for len(l) <= p[0] {
			l = append(l, 0)
		}
		l[p[0]]++
		layers[p[2]] = l
	}
	return layers
}

// arrangePlanes reorders, along every axis, the planes of the (distinct) cells in an
// optimal order of their counts (lineOrder), so the total pairwise L1 distance of the
// result is Σ_axes lineCost; it returns the points sorted lexicographically and
// translated so that the smallest is the origin.
func arrangePlanes(cells []geom.Point) []geom.Point {
	d := len(cells[0])
	pts := make([]geom.Point, len(cells))
	for i := range cells {
		pts[i] = slices.Clone(cells[i])
	}
	for axis := range d {
		var vals []int
		for _, p := range cells {
			vals = append(vals, p[axis])
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		count := make([]int, len(vals))
		at := map[int]int{}
		for i, v := range vals {
			at[v] = i
		}
		for _, p := range cells {
			count[at[p[axis]]]++
		}
		_, pos := lineOrder(count)
		for i, p := range cells {
			pts[i][axis] = pos[at[p[axis]]]
		}
	}
	slices.SortFunc(pts, func(a, b geom.Point) int { return geom.Compare(a, b) })
	o := slices.Clone(pts[0])
	for _, p := range pts {
		for j := range p {
			p[j] -= o[j]
		}
	}
	return pts
}
