package curves

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/topo"
)

// SVG drawing constants (pixels).
const (
	svgCell   = 20 // distance between neighbouring nodes
	svgMargin = 20
	svgGap    = 1 // empty cells between the panels of a 3D grid
	// the legend: font size, line height, and the text's offset from the mark
	svgLegendFont = 11
	svgLegendLine = 16
	svgLegendText = 34
)

// WriteSVG draws the ordering o on a grid of up to three dimensions as an SVG image:
// nodes as dots (the first one green in a square, the last one red in a diamond,
// told apart without colour), consecutive nodes joined by
// solid lines when they are one hop apart in the same layer, by grey dashed lines when
// they are one hop apart across z layers or through a wraparound link, and by red
// dashed lines when the step is a jump of several hops. x grows to the right, y
// upwards; a 3D grid is drawn as one panel per z layer, side by side, z growing to
// the right. Ranks are written next to the nodes when there are at most 256. A
// legend under the grid names the machine and says what the marks mean. The
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
	gridH := 2*svgMargin + Y*svgCell
	// The legend, one entry a line under the grid; the picture is at least as
	// wide as its longest line (a width estimate: 0.62 of the font size a
	// character).
	legend := []struct{ mark, text string }{
		{"", fmt.Sprintf("%s: ordering of %d nodes", g.Spec(), g.N())},
		{"start", "first node"},
		{"end", "last node"},
		{"solid", "step of one hop"},
		{"across", "step of one hop across z layers or a wraparound link"},
		{"jump", "jump of two or more hops"},
	}
	for _, l := range legend {
		width = max(width, 2*svgMargin+svgLegendText+int(math.Ceil(0.62*svgLegendFont*float64(len(l.text)))))
	}
	height := gridH + len(legend)*svgLegendLine + svgMargin/2
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
		{solid, stepStyle["solid"]},
		{across, stepStyle["across"]},
		{jump, stepStyle["jump"]},
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
		switch r {
		case 0:
			endMark(d, "start", x, y)
		case len(o) - 1:
			endMark(d, "end", x, y)
		}
		if labels {
			d.TextElem("text", strconv.Itoa(r), "x", x+3, "y", y-3, "font-size", "7", "font-family", "sans-serif", "fill", "#555")
		}
		d.Newline()
	}
	for i, l := range legend {
		y := gridH + i*svgLegendLine
		x := svgMargin
		switch l.mark {
		case "":
			d.TextElem("text", l.text, "x", x, "y", y+4, "font-size", svgLegendFont, "font-family", "sans-serif", "font-weight", "bold")
			d.Newline()
			continue
		case "start", "end":
			endMark(d, l.mark, x+12, y)
		default:
			d.Elem("path", append(append([]any{"fill", "none"}, stepStyle[l.mark]...), "d", fmt.Sprintf("M%d %dH%d", x, y, x+26))...)
		}
		d.TextElem("text", l.text, "x", x+svgLegendText, "y", y+4, "font-size", svgLegendFont, "font-family", "sans-serif", "fill", "#333")
		d.Newline()
	}
	return d.End()
}

// stepStyle are the stroke attributes of the three kinds of step.
var stepStyle = map[string][]any{
	"solid":  {"stroke", "#1f4e9c", "stroke-width", "2"},
	"across": {"stroke", "#888", "stroke-width", "1", "stroke-dasharray", "3 3"},
	"jump":   {"stroke", "#c0392b", "stroke-width", "1.5", "stroke-dasharray", "5 3"},
}

// endMark draws the shape around the first node (a green square) or the last (a
// red diamond), centred at (x, y): the two differ in shape, not only in colour.
func endMark(d *plot.Doc, which string, x, y int) {
	if which == "start" {
		d.Elem("rect", "x", x-6, "y", y-6, "width", 12, "height", 12, "fill", "none", "stroke", "#27ae60", "stroke-width", "2")
		return
	}
	d.Elem("path", "d", fmt.Sprintf("M%d %dL%d %dL%d %dL%d %dZ", x, y-8, x+8, y, x, y+8, x-8, y), "fill", "none", "stroke", "#c0392b", "stroke-width", "2")
}
