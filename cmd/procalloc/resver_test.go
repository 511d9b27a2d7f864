package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/buildid"
	"github.com/procalloc/procalloc/sim/sweep"
)

// Shards written by two builds of procalloc merge with a warning (not an error)
// naming both builds and their files; merge --json lists the builds; shards of
// one build, or old lines naming none, merge without it (twenty-ninth round,
// wt-resver).
func TestMergeWarnsOfShardsOfDifferentBuilds(t *testing.T) {
	dir := t.TempDir()
	line := func(index int, build string) string {
		b := ""
		if build != "" {
			b = `"build":"` + build + `",`
		}
		return `{"sweep":"s",` + b + `"index":` + string(rune('0'+index)) + `,"key":"k` + string(rune('0'+index)) + `","params":{"trace":"t","machine":"mesh:4x4","alloc":"mc1x1","sched":"fcfs","contract":1,"pattern":"none","seed":1},"status":"ok","result":{"x":1}}` + "\n"
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("s.0.jsonl", line(0, "git:aaaaaaaaaaaa")+line(2, "git:aaaaaaaaaaaa"))
	b := write("s.1.jsonl", line(1, "exe:bbbbbbbbbbbb"))
	code, _, stderr := runCLI(t, "", "merge", a, b, "-o", filepath.Join(dir, "m.jsonl"))
	if code != 0 {
		t.Fatalf("merge of two builds: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"procalloc merge: warning:", "2 different builds", "git:aaaaaaaaaaaa: 2 lines in " + a, "exe:bbbbbbbbbbbb: 1 line in " + b} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, stdout, stderr := runCLI(t, "", "merge", a, b, "-o", filepath.Join(dir, "m.jsonl"), "--json")
	var r struct {
		Builds []struct {
			Build string   `json:"build"`
			Files []string `json:"files"`
			Lines int      `json:"lines"`
		} `json:"builds"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil {
		t.Fatalf("merge --json: exit %d, %v, %s", code, err, stderr)
	}
	if len(r.Builds) != 2 || r.Builds[0].Build != "exe:bbbbbbbbbbbb" || r.Builds[1].Build != "git:aaaaaaaaaaaa" || r.Builds[1].Lines != 2 || r.Builds[0].Files[0] != b {
		t.Errorf("merge --json builds: %+v", r.Builds)
	}
	// The merged file keeps each line's build: merged with an old shard (no build),
	// the old one is "unknown".
	old := write("s.3.jsonl", line(3, ""))
	_, _, stderr = runCLI(t, "", "merge", filepath.Join(dir, "m.jsonl"), old)
	if !strings.Contains(stderr, "3 different builds") || !strings.Contains(stderr, "unknown (lines that name no build") {
		t.Errorf("merged file + old shard: %s", stderr)
	}
	// One build, or old lines only: no warning.
	a2 := write("s.1b.jsonl", line(1, "git:aaaaaaaaaaaa"))
	old0 := write("old.0.jsonl", line(0, "")+line(1, ""))
	for _, files := range [][]string{{a, a2}, {old0}} {
		code, _, stderr := runCLI(t, "", append([]string{"merge"}, files...)...)
		if code != 0 || strings.Contains(stderr, "builds") {
			t.Errorf("merge %v: exit %d, %s", files, code, stderr)
		}
	}
}

// A sweep resuming a results file whose done items another build ran says so,
// counting them by build; items of this build alone say nothing.
func TestSweepResumeWarnsOfItemsOfOtherBuilds(t *testing.T) {
	res := &sweep.Results{Done: map[string]sweep.Line{
		"a": {Build: buildid.ID()},
		"b": {Build: "git:aaaaaaaaaaaa"},
		"c": {Build: "git:aaaaaaaaaaaa"},
		"d": {},
	}}
	var w strings.Builder
	warnResults(&w, "r.jsonl", res)
	for _, want := range []string{"procalloc sweep: warning: r.jsonl", "(" + buildid.ID() + ")", "2 by git:aaaaaaaaaaaa, 1 by unknown"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("warning lacks %q: %s", want, w.String())
		}
	}
	delete(res.Done, "b")
	delete(res.Done, "c")
	delete(res.Done, "d")
	w.Reset()
	if warnResults(&w, "r.jsonl", res); w.Len() != 0 {
		t.Errorf("items of this build only: %s", w.String())
	}
}

// merge --csv has the build of each line (the results line's "build", "unknown"
// for an old line naming none) in a build column after status, read back by
// name from the CSV: the lines of two builds and an old one.
func TestMergeCSVNamesEachLinesBuild(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	builds := []string{"git:aaaaaaaaaaaa", "exe:bbbbbbbbbbbb", "", "git:aaaaaaaaaaaa+dirty:cccc,dd"}
	for i, build := range builds {
		p := sweep.Params{Trace: "t", Machine: "mesh:4x4", Alloc: "mc1x1", Sched: "fcfs", Contract: 1, Pattern: "none", Seed: uint64(i + 1)}
		raw, err := json.Marshal(sweep.Line{Sweep: "s", Build: build, Item: sweep.Item{Index: i, Key: p.Key(), Params: p}, Status: "ok", Result: json.RawMessage(`{"mean_wait":1}`)})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(raw, '\n'))
	}
	res := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(res, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "merge", res, "-o", filepath.Join(dir, "m.jsonl"), "--csv", "-")
	if code != 0 {
		t.Fatalf("merge --csv: exit %d, %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != len(builds)+1 {
		t.Fatalf("merge --csv: %v, %d rows:\n%s", err, len(rows), out)
	}
	col, status := slices.Index(rows[0], "build"), slices.Index(rows[0], "status")
	if col < 0 || col != status+1 {
		t.Fatalf("merge --csv header %v: build column %d, status %d", rows[0], col, status)
	}
	for i, build := range builds {
		want := cmp.Or(build, buildid.Unknown)
		if got := rows[i+1][col]; got != want || len(rows[i+1]) != len(rows[0]) {
			t.Errorf("row %d: build %q, want %q (%d cells, %d columns)", i+1, got, want, len(rows[i+1]), len(rows[0]))
		}
	}
}

// plot's table names the metric it shows (with its unit, as the SVG's axis), the
// parameter against which, and the --where narrowing; --json already said it.
func TestPlotTableNamesItsMetric(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i, alloc := range []string{"mc1x1", "bf:hilbert"} {
		for j, c := range []float64{1, 0.5} {
			p := sweep.Params{Trace: "t", Machine: "mesh:4x4", Alloc: alloc, Sched: "fcfs", Contract: c, Pattern: "none", Seed: 1}
			raw, _ := json.Marshal(sweep.Line{Sweep: "s", Item: sweep.Item{Index: 2*i + j, Key: p.Key(), Params: p}, Status: "ok",
				Result: json.RawMessage(`{"mean_wait":12.5,"utilization":0.25}`)})
			b.Write(append(raw, '\n'))
		}
	}
	res := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(res, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--y", "mean_wait"}, "mean_wait (s) against contract"},
		{[]string{"--y", "utilization", "--where", "sched=fcfs"}, "utilization (fraction of node-seconds) against contract — sched=fcfs"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"plot", res}, c.args...)...)
		lines := strings.Split(out, "\n")
		if code != 0 || len(lines) < 4 || lines[0] != c.want || !strings.HasPrefix(strings.TrimSpace(lines[1]), "contract") {
			t.Errorf("plot %v: exit %d, table:\n%s%s", c.args, code, out, stderr)
		}
	}
}
