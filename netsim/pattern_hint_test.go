package netsim

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPatternTypoHint: every spelling ParsePattern accepts (the names and their
// other spellings, alltoall, nbody, halo) with one letter dropped or two
// neighbours swapped is refused with a "did you mean" naming a pattern by its
// own name (Patterns), the one the misspelt spelling names when the hint is
// unambiguous by distance one.
func TestPatternTypoHint(t *testing.T) {
	hint := regexp.MustCompile(`\(did you mean ([^?]+)\?\)`)
	spellings := slices.Concat(Patterns(), []string{"alltoall", "nbody", "halo"})
	checked := 0
	for _, s := range spellings {
		own, err := ParsePattern(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var typos []string
		for i := range len(s) {
			typos = append(typos, s[:i]+s[i+1:])
			if i+1 < len(s) && s[i] != s[i+1] {
				typos = append(typos, s[:i]+s[i+1:i+2]+s[i:i+1]+s[i+2:])
			}
		}
		for _, typo := range typos {
			if _, err := ParsePattern(typo); err == nil {
				continue // another spelling (halo2d without its d is not one: checked)
			} else {
				m := hint.FindStringSubmatch(err.Error())
				if m == nil {
					t.Errorf("%q (from %q): no hint: %v", typo, s, err)
					continue
				}
				if !slices.Contains(Patterns(), m[1]) {
					t.Errorf("%q: hint %q is not a pattern's own name", typo, m[1])
				}
				if m[1] != own.Name() && !strings.HasPrefix(s, "halo") {
					t.Errorf("%q (from %q): hint %q, want %q", typo, s, m[1], own.Name())
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no misspelling refused: the test checks nothing")
	}
	if _, err := ParsePattern("nbdy"); err == nil || !strings.Contains(err.Error(), `"nbdy" (did you mean n-body?)`) {
		t.Errorf("nbdy: %v", err)
	}
}
