package alloc

import (
	"math/bits"
)

type shellCount struct{ free, freeWall, all int }

// shellScore returns, for center c, the sum of the L-infinity distances of the k
// nearest free nodes, the radius L of the outermost shell used, and how many nodes m
// of that shell are taken. It gives up (ok false) as soon as the score must exceed
// bound.
func (a *mc1x1) shellScore(c, k, bound int) (score, L, m int, ok bool) {
	// c itself is free: the ball of radius 0 holds one node.
	if k == 1 {
		return 0, 0, 1, true
	}
	if k-1 > bound {
		return 0, 0, 0, false
	}
	x := a.x
	if x.pyrW > 0 {
		return a.shellScorePyramid(c, k, bound)
	}
	acc, prev := 0, 1
	plane := x.d == 2 && !x.anyWrap // a mesh: the count is read inline
	var cx, cy, X1, Y1, sx int
	if plane {
		cx, cy = int(x.coord[2*c]), int(x.coord[2*c+1])
		X1, Y1, sx = x.dims[0]-1, x.dims[1]-1, x.pstride[1]
	}
	for r := 1; ; r++ {
		var cnt int
		if plane {
			x0, x1 := max(cx-r, 0), min(cx+r, X1)+1
			y0, y1 := max(cy-r, 0)*sx, (min(cy+r, Y1)+1)*sx
			cnt = int(x.free[x1+y1] - x.free[x0+y1] - x.free[x1+y0] + x.free[x0+y0])
		} else {
			cnt = x.freeInBall(c, r)
		}
		if cnt >= k {
			m = k - prev
			return acc + r*m, r, m, true
		}
		acc += r * (cnt - prev)
		prev = cnt
		if acc+(r+1)*(k-prev) > bound {
			return 0, 0, 0, false
		}
	}
}

// shells fills a.ball[0..R] with the cumulative counts of the balls around c; on a
// 2D mesh the free wall nodes only up to radius wallR (zero beyond); on a machine
// without wall nodes the balls inside wallR-1 are left zero.
func (a *mc1x1) shells(c, R, wallR int) {
	a.ball = a.ball[:0]
	if x := a.x; x.d == 2 && !x.anyWrap {
		// c is free
		a.ball = append(a.ball, shellCount{free: 1, all: 1})
		if x.wall[c] {
			a.ball[0].freeWall = 1
		}
		cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
		X, Y, sx := x.dims[0], x.dims[1], x.pstride[1]
		fr, fw := x.free, x.freeW
		for r := 1; r <= R; r++ {
			x0, x1 := max(cx-r, 0), min(cx+r, X-1)+1
			r0, r1 := max(cy-r, 0), min(cy+r, Y-1)+1
			y0, y1 := r0*sx, r1*sx
			s := shellCount{
				free: int(fr[x1+y1] - fr[x0+y1] - fr[x1+y0] + fr[x0+y0]),
				all:  (x1 - x0) * (r1 - r0),
			}
			if r <= wallR {
				s.freeWall = int(fw[x1+y1] - fw[x0+y1] - fw[x1+y0] + fw[x0+y0])
			}
			a.ball = append(a.ball, s)
		}
		return
	}
	if x := a.x; !x.anyWall {
		// When the ball of radius R is all free, so is every smaller one: the
		// counts are the balls' sizes, without counting (a young free set,
		// where many centers tie).
		if f, _, all := x.ball(c, R); f == all {
			for r := 0; r <= R; r++ {
				_, _, all := x.ballSize(c, r)
				if r < wallR-1 {
					all = 0 // as below: not read
				}
				a.ball = append(a.ball, shellCount{free: all, all: all})
			}
			return
		}
	}
	for r := 0; r <= R; r++ {
		if !a.x.anyWall && r < wallR-1 {
			// No wall nodes (a torus): the tie score reads the shells inside
			// wallR-1 for their wall nodes only, all zero; left out.
			a.ball = append(a.ball, shellCount{})
			continue
		}
		f, fw, all := a.x.ball(c, r)
		a.ball = append(a.ball, shellCount{f, fw, all})
	}
}

