package bench

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

func machine(t *testing.T, spec string) topo.Machine {
	t.Helper()
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every decision of the workload is measured once: as many latencies as
// allocations, as many releases as jobs, percentiles in order, for the floor and
// every allocator.
func TestSpeedCountsEveryDecision(t *testing.T) {
	m := machine(t, "mesh:16x16")
	w, err := SyntheticWorkload(m.N(), 400, 7)
	if err != nil {
		t.Fatal(err)
	}
	starts, ends := 0, 0
	for _, op := range w.Ops {
		if op.Release {
			ends++
		} else {
			starts++
		}
	}
	if starts != 400 || ends != 400 || w.Jobs != 400 {
		t.Fatalf("synthetic workload: %d starts, %d ends, Jobs %d", starts, ends, w.Jobs)
	}
	rep, err := Run(context.Background(), Config{Machine: m, Allocs: []string{"bf:hilbert", "mc1x1", "mm"}, Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Interrupted || len(rep.Allocs) != 3 {
		t.Fatalf("interrupted %v, %d results", rep.Interrupted, len(rep.Allocs))
	}
	for _, r := range append([]Result{rep.Floor}, rep.Allocs...) {
		if !r.Complete || r.Error != "" || r.Decisions != 400 || r.Releases != 400 {
			t.Errorf("%s: complete %v (%s), %d decisions, %d releases, want 400", r.Alloc, r.Complete, r.Error, r.Decisions, r.Releases)
		}
		if len(r.Percentiles) != len(quantiles) || !slices.IsSorted(r.Percentiles) {
			t.Errorf("%s: percentiles %v", r.Alloc, r.Percentiles)
		}
		l := r.Latency
		if !(l.Median > 0 && l.Median <= l.P99 && l.P99 <= l.Max && l.Mean <= l.Max) || r.DecisionsPerSecond <= 0 {
			t.Errorf("%s: latency %+v, %g decisions/s", r.Alloc, l, r.DecisionsPerSecond)
		}
	}
}

// The clock keeps one latency per allocation, whatever the outcome.
func TestClockLatencyCount(t *testing.T) {
	m := machine(t, "mesh:8x8")
	a, err := alloc.Parse("mc1x1", m, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clk := &alloc.Clock{Record: true}
	rng := rand.New(rand.NewPCG(1, 2))
	var held [][]int
	calls := 0
	for range 500 {
		if len(held) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(held))
			if err := clk.Release(a, held[i]); err != nil {
				t.Fatal(err)
			}
			held = slices.Delete(held, i, i+1)
			continue
		}
		calls++
		if nodes, err := clk.Allocate(a, 1+rng.IntN(40)); err == nil {
			held = append(held, nodes)
		} else if !errors.Is(err, alloc.ErrNotEnoughFree) {
			t.Fatal(err)
		}
	}
	r := clk.Snapshot()
	if r.Allocations != int64(calls) || len(r.Latencies) != calls {
		t.Errorf("%d allocations, %d latencies, %d calls", r.Allocations, len(r.Latencies), calls)
	}
}

// The trace workload is the order sim's replay starts and ends jobs in with any
// allocator that places every request that fits: recorded here around mc1x1.
func TestTraceWorkloadIsTheReplaysOrder(t *testing.T) {
	m := machine(t, "mesh:8x8")
	rng := rand.New(rand.NewPCG(5, 6))
	var jobs []sim.Job
	for i := range 400 {
		jobs = append(jobs, sim.Job{ID: i + 1, Line: i + 1, Arrival: int64(i * 3), Runtime: int64(1 + rng.IntN(300)), Procs: 1 + rng.IntN(30), Estimate: -1})
	}
	for _, sched := range []sim.Sched{sim.SchedFCFS, sim.SchedEASY, sim.SchedCplant} {
		w, err := TraceWorkload(context.Background(), "t", jobs, m, sched)
		if err != nil {
			t.Fatal(err)
		}
		a, err := alloc.Parse("mc1x1", m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec := &opLogger{Allocator: a, owner: map[int]int32{}}
		if _, err := sim.Run(context.Background(), jobs, sim.Config{Machine: m, Alloc: rec, Sched: sched}); err != nil {
			t.Fatal(err)
		}
		if w.Jobs != len(jobs) || !slices.Equal(w.Ops, rec.ops) {
			t.Errorf("%s: the workload (%d ops, %d jobs) is not the replay's order (%d ops)", sched, len(w.Ops), w.Jobs, len(rec.ops))
		}
	}
	// A job larger than the machine: the first one is named.
	jobs[40].Procs, jobs[90].Procs = 65, 100
	_, err := TraceWorkload(context.Background(), "t", jobs, m, sim.SchedFCFS)
	if !errors.Is(err, ErrDoesNotFit) || !strings.Contains(err.Error(), "job 41 (line 41) needs 65 nodes") {
		t.Errorf("too large a job: %v", err)
	}
}

type opLogger struct {
	alloc.Allocator
	owner map[int]int32
	ops   []Op
	n     int32
}

func (l *opLogger) Allocate(k int) ([]int, error) {
	nodes, err := l.Allocator.Allocate(k)
	if err == nil {
		l.owner[nodes[0]] = l.n
		l.ops = append(l.ops, Op{Job: l.n, Procs: int32(k)})
		l.n++
	}
	return nodes, err
}

func (l *opLogger) Release(nodes []int) error {
	l.ops = append(l.ops, Op{Job: l.owner[nodes[0]], Procs: int32(len(nodes)), Release: true})
	return l.Allocator.Release(nodes)
}

// wrapAllocs makes Run's allocators bf:hilbert, each given to wrap with its spec
// (which returns it, or a wrapper that slows it down), until the test ends.
func wrapAllocs(t *testing.T, wrap func(spec string, a alloc.Allocator) alloc.Allocator) {
	p := parseAlloc
	t.Cleanup(func() { parseAlloc = p })
	parseAlloc = func(spec string, m topo.Machine, o alloc.Options) (alloc.Allocator, error) {
		a, err := alloc.Parse("bf:hilbert", m, o)
		if err != nil {
			return nil, err
		}
		return wrap(spec, a), nil
	}
}

// slowAlloc takes delay per decision and cannot be interrupted inside one.
type slowAlloc struct {
	alloc.Allocator
	delay time.Duration
}

func (s *slowAlloc) Allocate(k int) ([]int, error) {
	time.Sleep(s.delay)
	return s.Allocator.Allocate(k)
}

// Cancelling stops the measurement within a second with what was measured, also
// when the allocator is inside a decision of many seconds.
func TestSpeedStopsOnCancel(t *testing.T) {
	m := machine(t, "mesh:16x16")
	w, err := SyntheticWorkload(m.N(), 20000, 1)
	if err != nil {
		t.Fatal(err)
	}
	wrapAllocs(t, func(spec string, a alloc.Allocator) alloc.Allocator {
		switch spec {
		case "slow":
			return &slowAlloc{a, time.Millisecond}
		case "stuck":
			return &slowAlloc{a, time.Minute}
		}
		return a
	})
	for _, spec := range []string{"slow", "stuck"} {
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		var once sync.Once
		// Cancelled 0.3 s into the allocator's run (after the floor's).
		progress := func(i, done, total int) {
			if i == 0 {
				once.Do(func() {
					time.AfterFunc(300*time.Millisecond, func() { cancelled = time.Now(); cancel() })
				})
			}
		}
		rep, err := Run(ctx, Config{Machine: m, Allocs: []string{spec, "bf:hilbert"}, Workload: w, Progress: progress})
		took := time.Since(cancelled)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if cancelled.IsZero() || took > time.Second {
			t.Errorf("%s: stopped %v after the cancel", spec, took)
		}
		if !rep.Interrupted || len(rep.Allocs) != 1 || rep.Allocs[0].Complete || !rep.Floor.Complete {
			t.Fatalf("%s: interrupted %v, %d results, %+v", spec, rep.Interrupted, len(rep.Allocs), rep.Allocs)
		}
		r := rep.Allocs[0]
		if spec == "slow" && (r.Decisions < 10 || int64(len(r.Percentiles)) != int64(len(quantiles))) {
			t.Errorf("slow: %d decisions measured before the cancel", r.Decisions)
		}
		if spec == "stuck" && (r.Decisions != 0 || !strings.Contains(r.Error, "inside a decision")) {
			t.Errorf("stuck: %d decisions, error %q", r.Decisions, r.Error)
		}
	}
}

// Bad input: an allocator that does not apply says what it needs; a workload
// larger than the machine, an empty workload and no allocator are refused.
func TestSpeedBadInput(t *testing.T) {
	m := machine(t, "torus:8x8")
	w, _ := SyntheticWorkload(m.N(), 10, 1)
	for _, c := range []struct {
		cfg  Config
		want string
		spec bool // the spec's fault: an AllocError
	}{
		{Config{Machine: m, Allocs: []string{"mc"}, Workload: w}, "needs a mesh without wraparound", true},
		{Config{Machine: machine(t, "fattree:4,4:4,4:8"), Allocs: []string{"mm"}, Workload: w}, "needs a mesh or torus", true},
		{Config{Machine: m, Allocs: []string{"nosuch"}, Workload: w}, `unknown allocator "nosuch"`, true},
		{Config{Machine: m, Workload: w}, "no allocator", false},
		{Config{Machine: m, Allocs: []string{"bf:hilbert"}, Workload: Workload{MaxProcs: 65}}, "a job of 65 nodes", false},
	} {
		_, err := Run(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.cfg.Allocs, err, c.want)
		}
		// A spec refused on the machine is an AllocError (the CLI's usage error).
		var ae *AllocError
		if errors.As(err, &ae) != c.spec || c.spec && ae.Spec != c.cfg.Allocs[0] {
			t.Errorf("%v: error %v: AllocError %v, want one: %v", c.cfg.Allocs, err, ae, c.spec)
		}
	}
	// A file the spec names that cannot be read is a failure, not the spec's fault.
	files := &sim.Files{}
	if err := Check(Config{Machine: m, Allocs: []string{"slurm:tree:/nonexistent/topology.conf"}, Options: files.Options(alloc.Options{})}); err == nil || errors.As(err, new(*AllocError)) {
		t.Errorf("missing topology file: %v, want an error that is no AllocError", err)
	}
	if _, err := SyntheticWorkload(0, 5, 1); err == nil {
		t.Error("synthetic workload on no nodes")
	}
	if _, err := SyntheticWorkload(64, MaxSyntheticJobs+1, 1); err == nil { // 10^14 panicked
		t.Error("synthetic workload beyond MaxSyntheticJobs")
	}
	// An allocator that refuses a request that fits the free count (a binary
	// tree's block) gets its error; the others still run.
	m = machine(t, "mesh:16x16")
	w, _ = SyntheticWorkload(m.N(), 300, 3)
	rep, err := Run(context.Background(), Config{Machine: m, Allocs: []string{"bt", "bf:hilbert"}, Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Allocs[0]; r.Complete || !strings.Contains(r.Error, "job ") {
		t.Errorf("bt: complete %v, error %q", r.Complete, r.Error)
	}
	if !rep.Allocs[1].Complete {
		t.Errorf("bf:hilbert after bt: %+v", rep.Allocs[1])
	}
}

// The time limit ends an allocator's run between two decisions, however few the
// workload's steps, and the next allocator still runs.
func TestSpeedTimeLimit(t *testing.T) {
	m := machine(t, "mesh:8x8")
	w, err := SyntheticWorkload(m.N(), 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	wrapAllocs(t, func(spec string, a alloc.Allocator) alloc.Allocator {
		if spec == "slow" {
			return &slowAlloc{a, 20 * time.Millisecond}
		}
		return a
	})
	rep, err := Run(context.Background(), Config{Machine: m, Allocs: []string{"slow", "bf:hilbert"}, Workload: w, TimeLimit: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Allocs[0]
	if r.Complete || r.Decisions == 0 || r.Decisions >= 100 || r.Error != "time limit 200ms reached" {
		t.Errorf("slow: complete %v, %d decisions, %q", r.Complete, r.Decisions, r.Error)
	}
	if rep.Interrupted || len(rep.Allocs) != 2 || !rep.Allocs[1].Complete {
		t.Errorf("after the time limit: %+v", rep)
	}
}

// stuckAlloc makes its first quick decisions at once and then takes stuck for each
// one, or until its context ends (a ContextAllocator, as genalg on a network,
// whose decisions take minutes on 2 x 10^5 hosts).
type stuckAlloc struct {
	alloc.Allocator
	quick int
	stuck time.Duration
}

func (s *stuckAlloc) Allocate(k int) ([]int, error) {
	return s.AllocateContext(context.Background(), k)
}

func (s *stuckAlloc) AllocateContext(ctx context.Context, k int) ([]int, error) {
	if s.quick > 0 {
		s.quick--
		return s.Allocator.Allocate(k)
	}
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-time.After(s.stuck):
		return s.Allocator.Allocate(k)
	}
}

// The time limit stops a decision of an allocator that can stop one: the run
// ends at the limit with the decisions made before it, and the stopped one is
// neither counted nor in the latencies. bench --time-limit 3s with genalg on
// fattree:32,32:32,32:196 ran on for minutes, inside its first decision.
func TestSpeedTimeLimitStopsADecision(t *testing.T) {
	m := machine(t, "mesh:8x8")
	w, err := SyntheticWorkload(m.N(), 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	wrapAllocs(t, func(spec string, a alloc.Allocator) alloc.Allocator {
		if spec == "stuck" {
			return &stuckAlloc{a, 3, 5 * time.Second}
		}
		return a
	})
	rep, err := Run(context.Background(), Config{Machine: m, Allocs: []string{"stuck", "bf:hilbert"}, Workload: w, TimeLimit: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Allocs[0]
	if r.Complete || r.Decisions != 3 || len(r.Percentiles) != len(quantiles) || r.Error != "time limit 300ms reached" {
		t.Errorf("stuck: complete %v, %d decisions (want the 3 made before the limit), %q", r.Complete, r.Decisions, r.Error)
	}
	if rep.Interrupted || len(rep.Allocs) != 2 || !rep.Allocs[1].Complete {
		t.Errorf("after the time limit: %+v", rep)
	}
}

// The collections around each allocator (collect) run on one P and give the
// process its GOMAXPROCS back, and the heap an allocator holds is still measured
// after them.
func TestRunKeepsGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	m := machine(t, "mesh:32x32")
	w, err := SyntheticWorkload(m.N(), 30, 1)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Config{Machine: m, Allocs: []string{"mc1x1", "bf:hilbert"}, Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	if p := runtime.GOMAXPROCS(0); p != 3 {
		t.Errorf("GOMAXPROCS %d after Run, was 3", p)
	}
	// mc1x1 keeps prefix sums and coordinates of the 1,024 nodes: kilobytes
	if h := rep.Allocs[0].HeapBytes; h < 4096 {
		t.Errorf("mc1x1 holds %d bytes of heap after its run: the collection did not measure it", h)
	}
}

// slowRelease takes delay per release and cannot be interrupted inside one.
type slowRelease struct {
	alloc.Allocator
	delay time.Duration
}

func (s *slowRelease) Release(nodes []int) error {
	time.Sleep(s.delay)
	return s.Allocator.Release(nodes)
}

// A measurement left to finish its last operation after Run returned (Ctrl-C
// inside it) calls Progress no more: the caller has its progress bar back.
// Progress was called once more, from the left goroutine, when that operation
// ended: a data race with the caller (go test -race), and a bar drawn after
// the command had cleared it.
func TestSpeedLeftMeasurementReportsNothing(t *testing.T) {
	m := machine(t, "mesh:4x4")
	w := Workload{Name: "one job", Jobs: 1, MaxProcs: 2, Ops: []Op{{Job: 0, Procs: 2}, {Job: 0, Procs: 2, Release: true}}}
	wrapAllocs(t, func(spec string, a alloc.Allocator) alloc.Allocator {
		return &slowRelease{a, time.Second}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0 // no lock: Progress is called from the measuring goroutine while Run waits
	progress := func(i, done, total int) {
		calls++
		if i == 0 && done == 0 {
			time.AfterFunc(100*time.Millisecond, cancel) // inside the release
		}
	}
	before := ctxtest.Goroutines()
	rep, err := Run(ctx, Config{Machine: m, Allocs: []string{"slow release"}, Workload: w, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Allocs) != 1 || !strings.Contains(rep.Allocs[0].Error, "inside a decision") {
		t.Fatalf("interrupted %v, %+v", rep.Interrupted, rep.Allocs)
	}
	atReturn := calls
	if left := ctxtest.Leaked(before, 10*time.Second); len(left) > 0 {
		t.Fatalf("the measurement left behind still runs:\n%s", strings.Join(left, "\n\n"))
	}
	if calls != atReturn {
		t.Errorf("%d calls of Progress after Run returned", calls-atReturn)
	}
}
