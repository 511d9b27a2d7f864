package netsim

import (
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// ringWindow is dimension-order routing's rule along one dimension of k nodes as a
// window: from coordinate c, the destinations c+1, ..., c+h (mod k) are reached in
// the positive direction and the others in the negative one. It is read off
// ringDirection (TiePositive, GridRouter's policy), so the counts below follow the
// one routing layer; ok is false if the rule were not such a window (then the meter
// traces routes instead).
func ringWindow(k int, wrap bool) (hPos, hNeg int, ok bool) {
	if !wrap {
		return k - 1, k - 1, true
	}
	for fwd := 1; fwd < k; fwd++ {
		dir, steps := ringDirection(0, int32(fwd), int32(k), true, TiePositive, nil)
		switch {
		case dir == 0 && int(steps) == fwd && hPos == fwd-1:
			hPos = fwd
		case dir == 1 && int(steps) == k-fwd:
		default:
			return 0, 0, false
		}
	}
	return hPos, k - 1 - hPos, true
}

// torusDims holds the windows of a wrapped grid's dimensions (see ringWindow).
type torusDims struct {
	hPos, hNeg []int
}

func newTorusDims(g *topo.Grid) *torusDims {
	t := &torusDims{}
	for j, k := range g.Dims() {
		hp, hn, ok := ringWindow(k, g.Wrap()[j])
		if !ok {
			return nil
		}
		t.hPos, t.hNeg = append(t.hPos, hp), append(t.hNeg, hn)
	}
	return t
}

// allToAllTorusLoad counts the all-to-all routes of GridRouter on a grid with
// wrapped dimensions (a torus) without tracing them. As on a mesh
// (allToAllMeshLoad), a route from s to d crosses the links of dimension j on the
// line whose coordinates before j are d's and after j are s's, so a link's routes
// come from one source group (the job's nodes with the line's coordinates after j)
// and one destination group (coordinates before j). Along the ring the rule is a
// window (ringWindow): from coordinate a the positive direction reaches a+1..a+h. On
// the ring unrolled twice (positions 0..2k-1, destination b taken at b or b+k) a
// positive route from a covers the links a..b'-1 with b' in (a, a+h]; the links
// below k carry it on virtual channel 0, those from k on (after the dateline, the
// link k-1 -> 0) on channel 1, as GridRouter's dateline rule has it. So position x
// carries sum over a in [x-h+1, x] of S(a) x (D'(a+h) - D'(x)), D' the cumulative
// destination counts. The sum over every link needs only the whole job's counts
// (two prefix sums, O(k) per dimension); the largest needs each pair of a source
// and a destination group that the job's nodes occupy, since unlike on a mesh the
// count is not a product of a source and a destination factor. A pair's largest
// count is at one of the source group's positions (ringPeak), so a pair costs its
// source positions and a destination group its prefix sums (O(k), once) instead of
// O(k) per pair: per dimension O(p d + k + G_s + G_t) for the groups' positions
// (counting sorts) and bounds, O(k) per destination group for its prefix sums and
// at most G_t p for the pairs (the negative direction is the same on the mirrored
// ring). G_t is at most p and the lines of the dimension
// before j (on a 3D torus's middle dimension, the side), so a job costs about p
// times the torus's diameter; before, a pair cost k, G_s G_t k on the middle
// dimension. Pairs are taken largest bound first, the bound being the most sources
// of one group within h positions times the most destinations of the other within
// h, and skipped once that is no more than the largest count found. The counts
// equal the trace's (TestAllToAllTorusLoadMatchesTrace,
// TestAllToAllTorusLoad3DMatchesTrace).
func (m *RouteMeter) allToAllTorusLoad(nodes []int) RouteLoad {
	l, coords, ok := m.allToAllStart(nodes)
	if !ok {
		return l
	}
	g := m.grid
	dims := g.Dims()
	D := len(dims)
	for j, k := range dims {
		if lo, hi := axisSpan(coords, D, j); lo == hi {
			continue // no link of dimension j is crossed
		}
		hp, hn := m.torus.hPos[j], m.torus.hNeg[j]
		wrap := g.Wrap()[j]
		// Sources grouped by their coordinates after j, destinations by those before.
		sIDs, gs := m.groupIDs(&m.ids, nodes, j+1, D)
		tIDs, gt := m.groupIDs(&m.ids2, nodes, 0, j)
		all := zeros(&m.histC, 2*k) // all nodes: forward, then mirrored
		for i := range nodes {
			c := coords[i*D+j]
			all[c]++
			all[k+k-1-c]++
		}
		// Each group's occupied positions, ascending, with their counts.
		src := m.groupRows(&m.srcRows, sIDs, gs, coords, j, D, k)
		dst := m.groupRows(&m.dstRows, tIDs, gt, coords, j, D, k)
		for dir := range 2 {
			h := hp
			if dir == 1 {
				h = hn
			}
			if h == 0 {
				continue
			}
			var cs, cd []int32
			if dir == 0 {
				cs, cd = all[:k], all[:k]
			} else {
				cs, cd = all[k:], all[k:]
			}
			sum, _ := m.ringLoad(cs, cd, k, h, wrap)
			l.Hops += sum
			// Every pair of groups whose bound exceeds the largest count so far,
			// largest bounds first. A position's routes start within h of it and end
			// within h beyond it, so a pair's count is at most the most sources of
			// its group within h positions times the most destinations of the other
			// within h. A destination group's cumulative counts are made when first
			// needed.
			m.sizeS = src.windowMax(m.sizeS[:0], k, h, false)
			m.sizeT = dst.windowMax(m.sizeT[:0], k, h, wrap)
			m.ordS, m.ordT = bySize(m.ordS, m.sizeS, &m.sizeBuf), bySize(m.ordT, m.sizeT, &m.sizeBuf)
			w := 2*k + 1
			m.pdMade = zeros(&m.pdMade, gt)
			if cap(m.pd) < gt*w {
				m.pd = make([]int64, gt*w)
			}
			pds := m.pd[:gt*w]
			for _, s := range m.ordS {
				ns := int64(m.sizeS[s])
				if ns*int64(m.sizeT[m.ordT[0]]) <= l.MaxShared {
					break
				}
				pos, cnt := src.row(int(s))
				for _, t := range m.ordT {
					if ns*int64(m.sizeT[t]) <= l.MaxShared {
						break
					}
					pd := pds[int(t)*w : int(t+1)*w]
					if m.pdMade[t] == 0 {
						m.pdMade[t] = 1
						tp, tc := dst.row(int(t))
						destPrefix(pd, tp, tc, k, wrap, dir == 1)
					}
					l.MaxShared = max(l.MaxShared, ringPeak(pos, cnt, pd, k, h, dir == 1))
				}
			}
		}
	}
	return l
}

// groupRows holds, per group, the positions along one dimension that the group's
// nodes occupy, ascending, and how many nodes are at each: pos, cnt[off[g]:off[g+1]].
type groupRows struct {
	off, pos, cnt []int32
	idx, idx2     []int32 // scratch: node indices sorted
	count         []int32
}

// groupRows returns the rows of the job's nodes grouped by ids (groups of them)
// along dimension j (k positions): two counting sorts, by position then by group,
// O(p + k + groups).
func (m *RouteMeter) groupRows(r *groupRows, ids []int32, groups int, coords []int, j, D, k int) *groupRows {
	p := len(ids)
	r.idx, r.idx2 = zeros(&r.idx, p), zeros(&r.idx2, p)
	r.count = zeros(&r.count, max(k, groups)+1)
	for i := range p {
		r.count[coords[i*D+j]+1]++
	}
	for c := range k {
		r.count[c+1] += r.count[c]
	}
	for i := range p {
		c := coords[i*D+j]
		r.idx[r.count[c]] = int32(i)
		r.count[c]++
	}
	clear(r.count)
	for _, i := range r.idx {
		r.count[ids[i]+1]++
	}
	for g := range groups {
		r.count[g+1] += r.count[g]
	}
	for _, i := range r.idx {
		g := ids[i]
		r.idx2[r.count[g]] = i
		r.count[g]++
	}
	r.off, r.pos, r.cnt = r.off[:0], r.pos[:0], r.cnt[:0]
	prev := int32(-1)
	for _, i := range r.idx2 {
		g := ids[i]
		for int32(len(r.off)) <= g {
			r.off = append(r.off, int32(len(r.pos)))
			prev = -1
		}
		if c := int32(coords[int(i)*D+j]); c == prev {
			r.cnt[len(r.cnt)-1]++
		} else {
			r.pos, r.cnt = append(r.pos, c), append(r.cnt, 1)
			prev = c
		}
	}
	for len(r.off) <= groups {
		r.off = append(r.off, int32(len(r.pos)))
	}
	return r
}

// row returns group g's positions and counts.
func (r *groupRows) row(g int) (pos, cnt []int32) {
	return r.pos[r.off[g]:r.off[g+1]], r.cnt[r.off[g]:r.off[g+1]]
}

// windowMax appends, for each group, the largest number of its nodes within h
// consecutive positions (round the ring when circular); a window and its mirror
// image hold as many, so one value serves both directions. O(positions) per group.
func (r *groupRows) windowMax(dst []int32, k, h int, circular bool) []int32 {
	for g := range len(r.off) - 1 {
		pos, cnt := r.row(g)
		n := len(pos)
		at := func(i int) int32 { // positions unrolled twice when circular
			if i >= n {
				return pos[i-n] + int32(k)
			}
			return pos[i]
		}
		span := n
		if circular {
			span = 2 * n
		}
		var sum, best int32
		lo := 0
		for i := range span {
			x := at(i)
			if x > int32(k+h-2) {
				break // the windows end at y < k + h - 1
			}
			sum += cnt[i%n]
			for at(lo) <= x-int32(h) {
				sum -= cnt[lo%n]
				lo++
			}
			best = max(best, sum)
		}
		dst = append(dst, best)
	}
	return dst
}

// bySize returns the groups 0..len(size)-1 in order of decreasing size (then
// index): a counting sort, O(groups + largest size), buf its scratch.
func bySize(ord, size []int32, buf *[]int32) []int32 {
	var top int32
	for _, x := range size {
		top = max(top, x)
	}
	start := zeros(buf, int(top)+2) // start[top-x]: the first place of size x
	for _, x := range size {
		start[top-x+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	ord = slices.Grow(ord[:0], len(size))[:len(size)]
	for g, x := range size {
		ord[start[top-x]] = int32(g)
		start[top-x]++
	}
	return ord
}

// jobCoords returns the job's coordinates, node i's at [i*D, i*D+D), in m.coord.
func (m *RouteMeter) jobCoords(nodes []int) []int {
	g := m.grid
	D := len(g.Dims())
	if m.coordTab == nil && g.N() <= 1<<20 {
		// Every job's nodes are turned into coordinates: once per node instead.
		m.coordTab = make([]int32, 0, g.N()*D)
		c := make([]int, D)
		for v := range g.N() {
			for _, x := range g.Coord(v, c) {
				m.coordTab = append(m.coordTab, int32(x))
			}
		}
	}
	coords := m.coord[:0]
	if m.coordTab != nil {
		for _, v := range nodes {
			for _, x := range m.coordTab[v*D : v*D+D] {
				coords = append(coords, int(x))
			}
		}
	} else {
		c := make([]int, D)
		for _, v := range nodes {
			c = g.Coord(v, c)
			coords = append(coords, c...)
		}
	}
	m.coord = coords
	return coords
}

// destPrefix fills pd[0..2k] with the exclusive prefix sums of one group's
// destinations (positions pos, counts cnt) on the ring unrolled twice (the second
// copy only when the dimension wraps), mirrored for the negative direction: pd[i] =
// destinations at positions below i.
func destPrefix(pd []int64, pos, cnt []int32, k int, wrap, mirror bool) {
	clear(pd)
	for i, c := range pos {
		y := int(c)
		if mirror {
			y = k - 1 - y
		}
		pd[y+1] += int64(cnt[i])
		if wrap {
			pd[y+k+1] += int64(cnt[i])
		}
	}
	for i := 1; i < len(pd); i++ {
		pd[i] += pd[i-1]
	}
}

// ringLoad returns the sum and the largest of the route counts on the positions of
// the unrolled ring for sources cs and destinations cd (see allToAllTorusLoad).
func (m *RouteMeter) ringLoad(cs, cd []int32, k, h int, wrap bool) (sum, mx int64) {
	if cap(m.pd) < 2*k+1 {
		m.pd = make([]int64, 2*k+1)
	}
	pd := m.pd[:2*k+1]
	pd[0] = 0
	for y := range 2 * k {
		var c int32
		if y < k || wrap {
			c = cd[y%k]
		}
		pd[y+1] = pd[y] + int64(c)
	}
	return m.ringCounts(cs, pd, k, h)
}

// ringPeak returns the largest route count on the positions of the unrolled ring
// (ringCounts' largest) for the sources of one group, at positions pos (ascending)
// with counts cnt, mirrored to k-1-pos for the negative direction, and the
// destinations' prefix sums pd. Position x's count, sum over the sources a in
// [x-h+1, x] of cnt(a) (pd[a+h+1] - pd[x+1]), grows only where a source enters the
// window (x = a): a source leaving it and a destination passed (pd[x+1] growing)
// only lower it. So the largest count is at a source's position, and a sliding
// window over the sources finds it: O(sources) per pair of groups, against O(k) for
// every position.
func ringPeak(pos, cnt []int32, pd []int64, k, h int, mirror bool) int64 {
	at := func(i int) (int, int64) { // the i-th source in ascending (mirrored) order
		if mirror {
			i = len(pos) - 1 - i
			return k - 1 - int(pos[i]), int64(cnt[i])
		}
		return int(pos[i]), int64(cnt[i])
	}
	var best, inS, inF int64 // the window's sources, and their cnt(a) pd[a+h+1]
	lo := 0
	for i := range pos {
		a, c := at(i)
		inS += c
		inF += c * pd[a+h+1]
		for {
			b, cb := at(lo)
			if b > a-h {
				break
			}
			inS -= cb
			inF -= cb * pd[b+h+1]
			lo++
		}
		best = max(best, inF-pd[a+1]*inS)
	}
	return best
}

// ringCounts evaluates position x's count, sum over a in [x-h+1, x] ∩ [0, k) of
// cs(a) (pd[a+h+1] - pd[x+1]), for every x in [0, k-1+h), from prefix sums over a
// of cs(a) and of cs(a) pd[a+h+1].
func (m *RouteMeter) ringCounts(cs []int32, pd []int64, k, h int) (sum, mx int64) {
	if cap(m.ss) < 2*(k+1) {
		m.ss = make([]int64, 2*(k+1))
	}
	ss, f := m.ss[:k+1], m.ss[k+1:2*(k+1)]
	ss[0], f[0] = 0, 0
	for a, c := range cs {
		ss[a+1] = ss[a] + int64(c)
		f[a+1] = f[a] + int64(c)*pd[a+h+1]
	}
	for x := range k - 1 + h {
		lo, hi := max(0, x-h+1), min(x, k-1)
		if lo > hi {
			continue
		}
		c := f[hi+1] - f[lo] - pd[x+1]*(ss[hi+1]-ss[lo])
		sum += c
		mx = max(mx, c)
	}
	return sum, mx
}
