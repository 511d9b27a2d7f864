package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeSweep writes a small trace and a sweep over it into dir.
func writeSweep(t *testing.T, dir string, allocators string) string {
	t.Helper()
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "%d %d %d -1\n", i*50, 1+(i*7)%12, 100+(i*37)%400)
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "s.yaml")
	body := "name: small\ntraces: [jobs.txt]\nmachines: [mesh:6x6]\nallocators: [" + allocators + "]\ncontract: [1, 0.5]\npatterns: [none, all-to-all]\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestSweepShardsMergeToTheSingleRun(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1, genalg")
	one := filepath.Join(dir, "one.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", one, "-j", "2"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	mergedOne := filepath.Join(dir, "m1.jsonl")
	if code, _, stderr := runCLI(t, "", "merge", one, "--spec", spec, "-o", mergedOne); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	var shards []string
	for i := range 3 {
		f := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		shards = append(shards, f)
		if code, _, stderr := runCLI(t, "", "sweep", spec, "--shard", fmt.Sprintf("%d/3", i), "-o", f); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
	}
	mergedShards := filepath.Join(dir, "m3.jsonl")
	// a merge without one shard reports the missing items and fails
	if code, _, stderr := runCLI(t, "", "merge", shards[0], shards[1], "--spec", spec, "-o", mergedShards); code != 1 || !strings.Contains(stderr, "missing") {
		t.Fatalf("merge with a shard missing: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "merge", shards[0], shards[1], shards[2], "--spec", spec, "-o", mergedShards, "--csv", filepath.Join(dir, "m.csv")); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(mergedOne)
	b, _ := os.ReadFile(mergedShards)
	if len(a) == 0 || string(a) != string(b) {
		t.Fatalf("merged shards differ from the single run (%d vs %d bytes)", len(b), len(a))
	}
	if n := strings.Count(string(a), "\n"); n != 12 {
		t.Fatalf("%d merged lines, want 12", n)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "m.csv"))
	if !strings.HasPrefix(string(csv), "index,key,trace,machine,alloc") || strings.Count(string(csv), "\n") != 13 {
		t.Fatalf("csv:\n%s", csv)
	}
	// a rerun does nothing
	code, out, _ := runCLI(t, "", "sweep", spec, "-o", one, "--json")
	if code != 0 || !strings.Contains(out, `"skipped": 12`) || !strings.Contains(out, `"ran": 0`) {
		t.Fatalf("rerun: exit %d, %s", code, out)
	}
	// plot
	code, out, stderr := runCLI(t, "", "plot", mergedOne, "--where", "pattern=all-to-all", "--y", "mean_response", "--svg", filepath.Join(dir, "p.svg"))
	if code != 0 || !strings.Contains(out, "mc1x1") {
		t.Fatalf("plot: exit %d, %s %s", code, out, stderr)
	}
	if svg := string(mustRead(t, filepath.Join(dir, "p.svg"))); !strings.Contains(svg, ">mean_response (s)<") || !strings.Contains(svg, ">load factor") || !strings.Contains(svg, ">mc1x1<") {
		t.Fatalf("plot SVG lacks the axis labels with units or the legend:\n%s", svg)
	}
	if code, _, stderr := runCLI(t, "", "plot", mergedOne, "--y", "mean_response"); code != 1 || !strings.Contains(stderr, "differ in pattern") {
		t.Fatalf("ambiguous plot: exit %d, %s", code, stderr)
	}
	// another sweep's file is refused
	other := strings.Replace(string(mustRead(t, spec)), "name: small", "name: other", 1)
	os.WriteFile(spec, []byte(other), 0o644)
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", one); code != 1 || !strings.Contains(stderr, "another sweep") {
		t.Fatalf("other sweep: exit %d, %s", code, stderr)
	}
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSweepFailuresAndShardsFromSlurm(t *testing.T) {
	dir := t.TempDir()
	// A ranking file whose content is refused fails each item of its allocator,
	// each run reading the file again (an allocator that applies to no machine,
	// such as paging:hilbert:5 on this 6x6 mesh, is refused before the run:
	// TestCheckAllocatorOnNoMachine).
	bad := filepath.Join(dir, "bad.pairs")
	if err := os.WriteFile(bad, []byte("0 0\n1 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := writeSweep(t, dir, "mc1x1, 'bf:"+bad+"'")
	res := filepath.Join(dir, "r.jsonl")
	code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res)
	if code != 1 || !strings.Contains(stderr, "4 items failed") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if data := mustRead(t, res); !strings.Contains(string(data), `"status":"failed"`) || !strings.Contains(string(data), "bad.pairs") {
		t.Fatalf("failed items not recorded with their error:\n%.500s", data)
	}
	// With --json the same exit status (it was 0), the summary still on stdout.
	code, out, stderr := runCLI(t, "", "sweep", spec, "-o", res, "--json")
	var sum struct{ Failed int }
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 1 || sum.Failed != 4 || !strings.Contains(stderr, "4 items failed") {
		t.Fatalf("--json with failed items: exit %d, failed %d (%v), stdout %q, stderr %s", code, sum.Failed, err, out, stderr)
	}
	// Slurm array environment
	for _, tc := range []struct {
		env  map[string]string
		i, n int
		ok   bool
		bad  bool
	}{
		{map[string]string{}, 0, 1, false, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_COUNT": "3"}, 1, 3, true, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, 2, 4, true, false},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, 0, 0, false, true},
	} {
		i, n, ok, err := shardFromEnv(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.bad || ok != tc.ok || (!tc.bad && (i != tc.i || n != tc.n)) {
			t.Errorf("%v: %d/%d %v %v", tc.env, i, n, ok, err)
		}
	}
	for _, bad := range []string{"4/4", "-1/2", "x", "1/0"} {
		if code, _, _ := runCLI(t, "", "sweep", spec, "-o", res, "--shard", bad); code != 2 {
			t.Errorf("--shard %s: exit %d", bad, code)
		}
	}
	code, out, _ = runCLI(t, "", "sweep", spec, "--sbatch", "--shards", "4")
	if code != 0 || !strings.Contains(out, "#SBATCH --array=0-3") || !strings.Contains(out, "%A_%a") || !strings.Contains(out, "SLURM_ARRAY_TASK_ID") {
		t.Fatalf("sbatch: exit %d\n%s", code, out)
	}
}

// TestSweepPerJobIsSimPerJob: sweep --per-job writes, for every item, the file that
// "sim --per-job" writes for the item's parameters (--list's flags), byte for byte.
func TestSweepPerJobIsSimPerJob(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1")
	pj := filepath.Join(dir, "pj")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, "r.jsonl"), "--per-job", pj); code != 2 || !strings.Contains(stderr, "--per-job") {
		t.Fatalf("--per-job to a missing directory: exit %d, %s", code, stderr)
	}
	if err := os.Mkdir(pj, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, "r.jsonl"), "--per-job", pj, "-j", "2"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	code, list, stderr := runCLI(t, "", "sweep", spec, "--list")
	if code != 0 {
		t.Fatalf("--list: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(list), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d items, want 8", len(lines))
	}
	for _, l := range lines {
		f := strings.SplitN(l, "\t", 3)
		want := filepath.Join(dir, "want-"+f[1]+".csv")
		args := append([]string{"sim"}, strings.Fields(strings.Replace(f[2], "--trace jobs.txt", "--trace "+filepath.Join(dir, "jobs.txt"), 1))...)
		if code, _, stderr := runCLI(t, "", append(args, "--per-job", want, "-o", os.DevNull)...); code != 0 {
			t.Fatalf("sim %s: exit %d: %s", f[2], code, stderr)
		}
		got, w := mustRead(t, filepath.Join(pj, f[1]+".csv")), mustRead(t, want)
		if string(got) != string(w) || strings.Count(string(w), "\n") != 61 {
			t.Fatalf("item %s (%s): sweep's per-job CSV differs from sim's (%d vs %d bytes)", f[0], f[2], len(got), len(w))
		}
	}
	// Items already done are not rerun: with --per-job into a directory that lacks
	// their files, a warning counts them (it was silence); with the files there, none.
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, "r.jsonl"), "--per-job", pj); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("rerun, every per-job file there: exit %d, %q", code, stderr)
	}
	if err := os.Remove(filepath.Join(pj, strings.SplitN(lines[3], "\t", 3)[1]+".csv")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, "r.jsonl"), "--per-job", pj)
	if code != 0 || !strings.Contains(stderr, "warning: 1 items already done in "+filepath.Join(dir, "r.jsonl")+" have no per-job file in "+pj) {
		t.Fatalf("rerun, one per-job file removed: exit %d, %q", code, stderr)
	}
}

