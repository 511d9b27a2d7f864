package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// The properties a reader sees in a chart, checked on its SVG: text inside the
// picture, x tick labels apart, round y ticks, series told apart without colour,
// no NaN. Widths of text are estimated as the charts estimate them (TextWidth).

// svgText is a text element: its anchor point, alignment, size and content.
type svgText struct {
	x, y      float64
	anchor    string
	size      float64
	transform string
	s         string
}

// svgLook is what the checks read from an SVG: the root's size, the texts, and
// per element name the attribute maps in order.
type svgLook struct {
	w, h  float64
	texts []svgText
	elems map[string][]map[string]string
}

func look(t *testing.T, b []byte) svgLook {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	l := svgLook{elems: map[string][]map[string]string{}}
	rootSize := 0.0
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return l
			}
			t.Fatalf("not well-formed: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			a := map[string]string{}
			for _, at := range tk.Attr {
				a[at.Name.Local] = at.Value
			}
			l.elems[tk.Name.Local] = append(l.elems[tk.Name.Local], a)
			num := func(k string) float64 { v, _ := strconv.ParseFloat(a[k], 64); return v }
			switch tk.Name.Local {
			case "svg":
				l.w, l.h, rootSize = num("width"), num("height"), num("font-size")
			case "text":
				size := rootSize
				if a["font-size"] != "" {
					size = num("font-size")
				}
				l.texts = append(l.texts, svgText{x: num("x"), y: num("y"), anchor: a["text-anchor"], size: size, transform: a["transform"]})
				cur = &l.texts[len(l.texts)-1]
			}
		case xml.CharData:
			if cur != nil {
				cur.s += string(tk)
			}
		case xml.EndElement:
			if tk.Name.Local == "text" {
				cur = nil
			}
		}
	}
}

// extent is the estimated horizontal extent of an unrotated text.
func (s svgText) extent() (lo, hi float64) {
	w := TextWidth(s.s, s.size)
	switch s.anchor {
	case "middle":
		return s.x - w/2, s.x + w/2
	case "end":
		return s.x - w, s.x
	}
	return s.x, s.x + w
}

// textInside checks every text lies inside the picture: unrotated texts by their
// estimated extent, the rotated axis label by its anchor.
func (l svgLook) textInside(t *testing.T) {
	t.Helper()
	for _, s := range l.texts {
		lo, hi := s.extent()
		if s.transform != "" {
			lo, hi = s.x, s.x
		}
		if lo < 0 || hi > l.w || s.y-s.size < 0 || s.y > l.h {
			t.Errorf("text %q at (%g, %g) spans x %.0f..%.0f: outside the %gx%g picture", s.s, s.x, s.y, lo, hi, l.w, l.h)
		}
	}
}

func drawLine(t *testing.T, c LineChart) ([]byte, svgLook) {
	t.Helper()
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"NaN", "Inf", "<nil>"} {
		if bytes.Contains(b.Bytes(), []byte(bad)) {
			t.Errorf("the SVG says %s", bad)
		}
	}
	return b.Bytes(), look(t, b.Bytes())
}

// xTickLabels are the texts under the x axis (their y is the x axis' + 18).
func (l svgLook) xTickLabels() []svgText {
	var out []svgText
	for _, s := range l.texts {
		if s.y == lcTop+lcHeight+18 {
			out = append(out, s)
		}
	}
	return out
}

// yTickLabels are the texts right-aligned left of the y axis.
func (l svgLook) yTickLabels() []svgText {
	var out []svgText
	for _, s := range l.texts {
		if s.anchor == "end" && s.x == lcLeft-6 {
			out = append(out, s)
		}
	}
	return out
}

