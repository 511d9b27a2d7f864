package curves

import (
	"fmt"
	"math/bits"

	"github.com/procalloc/procalloc/topo"
)

func init() {
	mustRegister(Curve{
		Name:    "hilbert",
		Summary: "Hilbert curve on a power-of-two square, the published xy2d indexing: rank 0 at (0,0), last at (n-1,0)",
		Applies: func(m topo.Machine) error { _, err := powerOfTwoSquare(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Hilbert(g)
		},
	})
	mustRegister(Curve{
		Name:    "hilbert-trunc",
		Summary: "Hilbert curve of the enclosing power-of-two square, cut to a 1D/2D grid (the papers' method; jumps where cut)",
		Applies: func(m topo.Machine) error { _, err := grid2D(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return HilbertTrunc(g)
		},
	})
}

// HilbertXY2D returns the rank of cell (x, y) on the Hilbert curve of an n x n square,
// n a power of two: the common xy2d indexing of the published runs
// (reference-simulators.md), rank 0 at (0,0) and rank n*n-1 at (n-1,0). At each level
// from the top, the quadrant order is (0,0), (0,1), (1,1), (1,0); the lower-left
// quadrant is transposed and the lower-right one reflected about its anti-diagonal.
func HilbertXY2D(n, x, y int) int {
	d := 0
	for s := n / 2; s > 0; s /= 2 {
		rx, ry := 0, 0
		if x&s != 0 {
			rx = 1
		}
		if y&s != 0 {
			ry = 1
		}
		d += s * s * ((3 * rx) ^ ry)
		if ry == 0 {
			if rx == 1 {
				x = s - 1 - x&(s-1)
				y = s - 1 - y&(s-1)
			}
			x, y = y, x
		}
		x &= s - 1
		y &= s - 1
	}
	return d
}

// grid2D returns m as a grid of one or two dimensions.
func grid2D(m topo.Machine) (*topo.Grid, error) {
	g, err := gridOf(m)
	if err != nil {
		return nil, err
	}
	if g.Dim() > 2 {
		return nil, fmt.Errorf("needs a 1D or 2D grid, not %d dimensions", g.Dim())
	}
	return g, nil
}

// dims2 returns the sizes of a 1D or 2D grid as (X, Y).
func dims2(g *topo.Grid) (int, int) {
	d := g.Dims()
	if len(d) == 1 {
		return d[0], 1
	}
	return d[0], d[1]
}

func powerOfTwoSquare(m topo.Machine) (*topo.Grid, error) {
	g, err := gridOf(m)
	if err != nil {
		return nil, err
	}
	d := g.Dims()
	if len(d) != 2 || d[0] != d[1] || d[0]&(d[0]-1) != 0 {
		return nil, fmt.Errorf("needs a 2D n x n grid with n a power of two (hilbert-trunc and gilbert take any rectangle)")
	}
	return g, nil
}

// Hilbert returns the Hilbert curve of a power-of-two square grid in the published
// xy2d indexing (HilbertXY2D), generated recursively in O(1) per node.
func Hilbert(g *topo.Grid) (Order, error) {
	if _, err := powerOfTwoSquare(g); err != nil {
		return nil, err
	}
	n := g.Dims()[0]
	o := make(Order, n*n)
	hw := hilbertWalker{out: o, stride: n}
	hw.fast(0, 1, n, n)
	return o, nil
}

// HilbertTrunc returns the Hilbert curve of the smallest power-of-two square that
// contains the 1D or 2D grid, keeping only the grid's nodes in curve order (the method
// of Leung et al. 2002 for non-square machines). Where the curve leaves the grid and
// re-enters, consecutive nodes may be several hops apart. On a power-of-two square it
// equals Hilbert.
func HilbertTrunc(g *topo.Grid) (Order, error) {
	x, y, side, err := enclosingSquare(g)
	if err != nil {
		return nil, err
	}
	o := make(Order, g.N())
	hw := hilbertWalker{out: o, stride: x, w: x, h: y}
	hw.clipped(0, 0, 1, 0, 0, 1, side)
	if hw.pos != len(o) {
		return nil, fmt.Errorf("internal error: truncated Hilbert curve visited %d of %d nodes", hw.pos, len(o))
	}
	return o, nil
}

// hilbertWalker emits the Hilbert curve of a square given by its start cell and two
// unit axis vectors: a points from the start corner to the end corner, b to the other
// side. The four children, each half the side, are
//
//	start,                      a' = b,  b' = a   (transposed)
//	start + b*h,                a' = a,  b' = b
//	start + b*h + a*h,          a' = a,  b' = b
//	start + a*(2h-1) + b*(h-1), a' = -b, b' = -a  (reflected)
//
// which reproduces HilbertXY2D when started at (0,0) with a = +x, b = +y.
type hilbertWalker struct {
	out    Order
	pos    int
	stride int // nodes per row
	w, h   int // grid size, for clipping
}

// fast emits a square lying entirely inside the grid; p is the start node index and
// a, b are the axis vectors as index offsets.
func (hw *hilbertWalker) fast(p, a, b, side int) {
	if side == 2 {
		o := hw.out[hw.pos : hw.pos+4]
		o[0] = p
		o[1] = p + b
		o[2] = p + a + b
		o[3] = p + a
		hw.pos += 4
		return
	}
	if side == 1 {
		hw.out[hw.pos] = p
		hw.pos++
		return
	}
	h := side / 2
	hw.fast(p, b, a, h)
	hw.fast(p+b*h, a, b, h)
	hw.fast(p+b*h+a*h, a, b, h)
	hw.fast(p+a*(side-1)+b*(h-1), -b, -a, h)
}

// clipped emits the part of a square inside the grid; (px, py) is the start cell and
// (ax, ay), (bx, by) the axis vectors.
func (hw *hilbertWalker) clipped(px, py, ax, ay, bx, by, side int) {
	// Bounding box of the square.
	ex, ey := px+(ax+bx)*(side-1), py+(ay+by)*(side-1)
	x0, x1 := min(px, ex), max(px, ex)
	y0, y1 := min(py, ey), max(py, ey)
	if x0 >= hw.w || y0 >= hw.h || x1 < 0 || y1 < 0 {
		return
	}
	if x1 < hw.w && y1 < hw.h {
		hw.fast(px+py*hw.stride, ax+ay*hw.stride, bx+by*hw.stride, side)
		return
	}
	h := side / 2
	hw.clipped(px, py, bx, by, ax, ay, h)
	hw.clipped(px+bx*h, py+by*h, ax, ay, bx, by, h)
	hw.clipped(px+bx*h+ax*h, py+by*h+ay*h, ax, ay, bx, by, h)
	hw.clipped(px+ax*(side-1)+bx*(h-1), py+ay*(side-1)+by*(h-1), -bx, -by, -ax, -ay, h)
}

// enclosingSquare returns the sides of the 1D or 2D grid g and the side of the
// smallest power-of-two square that contains it (the truncated curves' square).
func enclosingSquare(g *topo.Grid) (x, y, side int, err error) {
	if _, err := grid2D(g); err != nil {
		return 0, 0, 0, err
	}
	x, y = dims2(g)
	side = 1
	if m := max(x, y); m > 1 {
		side = 1 << bits.Len(uint(m-1))
	}
	return x, y, side, nil
}
