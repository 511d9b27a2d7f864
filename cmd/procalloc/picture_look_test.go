package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svgTexts reads an SVG's size and its texts, and fails the test when a text
// runs outside the picture (widths estimated at 0.62 of the font size a
// character, the estimate the pictures size themselves by).
func svgTexts(t *testing.T, path string) (w, h float64, texts []string, elems map[string]int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"NaN", "Inf", "<nil>"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("%s says %s", path, bad)
		}
	}
	elems = map[string]int{}
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	rootSize := 0.0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		elems[se.Name.Local]++
		a := map[string]string{}
		for _, at := range se.Attr {
			a[at.Name.Local] = at.Value
		}
		num := func(k string) float64 { v, _ := strconv.ParseFloat(a[k], 64); return v }
		switch se.Name.Local {
		case "svg":
			w, h, rootSize = num("width"), num("height"), num("font-size")
		case "rect":
			if a["fill"] == "white" && (a["width"] == "100%" || num("width") == w) {
				elems["background"]++
			}
		case "text":
			var body string
			if tok, err := dec.Token(); err == nil {
				if cd, ok := tok.(xml.CharData); ok {
					body = string(cd)
				}
			}
			texts = append(texts, body)
			size := rootSize
			if a["font-size"] != "" {
				size = num("font-size")
			}
			x, y := num("x"), num("y")
			if x < 0 || x+0.62*size*float64(len(body)) > w || y-size < 0 || y > h {
				t.Errorf("%s: text %q at (%g, %g) runs outside the %gx%g picture", path, body, x, y, w, h)
			}
		}
	}
	return w, h, texts, elems
}

// voronoi --svg: a white ground, a legend, and points a million units apart drawn
// at most about 1000 pixels wide (20 pixels a unit made it 20 million pixels wide).
func TestVoronoiPictureLooks(t *testing.T) {
	dir := t.TempDir()
	pts, svg := filepath.Join(dir, "p.txt"), filepath.Join(dir, "v.svg")
	os.WriteFile(pts, []byte("0 0\n1000000 3\n500000 700000\n"), 0o644)
	if code, _, stderr := runCLI(t, "", "voronoi", "--k", "2", "--points", pts, "--svg", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	w, h, texts, elems := svgTexts(t, svg)
	if w > 1100 || h > 1100 {
		t.Errorf("picture %gx%g: want at most about 1000 pixels a side", w, h)
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"order-2 Voronoi sets of 3 points", "point (", "center of a set", "scale: 1 unit = "} {
		if !strings.Contains(joined, want) {
			t.Errorf("no text %q in %q", want, joined)
		}
	}
	if elems["background"] != 1 {
		t.Errorf("no white ground")
	}
}

// cluster --svg in 3D: one labelled panel per z layer and a caption saying k,
// the lattice, the total and that it is optimal.
func TestClusterPictureLooks(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "c.svg")
	if code, _, stderr := runCLI(t, "", "cluster", "--k", "12", "--dim", "3", "--svg", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, _, texts, elems := svgTexts(t, svg)
	joined := strings.Join(texts, "|")
	for _, want := range []string{"z=0", "z=1", "z=2", "12 points of Z^3, total pairwise L1 136 (optimal)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no text %q in %q", want, joined)
		}
	}
	if elems["background"] != 1 || elems["rect"] != 12+1 {
		t.Errorf("%d rects (%d white grounds), want 12 cells and a ground", elems["rect"], elems["background"])
	}
}

// Above 10,000 dots voronoi --svg leaves out the tooltips (20,000 points with
// 68,805 sets did not render in Chromium in 400 s with them, in 13 s without) and
// says so.
func TestVoronoiPictureManyDots(t *testing.T) {
	dir := t.TempDir()
	pts, svg := filepath.Join(dir, "p.txt"), filepath.Join(dir, "v.svg")
	var b strings.Builder
	for x := range 80 {
		for y := range 80 {
			fmt.Fprintf(&b, "%d %d\n", 3*x+y%2, 3*y+x%3)
		}
	}
	os.WriteFile(pts, []byte(b.String()), 0o644)
	if code, _, stderr := runCLI(t, "", "voronoi", "--k", "2", "--points", pts, "--svg", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, _, texts, elems := svgTexts(t, svg)
	if elems["circle"] <= voronoiTooltipMax {
		t.Fatalf("%d dots: the test needs more than %d", elems["circle"], voronoiTooltipMax)
	}
	if elems["title"] != 0 || !strings.Contains(strings.Join(texts, "|"), "no tooltips: more than 10000 dots") {
		t.Errorf("%d tooltips on %d dots, legend %q", elems["title"], elems["circle"], texts)
	}
}
