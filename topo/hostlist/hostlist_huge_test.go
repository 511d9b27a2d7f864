package hostlist

import (
	"strings"
	"testing"
)

// Errors of huge expressions quote them clipped.
func TestExpandHugeExpressionErrors(t *testing.T) {
	for _, expr := range []string{
		strings.Repeat("[", 100000),
		"n[1-4]" + strings.Repeat("[1-2]", 30000),
		strings.Repeat("p", 1<<20) + "[2-1]",
		"n[" + strings.Repeat("9", 100000) + "]",
		"a," + strings.Repeat("[", 100000),
	} {
		_, err := Expand(expr)
		if err == nil {
			t.Fatalf("%.40q... accepted", expr)
		}
		if msg := err.Error(); len(msg) > 500 { // up to three clipped quotes
			t.Errorf("%.40q...: message of %d bytes: %.200s", expr, len(msg), msg)
		}
	}
	_, err := Expand("n[3-1]")
	if err == nil || err.Error() != `"n[3-1]": reversed range "3-1" in "n[3-1]": invalid hostlist` {
		t.Errorf("Expand(n[3-1]) = %v", err)
	}
	_, err = Expand("a,n[3-1]")
	if err == nil || err.Error() != `"a,n[3-1]": reversed range "3-1" in "n[3-1]": invalid hostlist` {
		t.Errorf("Expand(a,n[3-1]) = %v", err)
	}
}
