package main

import (
	encodingcsv "encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
)

// blockWaitBlocks is the topology/block file of TestBlockWaitsOnSlurmNew: four
// blocks of four, listed out of name order, aggregated to 8 and 16.
const blockWaitBlocks = "BlockName=b1 Nodes=node[09-12]\nBlockName=b2 Nodes=node[01-04]\nBlockName=b3 Nodes=node[13-16]\nBlockName=b4 Nodes=node[05-08]\nBlockSizes=4,8,16\n"

// replayedJob is a job of a replay's --per-job CSV.
type replayedJob struct {
	start, end int64
	nodes      []int
}

// TestBlockWaitsOnSlurmNew replays a job sequence that makes jobs wait for a free
// block (issue 33) with `procalloc sim --alloc slurm:block:FILE --sched fcfs` and
// runs the same sequence on a Slurm built from source with topology/block
// (PROCALLOC_SLURM_NEW, scripts/slurm-build.sh) and the strict FIFO scheduler
// (SchedulerType=sched/builtin, sim's fcfs): every job submitted at once in trace
// order, each job ended (scancel) when the replay ends it. After every end Slurm must
// be running exactly the jobs the replay runs, each on the replay's nodes: the same
// placements and the same start order, waits included. The cluster runs on free
// ports (internal/slurmtest/ports).
func TestBlockWaitsOnSlurmNew(t *testing.T) {
	if os.Getenv("PROCALLOC_SLURM_NEW") == "" {
		t.Skip("PROCALLOC_SLURM_NEW is not set: the prefix of a Slurm >= 23.11 built with scripts/slurm-build.sh")
	}
	slurmtest.NeedDaemons(t)
	prefix, _ := slurmtest.NewSlurm(t)
	script := slurmtest.Script(t)
	work := t.TempDir()
	dir := filepath.Join(work, "cluster")
	blocks := filepath.Join(work, "blocks.conf")
	extra := filepath.Join(work, "extra.conf")
	os.WriteFile(blocks, []byte(blockWaitBlocks), 0o644)
	os.WriteFile(extra, []byte("SchedulerType=sched/builtin\n"), 0o644)

	// The sequence: 40 jobs arriving a second apart, all before the first ends;
	// sizes that need an aggregated block (5-8, 9-16 nodes) as well as small ones;
	// run times distinct, so that the replay ends one job at a time.
	rng := rand.New(rand.NewPCG(33, 29))
	sizes := []int{1, 2, 3, 4, 4, 5, 6, 8, 3, 12, 2, 7, 16}
	const jobs = 40
	var trace strings.Builder
	runtimes := rng.Perm(jobs)
	for i := range jobs {
		rt := 100 + 10*runtimes[i]
		fmt.Fprintf(&trace, "%d %d %d %d\n", i, sizes[rng.IntN(len(sizes))], rt, rt)
	}
	tracePath := filepath.Join(work, "jobs.txt")
	os.WriteFile(tracePath, []byte(trace.String()), 0o644)
	csvPath := filepath.Join(work, "jobs.csv")
	code, out, stderr := runCLI(t, "", "sim", "--trace", tracePath, "--format", "converted", "--machine", "mesh:16", "--hostlist", "node[01-16]",
		"--alloc", "slurm:block:"+blocks, "--sched", "fcfs", "--per-job", csvPath, "--json")
	if code != 0 {
		t.Fatalf("sim: exit %d: %s", code, stderr)
	}
	replay := readReplayedJobs(t, csvPath)
	waited := 0
	for i, j := range replay {
		if j.start > int64(i) {
			waited++
		}
	}
	// Jobs refused for want of a block although enough nodes were free (sim's
	// block_waits): the sequence must have some, or it checks nothing of issue 33.
	var summary struct {
		BlockWaits *struct {
			Jobs int `json:"jobs"`
		} `json:"block_waits"`
	}
	if err := json.Unmarshal([]byte(out), &summary); err != nil {
		t.Fatalf("sim --json: %v\n%s", err, out)
	}
	if summary.BlockWaits == nil || summary.BlockWaits.Jobs == 0 {
		t.Fatalf("no job waited for a block in the replay: the sequence checks nothing\n%s", out)
	}
	blockWaits := summary.BlockWaits.Jobs

	t.Cleanup(func() { exec.Command("bash", script, "stop", "--dir", dir, "--prefix", prefix).Run() })
	if _, err := ports.Start(17, func(base int) error {
		_, err := ports.RunScript(nil, script, "restart", "--nodes", "16", "--dir", dir, "--port-base", strconv.Itoa(base),
			"--prefix", prefix, "--topology", blocks, "--conf-extra", extra)
		return err
	}); errors.Is(err, ports.ErrNoSlurm) {
		t.Skip(err)
	} else if err != nil {
		t.Fatalf("starting the cluster: %v", err)
	}
	names := slurmtest.NodeNames(16)
	c := &slurmtest.Cluster{Conf: filepath.Join(dir, "slurm.conf"), Dir: work, Submit: "sbatch", Names: names, Prefix: prefix}
	ids := make([]string, jobs)
	for i, l := range strings.Split(strings.TrimSpace(trace.String()), "\n") {
		k := strings.Fields(l)[1]
		o, errs, err := c.Cmd("sbatch", "--parsable", "-N", k, "-o", "/dev/null", "-J", "job"+strconv.Itoa(i), "--wrap", "exec sleep 1000")
		if err != nil {
			t.Fatalf("sbatch: %v: %s", err, errs)
		}
		ids[i] = strings.TrimSpace(strings.Split(o, ";")[0])
	}
	// The replay's moments: before the first end, then after each end.
	var ends []int64
	for _, j := range replay {
		ends = append(ends, j.end)
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	compared, differ := 0, 0
	started := map[int]bool{}
	check := func(now int64, moment string) {
		t.Helper()
		want := map[string]int{}
		for i, j := range replay {
			if j.start <= now && j.end > now {
				want[ids[i]] = i
			}
		}
		got := slurmRunning(t, c, len(want))
		var gotIDs, wantIDs []string
		for id := range got {
			gotIDs = append(gotIDs, id)
		}
		for id := range want {
			wantIDs = append(wantIDs, id)
		}
		slices.Sort(gotIDs)
		slices.Sort(wantIDs)
		if !slices.Equal(gotIDs, wantIDs) {
			t.Fatalf("%s: Slurm runs jobs %v, the replay %v", moment, gotIDs, wantIDs)
		}
		for id, i := range want {
			if started[i] {
				continue
			}
			started[i] = true
			compared++
			if !slices.Equal(got[id], replay[i].nodes) {
				differ++
				t.Errorf("%s: job %d (%s, %d nodes): Slurm %s, the replay %s", moment, i, id, len(replay[i].nodes), c.Hosts(got[id]), c.Hosts(replay[i].nodes))
			}
		}
	}
	check(ends[0]-1, "before the first end")
	for _, e := range ends {
		for i, j := range replay {
			if j.end == e {
				if err := c.Cancel(ids[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		check(e, fmt.Sprintf("at %d s", e))
	}
	if compared != jobs {
		t.Fatalf("%d of %d jobs started", compared, jobs)
	}
	fmt.Printf("slurm (topology/block waits, %s): %d placements compared, %d differ; %d jobs waited (%d for a block), start order equal\n", slurmVersion(c), compared, differ, waited, blockWaits)
}

// readReplayedJobs reads sim --per-job's CSV, in trace order.
func readReplayedJobs(t *testing.T, path string) []replayedJob {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := encodingcsv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v", path, err)
	}
	col := func(name string) int {
		i := slices.Index(rows[0], name)
		if i < 0 {
			t.Fatalf("%s: no column %s in %v", path, name, rows[0])
		}
		return i
	}
	cs, ce, cn := col("start"), col("end"), col("nodes")
	var out []replayedJob
	for _, r := range rows[1:] {
		s, err1 := strconv.ParseInt(r[cs], 10, 64)
		e, err2 := strconv.ParseInt(r[ce], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: row %v", path, r)
		}
		var nodes []int
		for _, f := range strings.Fields(r[cn]) {
			v, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: node %q", path, f)
			}
			nodes = append(nodes, v)
		}
		slices.Sort(nodes)
		out = append(out, replayedJob{s, e, nodes})
	}
	return out
}

// slurmRunning waits until Slurm runs n jobs and nothing else starts for a second
// (at most 15 s), and returns the running jobs' nodes by job id.
func slurmRunning(t *testing.T, c *slurmtest.Cluster, n int) map[string][]int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last map[string][]int
	stable := time.Time{}
	for {
		out, errs, err := c.Cmd("squeue", "-h", "-t", "R", "-o", "%i %N")
		if err != nil {
			t.Fatalf("squeue: %v: %s", err, errs)
		}
		cur := map[string][]int{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(l)
			if len(f) != 2 {
				continue
			}
			nodes, err := c.Nodes(f[1])
			if err != nil {
				t.Fatal(err)
			}
			cur[f[0]] = nodes
		}
		if fmt.Sprint(cur) != fmt.Sprint(last) {
			last, stable = cur, time.Now()
		}
		if len(last) >= n && time.Since(stable) > time.Second || time.Now().After(deadline) {
			return last
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func slurmVersion(c *slurmtest.Cluster) string {
	out, _, _ := c.Cmd("sinfo", "-V")
	return strings.TrimSpace(out)
}
