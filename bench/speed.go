package bench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo"
)

// parseAlloc builds the allocators measured (a variable for the tests).
var parseAlloc = alloc.Parse

// FloorName is the name of Report.Floor: reading the free set once per decision.
const FloorName = "read free set"

// Config is one allocator speed measurement (`procalloc bench`).
type Config struct {
	Machine  topo.Machine  // the machine every allocator is built on; nil is refused
	Allocs   []string      // allocator specs (alloc.Parse)
	Options  alloc.Options // passed to alloc.Parse for every spec
	Workload Workload      // the starts and ends every allocator replays
	// TimeLimit, when positive, ends each allocator's run after that much time
	// (its figures then cover the decisions made; Result.Complete is false): inside
	// a decision for the allocators that can stop one (alloc.ContextAllocator),
	// else after it.
	TimeLimit time.Duration
	// Progress, when set, is called now and then from the measuring goroutine with
	// the allocator's index in Allocs (-1 for the floor) and the operations done,
	// one call at a time and never after Run returned.
	Progress func(alloc, done, total int)
}

// Latency is the distribution of one allocator's decision times, in microseconds:
// the nearest-rank median and 99th percentile, the maximum and the mean.
type Latency struct {
	Median float64 `json:"median_us"` // nearest-rank 50th percentile, µs
	P99    float64 `json:"p99_us"`    // nearest-rank 99th percentile, µs
	Max    float64 `json:"max_us"`    // slowest decision, µs
	Mean   float64 `json:"mean_us"`   // AllocateSeconds over Decisions, µs
}

// Result is one allocator's figures. Times are measured inside the allocator's
// calls (alloc.Clock), not around the workload's bookkeeping.
type Result struct {
	Alloc     string `json:"alloc"`     // the spec measured, or FloorName for the floor
	Decisions int64  `json:"decisions"` // allocations made
	Releases  int64  `json:"releases"`  // releases made
	// AllocateSeconds and ReleaseSeconds are the totals inside Allocate and
	// Release; DecisionsPerSecond is Decisions over their sum, so that it counts
	// the allocator's whole cost per job.
	AllocateSeconds    float64 `json:"allocate_seconds"`
	ReleaseSeconds     float64 `json:"release_seconds"`      // total inside Release, seconds
	DecisionsPerSecond float64 `json:"decisions_per_second"` // Decisions / (AllocateSeconds + ReleaseSeconds)
	// Latency is of Allocate (one decision); ReleaseMean of one Release.
	Latency     Latency `json:"latency"`
	ReleaseMean float64 `json:"release_mean_us"` // ReleaseSeconds over Releases, µs (0 without releases)
	// Percentiles are the latencies (µs) at Quantiles, for the chart.
	Percentiles []float64 `json:"percentiles_us"`
	// BuildSeconds is the time alloc.Parse took (tables built up front).
	BuildSeconds float64 `json:"build_seconds"`
	// HeapBytes is the heap the allocator holds at the end of its run (live heap
	// after a collection, less the live heap before it was built);
	// AllocBytesPerDecision the bytes it allocated per decision. Both 0 when the
	// run was interrupted.
	HeapBytes             int64   `json:"heap_bytes"`
	AllocBytesPerDecision float64 `json:"alloc_bytes_per_decision"` // bytes allocated per decision
	// Complete: the whole workload ran; else it stopped at Ctrl-C, the time limit
	// or an error (Error).
	Complete bool `json:"complete"`
	// Error says why the run stopped early: the allocator's error, the time
	// limit's ("time limit 1m0s reached") or "interrupted inside a decision";
	// empty when Complete.
	Error string `json:"error,omitempty"`
}

// quantiles backs Quantiles; only this package changes it.
var quantiles = []float64{0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1}

// Quantiles returns the points of Result.Percentiles.
// Each call returns a new slice: changing it changes nothing in the package.
func Quantiles() []float64 { return slices.Clone(quantiles) }