// Percentiles 99, 99.9 and 100 lie 0.5 pixels apart on bench's chart: their labels
// overlapped ("99100"). Labels that would overlap are left out; the first and the
// last stay.
func TestLineChartXTickLabelsApart(t *testing.T) {
	xs := []float64{10, 25, 50, 75, 90, 99, 99.9, 100}
	c := LineChart{Title: "latency", XLabel: "percentile", YLabel: "µs", FromZero: true, Series: []Series{{Name: "a", X: xs, Y: []float64{1, 2, 3, 4, 5, 6, 7, 8}}}}
	_, l := drawLine(t, c)
	ticks := l.xTickLabels()
	if len(ticks) < 2 || ticks[0].s != "10" || ticks[len(ticks)-1].s != "100" {
		t.Fatalf("x tick labels %v: want the first (10) and the last (100)", ticks)
	}
	for i := 1; i < len(ticks); i++ {
		_, hi := ticks[i-1].extent()
		if lo, _ := ticks[i].extent(); lo < hi+4 {
			t.Errorf("x tick labels %q and %q overlap (%.1f > %.1f)", ticks[i-1].s, ticks[i].s, hi, lo)
		}
	}
	// Fifteen load factors 0.05 apart, as a sweep's: never overlapping, most kept.
	xs = nil
	for k := 6; k <= 20; k++ {
		xs = append(xs, float64(k)/20)
	}
	c.Series[0].X, c.Series[0].Y = xs, xs
	_, l = drawLine(t, c)
	ticks = l.xTickLabels()
	for i := 1; i < len(ticks); i++ {
		_, hi := ticks[i-1].extent()
		if lo, _ := ticks[i].extent(); lo < hi+4 {
			t.Errorf("x tick labels %q and %q overlap", ticks[i-1].s, ticks[i].s)
		}
	}
	if len(ticks) < 8 {
		t.Errorf("%d of 15 x tick labels kept, want 8 or more", len(ticks))
	}
}

// The y axis has round ticks (0.193, 0.162, ... before): a step of 1, 2 or 5 times
// a power of ten, equal steps, every label with the same decimals, every value
// between the first tick and the last.
func TestLineChartRoundYTicks(t *testing.T) {
	for _, c := range []struct {
		ys       []float64
		fromZero bool
	}{
		{[]float64{0.0431, 0.0437, 0.1867, 0.1722}, false},
		{[]float64{13820.1, 783912.5, 156000}, true},
		{[]float64{-3.2, 7.9}, true},
		{[]float64{5224.97, 5683.268}, false},
		{[]float64{1.5e9, 2.5e9}, true},
		{[]float64{1e-6, 3e-6}, false},
		{[]float64{42, 42}, false},
	} {
		xs := make([]float64, len(c.ys))
		for i := range xs {
			xs[i] = float64(i)
		}
		_, l := drawLine(t, LineChart{Title: "t", XLabel: "x", YLabel: "y", FromZero: c.fromZero, Series: []Series{{Name: "s", X: xs, Y: c.ys}}})
		ticks := l.yTickLabels()
		if len(ticks) < 3 || len(ticks) > 12 {
			t.Errorf("%v: %d y ticks", c.ys, len(ticks))
			continue
		}
		var vs []float64
		for _, s := range ticks {
			v, err := strconv.ParseFloat(s.s, 64)
			if err != nil {
				t.Fatalf("%v: y tick %q is not a number", c.ys, s.s)
			}
			vs = append(vs, v)
		}
		// Ticks are written from the bottom (lowest value) up.
		step := vs[1] - vs[0]
		mag := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if f := step / mag; math.Abs(f-1) > 1e-6 && math.Abs(f-2) > 1e-6 && math.Abs(f-5) > 1e-6 {
			t.Errorf("%v: y step %g is not 1, 2 or 5 times a power of ten (labels %v)", c.ys, step, vs)
		}
		for i := 1; i < len(vs); i++ {
			if math.Abs(vs[i]-vs[i-1]-step) > 1e-6*step {
				t.Errorf("%v: y ticks %v are not equally spaced", c.ys, vs)
			}
			if strings.Contains(ticks[0].s, ".") && len(ticks[i].s)-strings.Index(ticks[i].s, ".") != len(ticks[0].s)-strings.Index(ticks[0].s, ".") {
				t.Errorf("%v: y tick labels %q and %q have different decimals", c.ys, ticks[0].s, ticks[i].s)
			}
		}
		for _, y := range c.ys {
			if y < vs[0]-1e-9*math.Abs(y) || y > vs[len(vs)-1]+1e-9*math.Abs(y) {
				t.Errorf("%v: %g outside the axis %g..%g", c.ys, y, vs[0], vs[len(vs)-1])
			}
		}
		if c.fromZero && vs[0] > 0 {
			t.Errorf("%v from zero: axis starts at %g", c.ys, vs[0])
		}
	}
	// A log axis: powers of ten, printed without exponents from 0.01 to 100000.
	_, l := drawLine(t, LineChart{Title: "t", YLabel: "µs", Series: []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{0.05, 30000}}}})
	var got []string
	for _, s := range l.yTickLabels() {
		got = append(got, s.s)
	}
	if want := "0.01 0.1 1 10 100 1000 10000 100000"; strings.Join(got, " ") != want {
		t.Errorf("log ticks %q, want %q", got, want)
	}
	// Beyond 10^6, every label with an exponent (not 1000000 under 1e+07).
	_, l = drawLine(t, LineChart{Title: "t", YLabel: "s", Series: []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{14000, 2.1e6}}}})
	got = got[:0]
	for _, s := range l.yTickLabels() {
		got = append(got, s.s)
	}
	if want := "1e+04 1e+05 1e+06 1e+07"; strings.Join(got, " ") != want {
		t.Errorf("log ticks %q, want %q", got, want)
	}
}

