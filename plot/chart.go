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
	"unicode/utf8"
)

// Series is one line of a LineChart: points (X[i], Y[i]), drawn in order of X.
type Series struct {
	Name string    // the legend's entry
	X, Y []float64 // the points' coordinates, of equal length
}

// LineChart draws one line per series with axes, ticks and a legend. The y axis is
// logarithmic when the values are positive and span more than two decades; else it
// starts at zero, or with FromZero false spans only the values (with a 5% margin),
// for small differences between large values.
type LineChart struct {
	Title, XLabel, YLabel string   // the chart's title and axis labels
	Series                []Series // the lines, drawn and listed in the legend in this order
	FromZero              bool     // a linear y axis starts at zero
}

// lineChart layout (pixels): the plot area's left and top edges, width and height,
// and the least room right of it for the legend.
const lcLeft, lcTop, lcWidth, lcHeight, lcLegend = 90, 50, 520, 340, 230

// The colours, dash patterns and point markers of the lines, series i taking
// colour i mod 12, dash i mod 4 and marker i mod 5: the first 20 series differ in
// dash or marker as well as colour (colour-blind readers, black-and-white print),
// and the first 60 in at least one of the three.
var (
	palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"}
	dashes  = []string{"", "6 3", "2 2", "8 3 2 3"}
	// markers are paths around (0, 0), referenced by <use href="#mkI">: a circle,
	// a square, a triangle, a diamond and a cross.
	markers = []string{
		"M-3 0a3 3 0 1 0 6 0a3 3 0 1 0 -6 0Z",
		"M-2.6 -2.6H2.6V2.6H-2.6Z",
		"M0 -3.4L3.2 2.4H-3.2Z",
		"M0 -3.6L3.2 0L0 3.6L-3.2 0Z",
		"M-3 -1.2H-1.2V-3H1.2V-1.2H3V1.2H1.2V3H-1.2V1.2H-3Z",
	}
)

// seriesStyle is the colour, dash pattern and marker index of series i.
func seriesStyle(i int) (colour, dash string, marker int) {
	return palette[i%len(palette)], dashes[i%len(dashes)], i % len(markers)
}

// charWidth is the width of a character of text at font size 1 (a generous
// average of sans-serif fonts' digits and lower-case letters): the charts size
// their margins from it, so that no text runs past the picture's edge.
const charWidth = 0.62

// TextWidth estimates the width in pixels of s at font size size: every picture
// procalloc draws sizes its margins and legends from it.
func TextWidth(s string, size float64) float64 {
	return charWidth * size * float64(utf8.RuneCountInString(s))
}

// niceStep is the step of 1, 2 or 5 times a power of ten nearest above raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f <= 1:
		return mag
	case f <= 2:
		return 2 * mag
	case f <= 5:
		return 5 * mag
	}
	return 10 * mag
}

// linearTicks rounds [lo, hi] outwards to multiples of a round step (1, 2 or 5
// times a power of ten) giving about five intervals, and returns the ticks and
// their labels, every label with the same number of decimals.
func linearTicks(lo, hi float64) (ticks []float64, labels []string) {
	step := niceStep((hi - lo) / 5)
	k0, k1 := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	big := max(math.Abs(k0), math.Abs(k1)) * step
	for k := k0; k <= k1; k++ {
		v := k * step
		if k == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, v)
		labels = append(labels, tickLabel(v, step, big))
	}
	return ticks, labels
}

// tickLabel prints v, a multiple of step, with the decimals step needs; values
// of 10^7 and more or steps below 10^-4 with an exponent.
func tickLabel(v, step, big float64) string {
	if step >= 1e-4 && big < 1e7 {
		return strconv.FormatFloat(v, 'f', max(0, int(-math.Floor(math.Log10(step)+1e-9))), 64)
	}
	if v == 0 {
		return "0"
	}
	digits := int(math.Floor(math.Log10(big))-math.Floor(math.Log10(step)+1e-9)) + 1
	return strconv.FormatFloat(v, 'g', min(max(digits, 1), 15), 64)
}

// thinLabels keeps the labels (centred at xs, in increasing order) that do not
// overlap a kept one: the first and the last always, the others left to right.
func thinLabels(xs []float64, labels []string, size float64) []bool {
	const gap = 6
	keep := make([]bool, len(xs))
	if len(xs) == 0 {
		return keep
	}
	n := len(xs) - 1
	keep[0], keep[n] = true, true
	half := func(i int) float64 { return TextWidth(labels[i], size) / 2 }
	if n > 0 && xs[0]+half(0)+gap > xs[n]-half(n) {
		keep[n] = false // two labels only, overlapping: the first one
	}
	last := 0
	for i := 1; i < n; i++ {
		if xs[last]+half(last)+gap <= xs[i]-half(i) && xs[i]+half(i)+gap <= xs[n]-half(n) {
			keep[i], last = true, i
		}
	}
	return keep
}

