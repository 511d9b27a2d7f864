package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// A command interrupted mid-run (Ctrl-C: its context cancelled) leaves no
// goroutine running once it has returned and its workers have wound down: the
// replays of compare and sweep (sim.Grid's pool), plan's deployments, batch's
// workers, bench's measuring goroutine, the branch and bound's workers, HiGHS's
// run, and the progress bar's clock (stderr a terminal here).
// The commands run seconds uninterrupted; each is cancelled after 300 ms and
// must exit 130 (the cancel came mid-run): sim and compare replay on mesh:64x64 (on
// 16x16 MM's replay took 0.31 s on a quiet host and could finish before the cancel),
// and every other command's work is at least 1.5 s on that host uninterrupted
// (measured with the binary, 2026-12-06: bench 3.7 s, order 1.6 s, subset 9.4 s,
// evaluate 1.5 s, sweep 2.0 s, batch 2.3 s; plan 3.8 s on 2026-12-07, when its
// torus3d decision became arithmetic and the 2,048-host plan it ran took 0.3 s).
func TestInterruptedCommandsLeaveNoGoroutine(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte("ClusterName=c\nNodeName=DEFAULT CPUs=1 State=UNKNOWN\nNodeName=nid[00001-16384]\nPartitionName=all Nodes=ALL Default=YES\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 3,000 points spread over 2001 x 2001: MM's search takes seconds.
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%d %d\n", (i*7919)%2001, (i*104729)%2001)
	}
	pts := filepath.Join(dir, "pts.txt")
	if err := os.WriteFile(pts, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	for _, args := range [][]string{
		{"compare", "--trace", llnl, "--machine", "mesh:64x64", "--alloc", "mc1x1,mm,genalg", "--parallel", "3", "--json"},
		{"sweep", "../../examples/demo-sweep.yaml", "-j", "2", "-o", filepath.Join(dir, "sweep.jsonl")},
		{"sim", "--trace", llnl, "--machine", "mesh:64x64", "--alloc", "mm", "--json"},
		{"plan", "--machine", "torus:16x32x32", "--hostlist", "nid[00001-16384]", "--slurm-conf", conf, "--slurm-version", "26.05", "--jobs", "8000", "-o", filepath.Join(dir, "plan")},
		{"batch", "--machine", "mesh:16x16:io=left", "--alloc", "dbt:1/2,mbs", "--comm-per-io", "0,8", "--runs", "200", "--workers", "2"},
		{"bench", "--machine", "mesh:128x128", "--alloc", "mc1x1,mm"},
		{"order", "--machine", "mesh:10x10", "--weights", "exp:2:3", "--time-limit", "30s"},
		{"subset", "--algo", "mm", "--k", "200", "--points", pts},
		{"evaluate", "--machine", "mesh:1024x1024", "--weights", "exp:2:3", "--curve", "all"},
	} {
		before := ctxtest.Goroutines()
		ctx, cancel := context.WithCancelCause(context.Background())
		stop := time.AfterFunc(300*time.Millisecond, func() { cancel(errInterrupted) })
		var out, errb bytes.Buffer
		code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, stderrIsTTY: true}, args)
		stop.Stop()
		cancel(nil)
		if code != exitInterrupted {
			t.Errorf("%s: exit %d, want %d (interrupted mid-run): %s", args[0], code, exitInterrupted, errb.String())
		}
		if left := ctxtest.Leaked(before, 20*time.Second); len(left) > 0 {
			t.Errorf("%s: %d goroutines still running 20 s after it returned:\n%s", args[0], len(left), strings.Join(left, "\n\n"))
		}
	}
}
