package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// procalloc bench: the table, the JSON (one latency per decision) and the SVG of a
// small synthetic run and of a trace, and its bad input.
func TestBenchCommand(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "lat.svg")
	code, out, stderr := runCLI(t, "", "bench", "--machine", "mesh:16x16", "--alloc", "bf:hilbert,mc1x1:tb=3,9,3,2,mm", "--jobs", "300", "--json", "--svg", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Jobs   int
		Floor  struct{ Decisions int }
		Allocs []struct {
			Alloc     string
			Decisions int
			Releases  int
			Complete  bool
			Latency   struct {
				Median float64 `json:"median_us"`
			} `json:"latency"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 300 || rep.Floor.Decisions != 300 || len(rep.Allocs) != 3 || rep.Allocs[1].Alloc != "mc1x1:tb=3,9,3,2" {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Allocs {
		if r.Decisions != 300 || r.Releases != 300 || !r.Complete || r.Latency.Median <= 0 {
			t.Errorf("%+v", r)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "mc1x1:tb=3,9,3,2") {
		t.Errorf("svg: %v", err)
	}
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	code, out, stderr = runCLI(t, "", "bench", "--machine", "mesh:16x16", "--trace", llnl, "--compat", "premas", "--jobs", "500", "--alloc", "genalg")
	if code != 0 || !strings.Contains(out, "read free set") || !strings.Contains(out, "genalg") || !strings.Contains(out, "first 500 jobs") {
		t.Errorf("trace: exit %d\n%s%s", code, out, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--machine", "mesh:16x16"}, 2, "--alloc needs"},
		{[]string{"--alloc", "mm"}, 2, "--machine SPEC or --graph FILE"},
		{[]string{"--machine", "mesh:16x16", "--alloc", "mm,,bf:hilbert"}, 2, "allocator 2 of the list is empty"},
		{[]string{"--machine", "mesh:16x16", "--alloc", "mm", "--sched", "easy"}, 2, "--sched goes with --trace"},
		{[]string{"--machine", "mesh:16x16", "--alloc", "mm", "--trace", llnl, "--seed", "3"}, 2, "--seed sets the synthetic stream"},
		{[]string{"--machine", "torus:8x8", "--alloc", "mc"}, 2, "mc needs a mesh without wraparound"},
		{[]string{"--machine", "fattree:4,4:4,4:8", "--alloc", "bf:rcm,mm"}, 2, "needs a mesh or torus"},
		{[]string{"--machine", "mesh:8x8", "--alloc", "mm", "--trace", llnl}, 1, "job 1 (line 1) needs 128 nodes, the machine mesh:8x8 has 64"},
		{[]string{"--machine", "mesh:16x16", "--alloc", "bt,bf:hilbert", "--jobs", "300"}, 1, "bt: job "},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"bench"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if c.code == 1 && strings.HasPrefix(c.args[3], "bt") && !strings.Contains(out, "bf:hilbert") {
			t.Errorf("bt: the other allocator's row is missing:\n%s", out)
		}
	}
}

// Ctrl-C during bench writes what was measured (the floor and the allocators run
// so far, the one under way partial) and exits 130.
func TestBenchInterruptWritesWhatWasMeasured(t *testing.T) {
	var out, errb bytes.Buffer
	ctx := ctxtest.StopAfter(40000 + 40000 + 20000) // polled before each of the 40,000 steps: inside the second allocator
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		[]string{"bench", "--machine", "mesh:16x16", "--alloc", "bf:hilbert,mc1x1,mm", "--jobs", "20000", "--json"})
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
	}
	var rep struct {
		Interrupted bool
		Floor       struct{ Complete bool }
		Allocs      []struct {
			Alloc     string
			Decisions int
			Complete  bool
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if !rep.Interrupted || !rep.Floor.Complete || len(rep.Allocs) == 0 || len(rep.Allocs) == 3 && rep.Allocs[2].Complete {
		t.Errorf("interrupted report %+v", rep)
	}
	last := rep.Allocs[len(rep.Allocs)-1]
	if last.Complete || last.Decisions == 0 {
		t.Errorf("the allocator under way: %+v", last)
	}
}

// TestBenchReadsNoRecordedHosts: bench's workload is the jobs' sizes and order
// (bench.Workload), never their recorded nodes, so an sacct history naming a host
// the machine lacks (node17, retired) is measured whole: the jobs sim replays with
// a curve allocator, where sim --alloc as-run refuses the history naming the host
// (and --drop-unknown-hosts drops its jobs). That is why bench has no
// --drop-unknown-hosts. as-run itself, which needs the recorded nodes, is refused
// before anything is measured (it failed at its first decision, exit 1, after the
// floor was measured).
func TestBenchReadsNoRecordedHosts(t *testing.T) {
	retired, graph := "../../sim/testdata/sacct-fattree-retired.txt", "../../topo/testdata/topology.conf"
	code, out, stderr := runCLI(t, "", "bench", "--graph", graph, "--trace", retired, "--alloc", "bf:rcm", "--json")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	var rep struct{ Jobs int }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var replayed struct {
		Jobs int `json:"jobs"`
	}
	code, out, stderr = runCLI(t, "", "sim", "--graph", graph, "--trace", retired, "--alloc", "bf:rcm", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &replayed) != nil {
		t.Fatalf("sim: exit %d: %s", code, stderr)
	}
	if rep.Jobs == 0 || rep.Jobs != replayed.Jobs {
		t.Errorf("bench measured %d jobs, sim with bf:rcm replays %d", rep.Jobs, replayed.Jobs)
	}
	// The history does name a host the machine lacks: as-run says so.
	if code, _, stderr := runCLI(t, "", "sim", "--graph", graph, "--trace", retired, "--alloc", "as-run", "--sched", "as-run"); code == 0 || !strings.Contains(stderr, `"node17" is not a host`) {
		t.Fatalf("sim as-run: exit %d: %s", code, stderr)
	}
	code, out, stderr = runCLI(t, "", "bench", "--graph", graph, "--trace", retired, "--alloc", "bf:rcm,as-run")
	if code != 2 || out != "" || !strings.Contains(stderr, `allocator "as-run" places each job on the nodes its trace record names`) || !strings.Contains(stderr, "sim --alloc as-run") {
		t.Errorf("bench --alloc bf:rcm,as-run: exit %d, stdout %q, stderr %q; want exit 2 before anything is measured", code, out, stderr)
	}
}