// Report is a measurement: the floor and every allocator.
type Report struct {
	Machine  string   `json:"machine"`  // the machine's spec (topo.Machine.Spec)
	Nodes    int      `json:"nodes"`    // the machine's node count
	Workload string   `json:"workload"` // Workload.Name
	Jobs     int      `json:"jobs"`     // Workload.Jobs, the starts replayed
	Floor    Result   `json:"floor"`    // the floor (FloorName): reading the free set once per decision
	Allocs   []Result `json:"allocs"`   // one per Config.Allocs, in its order; those not reached are left out
	// Interrupted: the context ended (Ctrl-C) before every allocator ran; the
	// figures are those measured until then.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Check builds every allocator of cfg once, so that an allocator that does not
// apply to the machine is refused (alloc.Parse's error names the property it
// needs) before anything is measured; as-run, which needs the recorded nodes a
// Workload does not carry, is refused too.
func Check(cfg Config) error {
	if cfg.Machine == nil {
		return errors.New("bench: no machine")
	}
	if len(cfg.Allocs) == 0 {
		return errors.New("bench: no allocator")
	}
	if cfg.Workload.MaxProcs > cfg.Machine.N() {
		return fmt.Errorf("bench: a job of %d nodes on %s of %d: %w", cfg.Workload.MaxProcs, cfg.Machine.Spec(), cfg.Machine.N(), ErrDoesNotFit)
	}
	for _, spec := range cfg.Allocs {
		if alloc.IsAsRun(spec) {
			// It failed at its first decision, after the floor was measured.
			return &AllocError{Spec: spec, Err: fmt.Errorf("allocator %q places each job on the nodes its trace record names, and a workload is the jobs' sizes and order without their nodes: there is no decision to measure (sim --alloc as-run replays it)", spec)}
		}
		if _, err := parseAlloc(spec, cfg.Machine, cfg.Options); err != nil {
			// A file the spec names that cannot be read (a missing ranking or
			// topology file), or whose content is refused, is a failure, as in
			// sim; anything else is the spec's own fault.
			if pe, fe := (*fs.PathError)(nil), (*alloc.FileError)(nil); errors.As(err, &pe) || errors.As(err, &fe) {
				return err
			}
			return &AllocError{Spec: spec, Err: err}
		}
	}
	return nil
}

// AllocError is Check's error for an allocator spec that cannot be built on the
// machine: an unknown name, bad parameters, or an allocator that does not apply
// (sim refuses the same specs as mistakes in its spec, sim.FieldError). Err is
// alloc.Parse's error, which names the spec.
type AllocError struct {
	Spec string // the spec as given in Config.Allocs
	Err  error  // alloc.Parse's error
}

// Error returns Err's message, which names the spec.
func (e *AllocError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *AllocError) Unwrap() error { return e.Err }

// Run measures the floor, then each allocator in turn, on the workload. It stops
// within a second of ctx's end (even inside a long decision: the measuring
// goroutine is then left to finish it) and returns what it measured, with
// Interrupted set; an allocator that fails (places a job wrongly, or refuses a
// request the workload makes) gets its Error and the others still run.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := Check(cfg); err != nil {
		return nil, err
	}
	rep := &Report{Machine: cfg.Machine.Spec(), Nodes: cfg.Machine.N(), Workload: cfg.Workload.Name, Jobs: cfg.Workload.Jobs}
	var stop bool
	rep.Floor, stop = measure(ctx, cfg, -1)
	rep.Floor.Alloc = FloorName
	for i, spec := range cfg.Allocs {
		if stop {
			break
		}
		var r Result
		r, stop = measure(ctx, cfg, i)
		r.Alloc = spec
		rep.Allocs = append(rep.Allocs, r)
	}
	rep.Interrupted = stop
	return rep, nil
}

