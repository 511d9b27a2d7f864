package ptas

import "math"

// blockSide is the side of the blocks of centers (in column and row indices) that
// the plane's bounded scan bounds at once (blockBounds).
const blockSide = 8

// blockBounds bounds the totals of blocks of blockSide x blockSide centers of
// gridScan at once (issue 32 item 1). For a center c of radius thr_c, its k nearest
// lie in its L1 ball, so in column x they number at most the points of that column
// within rows [cy - rem, cy + rem], rem = thr_c - |x - cx|. Over a block those
// intervals lie within [lo(x), hi(x)], lo(x) = min over the block's centers of
// cy - thr_c + |x - cx| and hi(x) the matching max (the lower and upper envelopes of
// their diamonds), so every center's x marginal is at most cap(x), the points of
// column x in [lo(x), hi(x)]. Its x total is then at least the least total of any k
// values taken under those capacities: on a line that is a window of k consecutive
// values in sorted order (windowMin). The same for rows, and the sum bounds every
// center of the block. A block is bounded when the scan first meets one of its
// centers, in O(radius) reads, and its centers are dropped while the bound exceeds
// the limit. On issue 32's workload at 65,536 nodes (sampled decisions, every center
// scored in full) 8x8 blocks dropped 69% of the centers (85-96% at k >= 1,256 on
// fragmented free sets), at 16,384 nodes 51%.
type blockBounds struct {
	nby    int     // blocks per column of blocks (MM: rows of centers / blockSide, rounded up)
	colLo  []int32 // per block and column of it: min of cy - thr (empty: no center)
	colHi  []int32 // max of cy + thr
	rowLo  []int32 // per block and row of it: min of cx - thr
	rowHi  []int32 // max of cx + thr
	ext    []int32 // per block: min of cx - thr, max of cx + thr, min of cy - thr, max of cy + thr
	lb     []int64 // per block: the bound, -1 before it is computed
	lbY    []int64 // per block: the bound's rows part, a bound on every center's y total
	vals   []int64 // scratch: values and capacities of one axis
	caps   []int64
	starts []int64
	g0, g1 []int64

	computed, dropped int // blocks bounded so far, and those dropped on first use

	order    []int32 // the sorted visit's blocks
	memStart []int32 // members: per block, the start of its centers in memPos
	memPos   []int32
	memFill  []int32
}

// The scan stops bounding blocks after blockTrial of them when fewer than one in
// blockTrialShare was dropped on first use (small k among many free nodes, where
// each center's own pass stops early and a block's bound costs as much as scoring
// its centers: SDSC's first 60 days unscaled on mesh:128x128, mm, measured 4.7 s
// of CPU without blocks and 6.1 s with them always on).
var blockTrial, blockTrialShare = 4, 4

func (b *blockBounds) tried() int { return b.computed }

const blockNone = math.MaxInt32

func newBlockBounds(nx, ny int) *blockBounds {
	b := new(blockBounds)
	b.reset(nx, ny)
	return b
}

// reset prepares b for nx columns and ny rows of centers, reusing its arrays.
func (b *blockBounds) reset(nx, ny int) {
	nbx, nby := (nx+blockSide-1)/blockSide, (ny+blockSide-1)/blockSide
	nb := nbx * nby
	b.nby = nby
	b.colLo, b.colHi = grow(b.colLo, nb*blockSide), grow(b.colHi, nb*blockSide)
	b.rowLo, b.rowHi = grow(b.rowLo, nb*blockSide), grow(b.rowHi, nb*blockSide)
	b.ext, b.lb, b.lbY = grow(b.ext, 4*nb), grow(b.lb, nb), grow(b.lbY, nb)
	b.computed, b.dropped = 0, 0
	for i := range b.colLo {
		b.colLo[i], b.colHi[i], b.rowLo[i], b.rowHi[i] = blockNone, -blockNone, blockNone, -blockNone
	}
	for i := range nb {
		b.ext[4*i], b.ext[4*i+1], b.ext[4*i+2], b.ext[4*i+3] = blockNone, -blockNone, blockNone, -blockNone
		b.lb[i] = -1
	}
}

// members returns, for the centers at positions from..count-1 (at gives their
// column and row indices), a function listing a block's in increasing position.
// MM's centers (g.centers nil: position xi * ny + yi) are read off the block's
// columns and rows at each call, into a buffer the next call overwrites; Gen-Alg's
// are bucketed by block.
func (b *blockBounds) members(g *gridScan, from, count int, at func(int) (int, int)) func(bl int) []int32 {
	if g.centers == nil {
		// MM: written per call into one buffer (each call's result is read before
		// the next), without a pass over every center: bucketing them cost about
		// 5% of mm's search at 65,536 nodes (two divisions a center).
		nx, ny := len(g.xs), len(g.ys)
		return func(bl int) []int32 {
			bx, by := bl/b.nby*blockSide, bl%b.nby*blockSide
			ms := b.memPos[:0]
			for xi := bx; xi < min(bx+blockSide, nx); xi++ {
				for yi := max(by, from-xi*ny); yi < min(by+blockSide, ny); yi++ {
					ms = append(ms, int32(xi*ny+yi))
				}
			}
			b.memPos = ms
			return ms
		}
	}
	nb := len(b.lb)
	b.memStart = grow(b.memStart, nb+1)
	b.memPos = grow(b.memPos, count-from)
	for t := from; t < count; t++ {
		xi, yi := at(t)
		b.memStart[b.block(xi, yi)+1]++
	}
	for bl := range nb {
		b.memStart[bl+1] += b.memStart[bl]
	}
	b.memFill = append(b.memFill[:0], b.memStart[:nb]...)
	for t := from; t < count; t++ {
		xi, yi := at(t)
		bl := b.block(xi, yi)
		b.memPos[b.memFill[bl]] = int32(t)
		b.memFill[bl]++
	}
	return func(bl int) []int32 { return b.memPos[b.memStart[bl]:b.memStart[bl+1]] }
}

