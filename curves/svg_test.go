package curves

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
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

// A grid too large to draw node by node (a 512x512 mesh was 10,280 pixels a side,
// a grey wash scaled to a screen) is drawn in blocks coloured by their mean rank:
// at most svgMaxPx a side, no dots, each block's colour that of its nodes' mean
// rank, a 3D torus' 32 layers as labelled panels, every text inside.
func TestSVGBlocks(t *testing.T) {
	g := topo.Mesh(512, 512)
	var buf bytes.Buffer
	if err := WriteSVG(&buf, g, RowMajor(g.N())); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if strings.Contains(s, "<circle") {
		t.Errorf("nodes drawn one by one")
	}
	var w, h int
	if _, err := fmt.Sscanf(s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"`, &w, &h); err != nil || w > svgMaxPx || h > svgMaxPx {
		t.Fatalf("picture %dx%d (%v), want at most %d a side", w, h, err, svgMaxPx)
	}
	if !strings.Contains(s, "in blocks of 4x4 nodes") || !strings.Contains(s, ">rank 262143<") {
		t.Errorf("legend does not say the block size or the last rank")
	}
	// Row-major order: the bottom-left block holds ranks y*512+x, x and y below 4,
	// mean 1.5 + 512*1.5; the top-right one 508..511 of the top four rows.
	by := 512 / 4
	for _, c := range []struct {
		x, y int
		mean float64
	}{{0, 0, 1.5 + 512*1.5}, {127, 127, 510.5 + 512*509.5}} {
		want := fmt.Sprintf(`<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, svgMargin+c.x*svgBlockPx, svgMargin+(by-1-c.y)*svgBlockPx, svgBlockPx, svgBlockPx, rankColour(c.mean/float64(g.N()-1)))
		if !strings.Contains(s, want) {
			t.Errorf("no block %s", want)
		}
	}
	if line := svgOf(t, "mesh:5000", "snake"); !strings.Contains(line, "in blocks of 32 nodes") {
		t.Errorf("a line's blocks are not named by their length")
	}
	three := svgOf(t, "torus:32x32x32", "hilbert3d")
	if n := strings.Count(three, ">z="); n != 32 {
		t.Errorf("%d layer panels, want 32", n)
	}
	for _, pic := range []string{s, three} {
		var w, h float64
		fmt.Sscanf(pic, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g"`, &w, &h)
		for _, m := range regexp.MustCompile(`<text x="([0-9]+)" y="([0-9]+)" font-size="([0-9]+)"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(pic, -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			size, _ := strconv.ParseFloat(m[3], 64)
			if x < 0 || x+0.62*size*float64(len(m[4])) > w || y-size < 0 || y > h {
				t.Errorf("text %q at (%g, %g) runs outside the %gx%g picture", m[4], x, y, w, h)
			}
		}
	}
}

// The rank colours grow lighter from the first rank to the last (relative
// luminance strictly increasing), so ranks read in order in black and white.
func TestRankColourLightness(t *testing.T) {
	prev := -1.0
	for i := 0; i <= 100; i++ {
		var r, g, b int
		fmt.Sscanf(rankColour(float64(i)/100), "#%02x%02x%02x", &r, &g, &b)
		lin := func(c int) float64 {
			v := float64(c) / 255
			if v <= 0.04045 {
				return v / 12.92
			}
			return math.Pow((v+0.055)/1.055, 2.4)
		}
		l := 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
		if l <= prev {
			t.Errorf("rank colour at %d%% (#%02x%02x%02x) not lighter than the one before", i, r, g, b)
		}
		prev = l
	}
}
