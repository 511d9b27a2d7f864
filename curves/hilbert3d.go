package curves

import (
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

func init() {
	mustRegister(Curve{
		Name:    "hilbert3d",
		Summary: "3D Hilbert curve (Skilling's transposed-index form) on a power-of-two cube: every step one hop",
		Applies: func(m topo.Machine) error { _, err := powerOfTwoCube(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Hilbert3D(g)
		},
	})
	mustRegister(Curve{
		Name:    "hilbert3d-trunc",
		Summary: "3D Hilbert curve of the enclosing power-of-two cube cut to any 3D box (the papers' method; jumps where cut)",
		Applies: func(m topo.Machine) error { _, err := grid3D(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Hilbert3DTrunc(g)
		},
	})
}

func grid3D(m topo.Machine) (*topo.Grid, error) {
	g, err := gridOf(m)
	if err != nil {
		return nil, err
	}
	if g.Dim() != 3 {
		return nil, fmt.Errorf("needs a 3D grid, not %d dimensions", g.Dim())
	}
	return g, nil
}

func powerOfTwoCube(m topo.Machine) (*topo.Grid, error) {
	g, err := grid3D(m)
	if err != nil {
		return nil, err
	}
	d := g.Dims()
	if d[0] != d[1] || d[1] != d[2] || d[0]&(d[0]-1) != 0 {
		return nil, fmt.Errorf("needs an n x n x n grid with n a power of two (hilbert3d-trunc takes any box)")
	}
	return g, nil
}

// hilbert3DChild describes octant k of the 3D Hilbert curve as a map of the whole
// curve at half size: parent-local = S * child-local + h*off + (h-1)*neg, S a signed
// permutation (neg marks its negative rows).
type hilbert3DChild struct {
	s   [3][3]int
	off [3]int
	neg [3]int
}

var (
	hilbert3DKids [8]hilbert3DChild
	hilbert3DBase [8][3]int // the side-2 curve
)

// init derives the recursive structure from the side-4 curve of
// hilbert3DIndexToAxes: each octant (8 consecutive ranks) is the side-2 curve under
// one signed permutation plus translation. Tests check that the recursion reproduces
// hilbert3DIndexToAxes on larger cubes.
func init() {
	for r := 0; r < 8; r++ {
		x, y, z := hilbert3DIndexToAxes(uint64(r), 1)
		hilbert3DBase[r] = [3]int{x, y, z}
	}
	var side4 [64][3]int
	for r := range side4 {
		x, y, z := hilbert3DIndexToAxes(uint64(r), 2)
		side4[r] = [3]int{x, y, z}
	}
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for k := 0; k < 8; k++ {
		found := false
		for _, p := range perms {
			for sg := 0; sg < 8 && !found; sg++ {
				var c hilbert3DChild
				for i := 0; i < 3; i++ {
					v := 1
					if sg>>i&1 == 1 {
						v = -1
						c.neg[i] = 1
					}
					c.s[i][p[i]] = v
				}
				// Translation from rank 8k.
				var t [3]int
				for i := 0; i < 3; i++ {
					t[i] = side4[8*k][i]
					for j := 0; j < 3; j++ {
						t[i] -= c.s[i][j] * hilbert3DBase[0][j]
					}
				}
				ok := true
				for r := 0; r < 8 && ok; r++ {
					for i := 0; i < 3; i++ {
						v := t[i]
						for j := 0; j < 3; j++ {
							v += c.s[i][j] * hilbert3DBase[r][j]
						}
						if v != side4[8*k+r][i] {
							ok = false
							break
						}
					}
				}
				if ok {
					for i := 0; i < 3; i++ {
						c.off[i] = (t[i] - c.neg[i]) / 2
					}
					hilbert3DKids[k] = c
					found = true
				}
			}
		}
		if !found {
			panic("curves: 3D Hilbert octant is not self-similar")
		}
	}
}

// Hilbert3D returns the 3D Hilbert curve of a power-of-two cube (hilbert3DIndexToAxes
// order), generated recursively in O(1) per node.
func Hilbert3D(g *topo.Grid) (Order, error) {
	if _, err := powerOfTwoCube(g); err != nil {
		return nil, err
	}
	n := g.Dims()[0]
	o := make(Order, g.N())
	hw := hilbert3DWalker{out: o, sx: 1, sy: n, sz: n * n, w: n, h: n, d: n}
	hw.fast(0, [3]int{1, n, n * n}, n)
	return o, nil
}

// Hilbert3DTrunc returns the 3D Hilbert curve of the smallest power-of-two cube that
// contains the 3D grid, keeping the grid's nodes in curve order (as hilbert-trunc in
// 2D); where the curve leaves the box, consecutive nodes may be several hops apart.
func Hilbert3DTrunc(g *topo.Grid) (Order, error) {
	if _, err := grid3D(g); err != nil {
		return nil, err
	}
	d := g.Dims()
	side := nextPow2(max(d[0], d[1], d[2]))
	o := make(Order, g.N())
	hw := hilbert3DWalker{out: o, sx: 1, sy: d[0], sz: d[0] * d[1], w: d[0], h: d[1], d: d[2]}
	hw.clipped([3]int{}, [3][3]int{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, side)
	if hw.pos != len(o) {
		return nil, fmt.Errorf("internal error: truncated 3D Hilbert curve visited %d of %d nodes", hw.pos, len(o))
	}
	return o, nil
}

type hilbert3DWalker struct {
	out        Order
	pos        int
	sx, sy, sz int // index strides
	w, h, d    int // grid size for clipping
}

// fast emits a cube lying inside the grid: start node p, and u[j] the index offset of
// one step along the cube's local axis j.
func (hw *hilbert3DWalker) fast(p int, u [3]int, side int) {
	if side == 1 {
		hw.out[hw.pos] = p
		hw.pos++
		return
	}
	if side == 2 {
		out := hw.out[hw.pos : hw.pos+8]
		for r, c := range hilbert3DBase {
			out[r] = p + c[0]*u[0] + c[1]*u[1] + c[2]*u[2]
		}
		hw.pos += 8
		return
	}
	h := side / 2
	for k := range hilbert3DKids {
		c := &hilbert3DKids[k]
		q := p
		var v [3]int
		for i := 0; i < 3; i++ {
			q += (h*c.off[i] + (h-1)*c.neg[i]) * u[i]
			for j := 0; j < 3; j++ {
				v[j] += c.s[i][j] * u[i]
			}
		}
		hw.fast(q, v, h)
	}
}

// clipped emits the part of a cube inside the grid; p is the start cell and a[j] the
// coordinate vector of the cube's local axis j.
func (hw *hilbert3DWalker) clipped(p [3]int, a [3][3]int, side int) {
	var lo, hi [3]int
	for i := 0; i < 3; i++ {
		e := p[i]
		for j := 0; j < 3; j++ {
			e += a[j][i] * (side - 1)
		}
		lo[i], hi[i] = min(p[i], e), max(p[i], e)
	}
	lim := [3]int{hw.w, hw.h, hw.d}
	inside := true
	for i := 0; i < 3; i++ {
		if lo[i] >= lim[i] || hi[i] < 0 {
			return
		}
		if hi[i] >= lim[i] {
			inside = false
		}
	}
	idx := func(v [3]int) int { return v[0]*hw.sx + v[1]*hw.sy + v[2]*hw.sz }
	if inside {
		hw.fast(idx(p), [3]int{idx(a[0]), idx(a[1]), idx(a[2])}, side)
		return
	}
	h := side / 2
	for k := range hilbert3DKids {
		c := &hilbert3DKids[k]
		q := p
		var b [3][3]int
		for i := 0; i < 3; i++ {
			t := h*c.off[i] + (h-1)*c.neg[i]
			for x := 0; x < 3; x++ {
				q[x] += t * a[i][x]
			}
			for j := 0; j < 3; j++ {
				for x := 0; x < 3; x++ {
					b[j][x] += c.s[i][j] * a[i][x]
				}
			}
		}
		hw.clipped(q, b, h)
	}
}

// hilbert3DIndexToAxes returns the cell of rank h on the 3D Hilbert curve of a cube of
// side 2^b, by J. Skilling's method ("Programming the Hilbert curve", AIP Conf. Proc.
// 707, 2004, doi:10.1063/1.1751381): the rank's bits, dealt round-robin to the three axes (most significant
// first, x first), are Gray-decoded and then untangled level by level. Rank 0 is at
// (0,0,0). Hilbert3D derives its octant tables from it, and tests
// check the generator against it on larger cubes.
func hilbert3DIndexToAxes(h uint64, b int) (x, y, z int) {
	var X [3]uint64
	for j := 0; j < b; j++ {
		for i := 0; i < 3; i++ {
			X[i] |= (h >> (3*j + 2 - i) & 1) << j
		}
	}
	if b == 0 {
		return 0, 0, 0
	}
	// Gray decode.
	t := X[2] >> 1
	for i := 2; i > 0; i-- {
		X[i] ^= X[i-1]
	}
	X[0] ^= t
	// Undo the excess work, from the second-lowest level up.
	top := uint64(2) << (b - 1)
	for q := uint64(2); q != top; q <<= 1 {
		p := q - 1
		for i := 2; i >= 0; i-- {
			if X[i]&q != 0 {
				X[0] ^= p
			} else {
				t := (X[0] ^ X[i]) & p
				X[0] ^= t
				X[i] ^= t
			}
		}
	}
	return int(X[0]), int(X[1]), int(X[2])
}