// Every series differs from every other in dash pattern or point marker, not
// only in colour (colour-blind readers, black-and-white print), in the lines and
// in the legend; up to 20 series.
func TestLineChartSeriesDistinguishable(t *testing.T) {
	c := LineChart{Title: "t", XLabel: "x", YLabel: "y"}
	for i := range 20 {
		c.Series = append(c.Series, Series{Name: fmt.Sprint("s", i), X: []float64{0, 1}, Y: []float64{float64(i), float64(i + 1)}})
	}
	_, l := drawLine(t, c)
	var lines []map[string]string
	for _, p := range l.elems["path"] {
		if p["stroke-width"] == "1.6" {
			lines = append(lines, p)
		}
	}
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20", len(lines))
	}
	// Markers, in order: two points and one legend entry per series.
	uses := l.elems["use"]
	if len(uses) != 3*20 {
		t.Fatalf("%d markers, want 60 (two points and the legend's per series)", len(uses))
	}
	seen := map[string]int{}
	for i, p := range lines {
		m := uses[3*i]["href"]
		if uses[3*i+1]["href"] != m || uses[3*i+2]["href"] != m || uses[3*i+2]["fill"] != p["stroke"] {
			t.Errorf("series %d: markers %v %v %v, line %v", i, uses[3*i], uses[3*i+1], uses[3*i+2], p)
		}
		key := p["stroke-dasharray"] + "|" + m
		if j, ok := seen[key]; ok {
			t.Errorf("series %d and %d differ in colour only (dash %q, marker %s)", j, i, p["stroke-dasharray"], m)
		}
		seen[key] = i
	}
	for _, d := range l.elems["path"] {
		if id := d["id"]; id != "" && !strings.HasPrefix(id, "mk") {
			t.Errorf("unexpected definition %v", d)
		}
	}
}

// Long names, a long title and many series: every text inside the picture, the
// legend's last entry included.
func TestLineChartTextInside(t *testing.T) {
	c := LineChart{Title: "mean total pairwise L1 against load factor — " + strings.Repeat("mesh:16x16, fcfs, ", 6), XLabel: "allocator (" + strings.Repeat("1=dbt:1/2, 2=d-dbt:1/16, 3=mbs, 4=plas, ", 4) + ")", YLabel: "mean response (s)", FromZero: true}
	for i := range 40 {
		c.Series = append(c.Series, Series{Name: fmt.Sprintf("slurm:tree:topo/testdata/topology.conf:hilbert-%d", i), X: []float64{0.5, 1}, Y: []float64{1, 2}})
	}
	_, l := drawLine(t, c)
	l.textInside(t)
}