// block returns the block of the center at column index xi and row index yi.
func (b *blockBounds) block(xi, yi int) int { return (xi/blockSide)*b.nby + yi/blockSide }

// add records the center at indices (xi, yi), offsets (cx, cy), of radius thr.
func (b *blockBounds) add(xi, yi, cx, cy, thr int) {
	bl := b.block(xi, yi)
	j, i := bl*blockSide+xi%blockSide, bl*blockSide+yi%blockSide
	b.colLo[j], b.colHi[j] = min(b.colLo[j], int32(cy-thr)), max(b.colHi[j], int32(cy+thr))
	b.rowLo[i], b.rowHi[i] = min(b.rowLo[i], int32(cx-thr)), max(b.rowHi[i], int32(cx+thr))
	e := b.ext[4*bl : 4*bl+4]
	e[0], e[1], e[2], e[3] = min(e[0], int32(cx-thr)), max(e[1], int32(cx+thr)), min(e[2], int32(cy-thr)), max(e[3], int32(cy+thr))
}

// bound returns the block's bound (computed on first use). MM's centers (g.centers
// nil: every column and row) are added here from their radii thrs, in scan order;
// Gen-Alg's were added as their radii were found.
func (b *blockBounds) bound(g *gridScan, bl int, thrs []int32) int64 {
	if b.lb[bl] >= 0 {
		return b.lb[bl]
	}
	b.computed++
	bx, by := bl/b.nby*blockSide, bl%b.nby*blockSide
	if g.centers == nil {
		ny := len(g.ys)
		for xi := bx; xi < min(bx+blockSide, len(g.xs)); xi++ {
			for yi := by; yi < min(by+blockSide, ny); yi++ {
				b.add(xi, yi, g.xs[xi], g.ys[yi], int(thrs[xi*ny+yi]))
			}
		}
	}
	e := b.ext[4*bl : 4*bl+4]
	// Columns, then rows.
	col := bl * blockSide
	lbx := b.linesMin(g.xs, bx, int(g.firstCol[max(int(e[0]), 0)]), int(g.lastCol[min(int(e[1]), g.W-1)]), g.H, g.colPre, b.colLo[col:col+blockSide], b.colHi[col:col+blockSide], g.k)
	b.lbY[bl] = b.linesMin(g.ys, by, int(g.firstRow[max(int(e[2]), 0)]), int(g.lastRow[min(int(e[3]), g.H-1)]), g.W, g.rowPre, b.rowLo[col:col+blockSide], b.rowHi[col:col+blockSide], g.k)
	b.lb[bl] = lbx + b.lbY[bl]
	return b.lb[bl]
}

// linesMin is bound along one axis: the lines (columns, or rows) first..last of
// coordinates vs, the block's from index from with envelope bounds lo and hi, each
// with its points in the envelope (pre: a line's prefix counts over side cells,
// side + 1 entries a line), and windowMin over them.
func (b *blockBounds) linesMin(vs []int, from, first, last, side int, pre, lo, hi []int32, k int) int64 {
	b.vals, b.caps = b.vals[:0], b.caps[:0]
	env := b.envelopes(lo, hi, vs[from:min(from+blockSide, len(vs))])
	for i := first; i >= 0 && i <= last; i++ {
		l, h := env.at(vs[i], i-from)
		l, h = max(l, 0), min(h, side-1)
		if l > h {
			continue
		}
		p := pre[i*(side+1) : (i+1)*(side+1)]
		if c := p[h+1] - p[l]; c > 0 {
			b.vals, b.caps = append(b.vals, int64(vs[i])), append(b.caps, int64(c))
		}
	}
	return b.windowMin(k)
}

// envelope is a block's lower and upper envelope along one axis: at a line (column
// or row) at coordinate v, lo(v) = min over the block's lines j of lo_j + |v - v_j|
// and hi(v) = max of hi_j - |v - v_j|. Beyond the block's lines |v - v_j| is
// v_j - v (before them) or v - v_j (after them) for every j, so the envelope is a
// constant plus or minus v; only the block's own lines take the minimum over j.
type envelope struct {
	lo, hi   []int32 // per line of the block: lo_j, hi_j (blockNone: no center)
	vs       []int   // the block's lines' coordinates, ascending
	loBefore int     // min of lo_j + v_j
	loAfter  int     // min of lo_j - v_j
	hiBefore int     // max of hi_j - v_j
	hiAfter  int     // max of hi_j + v_j
}

