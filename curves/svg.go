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
	// svgMaxPx is the largest side of a node-by-node drawing.
	svgMaxPx = 4096
	// svgMaxBlocks is the most blocks a side of a block drawing has, svgBlockPx
	// a block's side in pixels.
	svgMaxBlocks, svgBlockPx = 160, 6
)

// WriteSVG draws the ordering o on a grid of up to three dimensions as an SVG image:
// nodes as dots (the first one green in a square, the last one red in a diamond,
// told apart without colour), consecutive nodes joined by
// solid lines when they are one hop apart in the same layer, by grey dashed lines when
// they are one hop apart across z layers or through a wraparound link, and by red
// dashed lines when the step is a jump of several hops. x grows to the right, y
// upwards; a 3D grid is drawn as one panel per z layer, side by side, z growing to
// the right. Ranks are written next to the nodes when there are at most 256. A
// legend under the grid names the machine and says what the marks mean. A grid
// whose drawing would be wider or higher than svgMaxPx pixels (a 512x512 mesh was
// 10,280 pixels a side, a grey wash scaled to a screen) is drawn in blocks instead
// (writeSVGBlocks). The output depends only on the grid and the ordering.
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
	if max(width, gridH) > svgMaxPx {
		return writeSVGBlocks(w, g, o, X, Y, Z)
	}
	// The legend, one entry a line under the grid; the picture is at least as
	// wide as its longest line (plot.TextWidth, the estimate every picture uses).
	legend := []struct{ mark, text string }{
		{"", fmt.Sprintf("%s: ordering of %d nodes", g.Spec(), g.N())},
		{"start", "first node"},
		{"end", "last node"},
		{"solid", "step of one hop"},
		{"across", "step of one hop across z layers or a wraparound link"},
		{"jump", "jump of two or more hops"},
	}
	for _, l := range legend {
		width = max(width, 2*svgMargin+svgLegendText+int(math.Ceil(plot.TextWidth(l.text, svgLegendFont))))
	}
	height := gridH + len(legend)*svgLegendLine + svgMargin/2
	c := make([]int, len(dims))
	pos := func(node int) (int, int, int) {
		c = g.Coord(node, c)
		x, y, z := xyz(c)
		px := svgMargin + z*(panelW+svgGap*svgCell) + x*svgCell + svgCell/2
		py := svgMargin + (Y-1-y)*svgCell + svgCell/2
		return px, py, z
	}
	d := plot.Begin(w, plot.Header{Width: width, Height: height, ViewBox: true, Background: "white"})
	d.TextElem("title", fmt.Sprintf("%s: ordering of %d nodes", g.Spec(), g.N()))
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

// viridis is a sequential colour scale whose lightness grows monotonically from
// dark violet to light yellow: ranks read in order without colour vision and in
// black-and-white print. Nine stops of matplotlib's viridis.
var viridis = [][3]float64{{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141}, {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}}

