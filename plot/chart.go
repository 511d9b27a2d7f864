package plot

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Series is one line of a LineChart: points (X[i], Y[i]), drawn in order of X.
type Series struct {
	Name string
	X, Y []float64
}

// LineChart draws one line per series with axes, ticks and a legend. The y axis is
// logarithmic when the values are positive and span more than two decades; else it
// starts at zero, or with FromZero false spans only the values (with a 5% margin),
// for small differences between large values.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	FromZero              bool
}

// lineChart layout (pixels) and the colours and dash patterns of the lines, in turn.
const lcLeft, lcTop, lcWidth, lcHeight, lcLegend = 90, 50, 520, 340, 230

var (
	palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"}
	dashes  = []string{"", "6 3", "2 2"}
)

// WriteSVG writes the chart; a chart without points is an error.
func (c LineChart) WriteSVG(w io.Writer) error {
	const left, top, width, height, legendW = lcLeft, lcTop, lcWidth, lcHeight, lcLegend
	xs := map[float64]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %s has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		for i := range s.X {
			xs[s.X[i]] = true
			xmin, xmax = min(xmin, s.X[i]), max(xmax, s.X[i])
			lo, hi = min(lo, s.Y[i]), max(hi, s.Y[i])
		}
	}
	if len(xs) == 0 {
		return errors.New("nothing to plot")
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	// Values spanning more than two decades (a saturated load next to light ones)
	// get a logarithmic axis, else the light loads are a flat line at the bottom.
	ylabel := c.YLabel
	logY := lo > 0 && hi/lo > 100
	if !logY && c.FromZero {
		lo = min(lo, 0)
	} else if !logY {
		pad := (hi - lo) * 0.05
		if pad == 0 {
			pad = math.Abs(hi)*0.05 + 1e-9
		}
		lo, hi = lo-pad, hi+pad
	}
	if hi <= lo {
		hi = lo + 1
	}
	tr := func(v float64) float64 { return v }
	if logY {
		tr = math.Log10
		lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		ylabel += " (log scale)"
	}
	px := func(x float64) float64 { return left + width*(x-xmin)/(xmax-xmin) }
	py := func(y float64) float64 { return top + height - height*(tr(y)-tr(lo))/(tr(hi)-tr(lo)) }
	d := Begin(w, Header{Width: left + width + legendW, Height: top + height + 60, FontSize: 12, Numbers: OneDecimal})
	d.Elem("rect", "width", "100%", "height", "100%", "fill", "white")
	d.Newline()
	d.TextElem("text", c.Title, "x", 10, "y", 22, "font-weight", "bold")
	d.Newline()
	d.Elem("path", "d", fmt.Sprintf("M%d %d V%d H%d", left, top, top+height, left+width), "fill", "none", "stroke", "black")
	d.Newline()
	var yticks []float64
	if logY {
		for v := lo; v <= hi*1.0001; v *= 10 {
			yticks = append(yticks, v)
		}
	} else {
		for i := 0; i <= 5; i++ {
			yticks = append(yticks, lo+(hi-lo)*float64(i)/5)
		}
	}
	for _, v := range yticks {
		y := py(v)
		d.Elem("line", "x1", left, "x2", left+width, "y1", y, "y2", y, "stroke", "#ddd")
		d.TextElem("text", strconv.FormatFloat(v, 'g', 3, 64), "x", left-6, "y", y+4, "text-anchor", "end")
		d.Newline()
	}
	var ticks []float64
	for x := range xs {
		ticks = append(ticks, x)
	}
	slices.Sort(ticks)
	for _, x := range ticks {
		d.TextElem("text", strconv.FormatFloat(x, 'g', -1, 64), "x", px(x), "y", top+height+18, "text-anchor", "middle")
		d.Newline()
	}
	d.TextElem("text", c.XLabel, "x", left+width/2, "y", top+height+40, "text-anchor", "middle")
	d.Newline()
	d.TextElem("text", ylabel, "x", 14, "y", top+height/2, "transform", fmt.Sprintf("rotate(-90 14 %d)", top+height/2), "text-anchor", "middle")
	d.Newline()
	for i, s := range c.Series {
		idx := make([]int, len(s.X))
		for j := range idx {
			idx[j] = j
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(s.X[a], s.X[b]) })
		var path strings.Builder
		for j, k := range idx {
			op := "L"
			if j == 0 {
				op = "M"
			}
			path.WriteString(op + d.Num(px(s.X[k])) + " " + d.Num(py(s.Y[k])) + " ")
		}
		color := palette[i%len(palette)]
		dash := dashes[(i/len(palette))%len(dashes)]
		d.Elem("path", "d", path.String(), "fill", "none", "stroke", color, "stroke-width", "1.6", "stroke-dasharray", dash)
		d.Newline()
		for _, k := range idx {
			d.Elem("circle", "cx", px(s.X[k]), "cy", py(s.Y[k]), "r", "2.5", "fill", color)
			d.Newline()
		}
		ly := top + 14*i
		d.Elem("line", "x1", left+width+15, "x2", left+width+40, "y1", ly, "y2", ly, "stroke", color, "stroke-width", "2", "stroke-dasharray", dash)
		d.TextElem("text", s.Name, "x", left+width+45, "y", ly+4)
		d.Newline()
	}
	return d.End()
}

// Bar is one bar of a BarChart: its label (left of the bar), its value (the length)
// and the text written after it.
type Bar struct {
	Label string
	Value float64
	Text  string
}

// BarChart draws one horizontal bar per entry, lengths proportional to the values
// (the largest the full width).
type BarChart struct {
	Title string
	Bars  []Bar
	// LabelWidth is the room left of the bars for the labels (0: 220 pixels), and
	// TextWidth the room right of the full width for the value texts (0: 120).
	LabelWidth, TextWidth int
	// Inline marks the chart an image named by its title (Header.Label), for an
	// SVG inside an HTML page.
	Inline bool
}

// WriteSVG writes the chart.
func (c BarChart) WriteSVG(w io.Writer) error {
	const barH, gap, width, top = 22, 8, 420, 40
	left, right := c.LabelWidth, c.TextWidth
	if left <= 0 {
		left = 220
	}
	if right <= 0 {
		right = 120
	}
	maxV := 0.0
	for _, b := range c.Bars {
		maxV = max(maxV, b.Value)
	}
	if maxV <= 0 {
		maxV = 1
	}
	h := top + len(c.Bars)*(barH+gap) + 20
	hd := Header{Width: left + width + right, Height: h, FontSize: 13}
	if c.Inline {
		hd.Label = c.Title
	}
	d := Begin(w, hd)
	d.TextElem("text", c.Title, "x", 10, "y", 22, "font-weight", "bold")
	d.Newline()
	for i, b := range c.Bars {
		y := top + i*(barH+gap)
		bw := int(float64(width) * b.Value / maxV)
		d.TextElem("text", b.Label, "x", left-8, "y", y+barH-6, "text-anchor", "end")
		d.Newline()
		d.Elem("rect", "x", left, "y", y, "width", bw, "height", barH, "fill", "#4878a8")
		d.Newline()
		d.TextElem("text", b.Text, "x", left+bw+6, "y", y+barH-6)
		d.Newline()
	}
	return d.End()
}