// legendName is series i's name in the legend, which says when the series has the
// same points as an earlier one: its line lies under that one's, and the reader
// would look for it in vain.
func legendName(series []Series, i int) string {
	s := series[i]
	for _, e := range series[:i] {
		if slices.Equal(e.X, s.X) && slices.Equal(e.Y, s.Y) && len(s.X) > 0 {
			return s.Name + " (same values as " + e.Name + ")"
		}
	}
	return s.Name
}

// WriteSVG writes the chart; a chart without points is an error. Points whose x or
// y is not a finite number (NaN, ±Inf) are left out, and the chart says how many.
func (c LineChart) WriteSVG(w io.Writer) error {
	const left, top, width, height = lcLeft, lcTop, lcWidth, lcHeight
	const fontSize = 12
	xs := map[float64]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	skipped := 0
	for _, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %s has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		for i := range s.X {
			if !finite(s.X[i]) || !finite(s.Y[i]) {
				skipped++
				continue
			}
			xs[s.X[i]] = true
			xmin, xmax = min(xmin, s.X[i]), max(xmax, s.X[i])
			lo, hi = min(lo, s.Y[i]), max(hi, s.Y[i])
		}
	}
	if len(xs) == 0 {
		if skipped > 0 {
			return fmt.Errorf("nothing to plot: none of the %d points has finite values", skipped)
		}
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
		lo, hi = min(lo, 0), max(hi, 0)
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
	var yticks []float64
	var ylabels []string
	tr := func(v float64) float64 { return v }
	if logY {
		tr = math.Log10
		e0, e1 := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		lo, hi = math.Pow(10, e0), math.Pow(10, e1)
		// Powers of ten written out from 0.0001 to 1000000; when the axis goes
		// beyond, every label with an exponent (not 1000000 under 1e+07).
		plain := e0 >= -4 && e1 <= 6
		for e := e0; e <= e1; e++ {
			v := math.Pow(10, e)
			yticks = append(yticks, v)
			if plain {
				ylabels = append(ylabels, tickLabel(v, v, v))
			} else {
				ylabels = append(ylabels, strconv.FormatFloat(v, 'g', 1, 64))
			}
		}
		ylabel += " (log scale)"
	} else {
		yticks, ylabels = linearTicks(lo, hi)
		lo, hi = yticks[0], yticks[len(yticks)-1]
	}
	px := func(x float64) float64 { return left + width*(x-xmin)/(xmax-xmin) }
	py := func(y float64) float64 { return top + height - height*(tr(y)-tr(lo))/(tr(hi)-tr(lo)) }
	// The legend's room fits the longest name, the picture the title, and its
	// height the legend (14 pixels a line).
	legendW := float64(lcLegend)
	for i := range c.Series {
		legendW = max(legendW, 45+TextWidth(legendName(c.Series, i), fontSize)+10)
	}
	totalW := max(left+width+legendW, 20+TextWidth(c.Title, fontSize*1.1), 20+TextWidth(c.XLabel, fontSize))
	totalH := max(top+height+60, top+14*len(c.Series)+10)
	if skipped > 0 {
		totalH = max(totalH, top+height+76)
	}
	d := Begin(w, Header{Width: int(math.Ceil(totalW)), Height: totalH, FontSize: fontSize, Numbers: OneDecimal, Background: "white"})
	d.OpenElem("defs")
	for i, m := range markers {
		d.Elem("path", "id", "mk"+strconv.Itoa(i), "d", m)
	}
	d.CloseElem("defs")
	d.Newline()
	d.TextElem("text", c.Title, "x", 10, "y", 22, "font-weight", "bold")
	d.Newline()
	d.Elem("path", "d", fmt.Sprintf("M%d %d V%d H%d", left, top, top+height, left+width), "fill", "none", "stroke", "black")
	d.Newline()
	for i, v := range yticks {
		y := py(v)
		d.Elem("line", "x1", left, "x2", left+width, "y1", y, "y2", y, "stroke", "#ddd")
		d.TextElem("text", ylabels[i], "x", left-6, "y", y+4, "text-anchor", "end")
		d.Newline()
	}
	var ticks []float64
	for x := range xs {
		ticks = append(ticks, x)
	}
	slices.Sort(ticks)
	tx := make([]float64, len(ticks))
	tl := make([]string, len(ticks))
	for i, x := range ticks {
		tx[i], tl[i] = px(x), strconv.FormatFloat(x, 'g', -1, 64)
	}
	for i, keep := range thinLabels(tx, tl, fontSize) {
		if keep {
			d.Elem("line", "x1", tx[i], "x2", tx[i], "y1", top+height, "y2", top+height+4, "stroke", "black")
			d.TextElem("text", tl[i], "x", tx[i], "y", top+height+18, "text-anchor", "middle")
			d.Newline()
		}
	}
	if TextWidth(c.XLabel, fontSize) <= 2*(left+width/2)-20 {
		d.TextElem("text", c.XLabel, "x", left+width/2, "y", top+height+40, "text-anchor", "middle")
	} else { // centred it would run off the left edge (batch's list of allocators)
		d.TextElem("text", c.XLabel, "x", 10, "y", top+height+40)
	}
	d.Newline()
	d.TextElem("text", ylabel, "x", 14, "y", top+height/2, "transform", fmt.Sprintf("rotate(-90 14 %d)", top+height/2), "text-anchor", "middle")
	d.Newline()
	if skipped > 0 {
		d.TextElem("text", fmt.Sprintf("%d points not drawn: x or y is not a finite number", skipped), "x", 10, "y", top+height+62, "fill", "#a40")
		d.Newline()
	}
	for i, s := range c.Series {
		var idx []int
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Y[j]) {
				idx = append(idx, j)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.X[a], s.X[b]) })
		color, dash, mk := seriesStyle(i)
		marker := "#mk" + strconv.Itoa(mk)
		if len(idx) > 0 {
			var path strings.Builder
			for j, k := range idx {
				op := "L"
				if j == 0 {
					op = "M"
				}
				path.WriteString(op + d.Num(px(s.X[k])) + " " + d.Num(py(s.Y[k])) + " ")
			}
			d.Elem("path", "d", path.String(), "fill", "none", "stroke", color, "stroke-width", "1.6", "stroke-dasharray", dash)
			d.Newline()
		}
		for _, k := range idx {
			d.Elem("use", "href", marker, "x", px(s.X[k]), "y", py(s.Y[k]), "fill", color)
			d.Newline()
		}
		ly := top + 14*i
		d.Elem("line", "x1", left+width+12, "x2", left+width+40, "y1", ly, "y2", ly, "stroke", color, "stroke-width", "2", "stroke-dasharray", dash)
		d.Elem("use", "href", marker, "x", left+width+26, "y", ly, "fill", color)
		d.TextElem("text", legendName(c.Series, i), "x", left+width+45, "y", ly+4)
		d.Newline()
	}
	return d.End()
}

