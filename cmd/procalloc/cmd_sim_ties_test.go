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
	noTies, noTiesRows := run("noties", "--metrics", "sched,route,dist")
	if _, ok := all["ties"]; !ok {
		t.Fatal("default metrics: no ties key")
	}
	if _, ok := noTies["ties"]; ok {
		t.Error("--metrics sched,route,dist: a ties key")
	}
	delete(all, "ties")
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
