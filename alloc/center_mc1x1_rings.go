package alloc

import (
	"math"
	"slices"
)

// ringSeg is a run of the free nodes of a ring (an L-infinity shell) on a 2D mesh
// that lie on one line, sorted along it: a.sh[lo:hi], on row fix (x ascending)
// when row, else on column fix (y ascending). A dense run has no gaps (its nodes
// are consecutive on the line), so positions in it are read off by subtraction.
type ringSeg struct {
	lo, hi int32
	fix    int32
	row    bool
	dense  bool
}

// chooseLast2D is chooseLast on a 2D mesh, with the same result, in time near
// O(log) per earlier center that splits the undecided nodes instead of O(their
// number). The shell's free nodes lie on four lines (two rows, two columns); on one
// line, sorted along it, the distance from an earlier center p is max(perpendicular
// distance, distance along the line), so the nodes closer than a value are a
// contiguous run around p's foot and the count within a distance is two binary
// searches. The undecided nodes are kept as runs of the four lines: a split takes the
// middle run of each line, keeps at most its two end nodes (or the whole run, when
// the line is at the cut distance itself) and drops the rest.
func (a *mc1x1) chooseLast2D(i, L, m int) []int {
	x := a.x
	co := x.coord
	c := a.fl[i]
	cx, cy := int(co[2*c]), int(co[2*c+1])
	S, segs := a.ringSegs2D(cx, cy, L)
	if m == len(S) {
		return S
	}
	out := a.lastBuf[:0]
	next := a.segBuf[:0]
	need, n := m, len(S)
	al := a.along // al[k]: the coordinate of S[k] along its line
	// span returns the part of seg within distance t of q along its line: S[s:e].
	span := func(g ringSeg, q, t int32) (s, e int32) {
		if g.dense {
			first, n := al[g.lo], g.hi-g.lo
			return g.lo + min(max(q-t-first, 0), n), g.lo + min(max(q+t+1-first, 0), n)
		}
		return lowerBound(al, g.lo, g.hi, q-t), lowerBound(al, g.lo, g.hi, q+t+1)
	}
	box, boxed := [4]int32{}, false
	for j := i - 1; j >= 0 && need > 0 && need < n; j-- {
		if n <= smallRun {
			// Few nodes left undecided: on a list, a pass over them per center
			// is cheaper than the binary searches.
			list := a.tmp[:0]
			list = append(list, out...)
			for _, g := range segs {
				list = append(list, S[g.lo:g.hi]...)
			}
			a.tmp = list
			in, hi, need := a.refineFrom(j, list, len(out), len(list), need, false)
			if need > 0 && need < hi-in {
				g := list[in:hi]
				slices.SortFunc(g, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
			}
			a.lastBuf = out
			a.segBuf, a.segBuf2 = next, segs
			return list[:in+need]
		}
		p := a.fl[j]
		px, py := co[2*p], co[2*p+1]
		if boxed {
			if jj, ok := a.boxSkip(j, px, py, box); ok {
				j = jj
				continue
			}
		}
		// The smallest and largest distance from p over the undecided nodes.
		lo, up := int32(math.MaxInt32), int32(-1)
		for _, g := range segs {
			perp, q := abs32(g.fix-py), px
			if !g.row {
				perp, q = abs32(g.fix-px), py
			}
			first, last := al[g.lo], al[g.hi-1]
			near, far := intervalDist(q, first, last)
			if q > first && q < last {
				// p's foot is inside the run, maybe between two of its nodes
				s, _ := span(g, q, 0)
				near = min(q-al[s-1], al[s]-q)
			}
			lo, up = min(lo, max(perp, near)), max(up, max(perp, far))
		}
		if lo == up {
			if !boxed {
				box, boxed = [4]int32{math.MaxInt32, -1, math.MaxInt32, -1}, true
				for _, g := range segs {
					for _, k := range [2]int32{g.lo, g.hi - 1} {
						v := S[k]
						vx, vy := co[2*v], co[2*v+1]
						box = [4]int32{min(box[0], vx), max(box[1], vx), min(box[2], vy), max(box[3], vy)}
					}
				}
			}
			continue
		}
		boxed = false
		// count(t): undecided nodes within distance t of p.
		count := func(t int32) int {
			cnt := 0
			for _, g := range segs {
				perp, q := abs32(g.fix-py), px
				if !g.row {
					perp, q = abs32(g.fix-px), py
				}
				if perp > t {
					continue
				}
				s, e := span(g, q, t)
				cnt += int(e - s)
			}
			return cnt
		}
		// Cut value: the need-th smallest distance (count(cut) >= need > count(cut-1)).
		l, h := lo, up // count(h) = n >= need
		for l < h {
			mid := l + (h-l)/2
			if count(mid) >= need {
				h = mid
			} else {
				l = mid + 1
			}
		}
		cut := l
		less, eq := 0, 0
		next = next[:0]
		for _, g := range segs {
			perp, q := abs32(g.fix-py), px
			if !g.row {
				perp, q = abs32(g.fix-px), py
			}
			switch {
			case perp > cut: // every node beyond the cut
			case perp == cut: // the nodes within cut along the line are at cut
				if s, e := span(g, q, cut); e > s {
					next = append(next, ringSeg{lo: s, hi: e, fix: g.fix, row: g.row, dense: g.dense})
					eq += int(e - s)
				}
			default: // closer than cut in the middle, at cut at its two ends
				s, e := span(g, q, cut-1)
				out = append(out, S[s:e]...)
				less += int(e - s)
				if s > g.lo && al[s-1] == q-cut {
					next = append(next, ringSeg{lo: s - 1, hi: s, fix: g.fix, row: g.row, dense: true})
					eq++
				}
				if e < g.hi && al[e] == q+cut {
					next = append(next, ringSeg{lo: e, hi: e + 1, fix: g.fix, row: g.row, dense: true})
					eq++
				}
			}
		}
		segs, next = next, segs
		need -= less
		n = eq
	}
	if need > 0 {
		rest := a.tmp[:0]
		for _, g := range segs {
			rest = append(rest, S[g.lo:g.hi]...)
		}
		if need < n {
			slices.SortFunc(rest, func(p, q int) int { return int(a.pos[p] - a.pos[q]) })
		}
		out = append(out, rest[:need]...)
		a.tmp = rest
	}
	a.lastBuf = out
	a.segBuf, a.segBuf2 = next, segs
	return out
}

// smallRun is the number of undecided nodes below which chooseLast2D hands them
// to refineFrom.
const smallRun = 6

// lowerBound returns the first k in [lo, hi) with v[k] >= x (hi if none); v is
// sorted there.
func lowerBound(v []int32, lo, hi, x int32) int32 {
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		if v[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// ringSegs2D lists the free nodes at L-infinity distance exactly r from (cx, cy) on a
// 2D mesh into a.sh, as up to four runs, each sorted along its line: the rows
// cy-r and cy+r (corners included), the columns cx-r and cx+r.
func (a *mc1x1) ringSegs2D(cx, cy, r int) ([]int, []ringSeg) {
	X, Y := a.x.dims[0], a.x.dims[1]
	S := a.sh[:0]
	al := a.along[:0]
	segs := a.segBuf2[:0]
	if r == 0 {
		if v := cx + cy*X; a.st.IsFree(v) {
			S = append(S, v)
			al = append(al, int32(cx))
			segs = append(segs, ringSeg{lo: 0, hi: 1, fix: int32(cy), row: true, dense: true})
		}
		a.sh, a.along, a.segBuf2 = S, al, segs
		return S, segs
	}
	x0, x1 := max(0, cx-r), min(X-1, cx+r)
	for _, yy := range [2]int{cy - r, cy + r} {
		if yy < 0 || yy >= Y {
			continue
		}
		lo := len(S)
		// a row is a range of node indices: read the free map's words
		base := yy * X
		S = a.st.appendFreeIn(S, base+x0, base+x1)
		for _, v := range S[lo:] {
			al = append(al, int32(v-base))
		}
		if len(S) > lo {
			segs = append(segs, ringSeg{lo: int32(lo), hi: int32(len(S)), fix: int32(yy), row: true, dense: int(al[len(al)-1]-al[lo]) == len(S)-1-lo})
		}
	}
	y0, y1 := max(0, cy-r+1), min(Y-1, cy+r-1)
	for _, xx := range [2]int{cx - r, cx + r} {
		if xx < 0 || xx >= X {
			continue
		}
		lo := len(S)
		for yy := y0; yy <= y1; yy++ {
			if v := xx + yy*X; a.st.IsFree(v) {
				S = append(S, v)
				al = append(al, int32(yy))
			}
		}
		if len(S) > lo {
			segs = append(segs, ringSeg{lo: int32(lo), hi: int32(len(S)), fix: int32(xx), row: false, dense: int(al[len(al)-1]-al[lo]) == len(S)-1-lo})
		}
	}
	a.sh, a.along, a.segBuf2 = S, al, segs
	return S, segs
}
