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

// interruptAfterFirst runs first, counting its looks at the context, then all
// with a Ctrl-C two looks after as many (inside the work after first's), and
// returns all's standard output and error; all must exit 130.
func interruptAfterFirst(t *testing.T, first, all []string) (stdout, stderr []byte) {
	t.Helper()
	var out, errb bytes.Buffer
	count := ctxtest.NewCounting()
	if code := run(count, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, first); code != 0 {
		t.Fatalf("%s: exit %d, %s", strings.Join(first, " "), code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run(ctxtest.StopAfter(count.Looks()+2), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, all); code != exitInterrupted {
		t.Fatalf("%s: exit %d, want %d: %s", strings.Join(all, " "), code, exitInterrupted, errb.String())
	}
	return out.Bytes(), errb.Bytes()
}

// Issue 24 row 21: a Ctrl-C during a multi-rate netsim writes the rates finished
// (they were discarded) and exits 130.
func TestNetsimInterruptWritesFinishedRates(t *testing.T) {
	args := []string{"netsim", "--machine", "mesh:4x4", "--warmup", "1000", "--measure", "20000", "--json"}
	out, errb := interruptAfterFirst(t, append(args, "--rate", "0.05"), append(args, "--rate", "0.05,0.1,0.2"))
	var o struct {
		Points []struct {
			Rate float64 `json:"rate"`
		} `json:"points"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(o.Points) != 1 || o.Points[0].Rate != 0.05 {
		t.Errorf("points %+v, want the finished rate 0.05: %s", o.Points, out)
	}
	if !strings.Contains(string(errb), "rates finished so far were written") {
		t.Errorf("stderr %q", errb)
	}
}

// compareStoppedAt runs compare of mc1x1 and genalg on mesh:4x4 (200 jobs, one
// replay at a time) with extra flags, with a Ctrl-C at the at-th reading of
// nowFunc (a replay's start, then its end, ...), and returns its standard output
// and error; it must exit 130.
func compareStoppedAt(t *testing.T, at int64, dir string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	trace := filepath.Join(dir, "t.txt")
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%d %d %d -1\n", i*7, 1+i%9, 30+i%50)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int64
	old := nowFunc
	defer func() { nowFunc = old }()
	nowFunc = func() time.Time {
		if calls.Add(1) == at {
			cancel()
		}
		return time.Now()
	}
	var out, errb bytes.Buffer
	args := append([]string{"compare", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1,genalg", "--parallel", "1"}, extra...)
	if code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args); code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
	}
	return out.Bytes(), errb.Bytes()
}

// Issue 24 row 21: a Ctrl-C during compare --loads writes the replays finished.
func TestCompareInterruptWritesFinishedReplays(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "c.csv")
	out, errb := compareStoppedAt(t, 2, dir, "--loads", "1,0.5", "--csv", csv, "--json") // the end of the first replay
	var o struct {
		Runs []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	if len(o.Runs) != 1 {
		t.Errorf("%d runs written, want the 1 finished", len(o.Runs))
	}
	if data, err := os.ReadFile(csv); err != nil || strings.Count(string(data), "\n") != 2 {
		t.Errorf("csv: %v, %q", err, data)
	}
	if !strings.Contains(string(errb), "the 1 replay finished of 4 was written") {
		t.Errorf("stderr %q", errb)
	}
}

// A Ctrl-C during compare before any replay finished (one replay of 2 x 10^5
// nodes takes minutes) writes nothing and says so, not a bare "interrupted": exit
// 130, no -o or --csv file.
func TestCompareInterruptBeforeAnyReplayFinished(t *testing.T) {
	dir := t.TempDir()
	csv, out := filepath.Join(dir, "c.csv"), filepath.Join(dir, "o.txt")
	_, errb := compareStoppedAt(t, 1, dir, "--csv", csv, "-o", out) // the start of the first replay
	if want := "none of the 2 replays had finished: nothing written; stopped: "; !strings.Contains(string(errb), want) {
		t.Errorf("stderr %q, want %q", errb, want)
	}
	for _, f := range []string{csv, out} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s written (%v), want nothing", f, err)
		}
	}
}

// A Ctrl-C during sim writes the jobs replayed so far (it wrote nothing), marked
// interrupted in the JSON, the table's first line and on stderr, --per-job's rows
// the same jobs, and exits 130.
func TestSimInterruptWritesJobsReplayed(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%d %d %d -1\n", i*7, 1+i%9, 30+i%50)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	perJob := filepath.Join(dir, "jobs.csv")
	args := []string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1", "--per-job", perJob}
	count := ctxtest.NewCounting()
	var out, errb bytes.Buffer
	if code := run(count, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, append(args, "--json")); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "interrupted") {
		t.Fatalf("a finished replay marked interrupted: %s", out.String())
	}
	for _, asJSON := range []bool{true, false} {
		a := args
		if asJSON {
			a = append(args, "--json")
		}
		out.Reset()
		errb.Reset()
		if code := run(ctxtest.StopAfter(count.Looks()/2), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, a); code != exitInterrupted {
			t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
		}
		rows, err := os.ReadFile(perJob)
		if err != nil {
			t.Fatalf("--per-job: %v", err)
		}
		jobs := strings.Count(string(rows), "\n") - 1 // the header
		if jobs <= 0 || jobs >= 300 {
			t.Fatalf("%d per-job rows, want those of the jobs replayed before the stop", jobs)
		}
		if asJSON {
			var o struct {
				Jobs        int  `json:"jobs"`
				JobsInTrace int  `json:"jobs_in_trace"`
				Interrupted bool `json:"interrupted"`
			}
			if err := json.Unmarshal(out.Bytes(), &o); err != nil {
				t.Fatalf("%v: %q", err, out.String())
			}
			if !o.Interrupted || o.Jobs != jobs || o.JobsInTrace != 300 {
				t.Errorf("JSON %+v, want interrupted, %d jobs of 300", o, jobs)
			}
		} else if want := fmt.Sprintf("(interrupted: the first %d of 300 jobs, replayed before the stop)\n", jobs); !strings.Contains(out.String(), want) {
			t.Errorf("table %q, want %q", out.String(), want)
		}
		if want := fmt.Sprintf("the first %d jobs of 300, replayed so far, were written, marked interrupted", jobs); !strings.Contains(errb.String(), want) {
			t.Errorf("stderr %q, want %q", errb.String(), want)
		}
	}
}

// A Ctrl-C during sim before the trace's first job finished (here it runs longest,
// so no job finishes before it; at 2 x 10^5 nodes one decision can take minutes)
// writes nothing and says so, rather than a bare "interrupted": exit 130, no -o
// file, no --per-job file.
func TestSimInterruptBeforeFirstJobSaysNothingWritten(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.txt")
	var b strings.Builder
	fmt.Fprintf(&b, "0 2 100000 -1\n")
	for i := 1; i < 50; i++ {
		fmt.Fprintf(&b, "%d %d %d -1\n", i, 1+i%5, 10+i%7)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, perJob := filepath.Join(dir, "out.txt"), filepath.Join(dir, "jobs.csv")
	args := []string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1", "-o", out, "--per-job", perJob}
	count := ctxtest.NewCounting()
	var errb bytes.Buffer
	if code := run(count, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb}, args); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	os.Remove(out)
	os.Remove(perJob)
	errb.Reset()
	if code := run(ctxtest.StopAfter(count.Looks()/2), &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb}, args); code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
	}
	if want := "the trace's first job (of 50) had not finished: nothing written; stopped: "; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	for _, f := range []string{out, perJob} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s written (%v), want nothing", f, err)
		}
	}
}

// endlessSacct is sacct output that never ends (jobs of one node of n[01-16]),
// counting the bytes read; it presses Ctrl-C (interrupt) once 1 MB has been read.
type endlessSacct struct {
	line      int
	read      atomic.Int64
	buf       []byte
	interrupt func()
}

func (s *endlessSacct) Read(p []byte) (int, error) {
	for len(s.buf) < len(p) {
		if s.line == 0 {
			s.buf = append(s.buf, "JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n"...)
		}
		s.line++
		s.buf = fmt.Appendf(s.buf, "%d|2026-11-01T00:00:00|2026-11-01T00:00:00|2026-11-01T00:01:00|60|2|1|1|COMPLETED|all|node%02d\n", s.line, 1+s.line%16)
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if s.read.Add(int64(n)) >= 1<<20 {
		s.interrupt()
	}
	return n, nil
}

// A Ctrl-C while plan reads its --trace stops the reading (a 10^5-host site's
// history is read for seconds before the work that looks at the context began, and
// Ctrl-C waited for the two-second watchdog): exit 130, "interrupted", nothing
// written. The history here never ends, so only the interrupt ends the reading
// (before, it read until the 2,000,000-job cap).
func TestPlanInterruptWhileReadingTrace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plan")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	src := &endlessSacct{interrupt: func() { cancel(errInterrupted) }}
	var stdout, stderr bytes.Buffer
	args := []string{"plan", "--graph", "../../topo/testdata/fattree.ibnetdiscover", "--node-name-map", "../../topo/testdata/fattree.node-name-map",
		"--slurm-conf", "../../plan/testdata/slurm.conf", "--slurm-version", "23.11", "--trace", "-", "-o", out}
	start := time.Now()
	code := run(ctx, &env{stdin: src, stdout: &stdout, stderr: &stderr}, args)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, stderr.String())
	}
	if got := stderr.String(); got != "procalloc plan: interrupted\n" {
		t.Errorf("stderr %q, want %q", got, "procalloc plan: interrupted\n")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory %s: %v, want none", out, err)
	}
	// The reader looks at the context before each read (of 64 kB at most).
	if n := src.read.Load(); n > 1<<20+1<<17 {
		t.Errorf("%d bytes read, %d after the interrupt", n, n-1<<20)
	}
	t.Logf("%d bytes of history read in %v", src.read.Load(), time.Since(start))
}