// measure runs the workload on allocator i (-1: the floor) in a goroutine and
// returns its figures; stop reports that ctx ended.
func measure(ctx context.Context, cfg Config, i int) (Result, bool) {
	collect()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	actx := ctx
	if cfg.TimeLimit > 0 {
		var cancel context.CancelFunc
		actx, cancel = timelimit.WithTimeout(ctx, cfg.TimeLimit, "time limit")
		defer cancel()
	}
	clk := &alloc.Clock{Record: true}
	clk.Reserve(cfg.Workload.Jobs)
	type outcome struct {
		build time.Duration
		a     alloc.Allocator
		err   error
	}
	// The goroutine may be left to finish a decision (below): from then on it
	// must not call Progress, which is the caller's again (a data race with the
	// command's progress bar, drawn after the command had cleared it).
	var progressMu sync.Mutex
	left := false
	if report := cfg.Progress; report != nil {
		cfg.Progress = func(alloc, done, total int) {
			progressMu.Lock()
			defer progressMu.Unlock()
			if !left {
				report(alloc, done, total)
			}
		}
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.a, o.build, o.err = play(actx, cfg, i, clk)
		done <- o
	}()
	var r Result
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		// Ctrl-C: wait a little for the goroutine to notice between decisions,
		// else report what the clock holds and leave it to its decision.
		select {
		case o = <-done:
		case <-time.After(300 * time.Millisecond):
			progressMu.Lock()
			left = true
			progressMu.Unlock()
			fill(&r, clk.Snapshot())
			r.Error = "interrupted inside a decision"
			return r, true
		}
	}
	fill(&r, clk.Snapshot())
	r.BuildSeconds = o.build.Seconds()
	switch {
	case o.err == nil:
		r.Complete = true
	case errors.Is(o.err, context.Canceled) || errors.Is(o.err, context.DeadlineExceeded):
		if ctx.Err() != nil {
			return r, true
		}
		r.Error = o.err.Error()
		if c := context.Cause(actx); c != nil {
			r.Error = c.Error() // timelimit.Reached: "time limit 1m0s reached"
		}
	default:
		r.Error = o.err.Error()
	}
	if ctx.Err() != nil {
		return r, true
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if r.Decisions > 0 {
		r.AllocBytesPerDecision = float64(after.TotalAlloc-before.TotalAlloc) / float64(r.Decisions)
	}
	collect()
	runtime.ReadMemStats(&after)
	r.HeapBytes = max(0, int64(after.HeapAlloc)-int64(before.HeapAlloc))
	runtime.KeepAlive(o.a)
	return r, false
}

// collect runs a full garbage collection (runtime.GC) on one P, outside the
// timed calls: before each allocator, so that it does not pay for the previous
// one's garbage, and after it, for the heap it holds. runtime.GC finishes by
// sweeping span after span with a yield between two, and while another P is
// idle every yield wakes a thread to look for work: on the 2-core VM a
// collection of a 110,000-node MC1x1's heap cost 2-4 ms of process CPU (a
// quarter of `procalloc bench --jobs 30`'s CPU was the scheduler), 0.3-0.4 ms
// on one P. GOMAXPROCS is set back at once (a goroutine that runs meanwhile,
// such as the interrupt watcher, shares the one P for that long). Setting it
// turns off the runtime's own updates of GOMAXPROCS (to a changed CPU limit), so
// where the value was the runtime's default it is handed back to the runtime.
func collect() {
	p := runtime.GOMAXPROCS(1)
	runtime.GC()
	runtime.SetDefaultGOMAXPROCS()
	if runtime.GOMAXPROCS(0) != p {
		runtime.GOMAXPROCS(p) // the caller's own value
	}
}

// fill sets r's times from a clock reading.
func fill(r *Result, c alloc.ClockReading) {
	r.Decisions, r.Releases = c.Allocations, c.Releases
	r.AllocateSeconds, r.ReleaseSeconds = c.Allocate.Seconds(), c.Release.Seconds()
	if s := r.AllocateSeconds + r.ReleaseSeconds; s > 0 {
		r.DecisionsPerSecond = float64(r.Decisions) / s
	}
	if r.Releases > 0 {
		r.ReleaseMean = 1e6 * r.ReleaseSeconds / float64(r.Releases)
	}
	lat := c.Latencies
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	us := func(q float64) float64 {
		k := max(int(math.Ceil(q*float64(len(lat))))-1, 0)
		return float64(lat[k]) / 1e3
	}
	r.Latency = Latency{Median: us(0.5), P99: us(0.99), Max: us(1), Mean: 1e6 * r.AllocateSeconds / float64(len(lat))}
	r.Percentiles = r.Percentiles[:0]
	for _, q := range quantiles {
		r.Percentiles = append(r.Percentiles, us(q))
	}
}

