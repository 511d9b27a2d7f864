package curves

import (
	"github.com/procalloc/procalloc/topo"
)

func init() {
	mustRegister(Curve{
		Name:    "gilbert",
		Summary: "generalized Hilbert curve on any 1D/2D rectangle; every step one hop (see docs for the orientation rule)",
		Applies: func(m topo.Machine) error { _, err := grid2D(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Gilbert(g)
		},
	})
}

// Gilbert returns a generalized Hilbert curve of a 1D or 2D grid of any size: the
// rectangle is split recursively like the Hilbert curve, halves rounded so that every
// sub-rectangle keeps a parity that admits a one-hop path between its entry and exit
// corners, and elongated rectangles are first cut into two along their long side.
//
// The curve runs from (0,0) to the far end of one side, the "major" side: the longer
// side, unless the longer side is odd and the shorter even, in which case the path
// along the longer side is impossible (both end cells have the same colour in the
// checkerboard, but the node count is even) and the even side is taken instead. With
// this rule every step is one hop on every rectangle (tested exhaustively up to
// 64 x 64). On power-of-two squares the curve is the Hilbert curve (HilbertXY2D).
func Gilbert(g *topo.Grid) (Order, error) {
	if _, err := grid2D(g); err != nil {
		return nil, err
	}
	w, h := dims2(g)
	o := make(Order, g.N())
	gw := gilbertWalker{out: o, stride: w}
	if gilbertAlongX(w, h) {
		gw.walk(0, 0, w, 0, 0, h)
	} else {
		gw.walk(0, 0, 0, h, w, 0)
	}
	return o, nil
}

// gilbertAlongX reports whether the curve on a w x h rectangle runs from (0,0) to
// (w-1,0) (major side x) rather than to (0,h-1).
func gilbertAlongX(w, h int) bool {
	if w >= h {
		return w%2 == 0 || h%2 == 1
	}
	// h is the longer side: take it unless it is odd and w even.
	return h%2 == 1 && w%2 == 0
}

type gilbertWalker struct {
	out    Order
	pos    int
	stride int
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func iabs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// line emits n cells in a straight line from cell p, step apart.
func (gw *gilbertWalker) line(p, step, n int) {
	out := gw.out[gw.pos : gw.pos+n]
	for i := range out {
		out[i] = p
		p += step
	}
	gw.pos += n
}

// walk emits the rectangle with start cell (x, y), major axis vector (ax, ay) (its
// length is the side the curve runs along, from the start to the exit corner) and minor
// axis vector (bx, by). Exactly one component of each vector is non-zero.
func (gw *gilbertWalker) walk(x, y, ax, ay, bx, by int) {
	w := iabs(ax + ay)
	h := iabs(bx + by)
	dax, day := sign(ax), sign(ay)
	dbx, dby := sign(bx), sign(by)
	p := x + y*gw.stride
	if h == 1 {
		// A single row along the major axis.
		gw.line(p, dax+day*gw.stride, w)
		return
	}
	if w == 1 {
		// A single column along the minor axis.
		gw.line(p, dbx+dby*gw.stride, h)
		return
	}
	if w == 2 && h == 2 {
		// What the general case below does on a 2 x 2 block, without the calls.
		da, db := dax+day*gw.stride, dbx+dby*gw.stride
		out := gw.out[gw.pos : gw.pos+4]
		out[0], out[1], out[2], out[3] = p, p+db, p+db+da, p+da
		gw.pos += 4
		return
	}
	ax2, ay2 := ax/2, ay/2
	bx2, by2 := bx/2, by/2
	w2 := iabs(ax2 + ay2)
	h2 := iabs(bx2 + by2)
	if 2*w > 3*h {
		// Long rectangle: cut it into two along the major axis; the first half must
		// have an even length so that its path can end next to the second's start.
		if w2%2 == 1 && w > 2 {
			ax2 += dax
			ay2 += day
		}
		gw.walk(x, y, ax2, ay2, bx, by)
		gw.walk(x+ax2, y+ay2, ax-ax2, ay-ay2, bx, by)
		return
	}
	// Hilbert split: up the minor axis (transposed), across, and back down.
	if h2%2 == 1 && h > 2 {
		bx2 += dbx
		by2 += dby
	}
	gw.walk(x, y, bx2, by2, ax2, ay2)
	gw.walk(x+bx2, y+by2, ax, ay, bx-bx2, by-by2)
	gw.walk(x+(ax-dax)+(bx2-dbx), y+(ay-day)+(by2-dby), -bx2, -by2, -(ax - ax2), -(ay - ay2))
}
