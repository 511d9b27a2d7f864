package ptas

import (
	"context"
	"slices"
	"sync"

	"github.com/procalloc/procalloc/geom"
)

// ballSearch runs MM's and Gen-Alg's center search under TiesByIndex on distinct
// points of a 3D integer lattice (the free nodes of a 3D mesh or torus, where the
// plane's lattice paths do not apply) without a pass over every point per center.
// A center's k nearest by (distance, index) are read from an occupancy grid of the
// points' bounding box, L1 shell by L1 shell outwards: every point closer than D, the
// k-th smallest distance, then the lowest-index points of the shell at D. A center
// costs the cells of its ball (about k over the points' density there) instead of n.
//
// Before a shell is read, a bound below the center's total is checked against the
// best total so far (only a strictly smaller total can replace it, so a center whose
// bound reaches it is passed over): with m points read, at distances r_i < r from the
// center, and the k - m still to come at distance >= r, the triangle inequality gives
// |r_i - r_j| for every pair (at least 2 for two points on one shell: distinct lattice
// points at the same L1 distance from a lattice point are an even distance apart), r -
// r_i from each point read to each point to come, and 1 for each pair still to come.
// A center far from the points, or in a sparse region, is dropped after a few
// shells. The answer is the definition's (TestBallMatchesByIndex).
type ballSearch struct {
	k          int
	w, h, l    int     // spans of the bounding box
	sx, sy     int     // strides of the occupancy grid: cell (x, y, z) at x*sx + y*sy + z
	at         []int32 // index+1 of the point in each cell, 0 when none
	x, y, z    []int32 // offsets of point i from the box's low corner
	sel, shell []int

	// The full-ball shortcut (fullBalls, in 3D): with the points distinct and in
	// ascending (x, y, z) order, every center whose cube of half-side dFull lies
	// in the box with a point on every cell takes the same shape, so only the
	// first can win. pre: prefix counts of points over the box, nil when off.
	dFull int
	pre   []int32
	// The same for centers whose cube of half-side clipR, clipped by the box,
	// is full: their k nearest are the same shape as those of any center at the
	// same distances (capped at clipR) from the box's faces, when within clipR
	// (on an empty box: the centers near a face, edge or corner). clipSeen keeps
	// the classes tried. lastR is the radius nearest stopped at.
	clipR    int
	clipSeen map[uint64]bool
	lastR    int
}

// ballPool keeps ballSearch buffers between calls (one call per decision).
var ballPool = sync.Pool{New: func() any { return new(ballSearch) }}

// maxBallCells bounds the occupancy grid of ballSearch.
const maxBallCells = 1 << 24

// newBallSearch prepares the search for pr; nil when the path does not apply (not
// 3D, fractional coordinates, a box over maxBallCells cells, coinciding points).
// The caller gives it back with release.
func newBallSearch[T geom.Number](pr *problem[T]) *ballSearch {
	if pr.d != 3 || !allIntegral(pr.pts) {
		return nil
	}
	b := geom.BoundingBox(pr.pts)
	var span [3]int
	cells := 1.0
	for j := range 3 {
		w := float64(b.Max[j]) - float64(b.Min[j]) + 1
		cells *= w
		if cells > maxBallCells {
			return nil
		}
		span[j] = int(w)
	}
	s := ballPool.Get().(*ballSearch)
	s.k, s.w, s.h, s.l = pr.k, span[0], span[1], span[2]
	s.sy, s.sx = s.l, s.h*s.l
	s.at = grow(s.at, int(cells))
	s.x, s.y, s.z = grow(s.x, pr.n), grow(s.y, pr.n), grow(s.z, pr.n)
	for i, p := range pr.pts {
		x, y, z := int32(p[0]-b.Min[0]), int32(p[1]-b.Min[1]), int32(p[2]-b.Min[2])
		s.x[i], s.y[i], s.z[i] = x, y, z
		c := int(x)*s.sx + int(y)*s.sy + int(z)
		if s.at[c] != 0 {
			s.release()
			return nil
		}
		s.at[c] = int32(i + 1)
	}
	s.setFull(pr.k)
	return s
}

