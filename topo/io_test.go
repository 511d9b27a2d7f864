package topo

import (
	"strings"
	"testing"
)

func TestIOSpecRoundTripAndPlacement(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		side   IOSide
		attach []int // expected compute nodes of the I/O nodes
	}{
		{"mesh:4x4:io=left", IOLeft, []int{0, 4, 8, 12}},
		{"mesh:4x4:io=right", IORight, []int{3, 7, 11, 15}},
		{"mesh:4x2:io=bottom", IOBottom, []int{0, 1, 2, 3}},
		{"mesh:4x2:io=top", IOTop, []int{4, 5, 6, 7}},
		{"mesh:8x8:io=left:2", IOLeft, []int{2 * 8, 6 * 8}}, // rows 2 and 6: middles of 0-3 and 4-7
		{"mesh:8x4:io=top:1", IOTop, []int{4 + 3*8}},
	} {
		g, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if g.Spec() != tc.spec {
			t.Errorf("Spec() = %q, want %q", g.Spec(), tc.spec)
		}
		io := g.IO()
		if io == nil || io.Side != tc.side || io.Count != len(tc.attach) {
			t.Fatalf("%s: IO = %+v", tc.spec, io)
		}
		for j, want := range tc.attach {
			if io.Attach(j) != want {
				t.Errorf("%s: I/O node %d attached to %d, want %d", tc.spec, j, io.Attach(j), want)
			}
			c := g.Coord(io.Attach(j), nil)
			onSide := map[IOSide]bool{IOLeft: c[0] == 0, IORight: c[0] == g.Dims()[0]-1, IOBottom: c[1] == 0, IOTop: c[1] == g.Dims()[1]-1}
			if !onSide[tc.side] {
				t.Errorf("%s: attachment %v not on the %s side", tc.spec, c, tc.side)
			}
		}
		if g.N() != 16 && g.N() != 8 && g.N() != 64 && g.N() != 32 {
			t.Errorf("%s: N = %d changed by the I/O nodes", tc.spec, g.N())
		}
	}
	if g, _ := ParseSpec("mesh:16x16"); g.IO() != nil {
		t.Error("a plain mesh has I/O nodes")
	}
}

func TestIOSpecBadInput(t *testing.T) {
	for spec, want := range map[string]string{
		"mesh:16x16:io=middle":   `no side "middle"`,
		"mesh:16x16:io=":         `no side ""`,
		"mesh:16x16:io=left:0":   "not a positive integer",
		"mesh:16x16:io=left:x":   "not a positive integer",
		"mesh:16x16:io=left:17":  "must be 1..16",
		"mesh:8x8x2:io=left":     "2D mesh",
		"torus:8x8:io=left":      "without wraparound",
		"mesh:8:io=top":          "2D mesh",
		"mesh:4x4:io=left:2:3":   "not a positive integer",
		"mesh:4x4:wrap=x:io=top": "is not a dimension",
	} {
		_, err := ParseSpec(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
}

// FuzzParseSpecIO: any spec either fails with an error or gives a grid whose Spec()
// parses back to the same spec and the same I/O attachment; never a panic.
func FuzzParseSpecIO(f *testing.F) {
	for _, s := range []string{"mesh:16x16:io=left", "mesh:8x4:io=top:2", "mesh:4x4:io=right:4", "mesh:2x2:io=bottom:1", "mesh:4x4:io=left:", "mesh:4:io=left", "torus:4x4:io=top"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		g, err := ParseSpec(spec)
		if err != nil || g.N() > 1<<16 {
			return
		}
		h, err := ParseSpec(g.Spec())
		if err != nil {
			t.Fatalf("%q -> %q does not parse: %v", spec, g.Spec(), err)
		}
		if h.Spec() != g.Spec() || (h.IO() == nil) != (g.IO() == nil) {
			t.Fatalf("%q: %q then %q", spec, g.Spec(), h.Spec())
		}
		if io := g.IO(); io != nil {
			for j := range io.Count {
				if io.Attach(j) != h.IO().Attach(j) || io.Attach(j) < 0 || io.Attach(j) >= g.N() {
					t.Fatalf("%q: I/O node %d attached to %d and %d", spec, j, io.Attach(j), h.IO().Attach(j))
				}
			}
		}
	})
}
