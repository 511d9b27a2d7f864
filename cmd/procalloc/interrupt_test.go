package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// Issue 24 row 21: a Ctrl-C during compare --loads writes the replays finished.
func TestCompareInterruptWritesFinishedReplays(t *testing.T) {
	dir := t.TempDir()
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
		if calls.Add(1) == 2 { // the end of the first replay
			cancel()
		}
		return time.Now()
	}
	csv := filepath.Join(dir, "c.csv")
	var out, errb bytes.Buffer
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		[]string{"compare", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1,genalg", "--loads", "1,0.5", "--parallel", "1", "--csv", csv, "--json"})
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb.String())
	}
	var o struct {
		Runs []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("%v: %q", err, out.String())
	}
	if len(o.Runs) != 1 {
		t.Errorf("%d runs written, want the 1 finished", len(o.Runs))
	}
	if data, err := os.ReadFile(csv); err != nil || strings.Count(string(data), "\n") != 2 {
		t.Errorf("csv: %v, %q", err, data)
	}
	if !strings.Contains(errb.String(), "1 replays finished of 4 were written") {
		t.Errorf("stderr %q", errb.String())
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