// setFull prepares the full-ball shortcut: dFull, the radius of the smallest L1
// ball of Z^3 holding k points ((2r+1)(2r^2+2r+3)/3 points within r), and the
// prefix counts when the points are in ascending (x, y, z) order.
func (s *ballSearch) setFull(k int) {
	s.pre = s.pre[:0]
	s.dFull = 0
	for (2*s.dFull+1)*(2*s.dFull*s.dFull+2*s.dFull+3)/3 < k {
		s.dFull++
	}
	if 2*s.dFull+1 > min(s.w, s.h, s.l) {
		return
	}
	for i := 1; i < len(s.x); i++ {
		a := [3]int32{s.x[i-1], s.y[i-1], s.z[i-1]}
		b := [3]int32{s.x[i], s.y[i], s.z[i]}
		if slices.Compare(a[:], b[:]) > 0 {
			return
		}
	}
	s.clipR = 2*s.dFull + 2
	if s.clipSeen == nil {
		s.clipSeen = map[uint64]bool{}
	}
	clear(s.clipSeen)
	W, H, L := s.w+1, s.h+1, s.l+1
	s.pre = grow(s.pre, W*H*L)
	for i := range s.x {
		s.pre[(int(s.x[i])+1)*H*L+(int(s.y[i])+1)*L+int(s.z[i])+1] = 1
	}
	cumulate3(s.pre, H, L)
}

// cumulate3 turns pre, counts of a box laid out x-major with h rows of l cells
// per x-plane (row y = 0 and cell z = 0 the zero borders), into the box's 3D
// prefix sums in place: cumulative sums along z, then y, then x.
func cumulate3(pre []int32, h, l int) {
	// Row by row, without a division per cell (the divisions were most of its
	// cost: 2.2 % of Gen-Alg's CPU at torus:32x32x32).
	for row := 0; row+l <= len(pre); row += l {
		r := pre[row : row+l]
		for z := 1; z < l; z++ {
			r[z] += r[z-1]
		}
	}
	plane := h * l
	for p0 := 0; p0+plane <= len(pre); p0 += plane {
		for y := 1; y < h; y++ {
			cur, prev := pre[p0+y*l:p0+(y+1)*l], pre[p0+(y-1)*l:p0+y*l]
			for z := range cur {
				cur[z] += prev[z]
			}
		}
	}
	for p := plane; p < len(pre); p++ {
		pre[p] += pre[p-plane]
	}
}

// full reports whether the center at offsets (cx, cy, cz) has a full ball.
func (s *ballSearch) full(cx, cy, cz int) bool {
	d := s.dFull
	if len(s.pre) == 0 || cx-d < 0 || cy-d < 0 || cz-d < 0 || cx+d >= s.w || cy+d >= s.h || cz+d >= s.l {
		return false
	}
	return s.boxFull(cx-d, cx+d, cy-d, cy+d, cz-d, cz+d)
}

// boxFull reports whether every cell of the box x0..x1, y0..y1, z0..z1 (inclusive,
// inside the bounding box) holds a point.
func (s *ballSearch) boxFull(x0, x1, y0, y1, z0, z1 int) bool {
	H, L := s.h+1, s.l+1
	X0, X1 := x0*H*L, (x1+1)*H*L
	Y0, Y1 := y0*L, (y1+1)*L
	Z0, Z1 := z0, z1+1
	p := s.pre
	c := p[X1+Y1+Z1] - p[X0+Y1+Z1] - p[X1+Y0+Z1] - p[X1+Y1+Z0] + p[X0+Y0+Z1] + p[X0+Y1+Z0] + p[X1+Y0+Z0] - p[X0+Y0+Z0]
	return int(c) == (x1-x0+1)*(y1-y0+1)*(z1-z0+1)
}

// clipClass returns the class of a center whose cube of half-side clipR, clipped by
// the box, is full (its distances to the six faces, capped at clipR); false when
// the cube is not full or the shortcut is off.
func (s *ballSearch) clipClass(cx, cy, cz int) (uint64, bool) {
	R := s.clipR
	if len(s.pre) == 0 || !s.boxFull(max(cx-R, 0), min(cx+R, s.w-1), max(cy-R, 0), min(cy+R, s.h-1), max(cz-R, 0), min(cz+R, s.l-1)) {
		return 0, false
	}
	var key uint64
	for _, v := range [6]int{cx, s.w - 1 - cx, cy, s.h - 1 - cy, cz, s.l - 1 - cz} {
		key = key*uint64(R+1) + uint64(min(v, R))
	}
	return key, true
}

func (s *ballSearch) release() { ballPool.Put(s) }

