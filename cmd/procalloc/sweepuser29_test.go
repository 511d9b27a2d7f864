package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The table's order line holds an ordering of up to orderShown entries in full and
// a longer one by its ends, which are those of the whole ordering (--json's): it
// printed every entry on one line (10^5 numbers at scale).
func TestOrderTableShowsTheEndsOfALongOrdering(t *testing.T) {
	for _, c := range []struct {
		machine string
		n       int
	}{{"mesh:8x8", 64}, {"mesh:8x9", 72}, {"mesh:12x12", 144}} {
		args := []string{"order", "--machine", c.machine, "--weights", "list:1", "--threads", "1"}
		code, js, stderr := runCLI(t, "", append(args, "--json")...)
		var o struct {
			Status string `json:"status"`
			Order  []int  `json:"order"`
		}
		if code != 0 || json.Unmarshal([]byte(js), &o) != nil || len(o.Order) != c.n {
			t.Fatalf("%s --json: exit %d, %q, %d entries", c.machine, code, stderr, len(o.Order))
		}
		if o.Status != "optimal" { // a solve the time limit stopped may differ between runs
			t.Fatalf("%s: status %s", c.machine, o.Status)
		}
		code, table, stderr := runCLI(t, "", args...)
		var line string
		for l := range strings.SplitSeq(table, "\n") {
			if rest, ok := strings.CutPrefix(l, "order "); ok {
				line = strings.TrimSpace(rest)
			}
		}
		if code != 0 || line == "" {
			t.Fatalf("%s: exit %d, %q, no order line in %q", c.machine, code, stderr, table)
		}
		want := joinInts(o.Order)
		if c.n > orderShown {
			want = fmt.Sprintf("%s ... %s (%d entries: the first and last %d; all of them with -o FILE or --json)",
				joinInts(o.Order[:orderEndsOf]), joinInts(o.Order[c.n-orderEndsOf:]), c.n, orderEndsOf)
		}
		if line != want {
			t.Errorf("%s: order line %q, want %q", c.machine, line, want)
		}
	}
}
