package plan

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
)

// The predictions' node_list comes back whole from a CSV reader whatever the node
// names hold (a backslash, a quote, a comma, non-ASCII, a CR), and a hostlist of
// ordinary names is written byte for byte as strconv.AppendQuote wrote it before.
// With AppendQuote the backslash and quote cases read back with Go's escapes.
func TestPredictionNodeListIsCSV(t *testing.T) {
	for _, hl := range []string{"node[01-16]", "a[1-3,7],b9", `a\1`, `a"1,b""2`, "nöde[1-2]", "x\ry", "", `\`, `"`} {
		line := appendCSVQuoted([]byte("1,2,"), []byte(hl))
		line = append(line, '\n')
		rec, err := csv.NewReader(strings.NewReader(string(line))).Read()
		if err != nil {
			t.Fatalf("%q: %v (%q)", hl, err, line)
		}
		if len(rec) != 3 || rec[2] != hl {
			t.Errorf("%q: read back %q from %q", hl, rec, line)
		}
		if !strings.ContainsAny(hl, `"\`+"\r") {
			if want := string(strconv.AppendQuote([]byte("1,2,"), hl)) + "\n"; string(line) != want {
				t.Errorf("%q: %q, before %q", hl, line, want)
			}
		}
	}
}
