package curves

import (
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

func init() {
	mustRegister(Curve{
		Name:     "rowmajor",
		Summary:  "node-index order (x fastest, then y, then z); any machine",
		Applies:  func(topo.Machine) error { return nil },
		Generate: func(m topo.Machine) (Order, error) { return RowMajor(m.N()), nil },
	})
	mustRegister(Curve{
		Name:    "name-order",
		Summary: "hosts in Slurm's node name order (strnatcmp: node9 before node10, x010 before x1): the order Slurm keeps nodes in without a topology plugin; any machine (node indices on grids)",
		Applies: func(topo.Machine) error { return nil },
		Generate: func(m topo.Machine) (Order, error) {
			o := RowMajor(m.N())
			if names := NodeNames(m); names != nil {
				slices.SortStableFunc(o, func(a, b int) int { return hostlist.NaturalCompare(names[a], names[b]) })
			}
			return o, nil
		},
	})
	mustRegister(Curve{
		Name:    "snake",
		Summary: "boustrophedon: rows of constant y (then z) in index order, x increasing on even rows (published orientation)",
		Applies: func(m topo.Machine) error { _, err := gridOf(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Snake(g), nil
		},
	})
	mustRegister(Curve{
		Name:    "snake3d",
		Summary: "continuous boustrophedon in any dimension: x alternates per row, y per z layer, ... (reflected mixed-radix Gray code)",
		Applies: func(m topo.Machine) error { _, err := gridOf(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return SnakeReflected(g), nil
		},
	})
	mustRegister(Curve{
		Name:    "snake-sst",
		Summary: "SST's snake on 2D/3D meshes: 2D snake in each z layer, y reversed on odd z layers",
		Applies: func(m topo.Machine) error {
			g, err := gridOf(m)
			if err == nil && g.Dim() > 3 {
				err = fmt.Errorf("needs a grid of at most 3 dimensions, not %d", g.Dim())
			}
			return err
		},
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return SnakeReflected(g), nil
		},
	})
}

// RowMajor returns the identity ordering 0..n-1 (node-index order).
func RowMajor(n int) Order {
	o := make(Order, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// Snake returns the boustrophedon ordering of the published runs
// (reference-simulators.md): rows along x taken in node-index order (y increasing,
// then z, ...), the q-th row (q = y + Y*z + ...) with x increasing when q is even and
// decreasing when q is odd. On 2D grids every step is one hop; on 3D grids the step
// from one z layer to the next jumps back to y = 0 (see SnakeReflected for the
// continuous variant).
func Snake(g *topo.Grid) Order {
	n := g.N()
	x := g.Dims()[0]
	o := make(Order, n)
	for q := 0; q*x < n; q++ {
		base := q * x
		row := o[base : base+x]
		if q%2 == 0 {
			for i := range row {
				row[i] = base + i
			}
		} else {
			for i := range row {
				row[i] = base + x - 1 - i
			}
		}
	}
	return o
}

// SnakeReflected returns the fully continuous boustrophedon (the reflected
// mixed-radix Gray code): x runs back and forth along each row, the rows run back and
// forth in y within each z layer, the layers back and forth in z within each w block,
// and so on. Consecutive nodes are always one hop apart. On 2D grids it equals Snake;
// on 3D grids it is SST's snake (y reversed on odd z layers), with the x direction of
// each row alternating along the path.
func SnakeReflected(g *topo.Grid) Order {
	dims := g.Dims()
	n := g.N()
	o := make(Order, 0, n)
	if len(dims) == 1 {
		return RowMajor(n)
	}
	x := dims[0]
	// Walk the rows (coordinates 1..d-1) in reflected Gray-code order with an odometer.
	d := len(dims)
	c := make([]int, d)   // current coordinates, c[0] unused
	dir := make([]int, d) // +1 or -1 per higher dimension
	for j := range dir {
		dir[j] = 1
	}
	strides := make([]int, d)
	s := 1
	for j := range dims {
		strides[j] = s
		s *= dims[j]
	}
	rows := n / x
	for q := 0; q < rows; q++ {
		base := 0
		for j := 1; j < d; j++ {
			base += c[j] * strides[j]
		}
		if q%2 == 0 {
			for i := 0; i < x; i++ {
				o = append(o, base+i)
			}
		} else {
			for i := x - 1; i >= 0; i-- {
				o = append(o, base+i)
			}
		}
		// Advance the odometer: the lowest dimension that can still move moves; the
		// ones below it reverse direction.
		for j := 1; j < d; j++ {
			if nc := c[j] + dir[j]; nc >= 0 && nc < dims[j] {
				c[j] = nc
				break
			}
			dir[j] = -dir[j]
		}
	}
	return o
}
