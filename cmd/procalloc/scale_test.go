package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// meshEdgeList writes the x-by-y mesh as an edge list (a graph without the grid's
// structure: every distance a search of its hop index).
func meshEdgeList(t *testing.T, x, y int) string {
	t.Helper()
	var b strings.Builder
	for j := range y {
		for i := range x {
			v := j*x + i
			if i+1 < x {
				fmt.Fprintf(&b, "%d %d\n", v, v+1)
			}
			if j+1 < y {
				fmt.Fprintf(&b, "%d %d\n", v, v+x)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "mesh.edges")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Ctrl-C during evaluate's second curve writes the first one's scores (they were
// dropped) and exits 130; the JSON stays an array, as asked for two curves.
func TestEvaluateInterruptWritesScoredCurves(t *testing.T) {
	graph := meshEdgeList(t, 60, 60)
	args := []string{"evaluate", "--graph", graph, "--weights", "exp:2:3", "--json"}
	out, errb := interruptAfterFirst(t, append(args, "--curve", "rcm"), append(args, "--curve", "rcm,rowmajor"))
	var evals []struct {
		Curve     string  `json:"curve"`
		Objective float64 `json:"objective"`
	}
	if err := json.Unmarshal(out, &evals); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(evals) != 1 || evals[0].Curve != "rcm" || evals[0].Objective <= 0 {
		t.Errorf("evaluations %+v, want rcm's alone", evals)
	}
	if !strings.Contains(string(errb), "orderings scored so far were written") {
		t.Errorf("stderr %q", errb)
	}
}

// The verifier of order's objective (F recomputed from the order, O(n K) distances,
// each a search on an edge list) stops with the solve's context, after verifyGrace,
// and the result is printed with a note; it ran on after Ctrl-C (4 s on mesh:448x448
// as an edge list, where the watchdog then dropped the best ordering) and after the
// time limit.
func TestOrderVerifierStopsWithTheSolve(t *testing.T) {
	graph := meshEdgeList(t, 20, 20) // 400 nodes: the scalable path
	defer func(g time.Duration) { verifyGrace = g }(verifyGrace)
	verifyGrace = 0
	args := []string{"order", "--graph", graph, "--weights", "exp:2:3", "--json"}
	// Interrupted once the graph is read (an interrupt while it is read stops the
	// command with nothing to print): the context ends at the read's last look,
	// which still answers nil.
	count := ctxtest.NewCounting()
	if _, err := loadMachine(count, &env{}, "", &graphFlags{file: graph}); err != nil {
		t.Fatal(err)
	}
	ctx := cancelAfter(count.Looks())
	var out, errb bytes.Buffer
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
	}
	var o orderOutput
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if len(o.Order) != 400 || o.Status != "interrupted" || !strings.Contains(strings.Join(o.Notes, "\n"), "objective not re-verified") {
		t.Errorf("status %s, %d nodes, notes %q: want an interrupted order with the verifier's note", o.Status, len(o.Order), o.Notes)
	}
	// Given the time, the objective is verified (no note) after the time limit.
	verifyGrace = time.Minute
	code, stdout, stderr := runCLI(t, "", append(args, "--time-limit", "200ms")...)
	if code != 0 || strings.Contains(stdout, "not re-verified") {
		t.Errorf("exit %d, %s %s", code, stdout, stderr)
	}
}

// The watchdog does not wait for a file written while the command computes it
// (sim --per-job, rows as jobs finish) as for a result under way: it removes it
// half-written and exits. It waited outputDrain (20 s) for a replay that did not
// stop (sim mc1x1 on mesh:448x448 with --per-job: killed at 23 s by timeout -k,
// its temporary file left behind).
func TestWatchdogRemovesStreamWithoutWaiting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jobs.csv")
	started, release := make(chan struct{}), make(chan struct{})
	wrote := make(chan error, 1)
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	go func() {
		_, err := stageStream(e, "--per-job", path, func(w io.Writer) error {
			fmt.Fprintln(w, "id,nodes")
			close(started)
			<-release // a replay that does not stop
			return errInterrupted
		})
		wrote <- err
	}()
	<-started
	sigs := make(chan os.Signal, 2)
	exited := make(chan int, 1)
	var msg bytes.Buffer
	startWatchdog(t, sigs, func() {}, 10*time.Millisecond, &msg, func(code int) { exited <- code })
	sigs <- os.Interrupt
	select {
	case code := <-exited:
		if code != exitInterrupted {
			t.Errorf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatalf("the watchdog waited for the per-job stream (%s)", msg.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the directory: %v", ents)
	}
	close(release)
	if err := <-wrote; err == nil {
		t.Error("the stream was committed")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the half-written file was put in place")
	}
}

// live redraws the bar from the state it reads on its own clock: a replay that
// reports each finished job moves the bar, and the bar still shows (elapsed
// time) while no job finishes; off a terminal it draws nothing.
func TestProgressLive(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var buf lockedBuffer
		p := newProgress(&env{stderr: &buf, stderrIsTTY: tty}, "sim mm", 10)
		p.start = time.Now().Add(-2 * time.Second) // past the first second's silence
		var done atomic.Int64
		stop := p.live(func() (int64, string) {
			d := done.Load()
			return d, fmt.Sprintf("%d/10 jobs", d)
		})
		wait := func(s string) {
			deadline := time.Now().Add(5 * time.Second)
			for tty && time.Now().Before(deadline) && !strings.Contains(buf.String(), s) {
				time.Sleep(20 * time.Millisecond)
			}
		}
		wait("0/10 jobs")
		done.Store(7)
		wait("7/10 jobs")
		stop()
		got := buf.String()
		if !tty {
			if got != "" {
				t.Errorf("not a terminal: drew %q", got)
			}
			continue
		}
		for _, want := range []string{"sim mm [                              ]   0% 0/10 jobs 2s", "sim mm [=====================         ]  70% 7/10 jobs"} {
			if !strings.Contains(got, want) {
				t.Errorf("terminal: %q lacks %q", got, want)
			}
		}
		if !strings.HasSuffix(got, "\r\033[K") {
			t.Errorf("terminal: bar not cleared at stop: %q", got)
		}
	}
}

// tickingAt redraws a counted bar at its step while a step's work reports nothing
// itself (evaluate scoring a curve: seconds on a large edge list showed no bar).
func TestProgressTickingAt(t *testing.T) {
	var buf lockedBuffer
	p := newProgress(&env{stderr: &buf, stderrIsTTY: true}, "evaluate", 4)
	p.start = time.Now().Add(-2 * time.Second) // past the first second's silence
	stop := p.tickingAt(2, "rcm")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(buf.String(), "rcm") {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if got := buf.String(); !strings.Contains(got, "evaluate [===============               ]  50% rcm 2s") {
		t.Errorf("terminal: %q", got)
	}
}

// cancelAfterCtx is a context cancelled (cause errInterrupted) at the last of the
// looks at its Err it was given, which still answers nil; Done closes then.
type cancelAfterCtx struct {
	context.Context
	cancel context.CancelCauseFunc
	left   atomic.Int64
}

func cancelAfter(looks int64) *cancelAfterCtx {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &cancelAfterCtx{Context: ctx, cancel: cancel}
	c.left.Store(looks)
	return c
}

func (c *cancelAfterCtx) Err() error {
	if n := c.left.Add(-1); n <= 0 {
		c.cancel(errInterrupted)
		if n == 0 {
			return nil
		}
	}
	return c.Context.Err()
}