func (b *blockBounds) envelopes(lo, hi []int32, vs []int) envelope {
	e := envelope{lo: lo, hi: hi, vs: vs, loBefore: blockNone, loAfter: blockNone, hiBefore: -blockNone, hiAfter: -blockNone}
	for j, v := range vs {
		if lo[j] == blockNone {
			continue
		}
		e.loBefore, e.loAfter = min(e.loBefore, int(lo[j])+v), min(e.loAfter, int(lo[j])-v)
		e.hiBefore, e.hiAfter = max(e.hiBefore, int(hi[j])-v), max(e.hiAfter, int(hi[j])+v)
	}
	return e
}

// at returns lo(v) and hi(v) for the line at coordinate v, index j relative to the
// block's first line. With no center in the block it returns an empty interval.
func (e *envelope) at(v, j int) (l, h int) {
	switch {
	case j < 0:
		return e.loBefore - v, e.hiBefore + v
	case j >= len(e.vs):
		return e.loAfter + v, e.hiAfter - v
	}
	l, h = int(blockNone), -int(blockNone)
	for i, u := range e.vs {
		if e.lo[i] == blockNone {
			continue
		}
		d := absInt(v - u)
		l, h = min(l, int(e.lo[i])+d), max(h, int(e.hi[i])-d)
	}
	return l, h
}

// windowMin returns the least total pairwise distance of k values taken from
// caps[t] copies of vals[t] (vals ascending), 0 when there are fewer than k. The
// best choice is k consecutive values in sorted order, a window starting at some
// position i; f(i), its total, is concave in i wherever neither end crosses from one
// value to the next (f(i+1) - f(i) = (k-1)(a_i + a_{i+k}) - 2 sum of a_{i+1..i+k-1},
// which then does not increase), so its minimum is at a position where an end
// crosses: i or i + k at a group's start, or one before.
func (b *blockBounds) windowMin(k int) int64 {
	n := len(b.vals)
	b.starts = b.starts[:0]
	var total int64
	for _, c := range b.caps {
		b.starts = append(b.starts, total)
		total += c
	}
	K := int64(k)
	if total < K {
		return 0
	}
	// p0(i), p1(i): sums of a_j and j a_j over j < i.
	b.g0, b.g1 = grow(b.g0, n+1), grow(b.g1, n+1) // per group: p0 and p1 at its start
	g0, g1 := b.g0, b.g1
	for t := range n {
		s, c, v := b.starts[t], b.caps[t], b.vals[t]
		g0[t+1] = g0[t] + c*v
		g1[t+1] = g1[t] + v*((s+c-1)*(s+c)/2-(s-1)*s/2)
	}
	// at(i, t): p0 and p1 at position i, t the group holding i found from *t by a
	// walk forwards (the candidates below come in ascending order per cursor, so
	// every walk is linear in all).
	at := func(i int64, t *int) (p0, p1 int64) {
		if i >= total {
			return g0[n], g1[n]
		}
		for *t+1 < n && b.starts[*t+1] <= i {
			*t++
		}
		s, v := b.starts[*t], b.vals[*t]
		return g0[*t] + (i-s)*v, g1[*t] + v*((i-1)*i/2-(s-1)*s/2)
	}
	best := int64(math.MaxInt64)
	f := func(i, a0, a1, c0, c1 int64) { best = min(best, 2*(c1-a1)-(2*i+K-1)*(c0-a0)) }
	// The window starts where its first value crosses a group's start (s - 1, s),
	// then where its last one does (s - K - 1, s - K): each sequence ascends, and
	// the end that sits at a group's start s, or one before, is read off the
	// group's sums directly (p0 and p1 at s are g0 and g1 of the group; at s - 1
	// less the previous group's value v, and (s - 1) v).
	tc := 0
	for t, s := range b.starts {
		if i := s - 1; t > 0 && i <= total-K {
			v := b.vals[t-1]
			c0, c1 := at(i+K, &tc)
			f(i, g0[t]-v, g1[t]-i*v, c0, c1)
		}
		if s <= total-K {
			c0, c1 := at(s+K, &tc)
			f(s, g0[t], g1[t], c0, c1)
		}
	}
	ta := 0
	for t, s := range b.starts {
		if i := s - K - 1; i >= 0 {
			v := b.vals[t-1] // t > 0: s > K
			a0, a1 := at(i, &ta)
			f(i, a0, a1, g0[t]-v, g1[t]-(s-1)*v)
		}
		if i := s - K; i >= 0 {
			a0, a1 := at(i, &ta)
			f(i, a0, a1, g0[t], g1[t])
		}
	}
	ta, tc = 0, 0
	a0, a1 := at(total-K, &ta)
	c0, c1 := at(total, &tc)
	f(total-K, a0, a1, c0, c1)
	return best
}
