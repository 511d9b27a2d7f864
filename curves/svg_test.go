package curves

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

func svgOf(t *testing.T, spec, curve string) string {
	t.Helper()
	g, err := topo.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Generate(curve, g)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, g, o); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML.
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		if _, err := dec.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s %s: invalid XML: %v", spec, curve, err)
		}
	}
	return buf.String()
}

func TestSVG(t *testing.T) {
	a := svgOf(t, "mesh:8x8", "hilbert")
	if b := svgOf(t, "mesh:8x8", "hilbert"); a != b {
		t.Errorf("SVG output is not deterministic")
	}
	if n := strings.Count(a, "<circle"); n != 64 {
		t.Errorf("%d nodes drawn, want 64", n)
	}
	// Steps are paths of segments (L); the legend's samples are lines (H).
	jumps := regexp.MustCompile(`stroke-dasharray="5 3" d="M[0-9]+ [0-9]+L`)
	if jumps.MatchString(a) {
		t.Errorf("continuous Hilbert curve drawn with jumps")
	}
	if tr := svgOf(t, "mesh:5x7", "hilbert-trunc"); !jumps.MatchString(tr) {
		t.Errorf("truncated Hilbert on 5x7 drawn without jumps")
	}
	three := svgOf(t, "mesh:4x4x3", "snake3d")
	if n := strings.Count(three, "z="); n != 3 {
		t.Errorf("3D drawing has %d layer panels, want 3", n)
	}
	if !regexp.MustCompile(`stroke-dasharray="3 3" d="M[0-9]+ [0-9]+L`).MatchString(three) {
		t.Errorf("3D drawing lacks the dashed steps between layers")
	}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, topo.Mesh(2, 2, 2, 2), RowMajor(16)); err == nil {
		t.Errorf("4D grid drawn")
	}
	if err := WriteSVG(&buf, topo.Mesh(2, 2), Order{0, 0, 1, 2}); err == nil {
		t.Errorf("invalid order drawn")
	}
}

// A reader can read the picture without the help text: a legend names the machine
// and every mark, the first and last nodes differ in shape (a square, a diamond),
// not only in colour, and every text lies inside the picture, on narrow grids too
// (text widths estimated at 0.62 of the font size a character).
func TestSVGLegendAndTextInside(t *testing.T) {
	for _, c := range []struct{ spec, curve string }{{"mesh:4x4", "hilbert"}, {"mesh:6", "snake"}, {"mesh:4x4x3", "snake3d"}, {"torus:4x4", "snake"}, {"mesh:16x16", "hilbert"}} {
		s := svgOf(t, c.spec, c.curve)
		dec := xml.NewDecoder(strings.NewReader(s))
		var w, h float64
		var texts []string
		starts, ends := 0, 0
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			a := map[string]string{}
			for _, at := range se.Attr {
				a[at.Name.Local] = at.Value
			}
			num := func(k string) float64 { v, _ := strconv.ParseFloat(a[k], 64); return v }
			switch se.Name.Local {
			case "svg":
				w, h = num("width"), num("height")
			case "rect":
				if a["stroke"] == "#27ae60" {
					starts++
				}
			case "path":
				if a["stroke"] == "#c0392b" && a["stroke-width"] == "2" {
					ends++
				}
			case "text":
				var body string
				if tok, err := dec.Token(); err == nil {
					if cd, ok := tok.(xml.CharData); ok {
						body = string(cd)
					}
				}
				texts = append(texts, body)
				x, y, size := num("x"), num("y"), num("font-size")
				if x < 0 || x+0.62*size*float64(len(body)) > w || y-size < 0 || y > h {
					t.Errorf("%s: text %q at (%g, %g) runs outside the %gx%g picture", c.spec, body, x, y, w, h)
				}
			}
		}
		if starts != 2 || ends != 2 {
			t.Errorf("%s: %d start squares and %d end diamonds, want 2 each (the node's and the legend's)", c.spec, starts, ends)
		}
		joined := strings.Join(texts, "|")
		for _, want := range []string{c.spec + ": ordering of", "first node", "last node", "step of one hop", "wraparound", "jump of two or more hops"} {
			if !strings.Contains(joined, want) {
				t.Errorf("%s: no legend text %q in %q", c.spec, want, joined)
			}
		}
	}
}