// TestSweepRemovesStaleTempsInPerJobDir: a SIGKILLed sweep's hidden temporaries in
// --per-job DIR go on the next run, also those of items it does not redo (done
// since, or no longer in the sweep): they stayed for good. A live process's stays
// (a concurrent shard), as does one of another host (its processes cannot be seen
// from here), and any file that is no temporary.
func TestSweepRemovesStaleTempsInPerJobDir(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "mc1x1")
	pj := filepath.Join(dir, "pj")
	if err := os.Mkdir(pj, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := dead.Process.Pid
	files := map[string]bool{ // name: whether the run keeps it
		tempPrefix(filepath.Join(pj, "0123456789abcdef.csv"), gone) + "42":                 false,
		"." + "0123456789abcdef.csv.procalloc-" + strconv.Itoa(gone) + "-7":                false, // written before hosts were recorded
		tempPrefix(filepath.Join(pj, "fedcba9876543210.csv"), os.Getppid()) + "43":         true,
		".fedcba9876543210.csv.procalloc-" + tempHost() + "x-" + strconv.Itoa(gone) + "-8": true,
		".notes.procalloc-draft": true,
		"notes.txt":              true,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(pj, name), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, "r.jsonl"), "--per-job", pj, "--shard", "0/4"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	for name, keep := range files {
		_, err := os.Stat(filepath.Join(pj, name))
		if keep && err != nil {
			t.Errorf("%s removed: %v", name, err)
		}
		if !keep && err == nil {
			t.Errorf("%s (process %d, gone) left", name, gone)
		}
	}
}
