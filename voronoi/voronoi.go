package voronoi

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// Family is a set of k-nearest sets sharing one witness center c and radius r: the
// points strictly closer to c than r (Inner) belong to every set of the family, the
// points at distance exactly r (Boundary) complete them in every possible way, and all
// other points are farther than r. Every k-set S with Inner ⊆ S ⊆ Inner ∪ Boundary
// satisfies the tie rule at c (max over S <= r <= min over the rest).
//
// Coordinates are doubled so that the witness is exact: c = Center2 / 2 and
// r = Radius2 / 2 (both half-integers at worst, since input coordinates are integers).
type Family struct {
	Center2  [2]int64 // the witness center c, doubled
	Radius2  int64    // the radius r, doubled
	Inner    []int    // ascending
	Boundary []int    // ascending
}

// Need is how many Boundary points complete a k-set.
func (f *Family) Need(k int) int { return k - len(f.Inner) }

// Key identifies a family by its Inner and Boundary sets (for deduplication): an
// opaque string, equal for two families exactly when both sets are.
func (f *Family) Key() string { return string(f.appendKey(nil)) }

// appendKey appends the family's key: len(Inner), then Inner and Boundary, as
// uvarints (self-delimiting, so the encoding is injective).
func (f *Family) appendKey(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(f.Inner)))
	b = appendIndices(b, f.Inner)
	return appendIndices(b, f.Boundary)
}

// appendIndices appends non-negative indices as uvarints.
func appendIndices(b []byte, idx []int) []byte {
	for _, i := range idx {
		b = binary.AppendUvarint(b, uint64(i))
	}
	return b
}

// MaxCoord bounds the absolute value of input coordinates, so that doubled rotated
// coordinates and their sums cannot overflow int64.
const MaxCoord = 1 << 58

// CheckInput validates a planar integer point set and k.
func CheckInput(pts []geom.Point, k int) error {
	if len(pts) == 0 {
		return fmt.Errorf("voronoi: no points")
	}
	if err := geom.CheckDims(pts); err != nil {
		return fmt.Errorf("voronoi: %w", err)
	}
	if d := len(pts[0]); d != 2 {
		return fmt.Errorf("voronoi: points have dimension %d; the L1 Voronoi structure is planar (2)", d)
	}
	if k < 1 || k > len(pts) {
		return fmt.Errorf("voronoi: k = %d must be between 1 and the number of points (%d)", k, len(pts))
	}
	for i, p := range pts {
		for _, v := range p {
			if v > MaxCoord || v < -MaxCoord {
				return fmt.Errorf("voronoi: point %d coordinate %d exceeds 2^58 in magnitude", i, v)
			}
		}
	}
	return nil
}

// Walk calls fn with families of k-nearest sets until fn returns false. Every k-set
// that is the k-nearest set of some center of the plane (tie rule: max_{s in S} d(c,s)
// <= min_{t not in S} d(c,t), d = L1) lies in at least one reported family; a family
// may be reported more than once. The *Family passed to fn is reused: copy what you
// keep.
//
// Method. With u = x+y, v = x-y the L1 distance is the L-infinity distance of (u, v),
// so L1 balls are axis-parallel squares and S is a k-nearest set exactly when some
// closed square contains S while its open interior contains no other point. Shrinking
// such a square onto S keeps it valid, so a square of side D = max(W, H) works, W and H
// being the u- and v-extents of S. Say W >= H (the other case swaps u and v): the
// square spans [u_a, u_b] for a u-leftmost point a and u-rightmost point b of S and
// slides vertically; the lowest valid position t either puts the top side on the
// topmost point of S (t = v_q - W) or the bottom side on a point p blocking any lower
// position (t = v_p). So Walk tries, for each pair (a, b) with u_b - u_a = W >=
// |v_b - v_a|, every t in {v_q - W, v_q} for the points q of the relevant strip, and
// reports the square's family when its interior holds at most k points and its closed
// square at least k. For a fixed a the pairs are taken by increasing W, stopping once
// every square of side W with a on its left side has k-1 or more interior points (then
// so does every larger one, and a canonical square with a and b on its sides has at
// most k-2 interior points).
//
// Cost. The points near a are fetched from a uniform grid over (u, v) by growing boxes;
// on inputs of bounded local density (random points, meshes, allocation instances)
// each point does O(k^2 log k) work, so Walk runs in O(n log n) time (the grid build
// sorts) for fixed k. Adversarial inputs (long collinear runs along the diagonals,
// heavy duplication) can cost up to O(n^2) per pass; the output is still complete.
func Walk(pts []geom.Point, k int, fn func(f *Family) bool) error {
	return walk(context.Background(), pts, k, nil, fn)
}

