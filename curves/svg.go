package curves

import (
	"fmt"
	"io"
	"strconv"

	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/topo"
)

// SVG drawing constants (pixels).
const (
	svgCell   = 20 // distance between neighbouring nodes
	svgMargin = 20
	svgGap    = 1 // empty cells between the panels of a 3D grid
)

// WriteSVG draws the ordering o on a grid of up to three dimensions as an SVG image:
// nodes as dots (the first one green, the last one red), consecutive nodes joined by
// solid lines when they are one hop apart in the same layer, by grey dashed lines when
// they are one hop apart across z layers or through a wraparound link, and by red
// dashed lines when the step is a jump of several hops. x grows to the right, y
// upwards; a 3D grid is drawn as one panel per z layer, side by side, z growing to
// the right. Ranks are written next to the nodes when there are at most 256. The
// output depends only on the grid and the ordering.
func WriteSVG(w io.Writer, g *topo.Grid, o Order) error {
	if err := o.Validate(g.N()); err != nil {
		return err
	}
	dims := g.Dims()
	if len(dims) > 3 {
		return fmt.Errorf("svg: can only draw grids of up to 3 dimensions, not %d", len(dims))
	}
	X, Y, Z := dims[0], 1, 1
	if len(dims) > 1 {
		Y = dims[1]
	}
	if len(dims) > 2 {
		Z = dims[2]
	}
	if g.N() > 1<<20 {
		return fmt.Errorf("svg: %d nodes is too many to draw (limit %d)", g.N(), 1<<20)
	}
	panelW := X * svgCell
	width := 2*svgMargin + Z*panelW + (Z-1)*svgGap*svgCell
	height := 2*svgMargin + Y*svgCell
	c := make([]int, len(dims))
	pos := func(node int) (int, int, int) {
		c = g.Coord(node, c)
		x, y, z := c[0], 0, 0
		if len(c) > 1 {
			y = c[1]
		}
		if len(c) > 2 {
			z = c[2]
		}
		px := svgMargin + z*(panelW+svgGap*svgCell) + x*svgCell + svgCell/2
		py := svgMargin + (Y-1-y)*svgCell + svgCell/2
		return px, py, z
	}
	d := plot.Begin(w, plot.Header{Width: width, Height: height, ViewBox: true})
	d.TextElem("title", fmt.Sprintf("%s: ordering of %d nodes", g.Spec(), g.N()))
	d.Newline()
	d.Elem("rect", "width", width, "height", height, "fill", "white")
	d.Newline()
	for z := 0; z < Z; z++ {
		x0 := svgMargin + z*(panelW+svgGap*svgCell)
		d.Elem("rect", "x", x0, "y", svgMargin, "width", panelW, "height", Y*svgCell, "fill", "none", "stroke", "#ccc")
		d.Newline()
		if Z > 1 {
			d.TextElem("text", fmt.Sprintf("z=%d", z), "x", x0, "y", svgMargin-6, "font-size", "10", "font-family", "sans-serif", "fill", "#666")
			d.Newline()
		}
	}
	// Steps, grouped into one path per style so the file stays small.
	var solid, across, jump []byte
	for r := 1; r < len(o); r++ {
		ax, ay, az := pos(o[r-1])
		bx, by, bz := pos(o[r])
		seg := fmt.Appendf(nil, "M%d %dL%d %d", ax, ay, bx, by)
		dist := g.Dist(o[r-1], o[r])
		step := iabs(ax-bx) + iabs(ay-by)
		switch {
		case dist > 1:
			jump = append(jump, seg...)
		case az != bz || step != svgCell:
			across = append(across, seg...)
		default:
			solid = append(solid, seg...)
		}
	}
	for _, p := range []struct {
		d     []byte
		attrs []any
	}{
		{solid, []any{"stroke", "#1f4e9c", "stroke-width", "2"}},
		{across, []any{"stroke", "#888", "stroke-width", "1", "stroke-dasharray", "3 3"}},
		{jump, []any{"stroke", "#c0392b", "stroke-width", "1.5", "stroke-dasharray", "5 3"}},
	} {
		if len(p.d) > 0 {
			d.Elem("path", append(append([]any{"fill", "none", "stroke-linecap", "round"}, p.attrs...), "d", p.d)...)
			d.Newline()
		}
	}
	labels := len(o) <= 256
	for r, v := range o {
		x, y, _ := pos(v)
		fill := "#333"
		switch r {
		case 0:
			fill = "#27ae60"
		case len(o) - 1:
			fill = "#c0392b"
		}
		d.Elem("circle", "cx", x, "cy", y, "r", "3", "fill", fill)
		if labels {
			d.TextElem("text", strconv.Itoa(r), "x", x+3, "y", y-3, "font-size", "7", "font-family", "sans-serif", "fill", "#555")
		}
		d.Newline()
	}
	return d.End()
}
