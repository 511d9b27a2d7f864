package alloc

import (
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// gridIndex answers the counting questions of center-based allocators on a mesh or
// torus in O(2^d) time each: how many nodes (free nodes, free wall nodes) lie in an
// L-infinity ball. It keeps d-dimensional prefix sums over the free map, rebuilt in
// O(N) after the state changes.
type gridIndex struct {
	g     *topo.Grid
	dims  []int
	wrap  []bool
	d     int
	coord []int32 // coord[i*d+j] = coordinate j of node i
	wall  []bool  // node on the mesh boundary (Johnson 2010 "wall", topo.Grid.OnBoundary)
	// wallRow[y] on a 2D machine: the first coordinates of the wall nodes of row
	// y, ascending (the whole row, or its two ends: rebuild2D skips the rest)
	wallRow [][]int32
	pstride []int    // strides of the (dims[j]+1)-sized prefix arrays
	free    []int32  // prefix sums of the free map
	freeW   []int32  // prefix sums of free wall nodes
	hash    []uint64 // random 64-bit label of each node (tie statistics)
	freeH   []uint64 // prefix sums (mod 2^64) of the labels of free nodes
	anyWrap bool
	maxLinf int        // largest L-infinity distance between two nodes
	anyWall bool       // some node is on the mesh boundary (none on a torus)
	boxes   *freeBoxes // counts over free, one box per ball (center_bnb.go)
	// dirty[p] (p the bit index of a prefixParts part): per dimension the least
	// coordinate of a node whose free bit changed since that part was last built
	// (touch), dims[j] when none; all zeros builds it from scratch. A rebuild
	// recomputes only the entries at or beyond it in every dimension (the others
	// count no changed node) where the layout allows (rebuild2D, freePrefixSumsFrom).
	dirty [4][]int
	tlo   []int  // touch: the least coordinates of the last nodes touched
	plo   []int  // part's result
	src   *State // the state the tables were built from: another one rebuilds them whole

	masks    []uint64 // ballMasks
	wallBits []uint64 // the wall nodes as a bitset (with masks)
	// ballSums on a 2D mesh (rebuildPyramid): diagonal and anti-diagonal sums of
	// the prefix sums free over the same (X+1) x (Y+1) grid, and sums of free's
	// last column and row beyond it; pyrW is the row length X+1, 0 when not kept
	// (not a 2D mesh, or sums could exceed int32).
	dg, ad     []int32
	colX, rowY []int32
	pyrW       int
	// maskWords bounds the ball-mask table (ballMaskWords); tests set it to 0 to
	// take the list-based paths on small machines (forceLists, export_test.go).
	maskWords int

	// scratch
	ivl  [][2][2]int // per dimension up to two coordinate intervals of a ball
	nivl []int
	cur  []int
	lo   []int
	hi   []int
}

func newGridIndex(g *topo.Grid) *gridIndex {
	x := &gridIndex{g: g, dims: g.Dims(), wrap: g.Wrap(), d: g.Dim(), anyWrap: g.Wraps(), maskWords: ballMaskWords}
	n := g.N()
	x.coord = make([]int32, n*x.d)
	x.wall = make([]bool, n)
	c := make([]int, x.d)
	for i := range n {
		c = g.Coord(i, c)
		for j, v := range c {
			x.coord[i*x.d+j] = int32(v)
		}
		x.wall[i] = g.OnBoundary(c)
		x.anyWall = x.anyWall || x.wall[i]
	}
	if x.d == 2 {
		x.wallRow = make([][]int32, x.dims[1])
		for i, w := range x.wall {
			if w {
				y := i / x.dims[0]
				x.wallRow[y] = append(x.wallRow[y], int32(i%x.dims[0]))
			}
		}
	}
	for j, dj := range x.dims {
		if x.wrap[j] {
			x.maxLinf = max(x.maxLinf, dj/2)
		} else {
			x.maxLinf = max(x.maxLinf, dj-1)
		}
	}
	if x.d == 2 && !x.anyWrap {
		X, Y, M := x.dims[0], x.dims[1], x.maxLinf
		// Kept when the values fit int32 (colX and rowY sum up to X+M+2 or
		// Y+M+2 counts of at most n).
		if int64(n)*int64(max(X, Y)+M+3) < math.MaxInt32 {
			x.pyrW = X + 1
			x.dg = make([]int32, (X+1)*(Y+1))
			x.ad = make([]int32, (X+1)*(Y+1))
			x.colX = make([]int32, Y+M+2)
			x.rowY = make([]int32, X+M+2)
		}
	}
	x.pstride = make([]int, x.d)
	size := 1
	for j, dj := range x.dims {
		x.pstride[j] = size
		size *= dj + 1
	}
	x.free = make([]int32, size)
	x.boxes = newFreeBoxes(g, x.free)
	x.freeW = make([]int32, size)
	x.freeH = make([]uint64, size)
	x.hash = make([]uint64, n)
	h := uint64(0x853c49e6748fea9b)
	for i := range x.hash {
		// splitmix64: fixed labels, so results are deterministic.
		h += 0x9e3779b97f4a7c15
		z := h
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		x.hash[i] = z ^ z>>31
	}
	x.ivl = make([][2][2]int, x.d)
	x.nivl = make([]int, x.d)
	x.cur = make([]int, x.d)
	x.lo = make([]int, x.d)
	x.hi = make([]int, x.d)
	for p := range x.dirty {
		x.dirty[p] = make([]int, x.d) // zeros: built from scratch first
	}
	x.tlo, x.plo = make([]int, x.d), make([]int, x.d)
	return x
}

// touch records that the free bits of nodes changed (taken or released): every
// part's dirty corner moves down to their least coordinates, left in x.tlo. A
// long list (a partition's outside held or freed by a Mask) stops once the
// corner is the origin, which no further node can lower.
func (x *gridIndex) touch(nodes []int) {
	if len(nodes) == 0 {
		return
	}
	copy(x.tlo, x.dims)
	for i, v := range nodes {
		for j, c := range x.coord[v*x.d : v*x.d+x.d] {
			x.tlo[j] = min(x.tlo[j], int(c))
		}
		if i&63 == 63 && !slices.ContainsFunc(x.tlo, func(c int) bool { return c != 0 }) {
			break
		}
	}
	x.lowerDirty()
}

// touchIn is touch for the nodes of a bitmap (BulkOccupier), reporting whether
// it holds any. The nodes come in index order, the first coordinate fastest:
// of a word's nodes on one line along the first axis the first one has the
// least coordinates, so a word costs one look-up a line it meets (two on
// mesh:128x80); the last coordinate slowest, the first node's is the least, and
// the scan stops, a word at a time, once the other least coordinates are zero.
func (x *gridIndex) touchIn(set []uint64) bool {
	copy(x.tlo, x.dims)
	any := false
	for w, b := range set {
		if b == 0 {
			continue
		}
		any = true
		for b != 0 {
			o := bits.TrailingZeros64(b)
			v := w<<6 + o
			cv := x.coord[v*x.d : v*x.d+x.d]
			for j, c := range cv {
				x.tlo[j] = min(x.tlo[j], int(c))
			}
			// on to the next line's nodes
			if o += x.dims[0] - int(cv[0]); o >= 64 {
				break
			}
			b &^= 1<<o - 1
		}
		if !slices.ContainsFunc(x.tlo[:x.d-1], func(c int) bool { return c != 0 }) {
			break
		}
	}
	if any {
		x.lowerDirty()
	}
	return any
}

// lowerDirty moves every part's dirty corner down to x.tlo.
func (x *gridIndex) lowerDirty() {
	for _, lo := range x.dirty {
		for j, c := range x.tlo {
			lo[j] = min(lo[j], c)
		}
	}
}

// part returns the dirty corner of part p (a single bit) and marks it clean.
// The corner stays valid until the next touch.
func (x *gridIndex) part(p prefixParts) []int {
	lo := x.dirty[bits.TrailingZeros8(uint8(p))]
	copy(x.plo, lo)
	copy(lo, x.dims)
	if breakDirtyCorner {
		x.plo[x.d-1]++
	}
	return x.plo
}

// breakDirtyCorner (tests only) moves every dirty corner one step too far along
// the last dimension, so that a rebuild misses changed entries: the tests that
// compare the tables kept up to date with tables built from scratch must then
// fail (TestIncrementalTablesBroken).
var breakDirtyCorner bool

// prefixParts selects prefix-sum arrays of a gridIndex.
type prefixParts uint8

const (
	prefixFree    prefixParts = 1 << iota // free nodes (freeInBall, ball)
	prefixWall                            // free wall nodes (ball)
	prefixHash                            // labels of free nodes (ballHash)
	prefixPyramid                         // sums of ball counts over radii (ballSums; 2D mesh)
	prefixAll     = prefixFree | prefixWall | prefixHash | prefixPyramid
)

// rebuild brings the chosen prefix sums up to date with the state, from each
// one's dirty corner on (from scratch for a state other than the last one's).
func (x *gridIndex) rebuild(s *State, parts prefixParts) {
	if s != x.src {
		x.src = s
		for _, lo := range x.dirty {
			clear(lo)
		}
	}
	if x.d == 2 && !x.anyWrap {
		x.rebuild2D(s, parts)
		return
	}
	if parts&prefixFree != 0 {
		freePrefixSumsFrom(x.free, x.dims, x.pstride, s, x.part(prefixFree))
	}
	if parts&prefixWall != 0 {
		if x.part(prefixWall); x.anyWall { // without wall nodes freeW stays zero
			prefixSums(x, x.freeW, func(i int) int32 {
				if x.wall[i] {
					return 1
				}
				return 0
			}, s)
		}
	}
	if parts&prefixHash != 0 {
		x.part(prefixHash)
		prefixSums(x, x.freeH, func(i int) uint64 { return x.hash[i] }, s)
	}
	if parts&prefixPyramid != 0 {
		x.part(prefixPyramid) // kept on 2D meshes only
	}
}

// prefixSums fills arr with the d-dimensional prefix sums of val over the free
// nodes.
func prefixSums[T int32 | uint64](x *gridIndex, arr []T, val func(int) T, s *State) {
	clear(arr)
	for i := range x.g.N() {
		if !s.IsFree(i) {
			continue
		}
		p := 0
		for j := range x.d {
			p += (int(x.coord[i*x.d+j]) + 1) * x.pstride[j]
		}
		arr[p] = val(i)
	}
	// Cumulative sums along each dimension in turn, without divisions.
	size := len(arr)
	for j := range x.d {
		st, dj := x.pstride[j], x.dims[j]
		block := st * (dj + 1)
		for b := 0; b < size; b += block {
			for c := 1; c <= dj; c++ {
				row := b + c*st
				for p := row; p < row+st; p++ {
					arr[p] += arr[p-st]
				}
			}
		}
	}
}

// rebuild2D is rebuild on a 2D mesh: one pass, row by row, each entry the one
// above plus the running sum of its row (row 0 and column 0 stay zero). Only the
// entries at or beyond a part's dirty corner (x0, y0) are recomputed: from row y0
// on, each row from column x0 on, its running sum starting from the row's sum
// over columns 0..x0-1 (the difference of two entries left of the corner, which
// count no changed node).
func (x *gridIndex) rebuild2D(s *State, parts prefixParts) {
	X, Y := x.dims[0], x.dims[1]
	sx := X + 1
	if parts&prefixFree != 0 {
		lo := x.part(prefixFree)
		x0 := lo[0]
		for y := lo[1]; y < Y; y++ {
			above, row := x.free[y*sx:y*sx+sx], x.free[(y+1)*sx:(y+1)*sx+sx]
			lineRun(row[x0+1:], s.free, x0+y*X, row[x0]-above[x0])
			for i, u := range above[x0+1:] {
				row[x0+1+i] += u
			}
		}
	}
	if parts&prefixWall != 0 {
		lo := x.part(prefixWall)
		x0 := lo[0]
		for y := lo[1]; y < Y; y++ {
			above, row := x.freeW[y*sx:y*sx+sx], x.freeW[(y+1)*sx:(y+1)*sx+sx]
			// the run changes only at the row's wall nodes
			run, from := row[x0]-above[x0], x0
			for _, wx := range x.wallRow[y] {
				if int(wx) < x0 {
					continue
				}
				for xx := from; xx < int(wx); xx++ {
					row[xx+1] = above[xx+1] + run
				}
				v := int(wx) + y*X
				run += int32(s.free[v>>6] >> (v & 63) & 1)
				row[wx+1] = above[wx+1] + run
				from = int(wx) + 1
			}
			for xx := from; xx < X; xx++ {
				row[xx+1] = above[xx+1] + run
			}
		}
	}
	if parts&prefixPyramid != 0 {
		if lo := x.part(prefixPyramid); x.pyrW > 0 {
			x.rebuildPyramid(lo[0], lo[1])
		}
	}
	if parts&prefixHash != 0 {
		lo := x.part(prefixHash)
		x0 := lo[0]
		for y := lo[1]; y < Y; y++ {
			above, row := x.freeH[y*sx:y*sx+sx], x.freeH[(y+1)*sx:(y+1)*sx+sx]
			run := row[x0] - above[x0]
			for xx := x0; xx < X; xx++ {
				v := xx + y*X
				run += x.hash[v] & -(s.free[v>>6] >> (v & 63) & 1)
				row[xx+1] = above[xx+1] + run
			}
		}
	}
}

// box returns the sum of arr over the inclusive box lo..hi.
func (x *gridIndex) box(arr []int32, lo, hi []int) int {
	if x.d == 2 {
		s0, s1 := x.pstride[0], x.pstride[1]
		a, b := lo[0]*s0, (hi[0]+1)*s0
		c, d := lo[1]*s1, (hi[1]+1)*s1
		return int(arr[b+d] - arr[a+d] - arr[b+c] + arr[a+c])
	}
	return int(boxSum(x, arr, lo, hi))
}

// boxSum is the inclusion-exclusion over the 2^d corners of the box lo..hi in the
// prefix-sum array arr (for uint64 labels the arithmetic is mod 2^64, as intended).
func boxSum[T int32 | uint64](x *gridIndex, arr []T, lo, hi []int) T {
	var s T
	for mask := 0; mask < 1<<x.d; mask++ {
		p, neg := 0, false
		for j := range x.d {
			if mask>>j&1 != 0 {
				p += lo[j] * x.pstride[j]
				neg = !neg
			} else {
				p += (hi[j] + 1) * x.pstride[j]
			}
		}
		if neg {
			s -= arr[p]
		} else {
			s += arr[p]
		}
	}
	return s
}

// intervals sets x.ivl/x.nivl to the coordinate intervals, per dimension, of the
// L-infinity ball of radius r around node c (clipped on a mesh, wrapped on a torus).
func (x *gridIndex) intervals(c, r int) {
	for j, dj := range x.dims {
		v := int(x.coord[c*x.d+j])
		lo, hi := v-r, v+r
		switch {
		case x.wrap[j] && 2*r+1 >= dj:
			x.ivl[j][0] = [2]int{0, dj - 1}
			x.nivl[j] = 1
		case x.wrap[j] && lo < 0:
			x.ivl[j][0] = [2]int{0, hi}
			x.ivl[j][1] = [2]int{lo + dj, dj - 1}
			x.nivl[j] = 2
		case x.wrap[j] && hi >= dj:
			x.ivl[j][0] = [2]int{0, hi - dj}
			x.ivl[j][1] = [2]int{lo, dj - 1}
			x.nivl[j] = 2
		default:
			x.ivl[j][0] = [2]int{max(lo, 0), min(hi, dj-1)}
			x.nivl[j] = 1
		}
	}
}

// ball returns the number of free nodes, free wall nodes and all nodes within
// L-infinity distance r of node c.
func (x *gridIndex) ball(c, r int) (free, freeWall, all int) {
	if r < 0 {
		return 0, 0, 0
	}
	if x.d == 2 && !x.anyWrap {
		x0, x1, y0, y1 := x.box2D(c, r)
		p00, p01, p10, p11 := x0+y0, x0+y1, x1+y0, x1+y1
		all = (x1 - x0) * (y1 - y0) / x.pstride[1]
		return int(x.free[p11] - x.free[p01] - x.free[p10] + x.free[p00]),
			int(x.freeW[p11] - x.freeW[p01] - x.freeW[p10] + x.freeW[p00]), all
	}
	if !x.anyWall {
		// a torus: no wall nodes; the free nodes are one count of freeBoxes (which
		// takes the ball around the ring)
		_, _, all = x.ballSize(c, r)
		return x.boxes.count(x.lo, x.hi), 0, all
	}
	x.intervals(c, r)
	if !x.anyWrap {
		all = 1
		for j := range x.d {
			x.lo[j], x.hi[j] = x.ivl[j][0][0], x.ivl[j][0][1]
			all *= x.hi[j] - x.lo[j] + 1
		}
		return x.box(x.free, x.lo, x.hi), x.box(x.freeW, x.lo, x.hi), all
	}
	// Product of up to 2^d boxes.
	for j := range x.d {
		x.cur[j] = 0
	}
	for {
		all += x.setBallBox()
		free += x.box(x.free, x.lo, x.hi)
		freeWall += x.box(x.freeW, x.lo, x.hi)
		if !x.nextBallBox() {
			return free, freeWall, all
		}
	}
}

// setBallBox sets x.lo, x.hi to box x.cur of the product of the intervals set by
// intervals (a wrapped dimension's ball crossing the seam is two intervals) and
// returns its volume; nextBallBox moves x.cur to the next box, false after the
// last. ball and ballHash walk the up to 2^d boxes of a ball with them.
func (x *gridIndex) setBallBox() (vol int) {
	vol = 1
	for j := range x.d {
		iv := x.ivl[j][x.cur[j]]
		x.lo[j], x.hi[j] = iv[0], iv[1]
		vol *= iv[1] - iv[0] + 1
	}
	return vol
}

func (x *gridIndex) nextBallBox() bool {
	for j := range x.d {
		if x.cur[j]++; x.cur[j] < x.nivl[j] {
			return true
		}
		x.cur[j] = 0
	}
	return false
}

// ballSize sets x.lo, x.hi to the box of the L-infinity ball of radius r >= 0
// around node c (unclipped, unwrapped: freeBoxes.count's input) and returns the
// number of nodes in the ball, as all (free and freeWall are 0).
func (x *gridIndex) ballSize(c, r int) (free, freeWall, all int) {
	all = 1
	for j, dj := range x.dims {
		v := int(x.coord[c*x.d+j])
		x.lo[j], x.hi[j] = v-r, v+r
		if x.wrap[j] {
			all *= min(2*r+1, dj)
		} else {
			all *= min(v+r, dj-1) - max(v-r, 0) + 1
		}
	}
	return 0, 0, all
}

// ballHash returns the sum (mod 2^64) of the labels of the free nodes within
// L-infinity distance r of c: a fingerprint of that set.
func (x *gridIndex) ballHash(c, r int) uint64 {
	if r < 0 {
		return 0
	}
	if x.d == 2 && !x.anyWrap {
		x0, x1, y0, y1 := x.box2D(c, r)
		return x.freeH[x1+y1] - x.freeH[x0+y1] - x.freeH[x1+y0] + x.freeH[x0+y0]
	}
	x.intervals(c, r)
	for j := range x.d {
		x.cur[j] = 0
	}
	var h uint64
	for {
		x.setBallBox()
		h += boxSum(x, x.freeH, x.lo, x.hi)
		if !x.nextBallBox() {
			return h
		}
	}
}

// box2D returns the prefix-array offsets of the L-infinity ball of radius r >= 0
// around c on a 2D mesh: the ball's free count is free[x1+y1] - free[x0+y1] -
// free[x1+y0] + free[x0+y0].
func (x *gridIndex) box2D(c, r int) (x0, x1, y0, y1 int) {
	cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
	x0, x1 = max(cx-r, 0), min(cx+r, x.dims[0]-1)+1
	y0, y1 = max(cy-r, 0)*x.pstride[1], (min(cy+r, x.dims[1]-1)+1)*x.pstride[1]
	return x0, x1, y0, y1
}

// freeInBall returns only the number of free nodes within distance r of c.
func (x *gridIndex) freeInBall(c, r int) int {
	if r < 0 {
		return 0
	}
	if !x.anyWrap && x.d == 2 {
		x0, x1, y0, y1 := x.box2D(c, r)
		return int(x.free[x1+y1] - x.free[x0+y1] - x.free[x1+y0] + x.free[x0+y0])
	}
	if x.d == 3 {
		// the three axes' offsets from the coordinates, with no box written
		// (the greedy collector's centers count ball after ball on 3D tori)
		c3 := 3 * c
		return x.boxes.ball3(int(x.coord[c3]), int(x.coord[c3+1]), int(x.coord[c3+2]), r)
	}
	for j := range x.d {
		v := int(x.coord[c*x.d+j])
		x.lo[j], x.hi[j] = v-r, v+r
	}
	if x.d <= 3 {
		// summed directly, without count's odometer over the pieces across
		// the seams (a 3D torus's balls cross up to three; shellScore counts
		// ball after ball for every center the greedy collector comes to)
		n, _ := x.boxes.countSize(x.lo, x.hi)
		return n
	}
	return x.boxes.count(x.lo, x.hi)
}

// ballAxis is countSize's three prefix-sum offsets, in units of the stride,
// along a dimension of dj nodes for the coordinates within r >= 0 of v:
// h+1, l and 0 inside the ring or the mesh (the mesh's ends clipped), the whole
// ring, or across the seam the ring, l and h-dj+1 (l and h moved up a ring
// when l < 0).
func ballAxis(v, r, dj int, wrap bool) (a0, a1, a2 int) {
	l, h := v-r, v+r
	switch {
	case !wrap:
		l, h = max(l, 0), min(h, dj-1)
	case 2*r >= dj:
		l, h = 0, dj-1
	default:
		if l < 0 {
			l, h = l+dj, h+dj
		}
		if h >= dj {
			return dj, l, h - dj + 1
		}
	}
	return h + 1, l, 0
}

// ball3 is the number of free nodes within L-infinity distance r >= 0 of the
// node at (cx, cy, cz) of a 3D grid: countSize's 27 entries, the offsets from
// ballAxis.
func (f *freeBoxes) ball3(cx, cy, cz, r int) int {
	d, st, w := f.dims[:3], f.str[:3], f.wrap[:3]
	a0, a1, a2 := ballAxis(cx, r, d[0], w[0]) // the first axis's stride is 1
	b0, b1, b2 := ballAxis(cy, r, d[1], w[1])
	c0, c1, c2 := ballAxis(cz, r, d[2], w[2])
	b0, b1, b2 = b0*st[1], b1*st[1], b2*st[1]
	c0, c1, c2 = c0*st[2], c1*st[2], c2*st[2]
	P := f.pre
	row := func(b int) int32 { return P[b+a0] - P[b+a1] + P[b+a2] }
	plane := func(c int) int32 { return row(c+b0) - row(c+b1) + row(c+b2) }
	return int(plane(c0) - plane(c1) + plane(c2))
}

// nodeIndex is the node at coordinates c of a grid of sides dims, numbered as
// topo.Grid numbers them (axis 0 fastest). It is inlined where the searches call
// it once per node taken or visited.
func nodeIndex[T int | int32](dims []int, c []T) int {
	v := 0
	for j := len(dims) - 1; j >= 0; j-- {
		v = v*dims[j] + int(c[j])
	}
	return v
}

// axisDist is the hop distance along dimension j between nodes a and b, from the
// cached coordinates.
func (x *gridIndex) axisDist(j, a, b int) int {
	return x.g.AxisDist(j, int(x.coord[a*x.d+j]), int(x.coord[b*x.d+j]))
}

// linf is the L-infinity distance between nodes (shortest way around on tori).
func (x *gridIndex) linf(a, b int) int {
	m := 0
	for j := range x.d {
		if v := x.axisDist(j, a, b); v > m {
			m = v
		}
	}
	return m
}

// l1 is the hop (L1) distance between nodes (shortest way around on tori).
func (x *gridIndex) l1(a, b int) int {
	s := 0
	for j := range x.d {
		s += x.axisDist(j, a, b)
	}
	return s
}

// ballMaskWords bounds the size of the ball-mask table (4 MB): enough for a 32x32
// mesh or torus (1,024 nodes, 32 radii, 16 words per set).
const ballMaskWords = 1 << 19

// hasBallMasks reports whether ballMasks has a table for this machine (not
// larger than x.maskWords).
func (x *gridIndex) hasBallMasks() bool {
	n := x.g.N()
	return n*(x.maxLinf+1)*((n+63)/64) <= x.maskWords
}

// ballMasks returns, for every node c and radius r = 0..maxLinf, the set of nodes
// within L-infinity distance r of c as a bitset of words words (bit v of word v/64 =
// node v), ball(c, r) at bits[(c*(maxLinf+1)+r)*words:][:words]; nil when the table
// would exceed x.maskWords (ballMaskWords). Built on first use.
func (x *gridIndex) ballMasks() (bits []uint64, words int) {
	n := x.g.N()
	words = (n + 63) / 64
	R := x.maxLinf + 1
	if !x.hasBallMasks() {
		return nil, words
	}
	if x.masks != nil {
		return x.masks, words
	}
	x.masks = make([]uint64, n*R*words)
	for c := range n {
		base := x.masks[c*R*words : (c+1)*R*words]
		cc := x.coord[c*x.d : c*x.d+x.d]
		for v := range n {
			d := int32(0) // linf(c, v), from the cached coordinates
			for j, u := range x.coord[v*x.d : v*x.d+x.d] {
				t := abs32(u - cc[j])
				if x.wrap[j] {
					t = min(t, int32(x.dims[j])-t)
				}
				d = max(d, t)
			}
			base[int(d)*words+v>>6] |= 1 << (v & 63)
		}
		for r := 1; r < R; r++ {
			for w := range words {
				base[r*words+w] |= base[(r-1)*words+w]
			}
		}
	}
	x.wallBits = make([]uint64, words)
	for v, on := range x.wall {
		if on {
			x.wallBits[v>>6] |= 1 << (v & 63)
		}
	}
	return x.masks, words
}

// intervalDist returns the smallest and largest distance from p to a point of
// lo..hi.
func intervalDist(p, lo, hi int32) (near, far int32) {
	switch {
	case p < lo:
		return lo - p, hi - p
	case p > hi:
		return p - hi, p - lo
	}
	return 0, max(p-lo, hi-p)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// rebuildPyramid fills the tables of ballSums from the prefix sums free (2D mesh).
// With Q(a, b) the free nodes in [0, a) x [0, b) (coordinates clamped to the mesh),
// dg(a, b) = Q(a, b) + dg(a-1, b-1) sums Q down a diagonal and ad(a, b) = Q(a, b) +
// ad(a+1, b-1) down an anti-diagonal. ballSums reads them for a up to X+M and b up
// to Y+M (M = maxLinf), but beyond the mesh Q no longer changes with the coordinate
// that left it, so only a in [0, X], b in [0, Y] is tabled (the mesh's own prefix
// sums' size, a quarter of the whole range on a square mesh; rebuilt before every
// decision, the tables were a tenth of MC1x1's time at 128x128): dgAt and adAt
// add the stretch beyond the mesh from the sums of Q along its last column (colX)
// and last row (rowY). Only the entries that sum a changed Q are recomputed: Q
// changed at a > x0, b > y0 (the nodes changed at coordinates >= (x0, y0)), so dg
// from there on, ad at b > y0 and a+b > x0+y0 (it sums Q up-left of (a, b)),
// colX from b = y0+1 and rowY from a = x0+1.
func (x *gridIndex) rebuildPyramid(x0, y0 int) {
	X, Y, W := x.dims[0], x.dims[1], x.pyrW // W = X+1, the row length of free
	q := x.free
	// colX[b] = sum of Q(X, b') for b' = 1..b = ad(X, b); rowY[a] = sum of Q(a', Y)
	// for a' = 1..a.
	x.colX[0], x.rowY[0] = 0, 0
	for b := y0 + 1; b < len(x.colX); b++ {
		x.colX[b] = x.colX[b-1] + q[X+min(b, Y)*W]
	}
	for a := x0 + 1; a < len(x.rowY); a++ {
		x.rowY[a] = x.rowY[a-1] + q[min(a, X)+Y*W]
	}
	clear(x.dg[:W])
	clear(x.ad[:W])
	for b := y0 + 1; b <= Y; b++ {
		row, prev, qb := x.dg[b*W:(b+1)*W], x.dg[(b-1)*W:b*W], q[b*W:(b+1)*W]
		row[0] = 0
		for a := x0 + 1; a <= X; a++ {
			row[a] = qb[a] + prev[a-1]
		}
		row, prev = x.ad[b*W:(b+1)*W], x.ad[(b-1)*W:b*W]
		for a := max(x0+y0+1-b, 0); a < X; a++ {
			row[a] = qb[a] + prev[a+1] // qb[0] = 0
		}
		row[X] = x.colX[b]
	}
}

// dgAt is dg(a, b) for a <= X+M+1, b <= Y+M+1 (rebuildPyramid). Beyond the mesh,
// for the first steps down the diagonal both coordinates are past it (Q is all the
// free nodes), then one of them (Q runs along the last column or row), then the
// table takes over.
func (x *gridIndex) dgAt(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	X, Y, W := x.dims[0], x.dims[1], x.pyrW
	ea, eb := a-X, b-Y
	if ea <= 0 && eb <= 0 {
		return int(x.dg[a+b*W])
	}
	tot := int(x.free[X+Y*W])
	if ea >= eb {
		e0 := max(eb, 0)
		s := e0*tot + int(x.colX[b-e0]-x.colX[max(b-ea, 0)])
		if b > ea {
			s += int(x.dg[X+(b-ea)*W])
		}
		return s
	}
	e0 := max(ea, 0)
	s := e0*tot + int(x.rowY[a-e0]-x.rowY[max(a-eb, 0)])
	if a > eb {
		s += int(x.dg[a-eb+Y*W])
	}
	return s
}

// adAt is ad(a, b) for a >= -M, b <= Y+M+1 (rebuildPyramid): Q is 0 left of the
// mesh (ad(a, b) = ad(0, a+b) for a < 0), runs along the last column right of it
// (ad(a, b) = colX[b] for a >= X), and along the last row above it.
func (x *gridIndex) adAt(a, b int) int {
	if a < 0 {
		a, b = 0, b+a
	}
	if b <= 0 {
		return 0
	}
	X, Y, W := x.dims[0], x.dims[1], x.pyrW
	if a >= X {
		return int(x.colX[b])
	}
	eb := b - Y
	if eb <= 0 {
		return int(x.ad[a+b*W])
	}
	s := int(x.rowY[a+eb-1] - x.rowY[max(a-1, 0)])
	if a+eb >= X {
		return s + int(x.colX[Y])
	}
	return s + int(x.ad[a+eb+Y*W])
}

// ballSums returns the sum over r = 0..R of the free nodes within L-infinity
// distance r of node c on a 2D mesh (the tables are kept: pyrW > 0), in O(1): the
// four corners of the balls' prefix-sum boxes move along diagonals as r grows, so
// the sum is four lookups, dg(cx+1+R, cy+1+R) - ad(cx-R, cy+1+R) + ad(cx+R+2,
// cy-R-1) - dg(cx-R-1, cy-R-1).
func (x *gridIndex) ballSums(c, R int) int {
	cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
	if X, Y, W := x.dims[0], x.dims[1], x.pyrW; cx-R > 0 && cy-R > 0 && cx+R+2 <= X && cy+R+1 <= Y {
		// the ball and the next one inside the mesh: the tables alone
		return int(x.dg[cx+1+R+(cy+1+R)*W] - x.ad[cx-R+(cy+1+R)*W] + x.ad[cx+R+2+(cy-R-1)*W] - x.dg[cx-R-1+(cy-R-1)*W])
	}
	return x.dgAt(cx+1+R, cy+1+R) - x.adAt(cx-R, cy+1+R) + x.adAt(cx+R+2, cy-R-1) - x.dgAt(cx-R-1, cy-R-1)
}