// WalkBounded is Walk restricted to k-sets of small L1 diameter: when maxDiam is not
// nil, families are complete only for the k-nearest sets whose L1 diameter is at most
// maxDiam(), which is re-read as the walk proceeds (an optimizer lowers it as its
// incumbent improves). A k-set's total pairwise L1 is at least (k-1) times its
// diameter (every third point p has d(a,p)+d(p,b) >= d(a,b)), so an optimizer with
// incumbent z may pass z/(k-1). The bound also removes the superlinear cost of the
// unbounded cells near the hull, whose squares grow without limit.
//
// It stops when ctx ends, returning ctx's cause: it looks at ctx every walkPoll (64)
// points, so an adversarial input (Walk's cost) does not outlive a Ctrl-C.
func WalkBounded(ctx context.Context, pts []geom.Point, k int, maxDiam func() int64, fn func(f *Family) bool) error {
	return walk(ctx, pts, k, maxDiam, fn)
}

// walkPoll is how many points the walk handles between two looks at its context:
// a point costs O(n log n) at worst (near the hull, where its squares grow to the
// whole input: tens of milliseconds on 10^5 points) and may report no family.
const walkPoll = 64

// walk is WalkBounded that also stops, returning ctx's cause, when ctx ends; it
// looks at ctx every walkPoll points.
func walk(ctx context.Context, pts []geom.Point, k int, maxDiam func() int64, fn func(f *Family) bool) error {
	if err := CheckInput(pts, k); err != nil {
		return err
	}
	// Coincident points are always on the same side of every square: walk over
	// distinct positions with multiplicities and expand the families at the end.
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := geom.Compare(pts[a], pts[b]); c != 0 {
			return c
		}
		return a - b
	})
	var members [][]int
	for i, p := range order {
		if i == 0 || geom.Compare(pts[order[i-1]], pts[p]) != 0 {
			members = append(members, nil)
		}
		members[len(members)-1] = append(members[len(members)-1], p)
	}
	n := len(members)
	u := make([]int64, n)
	v := make([]int64, n)
	weight := make([]int, n)
	for i, m := range members {
		p := pts[m[0]]
		u[i] = int64(p[0]) + int64(p[1])
		v[i] = int64(p[0]) - int64(p[1])
		weight[i] = len(m)
	}
	g := newGrid(u, v)
	w := &walker{k: k, fn: fn, g: g, members: members, weight: weight, maxDiam: maxDiam}
	byU, byV := &axisOrder{keyOf: u, otherOf: v}, &axisOrder{keyOf: v, otherOf: u}
	for pass := 0; pass < 2; pass++ {
		w.swap = pass == 1
		if w.swap {
			w.U, w.V = v, u
			w.byU, w.byV = byV, byU
		} else {
			w.U, w.V = u, v
			w.byU, w.byV = byU, byV
		}
		for a := 0; a < n; a++ {
			if a%walkPoll == 0 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if !w.fromPoint(a) {
				return nil
			}
		}
	}
	return nil
}

type walker struct {
	k       int
	fn      func(f *Family) bool
	members [][]int // input indices at each distinct position
	weight  []int   // len(members[i])
	maxDiam func() int64
	g       *grid
	swap    bool
	U, V    []int64
	// byU and byV order the points by (U, index) and (V, index): a box's points in
	// U order, and a square's in V order, come from them by a filter or a sort of
	// ranks instead of a sort by comparisons through U and V.
	byU, byV *axisOrder
	// scratch
	near   []int   // points in the current box, sorted by U
	strip  []int64 // V values for the stop test
	wsum   []int   // prefix sums of the weights of strip values
	pos    []int   // positions in the current square
	region []int
	ts     []int64
	fam    Family
}

