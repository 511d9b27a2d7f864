package curves

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
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
	if strings.Contains(a, "c0392b\" stroke-width") {
		t.Errorf("continuous Hilbert curve drawn with jumps")
	}
	if tr := svgOf(t, "mesh:5x7", "hilbert-trunc"); !strings.Contains(tr, `stroke-dasharray="5 3"`) {
		t.Errorf("truncated Hilbert on 5x7 drawn without jumps")
	}
	three := svgOf(t, "mesh:4x4x3", "snake3d")
	if n := strings.Count(three, "z="); n != 3 {
		t.Errorf("3D drawing has %d layer panels, want 3", n)
	}
	if !strings.Contains(three, `stroke-dasharray="3 3"`) {
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
