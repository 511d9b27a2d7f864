package netsim

import (
	"cmp"
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
// destination counts: two prefix sums per source group and destination group give
// every link in O(k) (the negative direction is the same on the mirrored ring).
// Unlike on a mesh the count is not a product of a source and a destination
// factor, so every pair of groups that the job's nodes occupy is counted: O(p d +
// G_s G_t k) per dimension, G_s x G_t at most the lines of the dimension (one of
// the two is a single group on the first and the last dimension; a pair whose
// bound, the most sources of one within h positions times the most destinations of
// the other within h, is no more than the largest count found is skipped). The
// counts equal
// the trace's (TestAllToAllTorusLoadMatchesTrace).
func (m *RouteMeter) allToAllTorusLoad(nodes []int) RouteLoad {
	p := int64(len(nodes))
	var l RouteLoad
	if p < 2 {
		return l
	}
	l.Messages = p * (p - 1)
	g := m.grid
	dims := g.Dims()
	D := len(dims)
	coords := m.jobCoords(nodes)
	for j, k := range dims {
		lo, hi := coords[j], coords[j]
		for i := range nodes {
			lo, hi = min(lo, coords[i*D+j]), max(hi, coords[i*D+j])
		}
		if lo == hi {
			continue // no link of dimension j is crossed
		}
		hp, hn := m.torus.hPos[j], m.torus.hNeg[j]
		wrap := g.Wrap()[j]
		// Sources grouped by their coordinates after j, destinations by those before.
		sIDs, gs := m.groupIDs(&m.ids, nodes, j+1, D)
		tIDs, gt := m.groupIDs(&m.ids2, nodes, 0, j)
		hs := zeros(&m.histA, gs*k)
		ht := zeros(&m.histB, gt*k)
		all := zeros(&m.histC, 2*k) // all nodes: forward, then mirrored
		for i := range nodes {
			c := coords[i*D+j]
			hs[int(sIDs[i])*k+c]++
			ht[int(tIDs[i])*k+c]++
			all[c]++
			all[k+k-1-c]++
		}
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
			// The destination groups' cumulative counts, each once; then every pair
			// whose bound exceeds the largest count so far, largest bounds first. A
			// position's routes start within h of it and end within h beyond it, so
			// a pair's count is at most the most sources of its group within h
			// positions times the most destinations of the other within h.
			pds := m.destPrefix(ht, gt, k, wrap, dir == 1)
			m.sizeS = windowMax(m.sizeS[:0], hs, gs, k, h, false)
			m.sizeT = windowMax(m.sizeT[:0], ht, gt, k, h, wrap)
			m.ordS, m.ordT = bySize(m.ordS, m.sizeS), bySize(m.ordT, m.sizeT)
			for _, s := range m.ordS {
				ns := int64(m.sizeS[s])
				if ns*int64(m.sizeT[m.ordT[0]]) <= l.MaxShared {
					break
				}
				cs = m.sourceRow(hs[int(s)*k:int(s+1)*k], dir == 1)
				for _, t := range m.ordT {
					if ns*int64(m.sizeT[t]) <= l.MaxShared {
						break
					}
					mx := m.ringMax(cs, pds[int(t)*(2*k+1):int(t+1)*(2*k+1)], k, h)
					l.MaxShared = max(l.MaxShared, mx)
				}
			}
		}
	}
	return l
}

// windowMax appends, for each of the groups' rows of k counts, the largest sum of
// h consecutive counts (round the ring when circular); a window and its mirror
// image have the same sums, so one value serves both directions.
func windowMax(dst []int32, rows []int32, groups, k, h int, circular bool) []int32 {
	for g := range groups {
		row := rows[g*k : (g+1)*k]
		var sum, best int32
		span := k
		if circular {
			span = k + h - 1
		}
		for y := range span {
			sum += row[y%k]
			if y >= h {
				sum -= row[(y-h)%k]
			}
			best = max(best, sum)
		}
		dst = append(dst, best)
	}
	return dst
}

// bySize returns the groups 0..len(size)-1 in order of decreasing size (then index).
func bySize(ord, size []int32) []int32 {
	ord = ord[:0]
	for g := range size {
		ord = append(ord, int32(g))
	}
	slices.SortFunc(ord, func(a, b int32) int { return cmp.Or(cmp.Compare(size[b], size[a]), cmp.Compare(a, b)) })
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

// sourceRow returns a source group's counts along the ring, mirrored for the
// negative direction.
func (m *RouteMeter) sourceRow(row []int32, mirror bool) []int32 {
	if !mirror {
		return row
	}
	k := len(row)
	out := zeros(&m.histD, k)
	for c, x := range row {
		out[k-1-c] = x
	}
	return out
}

// destPrefix returns, per destination group t, the exclusive prefix sums PD[0..2k]
// of its counts on the ring unrolled twice (the second copy only when the dimension
// wraps), mirrored for the negative direction: PD[i] = destinations at positions
// below i.
func (m *RouteMeter) destPrefix(ht []int32, gt, k int, wrap, mirror bool) []int64 {
	w := 2*k + 1
	if cap(m.pd) < gt*w {
		m.pd = make([]int64, gt*w)
	}
	pd := m.pd[:gt*w]
	for t := range gt {
		row, out := ht[t*k:(t+1)*k], pd[t*w:(t+1)*w]
		out[0] = 0
		for y := range 2 * k {
			var c int32
			if y < k || wrap {
				c = row[y%k]
				if mirror {
					c = row[k-1-y%k]
				}
			}
			out[y+1] = out[y] + int64(c)
		}
	}
	return pd
}

// ringLoad returns the sum and the largest of the route counts on the positions of
// the unrolled ring for sources cs and destinations cd (see allToAllTorusLoad).
func (m *RouteMeter) ringLoad(cs, cd []int32, k, h int, wrap bool) (sum, mx int64) {
	pd := m.destPrefix(cd, 1, k, wrap, false)
	// destPrefix reuses m.pd: copy before ringMax-like use is not needed, it reads
	// pd only.
	return m.ringCounts(cs, pd, k, h)
}

// ringMax returns the largest route count on the positions of the unrolled ring
// for sources cs and the destinations' prefix sums pd.
func (m *RouteMeter) ringMax(cs []int32, pd []int64, k, h int) int64 {
	_, mx := m.ringCounts(cs, pd, k, h)
	return mx
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