// fromPoint handles every canonical square with point a on its left side (in the
// current orientation). It returns false when fn asked to stop.
func (w *walker) fromPoint(a int) bool {
	U, V := w.U, w.V
	ua, va := U[a], V[a]
	R := w.g.cell
	done := int64(-1) // W values <= done were handled
	for {
		w.near = w.g.box(w.near[:0], w.swap, ua, ua+R, va-R, va+R)
		// The stop test runs once per box, at the largest side already handled: if
		// every square of that side is dead, so is every larger one. (Testing at every
		// side would stop sooner but costs O(m log m) per side.)
		if done > 0 && w.minInterior(ua, va, done) >= w.k-1 {
			return true
		}
		w.near = w.byU.inOrder(w.near, ua, ua+R, va-R, va+R)
		for i := 0; i < len(w.near); {
			W := U[w.near[i]] - ua
			j := i
			for j < len(w.near) && U[w.near[j]]-ua == W {
				j++
			}
			if w.maxDiam != nil && W > w.maxDiam() {
				return true
			}
			if W > 0 && w.k == 1 {
				// For k = 1 the stop test holds at every side W > 0 without
				// counting (every square has at least k-1 = 0 interior points):
				// the only canonical square is a's own, of side 0. Testing once
				// per box instead made k = 1 handle a's whole first box: 3.3x the
				// CPU and 9.5 families per point instead of 2
				// (docs/reliability.md, "Moved from docs/exact.md").
				return true
			}
			if W > done && W <= R {
				for _, b := range w.near[i:j] {
					d := V[b] - va
					if d < 0 {
						d = -d
					}
					if d > W {
						continue
					}
					if !w.squares(a, b, W) {
						return false
					}
				}
			}
			i = j
		}
		done = R
		if R >= w.g.extent || (w.maxDiam != nil && R >= w.maxDiam()) {
			return true
		}
		R *= 2
	}
}

// minInterior is the fewest points (with multiplicity) in the open interior of a
// square of side W whose left side is at u = ua and whose closed side covers va,
// or, once one such square holds fewer than k-1, that square's count (the caller
// only asks whether every square holds k-1 or more).
func (w *walker) minInterior(ua, va, W int64) int {
	U, V := w.U, w.V
	w.pos = w.pos[:0]
	total := 0
	for _, p := range w.near {
		if U[p] > ua && U[p] < ua+W && V[p] > va-W && V[p] < va+W {
			w.pos = append(w.pos, p)
			total += w.weight[p]
		}
	}
	if total < w.k-1 {
		return total
	}
	// The points in V order (among equal V the order does not matter: only the
	// values and prefix sums of weights are used).
	w.pos = w.byV.inOrder(w.pos, va-W+1, va+W-1, ua+1, ua+W-1)
	w.strip = w.strip[:0]
	w.wsum = append(w.wsum[:0], 0)
	for _, p := range w.pos {
		w.strip = append(w.strip, V[p])
		w.wsum = append(w.wsum, w.wsum[len(w.wsum)-1]+w.weight[p])
	}
	// The candidate bottoms t in [va-W, va] are va-W, va and every s and s-W (s in
	// the strip); the square at t holds the strip values in (t, t+W). Taken in
	// increasing t (a merge of the two sorted sequences), the first value > t and
	// the first value >= t+W only move forward.
	strip := w.strip
	best := total
	lo, hi := 0, 0
	try := func(t int64) bool {
		if t < va-W || t > va {
			return false
		}
		for lo < len(strip) && strip[lo] <= t {
			lo++
		}
		for hi < len(strip) && strip[hi] < t+W {
			hi++
		}
		best = min(best, w.wsum[hi]-w.wsum[lo])
		return best < w.k-1
	}
	if try(va - W) {
		return best
	}
	for i, j := 0, 0; i < len(strip) || j < len(strip); {
		var t int64
		if j >= len(strip) || (i < len(strip) && strip[i] <= strip[j]-W) {
			t = strip[i]
			i++
		} else {
			t = strip[j] - W
			j++
		}
		if try(t) {
			return best
		}
	}
	try(va)
	return best
}

// squaresStopEarly lets squares stop a pair, or the count of a position, once more
// than k points are inside (false only in the test that checks the families are
// those of the full scans).
var squaresStopEarly = true

