package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/bench"
	"github.com/procalloc/procalloc/sim/sweep"
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

// plot given the results of two sweeps of one name (a sweep file edited between
// two array tasks) said "give --spec", a flag plot does not have. The message now
// names the command that has it, and that command, run as said, gives a file plot
// reads.
func TestPlotOfTwoSweepsSaysACommandThatWorks(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(spec, []byte("name: w\ntraces: [/x/a.swf]\nmachines: [mesh:4x4]\nallocators: [genalg, mc1x1]\ncontract: [1, 0.5]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sweep.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for f, id := range []string{"id-before-the-edit", s.ID()} {
		var b bytes.Buffer
		for _, it := range s.Items() {
			if it.Index%2 != f { // one array task's share each
				continue
			}
			raw, _ := json.Marshal(sweep.Line{Sweep: "w", SweepID: id, Item: it, Status: "ok", Result: json.RawMessage(fmt.Sprintf(`{"mean_response":%d}`, 10+it.Index))})
			b.Write(append(raw, '\n'))
		}
		name := filepath.Join(dir, fmt.Sprintf("w.shard-%d.jsonl", f))
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	code, _, stderr := runCLI(t, "", append([]string{"plot"}, files...)...)
	said := regexp.MustCompile(`procalloc (\w+) (--\w+) SWEEP_FILE`).FindStringSubmatch(stderr)
	if code != 1 || said == nil {
		t.Fatalf("plot of two sweeps: exit %d, %q: want a command to run", code, stderr)
	}
	merged := filepath.Join(dir, "m.jsonl")
	if code, _, stderr := runCLI(t, "", append(append([]string{said[1]}, files...), said[2], spec, "-o", merged)...); code != 0 {
		t.Fatalf("%s %s as said: exit %d, %q", said[1], said[2], code, stderr)
	}
	if code, out, stderr := runCLI(t, "", "plot", merged); code != 0 || !strings.Contains(out, "genalg") {
		t.Fatalf("plot of the merged file: exit %d, %q %q", code, out, stderr)
	}
}

// A bench interrupted (Ctrl-C) or cut by --time-limit marks the allocator's row
// "partial" in the table; the chart's legend named it as if it had run the whole
// workload (the title says the workload's jobs).
func TestBenchChartMarksPartialRuns(t *testing.T) {
	q := len(bench.Quantiles())
	row := func(alloc string, decisions int64, complete bool) bench.Result {
		r := bench.Result{Alloc: alloc, Decisions: decisions, Complete: complete}
		for i := range q {
			r.Percentiles = append(r.Percentiles, float64((i+1)*len(alloc))) // each its own line
		}
		return r
	}
	rep := &bench.Report{Machine: "mesh:64x64", Jobs: 20000, Floor: row("read free set", 20000, true),
		Allocs: []bench.Result{row("bf:hilbert", 20000, true), row("mm", 809, false)}}
	var b bytes.Buffer
	if err := writeBenchChart(&b, rep); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(b.String(), -1) {
		texts = append(texts, m[1])
	}
	for _, r := range append([]bench.Result{rep.Floor}, rep.Allocs...) {
		want := r.Alloc
		if !r.Complete {
			want = fmt.Sprintf("%s (partial: %d decisions)", r.Alloc, r.Decisions)
		}
		if !slices.Contains(texts, want) {
			t.Errorf("legend lacks %q: %q", want, texts)
		}
	}
	if slices.Contains(texts, "mm") {
		t.Errorf("the partial run is named as a whole one: %q", texts)
	}
}