// Points that are not finite numbers are left out, and the chart says so; a chart
// of only such points is an error.
func TestLineChartNonFinite(t *testing.T) {
	c := LineChart{Title: "t", XLabel: "x", YLabel: "y", FromZero: true, Series: []Series{
		{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, math.NaN(), 3}},
		{Name: "b", X: []float64{1, math.Inf(1), 3}, Y: []float64{2, 2, math.Inf(-1)}},
	}}
	b, l := drawLine(t, c)
	if !bytes.Contains(b, []byte("3 points not drawn: x or y is not a finite number")) {
		t.Errorf("no note of the 3 points left out:\n%s", b)
	}
	if n := len(l.elems["use"]); n != 3+2 {
		t.Errorf("%d markers, want 3 points and 2 legend entries", n)
	}
	l.textInside(t)
	c.Series = c.Series[1:]
	c.Series[0].X, c.Series[0].Y = []float64{math.NaN()}, []float64{1}
	if err := c.WriteSVG(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("only non-finite points: %v", err)
	}
}

// Long allocator specs as labels (compare --svg), long value texts, a long title,
// and values that are not finite positive numbers: every text inside the
// picture, no bar of negative or undefined width.
func TestBarChartTextInside(t *testing.T) {
	for _, c := range []BarChart{
		{Title: "mean total pairwise L1 (hops) — mesh:16x16, fcfs, 21323 jobs", Bars: []Bar{
			{"slurm:tree:topo/testdata/topology.conf:hilbert", 5224.97, "5224.970"},
			{"mc1x1", 5683.268, "5683.268 hops, the most of all the allocators"},
			{"bf:hilbert", -3, "-3"},
			{"bf:snake", math.NaN(), "-"},
			{"bf:rcm", math.Inf(1), "-"},
		}},
		{Title: strings.Repeat("% of multi-node jobs inside one leaf switch ", 3), LabelWidth: 120, TextWidth: 80, Inline: true, Bars: []Bar{{"current", 3.88, "3.880"}}},
	} {
		var b bytes.Buffer
		if err := c.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b.Bytes(), []byte("NaN")) || bytes.Contains(b.Bytes(), []byte("Inf")) {
			t.Errorf("the SVG says NaN or Inf:\n%s", b.Bytes())
		}
		l := look(t, b.Bytes())
		l.textInside(t)
		for _, r := range l.elems["rect"] {
			if r["width"] == "100%" {
				continue // the ground
			}
			if w, err := strconv.Atoi(r["width"]); err != nil || w < 0 || float64(w) > l.w {
				t.Errorf("bar of width %q", r["width"])
			}
		}
	}
}

// Series with the same points draw one line over another: the legend says so,
// else the reader looks for the hidden line in vain (compare --loads of three
// allocators that give every job the same start). A standalone bar chart has a
// white ground, as the line chart has (a dark viewer showed black on black).
func TestChartCoincidentSeriesAndGround(t *testing.T) {
	c := LineChart{Title: "t", XLabel: "x", YLabel: "y", FromZero: true, Series: []Series{
		{Name: "mm", X: []float64{0.6, 0.8, 1}, Y: []float64{7, 2, 1}},
		{Name: "mc1x1", X: []float64{0.6, 0.8, 1}, Y: []float64{7, 2, 1}},
		{Name: "bf:hilbert", X: []float64{0.6, 0.8, 1}, Y: []float64{7, 2, 1.5}},
	}}
	_, l := drawLine(t, c)
	var legend []string
	for _, s := range l.texts {
		if s.x == lcLeft+lcWidth+45 {
			legend = append(legend, s.s)
		}
	}
	if want := []string{"mm", "mc1x1 (same values as mm)", "bf:hilbert"}; strings.Join(legend, "|") != strings.Join(want, "|") {
		t.Errorf("legend %q, want %q", legend, want)
	}
	l.textInside(t)
	var b bytes.Buffer
	if err := (BarChart{Title: "F", Bars: []Bar{{"a", 1, "1"}}}).WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if r := look(t, b.Bytes()).elems["rect"]; len(r) != 2 || r[0]["fill"] != "white" || r[0]["width"] != "100%" {
		t.Errorf("bar chart rects %v: want a white ground, then the bar", r)
	}
}
