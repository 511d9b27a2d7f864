package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// TestRunInterruptedKeepsJobsReplayed cancels replays half way (a context that
// ends after a number of looks): Run returns the cause and the summary of the
// first jobs of the trace, all finished, marked Interrupted; its figures are
// those of the same jobs in the uninterrupted replay (kept records, folded
// records and JobDone's calls agree), and a replay stopped before any job
// finished returns no result.
func TestRunInterruptedKeepsJobsReplayed(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(7, 8)), 200, g.N())
	cfg := func(noPerJob bool, calls *int) Config {
		a, err := alloc.Parse("mc1x1", g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := Config{Machine: g, Alloc: a, Sched: SchedEASY, NoPerJob: noPerJob}
		if calls != nil {
			c.JobDone = func(*JobResult) error { *calls++; return nil }
		}
		return c
	}
	count := ctxtest.NewCounting()
	full, err := Run(count, jobs, cfg(false, nil))
	if err != nil {
		t.Fatal(err)
	}
	if full.Interrupted || full.JobsInTrace != 0 {
		t.Fatalf("a finished replay marked interrupted: %v, %d", full.Interrupted, full.JobsInTrace)
	}
	for _, noPerJob := range []bool{false, true} {
		calls := 0
		res, err := Run(ctxtest.StopAfter(count.Looks()/2), jobs, cfg(noPerJob, &calls))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("NoPerJob %v: error %v, want context.Canceled", noPerJob, err)
		}
		if res == nil || !res.Interrupted || res.JobsInTrace != len(jobs) {
			t.Fatalf("NoPerJob %v: result %+v, want one marked interrupted of %d jobs", noPerJob, res, len(jobs))
		}
		k := res.Jobs
		if k <= 0 || k >= len(jobs) || calls != k {
			t.Fatalf("NoPerJob %v: %d jobs replayed, JobDone called %d times; want the same, between 1 and %d", noPerJob, k, calls, len(jobs)-1)
		}
		want := summarize(full.PerJob[:k], cfg(false, nil), nil)
		if res.MeanWait != want.MeanWait || res.Makespan != want.Makespan || res.Utilization != want.Utilization ||
			*res.PairwiseL1 != *want.PairwiseL1 || res.MeanSpan != want.MeanSpan {
			t.Errorf("NoPerJob %v: partial summary %+v, want that of the first %d jobs of the full replay %+v", noPerJob, res.Summary, k, want.Summary)
		}
		if !noPerJob {
			if len(res.PerJob) != k {
				t.Fatalf("%d records, want %d", len(res.PerJob), k)
			}
			for i, r := range res.PerJob {
				if r.Start != full.PerJob[i].Start || r.End != full.PerJob[i].End || r.TotalL1 != full.PerJob[i].TotalL1 {
					t.Fatalf("job %d: %+v, want %+v", i, r, full.PerJob[i])
				}
			}
		}
	}
	if res, err := Run(ctxtest.StopAfter(0), jobs, cfg(false, nil)); res != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("stopped before any job: %+v, %v; want no result and context.Canceled", res, err)
	}
}

// TestRunCommInterruptedKeepsJobsReplayed is the test above with communication
// deciding run times: the first jobs of the trace, all finished, their times in
// seconds as in the full replay, JobDone called for them (at the stop), and the
// network's figures of the messages delivered before the stop.
func TestRunCommInterruptedKeepsJobsReplayed(t *testing.T) {
	jobs := randomJobs(rand.New(rand.NewPCG(9, 10)), 120, 64)
	count := ctxtest.NewCounting()
	full, err := Run(count, jobs, commConfig(t, "mesh:8x8", "mc1x1", "n-body"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	cfg := commConfig(t, "mesh:8x8", "mc1x1", "n-body")
	cfg.JobDone = func(*JobResult) error { calls++; return nil }
	res, err := Run(ctxtest.StopAfter(count.Looks()/2), jobs, cfg)
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted || res.JobsInTrace != len(jobs) {
		t.Fatalf("result %+v, error %v; want one marked interrupted of %d jobs and context.Canceled", res, err, len(jobs))
	}
	k := res.Jobs
	if k <= 0 || k >= len(jobs) || calls != k || len(res.PerJob) != k {
		t.Fatalf("%d jobs replayed, %d records, JobDone called %d times; want the same, between 1 and %d", k, len(res.PerJob), calls, len(jobs)-1)
	}
	for i, r := range res.PerJob {
		if f := full.PerJob[i]; r.Start != f.Start || r.End != f.End || r.Messages != f.Messages {
			t.Fatalf("job %d: start %d end %d, %d messages; the full replay's %d, %d, %d", i, r.Start, r.End, r.Messages, f.Start, f.End, f.Messages)
		}
	}
	if want := summarize(full.PerJob[:k], cfg, nil); res.MeanWait != want.MeanWait || res.MeanResponse != want.MeanResponse {
		t.Errorf("mean wait %v, response %v; want the first %d jobs' of the full replay %v, %v", res.MeanWait, res.MeanResponse, k, want.MeanWait, want.MeanResponse)
	}
	if res.Comm == nil || res.Comm.Messages <= 0 || res.Comm.Messages >= full.Comm.Messages {
		t.Errorf("network summary %+v; want the messages delivered before the stop, fewer than the full replay's %d", res.Comm, full.Comm.Messages)
	}
}

// stopInDecision is an allocator that cancels the replay's context during its
// call number at (from 1) and returns the cause, as a long decision stopped by
// Ctrl-C does; it records that call's size.
type stopInDecision struct {
	alloc.Allocator
	cancel   context.CancelFunc
	at, call int
	k        int
}

func (s *stopInDecision) AllocateContext(ctx context.Context, k int) ([]int, error) {
	if s.call++; s.call == s.at {
		s.cancel()
		s.k = k
		return nil, context.Cause(ctx)
	}
	return alloc.AllocateContext(ctx, s.Allocator, k)
}

// A replay stopped inside an allocator's decision says which allocator, which of
// its decisions (counted by the replay's clock) and which job: Ctrl-C during one
// decision of minutes (genalg on a 2 x 10^5-host dragonfly) named neither. Stopped
// between decisions, the cause alone.
func TestRunStoppedInDecisionSaysWhich(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(3, 4)), 60, g.N())
	for _, c := range []struct {
		at    int
		clock bool
	}{{1, true}, {7, true}, {7, false}} {
		a, err := alloc.Parse("bf:hilbert", g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stub := &stopInDecision{Allocator: a, cancel: cancel, at: c.at}
		cfg := Config{Machine: g, Alloc: stub, Sched: SchedFCFS}
		if c.clock {
			cfg.Clock = &alloc.Clock{}
		}
		_, err = Run(ctx, jobs, cfg)
		if !errors.Is(err, context.Canceled) || stub.k == 0 {
			t.Fatalf("stopped in call %d: %v (size %d), want context.Canceled in a decision", c.at, err, stub.k)
		}
		want := fmt.Sprintf("in bf:hilbert's allocation decision %d, job ", c.at)
		if !c.clock {
			want = "in bf:hilbert's allocation decision, job "
		}
		if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, fmt.Sprintf(" (%d processors): ", stub.k)) {
			t.Errorf("stopped in call %d: %q, want it to start %q and name the job's %d processors", c.at, msg, want, stub.k)
		}
	}
	a, err := alloc.Parse("bf:hilbert", g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctxtest.StopAfter(5), jobs, Config{Machine: g, Alloc: a, Sched: SchedFCFS, Clock: &alloc.Clock{}}); err != context.Canceled {
		t.Errorf("stopped between decisions: %v, want context.Canceled itself", err)
	}
}