// Bar is one bar of a BarChart: its label (left of the bar), its value (the length)
// and the text written after it.
type Bar struct {
	Label string  // written left of the bar
	Value float64 // the bar's length, relative to the largest value
	Text  string  // written right of the bar, e.g. the value formatted
}

// BarChart draws one horizontal bar per entry, lengths proportional to the values
// (the largest the full width; a value that is not a finite positive number has
// no bar).
type BarChart struct {
	Title string // the chart's title
	Bars  []Bar  // top to bottom
	// LabelWidth is the least room left of the bars for the labels (0: 220
	// pixels), and TextWidth the least room right of the full width for the value
	// texts (0: 120); both grow to fit the longest label and text.
	LabelWidth, TextWidth int
	// Inline marks the chart an image named by its title (Header.Label), for an
	// SVG inside an HTML page.
	Inline bool
}

// WriteSVG writes the chart.
func (c BarChart) WriteSVG(w io.Writer) error {
	const barH, gap, width, top, fontSize = 22, 8, 420, 40, 13
	left, right := c.LabelWidth, c.TextWidth
	if left <= 0 {
		left = 220
	}
	if right <= 0 {
		right = 120
	}
	maxV := 0.0
	drawn := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	for _, b := range c.Bars {
		if drawn(b.Value) {
			maxV = max(maxV, b.Value)
		}
		left = max(left, int(math.Ceil(TextWidth(b.Label, fontSize)))+16)
		right = max(right, int(math.Ceil(TextWidth(b.Text, fontSize)))+12)
	}
	if maxV <= 0 {
		maxV = 1
	}
	h := top + len(c.Bars)*(barH+gap) + 20
	hd := Header{Width: max(left+width+right, int(math.Ceil(20+TextWidth(c.Title, fontSize*1.1)))), Height: h, FontSize: fontSize}
	if c.Inline {
		hd.Label = c.Title
	}
	if !c.Inline { // inline, the page's ground shows through
		hd.Background = "white"
	}
	d := Begin(w, hd)
	d.TextElem("text", c.Title, "x", 10, "y", 22, "font-weight", "bold")
	d.Newline()
	for i, b := range c.Bars {
		y := top + i*(barH+gap)
		bw := 0
		if drawn(b.Value) {
			bw = int(float64(width) * b.Value / maxV)
		}
		d.TextElem("text", b.Label, "x", left-8, "y", y+barH-6, "text-anchor", "end")
		d.Newline()
		d.Elem("rect", "x", left, "y", y, "width", bw, "height", barH, "fill", "#4878a8")
		d.Newline()
		d.TextElem("text", b.Text, "x", left+bw+6, "y", y+barH-6)
		d.Newline()
	}
	return d.End()
}