// play plays the workload on allocator i (-1: the floor) through clk. Every
// allocation is checked against a copy of the free set (k distinct free nodes).
func play(ctx context.Context, cfg Config, i int, clk *alloc.Clock) (alloc.Allocator, time.Duration, error) {
	m := cfg.Machine
	var a alloc.Allocator
	t0 := time.Now()
	if i >= 0 {
		var err error
		if a, err = parseAlloc(cfg.Allocs[i], m, cfg.Options); err != nil {
			return nil, 0, err
		}
	} else {
		a = newFloor(m)
	}
	build := time.Since(t0)
	if tr, ok := a.(alloc.TieReporter); ok {
		tr.CountTies(false)
	}
	mirror := alloc.NewState(m.N())
	nodes := make([][]int, cfg.Workload.Jobs)
	ops := cfg.Workload.Ops
	for j, op := range ops {
		// Asked before every step (outside the timed calls): a decision may take
		// seconds, and the time limit and Ctrl-C are to be met between two.
		if err := context.Cause(ctx); err != nil {
			return a, build, err
		}
		if cfg.Progress != nil && j&1023 == 0 {
			cfg.Progress(i, j, len(ops))
		}
		if op.Release {
			if err := clk.Release(a, nodes[op.Job]); err != nil {
				return a, build, fmt.Errorf("job %d ending: %w", op.Job+1, err)
			}
			if err := mirror.Release(nodes[op.Job]); err != nil {
				return a, build, fmt.Errorf("job %d ending: %w", op.Job+1, err)
			}
			nodes[op.Job] = nil
			continue
		}
		k := int(op.Procs)
		// Through the context: a ContextAllocator stops a decision of minutes
		// (genalg on a 2 x 10^5-host network) at the time limit, which otherwise
		// waited for it; a stopped decision is not measured (Clock).
		got, err := clk.AllocateContext(ctx, a, k)
		if cause := context.Cause(ctx); err != nil && cause != nil {
			return a, build, cause
		}
		if err != nil {
			return a, build, fmt.Errorf("job %d (%d nodes, %d free): %w", op.Job+1, k, mirror.NumFree(), err)
		}
		if len(got) != k {
			return a, build, fmt.Errorf("job %d: %d nodes returned for a request of %d", op.Job+1, len(got), k)
		}
		if err := mirror.Take(got); err != nil {
			return a, build, fmt.Errorf("job %d: the allocator returned a node that is not free: %w", op.Job+1, err)
		}
		nodes[op.Job] = got
	}
	if cfg.Progress != nil {
		cfg.Progress(i, len(ops), len(ops))
	}
	return a, build, nil
}

// floor is the floor "allocator": each decision reads the free set once (the
// free nodes listed from the free bitmap, as every allocator that looks at its
// input must) and takes the first k.
type floor struct {
	m   topo.Machine
	st  *alloc.State
	buf []int
}

func newFloor(m topo.Machine) *floor {
	return &floor{m: m, st: alloc.NewState(m.N()), buf: make([]int, 0, m.N())}
}

func (f *floor) Name() string          { return FloorName }
func (f *floor) Machine() topo.Machine { return f.m }
func (f *floor) NumFree() int          { return f.st.NumFree() }
func (f *floor) Release(n []int) error { return f.st.Release(n) }

func (f *floor) Allocate(k int) ([]int, error) {
	if err := f.st.CheckRequest(k); err != nil {
		return nil, err
	}
	f.buf = f.st.AppendFree(f.buf[:0])
	nodes := append([]int(nil), f.buf[:k]...)
	return nodes, f.st.Take(nodes)
}
