package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
)

// TestSweepOnMultiNodeSlurm runs the demo sweep as a job array of 12 one-CPU tasks on
// a 16-node Slurm (scripts/slurm-cluster.sh: 16 slurmd on loopback, one CPU each), so
// that the tasks run on different nodes at once, and checks that the merged shards
// equal the single-process run. It skips, saying why, without the script, without
// Slurm, when not root and with -short. SLURM_CLUSTER_SCRIPT overrides the script's
// path; its ports are free ones (internal/slurmtest/ports).
func TestSweepOnMultiNodeSlurm(t *testing.T) {
	slurmtest.NeedDaemons(t, "sbatch", "slurmctld", "slurmd", "munged", "scontrol")
	script := slurmtest.Script(t)
	work := t.TempDir()
	bin := filepath.Join(work, "procalloc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := filepath.Join(work, "cluster")
	env := append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, work
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// Finished jobs stay in slurmctld's memory for 10 minutes: where each task ran.
	extra := filepath.Join(work, "extra.conf")
	os.WriteFile(extra, []byte("MinJobAge=600\n"), 0o644)
	t.Cleanup(func() { exec.Command("bash", script, "stop", "--dir", dir).Run() })
	if _, err := ports.Start(17, func(base int) error {
		_, err := ports.RunScript(env, script, "start", "--nodes", "16", "--dir", dir, "--port-base", strconv.Itoa(base), "--conf-extra", extra)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	spec, _ := filepath.Abs("../../examples/demo-sweep.yaml")
	const shards = 12
	sb := run(bin, "sweep", spec, "--sbatch", "--shards", strconv.Itoa(shards), "--cpus", "1", "-o", filepath.Join(work, "res"))
	os.WriteFile(filepath.Join(work, "job.sbatch"), []byte(sb+"\n"), 0o644)
	job := run("sbatch", "--parsable", "--wait", "job.sbatch")
	nodes := map[string]bool{}
	tasks := 0
	for _, l := range strings.Split(run("scontrol", "-o", "show", "job", job), "\n") {
		if !strings.Contains(l, "ArrayTaskId=") {
			continue
		}
		tasks++
		if !strings.Contains(l, "JobState=COMPLETED") {
			t.Fatalf("a task did not complete: %s", l)
		}
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "NodeList="); ok {
				nodes[v] = true
			}
		}
	}
	if tasks != shards || len(nodes) < 2 {
		t.Fatalf("%d tasks on %d nodes (%v); want %d tasks spread over several nodes", tasks, len(nodes), nodes, shards)
	}
	shardFiles, _ := filepath.Glob(filepath.Join(work, "res.shard-*.jsonl"))
	run(bin, append(append([]string{"merge"}, shardFiles...), "--spec", spec, "-o", "merged.jsonl")...)
	run(bin, "sweep", spec, "-o", "single.jsonl")
	run(bin, "merge", "single.jsonl", "--spec", spec, "-o", "single-merged.jsonl")
	a, _ := os.ReadFile(filepath.Join(work, "merged.jsonl"))
	b, _ := os.ReadFile(filepath.Join(work, "single-merged.jsonl"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the merged %d shards (%d bytes) differ from the single-process run (%d bytes)", shards, len(a), len(b))
	}
	t.Logf("array job %s: %d tasks ran on %d of 16 nodes; the merged shards equal the single-process run (%d bytes)", job, tasks, len(nodes), len(a))
}
