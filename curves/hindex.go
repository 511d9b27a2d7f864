package curves

import (
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

func init() {
	mustRegister(Curve{
		Name:    "hindex",
		Summary: "H-index (Niedermeier-Reinhardt-Sanders) on a power-of-two square: closed, last node next to the first",
		Applies: func(m topo.Machine) error { _, err := powerOfTwoSquare(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return HIndex(g)
		},
	})
	mustRegister(Curve{
		Name:    "hindex-trunc",
		Summary: "H-index of the enclosing power-of-two square, cut to a 1D/2D grid (Bunde et al. 2004 Fig. 6; jumps where cut)",
		Applies: func(m topo.Machine) error { _, err := grid2D(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return HIndexTrunc(g)
		},
	})
	mustRegister(Curve{
		Name:    "morton",
		Summary: "Z-order (bit interleaving, x lowest) on any grid; cut to the grid when sides are not powers of two",
		Applies: func(m topo.Machine) error { _, err := gridOf(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Morton(g), nil
		},
	})
}

// HIndex returns the H-index of a power-of-two square grid (Niedermeier, Reinhardt and
// Sanders, "Towards optimal locality in mesh-indexings", cited by Leung et al. 2002
// §2.1): a closed curve made of self-similar right triangles of cells.
//
// The triangle T(s) of an s x s square is the cells above the diagonal plus the
// diagonal cells with even x: {(x,y): x < y} ∪ {(x,x): x even}, s*s/2 cells, walked from
// (0,0) to (s-2,s-1). T(2) is (0,0), (0,1). T(s) is four copies of T(s/2), placed on
// the four half-size triangles of its Sierpinski subdivision (right-angle vertex R,
// acute vertices A1, A2 as lattice points, h = s/2):
//
//	1: R (0,h), (0,0) -> (h,h), forward      2: R (0,h), (0,s) -> (h,h), reversed
//	3: R (h,s), (h,h) -> (0,s), reversed     4: R (h,s), (h,h) -> (s,s), forward
//
// where "P -> Q" says which acute vertex the copy's (0,0) and (h,h) corners map to.
// (These four choices are the only ones, among all placements of the copies, that
// give a continuous walk with these end points at every size; a test checks the
// properties.) The square is T(n) followed by T(n) turned by 180 degrees, so every
// step, including the one from the last node (1,0) back to the first (0,0), is one hop.
func HIndex(g *topo.Grid) (Order, error) {
	if _, err := powerOfTwoSquare(g); err != nil {
		return nil, err
	}
	n := g.Dims()[0]
	if n == 1 {
		return Order{0}, nil
	}
	return hindexClipped(n, n, n), nil
}

// hindexClipped walks the H-index of the side x side square (a power of two, at
// least 2) and returns the cells inside the w x h grid at its lower left corner, in
// curve order, as indices x + y w. Triangles wholly outside the grid are skipped
// unvisited, so the work is O(w h + side): a 1 x 20,000 mesh no longer builds the
// 32,768 x 32,768 square (8 GB).
func hindexClipped(side, w, h int) Order {
	hw := hindexWalker{out: make(Order, 0, w*h), w: w, h: h}
	hw.tri(affine{a: 1, d: 1}, false, side)
	hw.tri(affine{a: -1, d: -1, tx: side, ty: side}, false, side)
	return hw.out
}

// affine is the lattice map p -> (a x + b y + tx, c x + d y + ty), a signed permutation
// plus a translation.
type affine struct{ a, b, c, d, tx, ty int }

// then returns f∘g (first g, then f).
func (f affine) then(g affine) affine {
	return affine{
		a: f.a*g.a + f.b*g.c, b: f.a*g.b + f.b*g.d,
		c: f.c*g.a + f.d*g.c, d: f.c*g.b + f.d*g.d,
		tx: f.a*g.tx + f.b*g.ty + f.tx, ty: f.c*g.tx + f.d*g.ty + f.ty,
	}
}

// cell maps the unit cell with lower-left corner (x, y) and returns the image cell's
// lower-left corner (computed through the doubled cell centre).
func (f affine) cell(x, y int) (int, int) {
	cx, cy := 2*x+1, 2*y+1
	return (f.a*cx + f.b*cy + 2*f.tx - 1) / 2, (f.c*cx + f.d*cy + 2*f.ty - 1) / 2
}

// triangleMap returns the map taking T(h)'s vertices (0,0), (0,h), (h,h) to p, r, q.
func triangleMap(h, px, py, rx, ry, qx, qy int) affine {
	return affine{a: (qx - rx) / h, b: (rx - px) / h, c: (qy - ry) / h, d: (ry - py) / h, tx: px, ty: py}
}

type hindexWalker struct {
	out  Order
	w, h int // the grid the cells are kept in
}

// emit keeps cell (x, y) when it is inside the grid.
func (hw *hindexWalker) emit(x, y int) {
	if x < hw.w && y < hw.h && x >= 0 && y >= 0 {
		hw.out = append(hw.out, x+y*hw.w)
	}
}

// tri emits the image of T(s) under f, walked backwards when rev; nothing when the
// image of T(s)'s s x s square misses the grid.
func (hw *hindexWalker) tri(f affine, rev bool, s int) {
	ax, ay := f.cell(0, 0)
	bx, by := f.cell(s-1, s-1)
	cx, cy := f.cell(s-1, 0)
	dx, dy := f.cell(0, s-1)
	if min(ax, bx, cx, dx) >= hw.w || min(ay, by, cy, dy) >= hw.h || max(ax, bx, cx, dx) < 0 || max(ay, by, cy, dy) < 0 {
		return
	}
	if s == 2 {
		x0, y0 := f.cell(0, 0)
		x1, y1 := f.cell(0, 1)
		if rev {
			x0, y0, x1, y1 = x1, y1, x0, y0
		}
		hw.emit(x0, y0)
		hw.emit(x1, y1)
		return
	}
	h := s / 2
	kids := [4]struct {
		g   affine
		rev bool
	}{
		{triangleMap(h, 0, 0, 0, h, h, h), false},
		{triangleMap(h, 0, s, 0, h, h, h), true},
		{triangleMap(h, h, h, h, s, 0, s), true},
		{triangleMap(h, h, h, h, s, s, s), false},
	}
	for i := range 4 {
		k := i
		if rev {
			k = 3 - i
		}
		hw.tri(f.then(kids[k].g), rev != kids[k].rev, h)
	}
}

// Morton returns the Z-order of a grid of any dimension: nodes sorted by the bit
// interleaving of their coordinates, bit 0 of x lowest, then bit 0 of y, ...; a
// dimension whose bits are used up drops out of the interleaving (the same order as
// padding with zeros). On a grid whose sides are not powers of two this is the Z-order
// of the enclosing power-of-two box cut to the grid.
func Morton(g *topo.Grid) Order {
	dims := g.Dims()
	nb := make([]int, len(dims))
	for j, d := range dims {
		nb[j] = bits.Len(uint(d - 1))
	}
	n := g.N()
	keys := make([]uint64, n)
	c := make([]int, len(dims))
	for i := 0; i < n; i++ {
		c = g.Coord(i, c)
		var key uint64
		pos := 0
		for b := 0; ; b++ {
			any := false
			for j := range dims {
				if b < nb[j] {
					any = true
					key |= uint64((c[j]>>b)&1) << pos
					pos++
				}
			}
			if !any {
				break
			}
		}
		keys[i] = key
	}
	o := RowMajor(n)
	slices.SortFunc(o, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	return o
}

// nextPow2 returns the smallest power of two >= v (v >= 1).
func nextPow2(v int) int {
	if v <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(v-1))
}

// HIndexTrunc returns the H-index of the smallest power-of-two square that contains
// the 1D or 2D grid, keeping only the grid's nodes in curve order: the method of
// Bunde et al. 2004 §4 (Fig. 6), who cut a 32 x 32 curve to the 16 x 22 mesh. On a
// power-of-two square it equals HIndex; elsewhere consecutive nodes may be several
// hops apart where the curve leaves the grid.
func HIndexTrunc(g *topo.Grid) (Order, error) {
	x, y, side, err := enclosingSquare(g)
	if err != nil {
		return nil, err
	}
	if side == 1 {
		return Order{0}, nil
	}
	return hindexClipped(side, x, y), nil
}