// tieScore is Johnson et al. 2010 §II's tie-breaking score of the candidate centered
// on a.fl[i], as PReMAS computes it (reference-simulators.md): with lastlook = L+SR
// and weight(d) = lastlook-d+1, + AF*weight for each free node not taken with
// d <= lastlook, - WF*weight for each taken node on the mesh boundary, - BF*weight
// for each busy node at d = L+1. wallLast is how many of the m nodes taken from shell L
// lie on the wall, or -1 to work it out here.
func (a *mc1x1) tieScore(i, L, m, wallLast int) float64 {
	tb := a.tb
	if tb.SR == 0 {
		return 0
	}
	c := a.fl[i]
	look := L + tb.SR
	a.shells(c, look, L) // the wall counts are read up to shell L
	shell := func(d int) shellCount {
		s := a.ball[d]
		if d > 0 {
			p := a.ball[d-1]
			s.free -= p.free
			s.freeWall -= p.freeWall
			s.all -= p.all
		}
		return s
	}
	// The terms are integers (weights times counts), summed exactly as ints;
	// tieValue makes the one floating-point step (tieBounds bounds it).
	w := func(d int) int { return look - d + 1 }
	avail, wall := 0, 0
	for d := 0; d < L; d++ {
		wall += w(d) * shell(d).freeWall
	}
	last := shell(L)
	avail -= w(L) * m
	for d := L; d <= look; d++ {
		avail += w(d) * shell(d).free
	}
	switch {
	case wallLast >= 0:
	case m == last.free || last.freeWall == 0:
		wallLast = last.freeWall
	case last.freeWall == last.free:
		wallLast = m
	default:
		if masks, _ := a.x.ballMasks(); masks != nil {
			wallLast = 0
			for w, b := range a.lastBits(i, L, m) {
				wallLast += bits.OnesCount64(b & a.x.wallBits[w])
			}
		} else {
			wallLast = a.wallInLast(i, L, m)
		}
	}
	wall += w(L) * wallLast
	b := shell(L + 1)
	border := w(L+1) * (b.all - b.free)
	return tb.tieValue(avail, wall, border)
}

// tieValue is Johnson's tie score from its three integer terms: AF*avail - WF*wall
// - BF*border. Every tie score is computed here, from exact integers, so a tie
// score and a bound on it (tieBounds: each factor's term at its own worst end; each
// floating-point step is monotone in its operands) are rounded alike.
func (t TieBreak) tieValue(avail, wall, border int) float64 {
	return t.AF*float64(avail) - t.WF*float64(wall) - t.BF*float64(border)
}

// shellScorePyramid is shellScore on a 2D mesh, with the same results, in time
// independent of the radius: the score of the k nearest free nodes with outermost
// shell L is sum over r < L of (k - free nodes within r) = L*k - ballSums(c, L-1),
// and L, the first radius whose ball holds k free nodes, is found from the previous
// center's (free-list neighbours are usually mesh neighbours, whose L differs by at
// most one).
func (a *mc1x1) shellScorePyramid(c, k, bound int) (score, L, m int, ok bool) {
	x := a.x
	cx, cy := int(x.coord[2*c]), int(x.coord[2*c+1])
	X1, Y1, sx := x.dims[0]-1, x.dims[1]-1, x.pstride[1]
	cnt := func(r int) int {
		x0, x1 := max(cx-r, 0), min(cx+r, X1)+1
		y0, y1 := max(cy-r, 0)*sx, (min(cy+r, Y1)+1)*sx
		return int(x.free[x1+y1] - x.free[x0+y1] - x.free[x1+y0] + x.free[x0+y0])
	}
	L = min(max(a.hintL, 1), x.maxLinf)
	inner := 0 // cnt(L-1), kept from the walk to L
	if n := cnt(L); n >= k {
		for {
			if L == 1 {
				inner = 1 // c itself
				break
			}
			if inner = cnt(L - 1); inner < k {
				break
			}
			L--
		}
	} else {
		for inner = n; ; inner = n {
			L++
			if n = cnt(L); n >= k {
				break
			}
		}
	}
	a.hintL = L
	m = k - inner
	score = L*k - x.ballSums(c, L-1)
	if score > bound {
		return 0, 0, 0, false
	}
	return score, L, m, true
}