// squares reports the families of the squares with a on the left side and b on the
// right side (u-extent W) at every candidate vertical position.
func (w *walker) squares(a, b int, W int64) bool {
	U, V := w.U, w.V
	ua, ub := U[a], U[b]
	vhi, vlo := max(V[a], V[b]), min(V[a], V[b])
	tmin, tmax := vhi-W, vlo
	w.region = w.region[:0]
	w.ts = w.ts[:0]
	// A point strictly inside every square of the pair (U in (ua, ub), V in (tmax,
	// tmin+W)) is inside each one's open interior: more than k of them and none has
	// a family. Near the hull, where boxes hold thousands of points, most pairs end
	// here after a few points (the region scan and the count per position were 60 %
	// of the walk on 10^5 random points).
	core := 0
	for _, q := range w.near {
		if U[q] > ub {
			break // w.near is sorted by U (fromPoint), from ua up
		}
		if U[q] < ua || V[q] < tmin || V[q] > tmax+W {
			continue
		}
		if U[q] > ua && U[q] < ub && V[q] > tmax && V[q] < tmin+W && squaresStopEarly {
			if core += w.weight[q]; core > w.k {
				return true
			}
		}
		w.region = append(w.region, q)
		for _, t := range [2]int64{V[q] - W, V[q]} {
			if t >= tmin && t <= tmax {
				w.ts = append(w.ts, t)
			}
		}
	}
	slices.Sort(w.ts)
	w.ts = slices.Compact(w.ts)
	for _, t := range w.ts {
		f := &w.fam
		f.Inner, f.Boundary = f.Inner[:0], f.Boundary[:0]
		nIn, nB := 0, 0
		for _, q := range w.region {
			if V[q] < t || V[q] > t+W {
				continue
			}
			if U[q] > ua && U[q] < ub && V[q] > t && V[q] < t+W {
				if nIn += w.weight[q]; nIn > w.k && squaresStopEarly {
					break // no family at t, whatever the rest
				}
			} else {
				nB += w.weight[q]
			}
		}
		if nIn > w.k || nIn+nB < w.k {
			continue
		}
		for _, q := range w.region {
			if V[q] < t || V[q] > t+W {
				continue
			}
			if U[q] > ua && U[q] < ub && V[q] > t && V[q] < t+W {
				f.Inner = append(f.Inner, w.members[q]...)
			} else {
				f.Boundary = append(f.Boundary, w.members[q]...)
			}
		}
		slices.Sort(f.Inner)
		slices.Sort(f.Boundary)
		if w.swap {
			f.Center2 = [2]int64{t + ua + W, t - ua}
		} else {
			f.Center2 = [2]int64{ua + t + W, ua - t}
		}
		f.Radius2 = W
		if !w.fn(f) {
			return false
		}
	}
	return true
}

// axisOrder is the points sorted by (key, index), with each one's key, other
// coordinate and rank, built on the first large box (the bounded walk of the
// optimizers rarely meets one and does not pay for it).
type axisOrder struct {
	keyOf, otherOf []int64 // per point
	idx            []int32 // points by (key, index)
	key            []int64 // key of idx[i]
	other          []int64 // other coordinate of idx[i]
	rank           []int32 // position of point p in idx
}

// smallBox is the most points inOrder sorts by comparisons through the keys
// (they are in cache, having just been read; a rank or a binary search over the
// global order would miss it).
const smallBox = 128

func (o *axisOrder) build() {
	key, other := o.keyOf, o.otherOf
	n := len(key)
	o.idx, o.key, o.other, o.rank = make([]int32, n), make([]int64, n), make([]int64, n), make([]int32, n)
	for i := range o.idx {
		o.idx[i] = int32(i)
	}
	slices.SortFunc(o.idx, func(p, q int32) int {
		if c := cmp.Compare(key[p], key[q]); c != 0 {
			return c
		}
		return cmp.Compare(p, q)
	})
	for i, p := range o.idx {
		o.key[i], o.other[i], o.rank[p] = key[p], other[p], int32(i)
	}
}

// boxOrder chooses how inOrder orders a box: by the cheaper way (boxOrderAuto), or
// always by one of them (tests check that both give the same order).
var boxOrder = boxOrderAuto

const (
	boxOrderAuto = iota
	boxOrderFilter
	boxOrderSort
)

