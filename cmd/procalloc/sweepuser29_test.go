package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

// A killed array task is naturally rerun alone: "sbatch --array=3 SCRIPT". Slurm
// then tells the task it is the only one of its array (SLURM_ARRAY_TASK_MIN=3,
// _COUNT=1), and the script's sweep, which took its shard from those variables,
// ran shard 0/1, every item of the sweep, into the results file of task 3. The
// script now gives --shard TASK_ID/N: run as Slurm runs it for --array=3 (bash,
// with those variables), the task runs the items of index 3 mod N, no other.
func TestSbatchTaskResubmittedAloneRunsItsShard(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	specPath := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1")
	spec, err := sweep.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	const shards = 4
	// A stand-in for procalloc that records the arguments the script gives it.
	fake := filepath.Join(dir, "procalloc")
	os.WriteFile(fake, []byte("#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$ARGS_FILE\"\n"), 0o755)
	var script bytes.Buffer
	if err := sbatchScript(&script, fake, specPath, spec, shards, 1, ""); err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(dir, "job.sbatch")
	os.WriteFile(scriptPath, script.Bytes(), 0o644)
	slurmEnv := map[string]string{ // sbatch --array=3 job.sbatch
		"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_MAX": "3",
		"SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "1",
	}
	argsFile := filepath.Join(dir, "args")
	cmd := exec.Command("bash", scriptPath)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ARGS_FILE="+argsFile)
	for k, v := range slurmEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
		t.Setenv(k, v) // the in-process run below sees them too
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("running the script: %v %s", err, b)
	}
	args := strings.Split(strings.TrimSuffix(string(mustRead(t, argsFile)), "\x00"), "\x00")
	for i, a := range args {
		if a == "-o" {
			args[i+1] = filepath.Join(dir, args[i+1]) // the task's working directory
		}
	}
	if code, _, stderr := runCLI(t, "", args...); code != 0 {
		t.Fatalf("%q: exit %d, %s", args, code, stderr)
	}
	var got, want []int
	for l := range strings.SplitSeq(strings.TrimSpace(string(mustRead(t, filepath.Join(dir, "small.shard-3.jsonl")))), "\n") {
		var line sweep.Line
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		got = append(got, line.Index)
	}
	for _, it := range spec.Items() {
		if it.Index%shards == 3 {
			want = append(want, it.Index)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("task 3 resubmitted alone ran items %v, want %v (index mod %d = 3)", got, want, shards)
	}
}

// --sbatch with more shards than items wrote array tasks that run nothing, without
// a word; the script is still written (a site may want the spare tasks).
func TestSbatchMoreShardsThanItemsWarns(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1") // 8 items
	for _, c := range []struct {
		shards string
		warn   string
	}{{"20", "--shards 20 for 8 items: array tasks 8 to 19 run nothing (--shards 8 gives each task one item)"}, {"8", ""}, {"3", ""}} {
		code, out, stderr := runCLI(t, "", "sweep", spec, "--sbatch", "--shards", c.shards)
		if code != 0 || !strings.Contains(out, "--array=0-") {
			t.Fatalf("--shards %s: exit %d, %q", c.shards, code, stderr)
		}
		if c.warn == "" && stderr != "" || c.warn != "" && !strings.Contains(stderr, "procalloc sweep: warning: "+c.warn) {
			t.Errorf("--shards %s: stderr %q, want %q", c.shards, stderr, c.warn)
		}
	}
}

// plot's table showed every value with one decimal: utilization 0.61 and 0.64 both
// as 0.6. A cell now reads back as its value to 3 significant digits (the error at
// most half a unit of the third), with at least one decimal.
func TestPlotCellKeepsThreeSignificantDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	for i := range 20000 {
		v := math.Pow(10, rng.Float64()*16-8) // 1e-8 .. 1e8
		if i%2 == 1 {
			v = -v
		}
		cell := plotCell(v)
		got, err := strconv.ParseFloat(cell, 64)
		if err != nil || !strings.Contains(cell, ".") {
			t.Fatalf("%g: cell %q", v, cell)
		}
		unit := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-2) // the third significant digit's
		if math.Abs(got-v) > unit/2*(1+1e-9) {
			t.Fatalf("%g: cell %q is %g off, more than half of %g", v, cell, math.Abs(got-v), unit)
		}
	}
	if plotCell(0.61) == plotCell(0.64) || plotCell(0) != "0.0" || plotCell(13820.07) != "13820.1" {
		t.Errorf("0.61 %q, 0.64 %q, 0 %q, 13820.07 %q", plotCell(0.61), plotCell(0.64), plotCell(0), plotCell(13820.07))
	}
}
