package main

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
)

// merge --csv's fields are written by encoding/csv, as compare's and sim's CSVs
// are. Its own quoting (quotes around a field with a comma, quote or LF; the key
// and pattern never quoted) left a carriage return bare: a trace named "a\rb" cut
// the row in two for RFC 4180 readers (Python's csv module gives ['1', 'a'],
// ['b', ...]). Every field here comes back whole from a reader, and no CR or LF
// is outside quotes; a row of plain fields is written as it always was.
func TestSweepCSVQuotesEveryField(t *testing.T) {
	odd := []string{"a\rb.swf", "two\nlines", " lead", `say "hi"`, "a,b", "plain", "", "ü,é"}
	var lines []sweep.Line
	for i, s := range odd {
		lines = append(lines, sweep.Line{Item: sweep.Item{Index: i, Key: s,
			Params: sweep.Params{Trace: s, Machine: "mesh:4x4", Alloc: s, Sched: sim.SchedFCFS, Contract: 1, Pattern: "none"}},
			Status: sweep.StatusOK, Build: s})
	}
	var b strings.Builder
	if err := writeSweepCSV(&b, lines); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	quoted := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\r' && !quoted, c == '\n' && !quoted && i > 0 && out[i-1] == '\r':
			t.Fatalf("a bare carriage return at byte %d: %q", i, out)
		}
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("%v:\n%q", err, out)
	}
	if len(recs) != len(odd)+1 {
		t.Fatalf("%d records for %d lines:\n%q", len(recs), len(odd), out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for i, s := range odd {
		r := recs[i+1]
		for _, c := range []string{"key", "trace", "alloc"} {
			if r[col[c]] != s {
				t.Errorf("line %d, %s: read back %q, want %q", i, c, r[col[c]], s)
			}
		}
		if want := s; s != "" && r[col["build"]] != want {
			t.Errorf("line %d, build: read back %q, want %q", i, r[col["build"]], want)
		}
	}
	// The plain row, byte for byte as before (index, key, trace, machine, alloc,
	// sched, contract, pattern, seed, status, build, then the metrics, empty).
	_, plain, _ := strings.Cut(out, "\n5,")
	plain, _, _ = strings.Cut("5,"+plain, "\n")
	if want := "5,plain,plain,mesh:4x4,plain,fcfs,1,none,0,ok,plain,"; !strings.HasPrefix(plain, want) || strings.Contains(plain, `"`) {
		t.Errorf("plain row %q, want it to start %q, unquoted", plain, want)
	}
}
