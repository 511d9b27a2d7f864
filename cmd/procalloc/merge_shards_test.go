package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeNamesTheMissingShard: the nineteenth round's walk (wt-ux3) merged 2
// of 3 shards; merge listed each missing item "in shard i/n with i = 2 mod n",
// "5 mod n", "8 mod n", ... Now it says they are shard 2/3's and what to run. A
// merge whose missing items share no shard with the lines it has keeps the old
// lines; without --spec the gaps are placed the same way.
func TestMergeNamesTheMissingShard(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1, genalg") // 12 items
	shard := func(i int) string {
		p := filepath.Join(dir, "r"+string(rune('0'+i))+".jsonl")
		if code, _, stderr := runCLI(t, "", "sweep", spec, "--shard", string(rune('0'+i))+"/3", "-o", p); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		return p
	}
	r0, r1 := shard(0), shard(1)
	for _, withSpec := range []bool{true, false} {
		args := []string{"merge", r0, r1, "-o", filepath.Join(dir, "m.jsonl")}
		if withSpec {
			args = append(args, "--spec", spec)
		}
		code, _, stderr := runCLI(t, "", args...)
		want := "the 4 missing items are those of shard 2/3 (index mod 3): run sweep --shard 2/3 again"
		if !withSpec {
			want = "the 3 missing items are those of shard 2/3" // #11, after the last line, cannot be seen
		}
		if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "missing #5 (shard 2/3") {
			t.Errorf("spec %v: exit %d, %q; want %q", withSpec, code, stderr, want)
		}
	}
	// items 0, 3 and 6 of shard 0/3, as a run cut short would leave them: 9, also
	// of shard 0/3, is missing with the others, so no shard holds just those.
	// (The file's lines are in the order the items finished, not index order.)
	var kept string
	for _, l := range strings.SplitAfter(string(mustRead(t, r0)), "\n") {
		var line struct{ Index int }
		if json.Unmarshal([]byte(l), &line) == nil && line.Index < 9 {
			kept += l
		}
	}
	cut := filepath.Join(dir, "cut.jsonl")
	os.WriteFile(cut, []byte(kept), 0o644)
	code, _, stderr := runCLI(t, "", "merge", cut, "--spec", spec, "-o", filepath.Join(dir, "m2.jsonl"))
	if code != 1 || strings.Contains(stderr, "missing items are those of shard") || !strings.Contains(stderr, "with i = 1 mod n") {
		t.Errorf("cut run: exit %d, %q", code, stderr)
	}
}

// TestSweepInterruptedInAnArrayTask: a sweep stopped inside a Slurm array task
// (scancel, a preemption) wrote "run the same command again to finish" into the
// task's log, where the command is the script's: it now says to submit the
// array's script again. Outside an array the old line stays.
func TestSweepInterruptedInAnArrayTask(t *testing.T) {
	dir := t.TempDir()
	spec := writeSweep(t, dir, "bf:hilbert-trunc, mc1x1, genalg")
	// Ctrl-C before the first item: a context already cancelled.
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	for _, c := range []struct {
		array bool
		want  string
	}{{false, "interrupted: run the same command again to finish"}, {true, "interrupted: submit the array's script again (sbatch) to finish"}} {
		if c.array {
			t.Setenv("SLURM_ARRAY_TASK_ID", "0")
			t.Setenv("SLURM_ARRAY_TASK_COUNT", "1")
		}
		out.Reset()
		errb.Reset()
		res := filepath.Join(dir, fmt.Sprintf("r%v.jsonl", c.array))
		code := run(stopped, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, []string{"sweep", spec, "-o", res, "-j", "1"})
		if code != exitInterrupted || !strings.Contains(out.String(), c.want) {
			t.Errorf("array %v: exit %d, %q %q; want %q", c.array, code, out.String(), errb.String(), c.want)
		}
	}
}
