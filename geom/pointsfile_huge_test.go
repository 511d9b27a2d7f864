package geom

import (
	"strings"
	"testing"
)

// A malformed coordinate of a megabyte is quoted clipped: the message stays a few
// hundred bytes whatever the token's size.
func TestReadPointsClipsHugeToken(t *testing.T) {
	for _, tok := range []string{strings.Repeat("x", 1<<20), strings.Repeat("1", 100000), "1e999999", "NaN" + strings.Repeat("0", 1<<20)} {
		_, err := ReadPoints(strings.NewReader("0 0\n" + tok + " 1\n"))
		if err == nil {
			t.Fatalf("token of %d bytes accepted", len(tok))
		}
		if len(err.Error()) > 300 || !strings.HasPrefix(err.Error(), "line 2: coordinate 1: ") {
			t.Errorf("token of %d bytes: message of %d bytes: %.200s", len(tok), len(err.Error()), err)
		}
	}
}
