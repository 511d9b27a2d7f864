package topo

import (
	"strings"
	"testing"
)

// A machine spec with a typo names what was meant (the twenty-fourth round's new
// user's pass, wt-newuser, 2026-12-07): the kind, an option's name, an I/O side,
// and sizes separated by something other than a lowercase x. A spec far from all
// of them gets no hint.
func TestSpecTypoHints(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"mseh:16x16", `unknown kind "mseh" (want mesh, torus, fattree or dragonfly) (did you mean mesh?)`},
		{"Torus:4x4", `(did you mean torus?)`},
		{"fatree:4,4:4", `(did you mean fattree?)`},
		{"mesh:16x16:wrpa=x", `unknown option "wrpa=x" (want wrap=LETTERS or io=SIDE) (did you mean wrap?)`},
		{"mesh:16x16:io=lfet", `no side "lfet" (want left, right, top or bottom, optionally :COUNT, e.g. io=left or io=top:4) (did you mean left?)`},
		{"mesh:16X16", `size "16X16" is not a positive integer (sizes are separated by a lowercase x, e.g. 16x16)`},
		{"torus:8*8*8", `(sizes are separated by a lowercase x`},
		{"mesh:8,8", `(sizes are separated by a lowercase x`},
		{"hypercube:3", `unknown kind "hypercube" (want mesh, torus, fattree or dragonfly)`},
		{"mesh:16x16:colour=red", `unknown option "colour=red" (want wrap=LETTERS or io=SIDE)`},
		{"mesh:16x-1", `size "-1" is not a positive integer`},
	} {
		_, err := ParseMachine(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseMachine(%q) = %v, want %q", c.spec, err, c.want)
		}
		hint := strings.Contains(c.want, "did you mean") || strings.Contains(c.want, "lowercase x")
		if err != nil && !hint && (strings.Contains(err.Error(), "did you mean") || strings.Contains(err.Error(), "lowercase x")) {
			t.Errorf("ParseMachine(%q) = %v, want no hint", c.spec, err)
		}
	}
}
