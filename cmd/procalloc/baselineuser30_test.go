package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Exact subset algorithms refuse inputs whose totals float64 would round (they claimed
// optimal on totals printed 600 off their exact value); approximation algorithms run.
func TestSubsetExactRefusesRoundedTotals(t *testing.T) {
	var sb strings.Builder
	for i := range 60 {
		fmt.Fprintf(&sb, "%d %d\n", (i%2)<<52+i*7%1000, i%4)
	}
	file := writeTemp(t, "p.txt", sb.String())
	for _, algo := range []string{"exact", "k3"} {
		code, _, stderr := runCLI(t, "", "subset", "--algo", algo, "--k", "3", "--points", file)
		if code != 1 || !strings.Contains(stderr, "2^53") || !strings.Contains(stderr, "p.txt") {
			t.Errorf("%s: exit %d, want 1 naming the file and 2^53: %s", algo, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "", "subset", "--algo", "mm", "--k", "40", "--points", file); code != 0 {
		t.Errorf("mm: exit %d: %s", code, stderr)
	}
	// The same shape within 2^53 is solved and certified.
	sb.Reset()
	for i := range 60 {
		fmt.Fprintf(&sb, "%d %d\n", (i%2)<<40+i*7%1000, i%4)
	}
	r := runJSON(t, "subset", "--algo", "exact", "--k", "3", "--json", "--points", writeTemp(t, "q.txt", sb.String()))
	if r.Optimal == nil || !*r.Optimal {
		t.Errorf("coordinates below 2^41: not certified: %+v", r)
	}
}

// order --qap on integers float64 cannot sum exactly (flows 2^60 + a little) is not
// certified, and says why; the JSON still parses and the exit status is 0.
func TestOrderQAPRoundedDataUnproven(t *testing.T) {
	n := 6
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d\n", n)
	for m := range 2 {
		for i := range n {
			for j := range n {
				v := 0
				if i != j && m == 0 {
					v = 1<<60 + (i*7+j*3)%11
				} else if i != j {
					v = 1 + (i+2*j)%5
				}
				fmt.Fprintf(&sb, "%d ", v)
			}
			sb.WriteString("\n")
		}
	}
	file := writeTemp(t, "big.dat", sb.String())
	code, out, stderr := runCLI(t, "", "order", "--qap", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Status string   `json:"status"`
		Notes  []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "unproven" || !strings.Contains(strings.Join(r.Notes, "\n"), "float64 rounds") {
		t.Errorf("status %s, notes %q: want unproven with a note on rounding", r.Status, r.Notes)
	}
}

// compare shows how many of opt's decisions ran out of budget (sim's summary did,
// compare's table showed opt as if every decision were optimal).
func TestCompareShowsOptFallbacks(t *testing.T) {
	var sb strings.Builder
	for i := range 12 {
		fmt.Fprintf(&sb, "%d\t%d\t%d\t-1\n", i*10, 3+i*5%29, 100+i)
	}
	trace := writeTemp(t, "t.txt", sb.String())
	code, out, stderr := runCLI(t, "", "compare", "--trace", trace, "--machine", "mesh:8x8", "--alloc", "mc1x1,opt:nodes=200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "exact decisions unproven") {
			line = l
		}
	}
	f := strings.Fields(line)
	if len(f) < 3 || f[len(f)-1] != "12" || f[len(f)-2] != "of" || f[len(f)-4] != "-" {
		t.Errorf("no row of opt's unproven decisions (want '- N of 12'):\n%s", out)
	}
}

// evaluate warns when F of dyadic weights passes what float64 sums exactly (it printed
// 12682136550675317000 for ...316756 in silence); an exact F gets no warning.
func TestEvaluateWarnsOfRoundedF(t *testing.T) {
	for _, c := range []struct {
		weights string
		warn    bool
	}{{"list:1152921504606846976,1", true}, {"list:1024,1", false}} {
		code, _, stderr := runCLI(t, "", "evaluate", "--machine", "mesh:3x4", "--curve", "snake", "--weights", c.weights)
		if code != 0 || strings.Contains(stderr, "float64 rounds") != c.warn {
			t.Errorf("%s: exit %d, stderr %q (warning wanted: %v)", c.weights, code, stderr, c.warn)
		}
	}
}

// compare --baseline exact runs sim's baseline in every replay (the same flag, parsed
// by sim's table): each allocator's baseline figures, in compare's JSON and its table
// rows, are sim --baseline exact's for that allocator. The time limit is far above
// what a mesh:6x6 decision needs, so every search finishes and the figures do not
// depend on the machine's speed.
func TestCompareBaselineIsSims(t *testing.T) {
	var sb strings.Builder
	for i := range 14 {
		fmt.Fprintf(&sb, "%d\t%d\t%d\t-1\n", i*7, 2+i*5%17, 60+i*3)
	}
	trace := writeTemp(t, "t.txt", sb.String())
	args := []string{"--trace", trace, "--machine", "mesh:6x6", "--baseline", "exact", "--baseline-time-limit", "10m"}
	keys := []string{"mean_ratio_to_optimal", "baseline_proven", "baseline_proven_decisions", "baseline_decisions",
		"mean_ratio_to_optimal_lower", "mean_ratio_to_optimal_upper", "baseline_bounded"}
	code, out, stderr := runCLI(t, "", append([]string{"compare", "--alloc", "mc1x1,mm", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	var cmp struct{ Runs []map[string]any }
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || len(cmp.Runs) != 2 {
		t.Fatalf("compare JSON (%v): %s", err, out)
	}
	csvPath := filepath.Join(t.TempDir(), "c.csv")
	_, table, _ := runCLI(t, "", append([]string{"compare", "--alloc", "mc1x1,mm", "--csv", csvPath}, args...)...)
	// The CSV has the JSON's baseline figures, under its keys, per run.
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("compare CSV (%v): %s", err, data)
	}
	for _, k := range keys {
		col := slices.Index(recs[0], k)
		if col < 0 {
			t.Errorf("compare CSV: no column %s in %q", k, recs[0])
			continue
		}
		for i := range 2 {
			got, err := strconv.ParseFloat(recs[i+1][col], 64)
			if want, ok := cmp.Runs[i][k].(float64); err != nil || !ok || got != want {
				t.Errorf("compare CSV run %d: %s %q, JSON %v", i, k, recs[i+1][col], cmp.Runs[i][k])
			}
		}
	}
	for i, a := range []string{"mc1x1", "mm"} {
		code, out, stderr := runCLI(t, "", append([]string{"sim", "--alloc", a, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("sim %s: exit %d: %s", a, code, stderr)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if s[k] == nil || fmt.Sprint(cmp.Runs[i][k]) != fmt.Sprint(s[k]) {
				t.Errorf("%s: %s: compare %v, sim %v", a, k, cmp.Runs[i][k], s[k])
			}
		}
		_, simTable, _ := runCLI(t, "", append([]string{"sim", "--alloc", a}, args...)...)
		for _, row := range []string{"mean ratio to optimal (proven)", "baseline decisions proven", "ratio to optimal, certified (all decisions)"} {
			simVal := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lineWith(simTable, row)), row))
			if simVal == "" || !strings.Contains(lineWith(table, row), simVal) {
				t.Errorf("%s: row %q: sim %q, compare's %q", a, row, simVal, lineWith(table, row))
			}
		}
	}
}

// lineWith is the first line of out containing s ("" when none).
func lineWith(out, s string) string {
	for l := range strings.SplitSeq(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
