package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSweepShardFromSlurmEnv: inside a Slurm array task, without --shard, a sweep
// runs the shard the SLURM_ARRAY_TASK_* variables name: the items --list --shard
// lists for it, no others. Variables that name no shard are a usage error
// (exit 2) that says to use --shard.
func TestSweepShardFromSlurmEnv(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:snake, mc1x1")
	code, listed, stderr := runCLI(t, "", "sweep", spec, "--list", "--shard", "1/3")
	if code != 0 {
		t.Fatalf("--list: exit %d: %s", code, stderr)
	}
	var want []int
	for _, l := range strings.Split(strings.TrimSpace(listed), "\n") {
		i, err := strconv.Atoi(strings.SplitN(l, "\t", 2)[0])
		if err != nil {
			t.Fatalf("--list line %q", l)
		}
		want = append(want, i)
	}
	if len(want) != 3 { // 8 items: 1, 4, 7
		t.Fatalf("shard 1/3 lists %v", want)
	}
	// --array=10-14:2 (tasks 10, 12, 14): task 12 is shard 1 of 3.
	t.Setenv("SLURM_ARRAY_TASK_ID", "12")
	t.Setenv("SLURM_ARRAY_TASK_MIN", "10")
	t.Setenv("SLURM_ARRAY_TASK_MAX", "14")
	t.Setenv("SLURM_ARRAY_TASK_STEP", "2")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
	res := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res, "-j", "1"); code != 0 {
		t.Fatalf("sweep in an array task: exit %d: %s\n%s", code, stderr, mustRead(t, res))
	}
	var got []int
	for _, l := range strings.Split(strings.TrimSpace(string(mustRead(t, res))), "\n") {
		var r struct {
			Index  int    `json:"index"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Status != "ok" {
			t.Fatalf("results line %q: %v", l, err)
		}
		got = append(got, r.Index)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the array task ran items %v, want shard 1/3's %v", got, want)
	}
	// --shard wins over the environment.
	res0 := filepath.Join(dir, "r0.jsonl")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res0, "--shard", "0/8", "-j", "1"); code != 0 || strings.Count(string(mustRead(t, res0)), "\n") != 1 {
		t.Fatalf("--shard in an array task: exit %d: %s", code, stderr)
	}
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "")
	t.Setenv("SLURM_ARRAY_TASK_MAX", "")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", filepath.Join(dir, "bad.jsonl")); code != 2 || !strings.Contains(stderr, "use --shard i/n") {
		t.Fatalf("an array task without its count: exit %d, %q; want 2 and \"use --shard i/n\"", code, stderr)
	}
}

// TestSweepUsageErrors: the command's own usage errors, exit 2, each naming the
// problem.
func TestSweepUsageErrors(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "mc1x1")
	res := filepath.Join(dir, "r.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", spec, spec, "-o", res}, "want one sweep file (or - for standard input), got 2 arguments"},
		{[]string{"sweep", "-o", res}, "got 0 arguments"},
		{[]string{"sweep", spec}, "-o RESULTS.jsonl is required"},
		{[]string{"sweep", spec, "-o", res, "-j", "0"}, "-j 0: must be at least 1"},
		{[]string{"sweep", spec, "--list", "--shard", "2/2"}, `--shard "2/2": want i/n with 0 <= i < n`},
		{[]string{"sweep", spec, "--list", "-o", res}, "--list prints the items and exits"},
		{[]string{"sweep", spec, "--sbatch", "--json"}, "--json does not go with --sbatch"},
		{[]string{"sweep", spec, "--sbatch", "--shards", "0"}, "--shards 0 --cpus 2"},
		{[]string{"merge"}, "want at least one results file"},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args[1:], code, stderr, c.want)
		}
	}
}
