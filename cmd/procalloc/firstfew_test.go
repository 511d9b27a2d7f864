package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestFirstFew checks the one shortened list of the commands' messages (firstFew,
// behind lineList, listValues and warnDamaged): the items shown, in order, then
// the count of the rest, which with the items shown makes the list's length.
func TestFirstFew(t *testing.T) {
	for n := range 9 {
		lines := make([]int, n)
		vals := make([]string, n)
		for i := range lines {
			lines[i], vals[i] = 10+i, fmt.Sprintf("v%d", i)
		}
		got := lineList(lines)
		shown := min(n, 5)
		if c := strings.Count(got, "line "); c != shown {
			t.Errorf("lineList of %d: %q shows %d lines, want %d", n, got, c, shown)
		}
		if more := fmt.Sprintf(", ... %d more", n-shown); (n > shown) != strings.HasSuffix(got, more) {
			t.Errorf("lineList of %d: %q, want it to end in %q only when lines are left out", n, got, more)
		}
		if got, want := listValues(vals), strings.Join(vals[:min(n, 6)], ", "); n <= 6 && got != want || n > 6 && got != fmt.Sprintf("%s, ... %d more", want, n-6) {
			t.Errorf("listValues of %d: %q", n, got)
		}
	}
}
