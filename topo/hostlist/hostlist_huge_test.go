package hostlist

import (
	"regexp"
	"strings"
	"testing"
)

// quotedRe matches a Go-quoted string in a message.
var quotedRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Errors of huge expressions quote them once, clipped around the fault, and name
// where (the byte); the other quotes (the item, a number, a range) are short. Four
// clipped quotes made up to some 545 bytes, the expression and its item repeating
// each other.
func TestExpandHugeExpressionErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{strings.Repeat("[", 100000), "(byte 1 of 100000): unmatched '['"},
		{"n[1-4]" + strings.Repeat("[1-2]", 30000), "more than 4194304 host names"},
		{strings.Repeat("p", 1<<20) + "[2-1]", `pppp[2-1]" (byte 1048578 of 1048581): reversed range "2-1"`},
		{"n[" + strings.Repeat("9", 100000) + "]", `(byte 3 of 100003): "9999999999999999999999999999999999999999"... is too large`},
		{"a," + strings.Repeat("[", 100000), "(byte 3 of 100002): unmatched '['"},
		// A fault deep inside a long expression: the quote is cut around it.
		{strings.Repeat("node1,", 5000) + "n[1-x]," + strings.Repeat("node2,", 5000), `node1,n[1-x],node2`},
		{strings.Repeat("m", 300) + "[1-" + strings.Repeat("x", 300) + "]", `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... is not a number`},
	} {
		_, err := Expand(c.expr)
		if err == nil {
			t.Fatalf("%.40q... accepted", c.expr)
		}
		msg := err.Error()
		long := 0
		for _, q := range quotedRe.FindAllString(msg, -1) {
			if len(q) > maxShort+2 {
				long++
			}
		}
		if len(msg) > 300 || long > 1 || !strings.Contains(msg, c.want) {
			t.Errorf("%.40q...: message of %d bytes, %d long quotes, want %q in it: %s", c.expr, len(msg), long, c.want, msg)
		}
	}
	// Short expressions are quoted whole, an item only when it is another.
	for expr, want := range map[string]string{
		"n[3-1]":     `"n[3-1]": reversed range "3-1": invalid hostlist`,
		"a,n[3-1]":   `"a,n[3-1]": reversed range "3-1" in "n[3-1]": invalid hostlist`,
		"n[1-2]x":    `"n[1-2]x": text "x" after the last bracket: invalid hostlist`,
		"a,n[1-x]":   `"a,n[1-x]": "x" is not a number in "n[1-x]": invalid hostlist`,
		"n[1-2":      `"n[1-2": unmatched '[': invalid hostlist`,
		"b,n[]":      `"b,n[]": empty brackets in "n[]": invalid hostlist`,
		"n[1]a]b[2]": `"n[1]a]b[2]": unmatched ']': invalid hostlist`,
	} {
		if _, err := Expand(expr); err == nil || err.Error() != want {
			t.Errorf("Expand(%s) = %v, want %s", expr, err, want)
		}
	}
}