// nearest puts into s.sel the k points nearest to the cell (cx, cy, cz) by (L1
// distance, index), or returns false as soon as the bound below the center's total
// reaches bound (bound < 0: none).
func (s *ballSearch) nearest(cx, cy, cz int, bound int64) bool {
	k := s.k
	s.sel = s.sel[:0]
	var m, star, pairs int64 // points read, their summed distance, bound on their pairs
	for r := 0; ; r++ {
		s.lastR = r
		if bound >= 0 && r > 0 {
			rest := int64(k) - m
			if pairs+rest*(m*int64(r)-star)+rest*(rest-1)/2 >= bound {
				return false
			}
		}
		sh := s.shell[:0]
		for x := max(cx-r, 0); x <= min(cx+r, s.w-1); x++ {
			rx := r - abs(x-cx)
			for y := max(cy-rx, 0); y <= min(cy+rx, s.h-1); y++ {
				rz := rx - abs(y-cy)
				base := x*s.sx + y*s.sy
				if z := cz - rz; z >= 0 && z < s.l {
					if p := s.at[base+z]; p != 0 {
						sh = append(sh, int(p-1))
					}
				}
				if z := cz + rz; rz > 0 && z < s.l {
					if p := s.at[base+z]; p != 0 {
						sh = append(sh, int(p-1))
					}
				}
			}
		}
		s.shell = sh
		n := int64(len(sh))
		if m+n >= int64(k) {
			if need := k - int(m); need < len(sh) {
				slices.Sort(sh)
				sh = sh[:need]
			}
			s.sel = append(s.sel, sh...)
			return true
		}
		s.sel = append(s.sel, sh...)
		pairs += n*(m*int64(r)-star) + n*(n-1)
		m += n
		star += n * int64(r)
	}
}

// ballCenters runs the search over the centers (MM: every combination of distinct
// coordinates, ascending, the first dimension outermost; Gen-Alg: the points in input
// order) and returns the first strictly best center's subset, ascending, and the
// center.
func ballCenters[T geom.Number](ctx context.Context, pr *problem[T], s *ballSearch, mm bool, floor float64) (best []int, center []T, err error) {
	b := geom.BoundingBox(pr.pts)
	sc := newPairScorer(pr.pts, pr.k)
	var bestScore int64 = -1
	best = make([]int, 0, pr.k)
	center = make([]T, 3)
	fullSeen := false
	try := func(c []T) bool {
		x, y, z := int(c[0]-b.Min[0]), int(c[1]-b.Min[1]), int(c[2]-b.Min[2])
		if s.full(x, y, z) {
			if fullSeen {
				return false // ties at best with the first full ball
			}
			fullSeen = true
		}
		class, clipped := s.clipClass(x, y, z)
		if clipped && s.clipSeen[class] {
			return false // ties at best with the first of its class
		}
		ok := s.nearest(x, y, z, bestScore)
		// The shells read lay within clipR: every center of the class reads the
		// same ones (pruned by the same bound, or the same k nearest).
		if clipped && s.lastR <= s.clipR {
			s.clipSeen[class] = true
		}
		if !ok {
			return false
		}
		score := int64(sc.total(s.sel))
		if bestScore < 0 || score < bestScore {
			bestScore = score
			best = append(best[:0], s.sel...)
			copy(center, c)
			return floor > 0 && float64(score) <= floor
		}
		return false
	}
	if mm {
		err = mmCenters(ctx, pr, TiesByIndex, try)
	} else {
		for i, p := range pr.pts {
			if i&1023 == 1023 {
				if err = context.Cause(ctx); err != nil {
					break
				}
			}
			if try(p) {
				break
			}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(best)
	return best, center, nil
}

// ballAlways makes MM take the ball path whenever it applies (tests).
var ballAlways = false

// ballPays weighs MM's ball path against the row sweep (mmSweep; the same answer):
// the ball path reads about k over the points' density cells for each center without
// a full ball (a full one costs a box count), the sweep about n per row of centers
// and k + n/64 per center. On the fragmented free sets of a trace replay the sweep
// was faster (torus:16x16x16, SDSC's first 300 jobs scaled by 8: 4.6 s against 5.5 s
// of CPU when the ball path always ran); on the synthetic stream's young free sets
// the ball path was 40x faster.
func (s *ballSearch) ballPays() bool {
	distinct := func(vs []int32, span int) []int {
		seen := make([]bool, span)
		var out []int
		for _, v := range vs {
			if !seen[v] {
				seen[v] = true
				out = append(out, int(v))
			}
		}
		return out
	}
	xs, ys, zs := distinct(s.x, s.w), distinct(s.y, s.h), distinct(s.z, s.l)
	centers := len(xs) * len(ys) * len(zs)
	notFull := centers
	if len(s.pre) > 0 {
		for _, x := range xs {
			for _, y := range ys {
				for _, z := range zs {
					if s.full(x, y, z) {
						notFull--
					}
				}
			}
		}
	}
	n, k := float64(len(s.x)), float64(s.k)
	ball := float64(notFull) * k * float64(s.w*s.h*s.l) / n
	sweep := 4*float64(len(ys)*len(zs))*n + float64(centers)*(k+n/64)
	return ball <= sweep
}