// inOrder returns pts, the points with key in [klo, khi] and other coordinate in
// [olo, ohi], in (key, index) order: up to smallBox points by a comparison sort;
// beyond, when the slab klo <= key <= khi holds at most 32 times the box's m points
// (large boxes near the hull, whose slab is nearly all box), by filtering the slab
// of the global order, O(slab); else by sorting the points' ranks, O(m log m)
// without comparisons through the coordinates. (On 10^5 random points, k = 3,
// factors 16 to 64 cost the same within noise; 4 cost 10 % more. Ranks and binary
// searches for every box made the bounded walk 1.6-1.8x slower: smallBox.)
func (o *axisOrder) inOrder(pts []int, klo, khi, olo, ohi int64) []int {
	m := len(pts)
	if m < 2 {
		return pts
	}
	if m <= smallBox && boxOrder == boxOrderAuto {
		key := o.keyOf
		slices.SortFunc(pts, func(p, q int) int {
			if c := cmp.Compare(key[p], key[q]); c != 0 {
				return c
			}
			return p - q
		})
		return pts
	}
	if o.idx == nil {
		o.build()
	}
	lo, _ := slices.BinarySearch(o.key, klo)
	hi, _ := slices.BinarySearch(o.key, khi+1)
	filter := (hi-lo)/32 <= m
	if boxOrder != boxOrderAuto {
		filter = boxOrder == boxOrderFilter
	}
	if filter {
		pts = pts[:0]
		for i := lo; i < hi; i++ {
			if ov := o.other[i]; ov >= olo && ov <= ohi {
				pts = append(pts, int(o.idx[i]))
			}
		}
		return pts
	}
	for i, p := range pts {
		pts[i] = int(o.rank[p])
	}
	slices.Sort(pts)
	for i, r := range pts {
		pts[i] = int(o.idx[r])
	}
	return pts
}

// grid is a uniform bucket grid over (u, v).
type grid struct {
	u, v             []int64
	u0, v0           int64
	cell             int64
	nu, nv           int64
	start            []int32 // CSR: points of cell c are idx[start[c]:start[c+1]]
	idx              []int32
	extent           int64 // max(u-range, v-range): no square wider than this matters
	umaxAll, vmaxAll int64
}

func newGrid(u, v []int64) *grid {
	n := len(u)
	g := &grid{u: u, v: v}
	umin, umax, vmin, vmax := u[0], u[0], v[0], v[0]
	for i := range u {
		umin, umax = min(umin, u[i]), max(umax, u[i])
		vmin, vmax = min(vmin, v[i]), max(vmax, v[i])
	}
	g.u0, g.v0 = umin, vmin
	g.umaxAll, g.vmaxAll = umax, vmax
	g.extent = max(umax-umin, vmax-vmin, 1)
	// About two points per cell on uniform input; rotated coordinates occupy half the
	// bounding square of (u, v).
	area := float64(umax-umin+1) * float64(vmax-vmin+1)
	cell := int64(math.Ceil(math.Sqrt(area / float64(n))))
	g.cell = max(cell, 1)
	g.nu = (umax-umin)/g.cell + 1
	g.nv = (vmax-vmin)/g.cell + 1
	for g.nu*g.nv > int64(4*n+16) { // guard against degenerate extents
		g.cell *= 2
		g.nu = (umax-umin)/g.cell + 1
		g.nv = (vmax-vmin)/g.cell + 1
	}
	cells := g.nu * g.nv
	g.start = make([]int32, cells+1)
	cellOf := make([]int32, n)
	for i := range u {
		c := ((u[i]-umin)/g.cell)*g.nv + (v[i]-vmin)/g.cell
		cellOf[i] = int32(c)
		g.start[c+1]++
	}
	for c := int64(0); c < cells; c++ {
		g.start[c+1] += g.start[c]
	}
	g.idx = make([]int32, n)
	pos := slices.Clone(g.start[:cells])
	for i, c := range cellOf {
		g.idx[pos[c]] = int32(i)
		pos[c]++
	}
	return g
}

// box appends the points with U in [ulo, uhi] and V in [vlo, vhi] (closed), where
// (U, V) = (u, v), or (v, u) when swap.
func (g *grid) box(out []int, swap bool, ulo, uhi, vlo, vhi int64) []int {
	if swap {
		ulo, uhi, vlo, vhi = vlo, vhi, ulo, uhi
	}
	// now in (u, v)
	ulo, uhi = max(ulo, g.u0), min(uhi, g.umaxAll)
	vlo, vhi = max(vlo, g.v0), min(vhi, g.vmaxAll)
	if ulo > uhi || vlo > vhi {
		return out
	}
	cu0, cu1 := (ulo-g.u0)/g.cell, (uhi-g.u0)/g.cell
	cv0, cv1 := (vlo-g.v0)/g.cell, (vhi-g.v0)/g.cell
	for cu := cu0; cu <= cu1; cu++ {
		row := cu * g.nv
		for _, p := range g.idx[g.start[row+cv0]:g.start[row+cv1+1]] {
			if g.u[p] >= ulo && g.u[p] <= uhi && g.v[p] >= vlo && g.v[p] <= vhi {
				out = append(out, int(p))
			}
		}
	}
	return out
}
