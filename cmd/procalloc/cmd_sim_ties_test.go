package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// --metrics without ties leaves MC1x1's tie statistics out of sim's JSON, table and
// per-job CSV (an empty ties cell, not 0) and compare's table, and changes nothing
// else: every other JSON key and every other per-job cell, nodes included, are
// those of the default run, which counts ties.
func TestSimMetricsWithoutTies(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sim", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16", "--alloc", "mc1x1:tb=3,9,3,2", "--compat", "premas", "--to", "864000"}
	run := func(name string, extra ...string) (map[string]any, [][]string) {
		t.Helper()
		path := filepath.Join(dir, name+".csv")
		code, out, stderr := runCLI(t, "", append(append(slices.Clone(args), "--json", "--per-job", path), extra...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "seconds")
		delete(m, "alloc_time")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return m, rows
	}
	all, allRows := run("all")
	noTies, noTiesRows := run("noties", "--metrics", "sched,route,dist,compact")
	if _, ok := all["ties"]; !ok {
		t.Fatal("default metrics: no ties key")
	}
	if _, ok := noTies["ties"]; ok {
		t.Error("--metrics sched,route,dist: a ties key")
	}
	delete(all, "ties")
	if nc, ok := noTies["metrics_not_computed"].([]any); !ok || !reflect.DeepEqual(nc, []any{"ties"}) {
		t.Errorf("--metrics sched,route,dist,compact: metrics_not_computed %v", noTies["metrics_not_computed"])
	}
	delete(noTies, "metrics_not_computed")
	if !reflect.DeepEqual(all, noTies) {
		t.Errorf("the other metrics differ:\n%v\n%v", all, noTies)
	}
	col := slices.Index(allRows[0], "ties")
	if col < 0 || len(allRows) != len(noTiesRows) || len(allRows) < 100 {
		t.Fatalf("ties column %d, %d and %d rows", col, len(allRows), len(noTiesRows))
	}
	tied := 0
	for i := 1; i < len(allRows); i++ {
		if noTiesRows[i][col] != "" {
			t.Fatalf("row %d: ties cell %q without the ties group", i, noTiesRows[i][col])
		}
		if allRows[i][col] != "1" && allRows[i][col] != "0" {
			tied++
		}
		a, b := slices.Delete(slices.Clone(allRows[i]), col, col+1), slices.Delete(slices.Clone(noTiesRows[i]), col, col+1)
		if !slices.Equal(a, b) {
			t.Fatalf("row %d differs besides ties:\n%v\n%v", i, allRows[i], noTiesRows[i])
		}
	}
	if tied == 0 {
		t.Error("no job tied with ties counted")
	}
	code, out, stderr := runCLI(t, "", append(slices.Clone(args), "--metrics", "sched")...)
	if code != 0 || !strings.Contains(out, "not computed (--metrics without ties)") || strings.Contains(out, "tied decisions") {
		t.Errorf("sim --metrics sched table: exit %d, %s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", "compare", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16",
		"--alloc", "mc1x1,mc1x1-greedy", "--to", "864000", "--metrics", "sched")
	if code != 0 || !strings.Contains(out, "% tied decisions") {
		t.Fatalf("compare --metrics sched: exit %d, %s%s", code, out, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); strings.HasPrefix(line, "% tied decisions") && !slices.Equal(f[3:], []string{"-", "-"}) {
			t.Errorf("compare --metrics sched: %q, want - for both", line)
		}
	}
}

// --metrics sched leaves D (the compact group) out of sim's table and JSON, saying
// so, and the default shows it: the table's D rows, or "not computed"; the JSON's
// compactness key, or metrics_not_computed naming compact.
func TestSimMetricsSchedLeavesOutD(t *testing.T) {
	args := []string{"sim", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16", "--alloc", "slurm:consec", "--to", "864000"}
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(out, "mean free squares (D)") || !strings.Contains(out, "% spatially compact") || strings.Contains(out, "without compact") {
		t.Errorf("sim's default table: exit %d, %s%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", append(slices.Clone(args), "--metrics", "sched")...)
	if code != 0 || !strings.Contains(out, "free squares (D)") || !strings.Contains(out, "not computed (--metrics without compact)") || strings.Contains(out, "spatially compact") {
		t.Errorf("sim --metrics sched table: exit %d, %s%s", code, out, stderr)
	}
	for _, c := range []struct {
		metrics string
		want    []any
	}{{"sched", []any{"route", "dist", "ties", "compact"}}, {"sched,compact", []any{"route", "dist", "ties"}}, {"all", nil}} {
		code, out, stderr = runCLI(t, "", append(slices.Clone(args), "--metrics", c.metrics, "--json")...)
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
			t.Fatalf("--metrics %s --json: exit %d, %v: %s", c.metrics, code, err, stderr)
		}
		nc, _ := m["metrics_not_computed"].([]any)
		_, hasD := m["compactness"]
		if !reflect.DeepEqual(nc, c.want) || hasD == slices.Contains(c.want, any("compact")) {
			t.Errorf("--metrics %s --json: metrics_not_computed %v, compactness %v", c.metrics, m["metrics_not_computed"], m["compactness"])
		}
	}
}
