package topo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// Grid is a mesh or torus: Dims[j] nodes along dimension j, Wrap[j] when dimension j
// wraps around. The zero value is not usable; build one with NewGrid or ParseSpec.
type Grid struct {
	dims    []int
	wrap    []bool
	strides []int
	n       int
	io      *IO // I/O nodes attached along one side (nil: none); see io.go
}

// NewGrid returns the grid with the given dimension sizes; wrap may be nil (a mesh) or
// have one entry per dimension. Every size must be at least 1 and the node count must
// fit in an int32 (procalloc stores node indices compactly in places).
func NewGrid(dims []int, wrap []bool) (*Grid, error) {
	if len(dims) == 0 {
		return nil, fmt.Errorf("topo: a grid needs at least one dimension")
	}
	if wrap != nil && len(wrap) != len(dims) {
		return nil, fmt.Errorf("topo: %d wrap flags for %d dimensions", len(wrap), len(dims))
	}
	g := &Grid{dims: append([]int(nil), dims...), wrap: make([]bool, len(dims)), strides: make([]int, len(dims))}
	copy(g.wrap, wrap)
	n := 1
	for j, d := range dims {
		if d < 1 {
			return nil, fmt.Errorf("topo: dimension %d has size %d; sizes must be at least 1", j+1, d)
		}
		g.strides[j] = n
		if n > (1<<31-1)/d {
			return nil, fmt.Errorf("topo: grid %s has more than 2^31-1 nodes", textin.Clip(fmt.Sprint(dims)))
		}
		n *= d
	}
	g.n = n
	return g, nil
}

// Mesh returns a mesh (no wraparound) with the given sizes; it panics on invalid
// sizes and is meant for literals in tests and examples.
func Mesh(dims ...int) *Grid {
	g, err := NewGrid(dims, nil)
	if err != nil {
		panic(err)
	}
	return g
}

// Torus returns a grid that wraps in every dimension; it panics on invalid sizes.
func Torus(dims ...int) *Grid {
	w := make([]bool, len(dims))
	for i := range w {
		w[i] = true
	}
	g, err := NewGrid(dims, w)
	if err != nil {
		panic(err)
	}
	return g
}

// N returns the number of nodes.
func (g *Grid) N() int { return g.n }

// Dims returns the dimension sizes (do not modify).
func (g *Grid) Dims() []int { return g.dims }

// Wrap returns the wraparound flags (do not modify).
func (g *Grid) Wrap() []bool { return g.wrap }

// Dim returns the number of dimensions.
func (g *Grid) Dim() int { return len(g.dims) }

// Wraps reports whether any dimension wraps around.
func (g *Grid) Wraps() bool {
	for _, w := range g.wrap {
		if w {
			return true
		}
	}
	return false
}

// Coord writes the coordinates of node i into dst (grown if needed) and returns it.
func (g *Grid) Coord(i int, dst []int) []int {
	if cap(dst) < len(g.dims) {
		dst = make([]int, len(g.dims))
	}
	dst = dst[:len(g.dims)]
	for j, d := range g.dims {
		dst[j] = i % d
		i /= d
	}
	return dst
}

// Index returns the node index of coordinates c: c[0] + c[1]*X + c[2]*X*Y + ...
func (g *Grid) Index(c []int) int {
	i := 0
	for j, v := range c {
		i += v * g.strides[j]
	}
	return i
}

// Contains reports whether c is a coordinate vector inside the grid.
func (g *Grid) Contains(c []int) bool {
	if len(c) != len(g.dims) {
		return false
	}
	for j, v := range c {
		if v < 0 || v >= g.dims[j] {
			return false
		}
	}
	return true
}

// AxisDist returns the hop distance between coordinates a and b along dimension j.
func (g *Grid) AxisDist(j, a, b int) int {
	d := a - b
	if d < 0 {
		d = -d
	}
	if g.wrap[j] && g.dims[j]-d < d {
		d = g.dims[j] - d
	}
	return d
}

// Dist returns the hop distance: the L1 distance, wrapped dimensions taking the
// shorter way around.
func (g *Grid) Dist(a, b int) int {
	s := 0
	for j, d := range g.dims {
		s += g.AxisDist(j, a%d, b%d)
		a /= d
		b /= d
	}
	return s
}

// CoordDist returns the hop distance between two coordinate vectors.
func (g *Grid) CoordDist(a, b []int) int {
	s := 0
	for j := range g.dims {
		s += g.AxisDist(j, a[j], b[j])
	}
	return s
}

// Neighbors appends the nodes one hop from a, in ascending order of index.
func (g *Grid) Neighbors(a int, dst []int) []int {
	start := len(dst)
	rest := a
	for j, d := range g.dims {
		c := rest % d
		rest /= d
		s := g.strides[j]
		if c > 0 {
			dst = append(dst, a-s)
		} else if g.wrap[j] && d > 2 {
			dst = append(dst, a+(d-1)*s)
		}
		if c < d-1 {
			dst = append(dst, a+s)
		} else if g.wrap[j] && d > 2 {
			dst = append(dst, a-(d-1)*s)
		}
	}
	nb := dst[start:]
	// Insertion sort: at most 2d entries.
	for i := 1; i < len(nb); i++ {
		for k := i; k > 0 && nb[k] < nb[k-1]; k-- {
			nb[k], nb[k-1] = nb[k-1], nb[k]
		}
	}
	return dst
}

// OnBoundary reports whether node coordinates c lie on the mesh boundary in some
// non-wrapping dimension longer than 2 (the "wall" of Johnson et al. 2010).
func (g *Grid) OnBoundary(c []int) bool {
	for j, d := range g.dims {
		if g.wrap[j] || d <= 2 {
			continue
		}
		if c[j] == 0 || c[j] == d-1 {
			return true
		}
	}
	return false
}

var axisLetters = "xyzw"

// Spec returns the canonical spec: "mesh:16x16", "torus:8x8", or "mesh:8x8x5:wrap=yz".
func (g *Grid) Spec() string {
	parts := make([]string, len(g.dims))
	for j, d := range g.dims {
		parts[j] = strconv.Itoa(d)
	}
	size := strings.Join(parts, "x")
	all, none := true, true
	var letters strings.Builder
	for j, w := range g.wrap {
		if w {
			none = false
			letters.WriteString(axisName(j))
		} else {
			all = false
		}
	}
	switch {
	case none:
		return "mesh:" + size + g.ioSpec()
	case all:
		return "torus:" + size
	default:
		return "mesh:" + size + ":wrap=" + letters.String()
	}
}

func axisName(j int) string {
	if j < len(axisLetters) {
		return axisLetters[j : j+1]
	}
	return "d" + strconv.Itoa(j+1)
}
