package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// wellFormed parses b as XML to the end and returns the character data of every
// element named name, in order.
func wellFormed(t *testing.T, b []byte, name string) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	in := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return texts
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			in = tk.Name.Local == name
			if in {
				texts = append(texts, "")
			}
		case xml.CharData:
			if in {
				texts[len(texts)-1] += string(tk)
			}
		case xml.EndElement:
			in = false
		}
	}
}

func TestDocElementsAndNumbers(t *testing.T) {
	for _, c := range []struct {
		num  Numbers
		want string
	}{{Plain, `cx="1234567.5"`}, {Shortest, `cx="1.2345675e+06"`}, {OneDecimal, `cx="1234567.5"`}} {
		var b bytes.Buffer
		d := Begin(&b, Header{Width: 30, Height: 20, ViewBox: true, Numbers: c.num})
		d.Elem("circle", "cx", 1234567.5, "cy", 7, "r", "2")
		d.Newline()
		d.TextElem("text", `a <b> & "c" 'd'`, "x", 0.25)
		if err := d.End(); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.HasPrefix(out, `<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20" viewBox="0 0 30 20">`+"\n") || !strings.HasSuffix(out, "</svg>\n") {
			t.Fatalf("root element: %q", out)
		}
		if !strings.Contains(out, c.want) || !strings.Contains(out, `cy="7"`) {
			t.Errorf("numbers %d: %q lacks %s", c.num, out, c.want)
		}
		if texts := wellFormed(t, b.Bytes(), "text"); len(texts) != 1 || texts[0] != `a <b> & "c" 'd'` {
			t.Errorf("text read back as %q", texts)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestDocKeepsFirstError(t *testing.T) {
	d := Begin(failWriter{}, Header{Width: 1, Height: 1})
	for range 5000 { // past bufio's buffer
		d.Elem("rect", "width", 1, "height", 1)
	}
	if err := d.End(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("End: %v", err)
	}
}

func TestLineChart(t *testing.T) {
	c := LineChart{Title: "t <1>", XLabel: "load", YLabel: "response", FromZero: true, Series: []Series{
		{Name: "b&f", X: []float64{1, 0.5}, Y: []float64{10, 20}},
		{Name: "mc", X: []float64{0.5, 1}, Y: []float64{15, 12}},
	}}
	var b1, b2 bytes.Buffer
	if err := c.WriteSVG(&b1); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteSVG(&b2); err != nil || !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatalf("second drawing differs (%v)", err)
	}
	texts := wellFormed(t, b1.Bytes(), "text")
	for _, want := range []string{"t <1>", "load", "response", "b&f", "mc", "0", "0.5", "1"} {
		found := false
		for _, s := range texts {
			found = found || s == want
		}
		if !found {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	// Points are joined in order of x: the first series starts at x = 0.5 (left).
	if !strings.Contains(b1.String(), `<path d="M90.0 `) {
		t.Errorf("first line does not start at the left edge:\n%s", b1.String())
	}
	// Values spanning more than two decades get a logarithmic axis.
	c.Series = []Series{{Name: "s", X: []float64{1, 2, 3}, Y: []float64{1, 50, 5000}}}
	b1.Reset()
	if err := c.WriteSVG(&b1); err != nil || !strings.Contains(b1.String(), "response (log scale)") {
		t.Errorf("log axis: %v\n%s", err, b1.String())
	}
	for _, bad := range []LineChart{{}, {Series: []Series{{Name: "s", X: []float64{1}, Y: nil}}}} {
		if err := bad.WriteSVG(io.Discard); err == nil {
			t.Errorf("%+v drawn", bad)
		}
	}
}

func TestBarChart(t *testing.T) {
	c := BarChart{Title: "F", Bars: []Bar{{"a", 10, "10.0"}, {"b", 5, "5.0"}, {"c", 0, "0"}}}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, b.Bytes(), "text")
	// The largest bar spans the full width (420), the others in proportion.
	for _, w := range []string{`width="420"`, `width="210"`, `width="0"`} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("no bar of %s:\n%s", w, b.String())
		}
	}
	// Inline, narrower: an image named by its title, 120 + 420 + 80 wide.
	b.Reset()
	c.Inline, c.LabelWidth, c.TextWidth = true, 120, 80
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `<svg xmlns="http://www.w3.org/2000/svg" width="620" height="150" font-family="sans-serif" font-size="13" role="img" aria-label="F">`) {
		t.Errorf("inline root: %q", b.String()[:120])
	}
}