// rankColour is the colour of t in [0, 1] on the viridis scale.
func rankColour(t float64) string {
	t = min(max(t, 0), 1) * float64(len(viridis)-1)
	i := min(int(t), len(viridis)-2)
	f := t - float64(i)
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(viridis[i][k] + f*(viridis[i+1][k]-viridis[i][k])))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// writeSVGBlocks draws an ordering of a grid too large to draw node by node: the
// grid cut into square blocks of b x b nodes (b the least that gives at most
// svgMaxBlocks blocks a side, 3D layers as panels in rows, z growing to the right
// then down), each block
// filled with the colour of its nodes' mean rank (rankColour), first rank dark,
// last light; a legend says so, with the colour scale, and counts the jumps of
// two or more hops, which are not drawn. Memory is O(blocks).
func writeSVGBlocks(w io.Writer, g *topo.Grid, o Order, X, Y, Z int) error {
	// The z layers' panels in rows of cols (a square of panels, not a row of 32
	// slivers).
	cols := int(math.Ceil(math.Sqrt(float64(Z))))
	rows := (Z + cols - 1) / cols
	b := max(1, (max(X*cols, Y*rows)+svgMaxBlocks-1)/svgMaxBlocks)
	bx, by := (X+b-1)/b, (Y+b-1)/b
	sum := make([]float64, bx*by*Z)
	cnt := make([]int, len(sum))
	c := make([]int, len(g.Dims()))
	jumps := 0
	for r, v := range o {
		c = g.Coord(v, c)
		x, y, z := xyz(c)
		k := (z*by+y/b)*bx + x/b
		sum[k] += float64(r)
		cnt[k]++
		if r > 0 && g.Dist(o[r-1], v) > 1 {
			jumps++
		}
	}
	panelW, panelH := bx*svgBlockPx, by*svgBlockPx
	gap := 16 // room for a panel's z= label
	width := 2*svgMargin + cols*panelW + (cols-1)*gap
	gridH := 2*svgMargin + rows*panelH + (rows-1)*gap
	block := fmt.Sprintf("%dx%d", b, b)
	if len(g.Dims()) == 1 {
		block = strconv.Itoa(b) // a line: blocks of b nodes
	}
	legend := []string{
		fmt.Sprintf("%s: ordering of %d nodes, in blocks of %s nodes", g.Spec(), g.N(), block),
		"each block coloured by its nodes' mean rank (too many nodes to draw one by one)",
		fmt.Sprintf("%d jumps of two or more hops between consecutive nodes (not drawn)", jumps),
	}
	const scaleW = 200
	for _, l := range legend {
		width = max(width, 2*svgMargin+int(math.Ceil(plot.TextWidth(l, svgLegendFont))))
	}
	width = max(width, 2*svgMargin+scaleW+120)
	height := gridH + (len(legend)+1)*svgLegendLine + svgMargin
	d := plot.Begin(w, plot.Header{Width: width, Height: height, ViewBox: true, Background: "white"})
	d.TextElem("title", legend[0])
	d.Newline()
	last := float64(max(len(o)-1, 1))
	for z := 0; z < Z; z++ {
		x0 := svgMargin + (z%cols)*(panelW+gap)
		y0 := svgMargin + (z/cols)*(panelH+gap)
		if Z > 1 {
			d.TextElem("text", fmt.Sprintf("z=%d", z), "x", x0, "y", y0-4, "font-size", "10", "font-family", "sans-serif", "fill", "#666")
			d.Newline()
		}
		for j := 0; j < by; j++ {
			for i := 0; i < bx; i++ {
				k := (z*by+j)*bx + i
				if cnt[k] == 0 {
					continue
				}
				py := y0 + (by-1-j)*svgBlockPx
				d.Elem("rect", "x", x0+i*svgBlockPx, "y", py, "width", svgBlockPx, "height", svgBlockPx, "fill", rankColour(sum[k]/float64(cnt[k])/last))
			}
			d.Newline()
		}
	}
	for i, l := range legend {
		attrs := []any{"x", svgMargin, "y", gridH + i*svgLegendLine + 4, "font-size", svgLegendFont, "font-family", "sans-serif", "fill", "#333"}
		if i == 0 {
			attrs = append(attrs, "font-weight", "bold")
		}
		d.TextElem("text", l, attrs...)
		d.Newline()
	}
	// The colour scale: rank 0 on the left, the last rank on the right.
	y := gridH + len(legend)*svgLegendLine - 6
	for i := 0; i < scaleW/4; i++ {
		d.Elem("rect", "x", svgMargin+50+4*i, "y", y, "width", 4, "height", 10, "fill", rankColour(float64(i)/float64(scaleW/4-1)))
	}
	d.TextElem("text", "rank 0", "x", svgMargin, "y", y+9, "font-size", svgLegendFont, "font-family", "sans-serif", "fill", "#333")
	d.TextElem("text", fmt.Sprintf("rank %d", len(o)-1), "x", svgMargin+50+scaleW+6, "y", y+9, "font-size", svgLegendFont, "font-family", "sans-serif", "fill", "#333")
	d.Newline()
	return d.End()
}

// xyz returns a grid coordinate of 1 to 3 dimensions as x, y, z, the missing
// ones 0 (the pictures draw a 1D grid as one row, a 2D grid as one panel).
func xyz(c []int) (x, y, z int) {
	x = c[0]
	if len(c) > 1 {
		y = c[1]
	}
	if len(c) > 2 {
		z = c[2]
	}
	return x, y, z
}
