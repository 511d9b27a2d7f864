package curves

import (
	"github.com/procalloc/procalloc/topo"
)

func init() {
	mustRegister(Curve{
		Name:    "snake-ring",
		Summary: "closed comb on any grid: last node one hop from the first whenever the grid has a Hamiltonian cycle (uses the wrap if needed)",
		Applies: func(m topo.Machine) error { _, err := gridOf(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			o, _ := RingComb(g)
			return o, nil
		},
	})
	mustRegister(Curve{
		Name:    "gilbert-ring",
		Summary: "closed generalized Hilbert curve on 1D/2D grids (two gilbert halves, Moore-style; the wrap when the node count is odd)",
		Applies: func(m topo.Machine) error { _, err := grid2D(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			o, _, err := GilbertRing(g)
			return o, err
		},
	})
}

// RingComb returns a "comb" ordering of a grid of any dimension that is a Hamiltonian
// cycle whenever the grid has one, and reports whether it is closed (the last node one
// hop from the first). Along a tooth axis j, node (0, p) starts; the teeth are the
// rows along j restricted to coordinates 1..X_j-1, visited back and forth in the
// continuous order p_0, p_1, ... of the other coordinates (SnakeReflected); the path
// returns through coordinate 0 in reverse order. It closes without wraparound when
// the number of rows is even or X_j = 2, and through the wrap of axis j otherwise
// (X_j >= 3). The first axis that allows closing is used. A mesh whose sides are all
// odd has no Hamiltonian cycle (it is bipartite with an odd node count), and a line
// of more than two nodes has none without wraparound; there the result is the open
// continuous SnakeReflected (closed = false).
func RingComb(g *topo.Grid) (Order, bool) {
	dims, wrap := g.Dims(), g.Wrap()
	n := g.N()
	if n <= 2 {
		return RowMajor(n), true
	}
	for j, x := range dims {
		if x < 2 {
			continue
		}
		rows := n / x
		if rows%2 == 0 || x == 2 || (wrap[j] && x >= 3) {
			return comb(g, j), true
		}
	}
	return SnakeReflected(g), false
}

// comb builds the comb along tooth axis j.
func comb(g *topo.Grid, j int) Order {
	dims := g.Dims()
	strides := make([]int, len(dims))
	s := 1
	for k, d := range dims {
		strides[k] = s
		s *= d
	}
	// The rows' base nodes (coordinate j = 0) in continuous order: a reflected snake
	// over the other dimensions.
	other := make([]int, 0, len(dims))
	otherStride := make([]int, 0, len(dims))
	for k, d := range dims {
		if k != j {
			other = append(other, d)
			otherStride = append(otherStride, strides[k])
		}
	}
	var bases []int
	if len(other) == 0 {
		bases = []int{0}
	} else {
		sub := topo.Mesh(other...)
		c := make([]int, len(other))
		for _, v := range SnakeReflected(sub) {
			c = sub.Coord(v, c)
			b := 0
			for k, cv := range c {
				b += cv * otherStride[k]
			}
			bases = append(bases, b)
		}
	}
	x, st := dims[j], strides[j]
	o := make(Order, 0, g.N())
	o = append(o, bases[0])
	for q, b := range bases {
		if q%2 == 0 {
			for i := 1; i < x; i++ {
				o = append(o, b+i*st)
			}
		} else {
			for i := x - 1; i >= 1; i-- {
				o = append(o, b+i*st)
			}
		}
	}
	for q := len(bases) - 1; q >= 1; q-- {
		o = append(o, bases[q])
	}
	return o
}

// GilbertRing returns a closed generalized Hilbert curve of a 1D or 2D grid and
// reports whether it is closed. With an even node count (no wraparound needed) the
// rectangle is cut in two halves across an even side of length L, and each half is
// walked by Gilbert's construction along the cut (from one end of the cut to the
// other), Moore-style: left half downwards, right half upwards (or bottom half
// leftwards, top half rightwards when the height is odd). With an odd node count the
// curve is the Gilbert curve along a wrapped side, closed through the wrap. 1D grids
// and odd meshes fall back to RingComb.
func GilbertRing(g *topo.Grid) (Order, bool, error) {
	if _, err := grid2D(g); err != nil {
		return nil, false, err
	}
	w, h := dims2(g)
	if w < 2 || h < 2 {
		o, closed := RingComb(g)
		return o, closed, nil
	}
	o := make(Order, g.N())
	gw := gilbertWalker{out: o, stride: w}
	wrap := g.Wrap()
	switch {
	case h%2 == 0:
		w1 := w / 2
		gw.walk(w1-1, h-1, 0, -h, -w1, 0)
		gw.walk(w1, 0, 0, h, w-w1, 0)
	case w%2 == 0:
		h1 := h / 2
		gw.walk(w-1, h1-1, -w, 0, 0, -h1)
		gw.walk(0, h1, w, 0, 0, h-h1)
	case wrap[0] && w >= 3:
		gw.walk(0, 0, w, 0, 0, h)
	case wrap[1] && h >= 3:
		gw.walk(0, 0, 0, h, w, 0)
	default:
		oc, closed := RingComb(g)
		return oc, closed, nil
	}
	return o, true, nil
}
