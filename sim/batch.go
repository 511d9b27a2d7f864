package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// Batch is the experiment of Liu, Hsu and Wu, "I/O Processor Allocation for Mesh
// Cluster Computers", §5: a batch of tasks arrives at once on a mesh with I/O nodes
// along one side; each task, once allocated, communicates CommPerIO times in a
// pattern among its processors and then does one I/O phase, in which every one of
// its processors sends a personalised message to every I/O node (striped files,
// §5.2); the I/O nodes write what they receive to disk at the disk's speed. The
// result of a run is the time at which the last task has finished; Run averages it
// over independent seeded runs. docs/io.md states the model and procalloc's choices:
//
//   - Sizes: Exp(MeanSize) rounded to the nearest integer, at least 1 and at most the
//     machine's size.
//   - Scheduling: tasks are considered in the order drawn; whenever processors are
//     released (and at time 0) every waiting task is offered to the allocator in
//     that order and started if it gets processors (a contiguous allocator may
//     refuse with ErrFragmented; the task then waits).
//   - One communication is one period of the pattern (all its phases, each phase
//     starting when the previous one has arrived); a task of one processor has no
//     partner and goes straight to its I/O phase.
//   - I/O phase: processor r of the task (in allocation order) sends to I/O nodes
//     r, r+1, ... (mod K), so the processors start on different I/O nodes. The task
//     finishes when the last of its messages has been written to disk; then its
//     processors are released.
//   - Time: one cycle is one flit over one link at LinkBytesPerSecond; a disk takes
//     DiskCycles per message.
//   - Network: the message engine (netsim.Engine with netsim.IORouter) by default;
//     with Engine = EngineFlit the flit engine (netsim.FlitEngine, whose grids
//     model the I/O nodes as IORouter routes them), a message being one packet of
//     Params.MessageFlits flits. Either way a message is handed to its I/O node's
//     disk when its last flit arrives.
type Batch struct {
	Machine   *topo.Grid      // a 2D mesh with I/O nodes
	Alloc     string          // allocator spec (alloc.Parse)
	AllocOpt  alloc.Options   // options for alloc.Parse of Alloc
	Tasks     int             // tasks per run (Liu: 16)
	MeanSize  float64         // mean of the exponential task size (Liu: 16)
	CommPerIO int             // communications before the I/O phase
	Pattern   netsim.Pattern  // the communication pattern of every communication
	Params    netsim.Params   // the wormhole model (message length, router delay, flit size)
	IO        netsim.IOParams // I/O nodes, disks and the cycle's length in seconds
	// Engine is the network model: EngineMessage (the zero value) runs Params on
	// netsim.Engine; EngineFlit runs Flit on netsim.FlitEngine (options as a
	// replay's, Spec.Flit), with packets of Params.MessageFlits flits;
	// Params.RouterDelay is then unused and Params.FlitBytes still fixes the
	// cycle's length (IO.CycleSeconds).
	Engine  Engine
	Flit    FlitOptions // the flit engine's options, with Engine = EngineFlit
	Runs    int         // independent runs (Liu: 1000)
	Seed    uint64      // run i draws from (Seed, i)
	Workers int         // goroutines (0: GOMAXPROCS)
	// Progress, if not nil, is called with the number of finished runs.
	Progress func(done, total int)
}

// BatchResult is the summary over the runs (times in seconds).
type BatchResult struct {
	Runs           int     `json:"runs"`                  // runs summarized (interrupted runs left out)
	Interrupted    bool    `json:"interrupted,omitempty"` // ctx ended before every run finished
	MeanCompletion float64 `json:"mean_completion"`       // mean over runs of the time the last task finished, seconds
	// CI95 is the half-width of the 95% confidence interval of the mean (Student's t
	// with runs-1 degrees of freedom; 0 for one run).
	CI95 float64 `json:"ci95"`
	Std  float64 `json:"std"` // sample standard deviation of the completion times (0 for one run)
	Min  float64 `json:"min"` // shortest completion time
	Max  float64 `json:"max"` // longest completion time
	// MeanSquares is D of Liu et al. Definition 1 (alloc.Squares) after each
	// allocation, averaged over all allocations of all runs; SpatiallyCompact is the
	// fraction of allocations after which the free set met Lemma 1's condition. Both
	// are defined on 2^m x 2^n meshes only: nil (absent from the JSON) elsewhere, or
	// when no allocation was made.
	MeanSquares      *float64 `json:"mean_squares,omitempty"`
	SpatiallyCompact *float64 `json:"spatially_compact,omitempty"` // fraction 0..1, see MeanSquares
	MeanWaitingTasks float64  `json:"mean_tasks_waiting_at_start"` // mean over runs of the tasks that could not start at time 0
	CycleSeconds     float64  `json:"cycle_seconds"`               // one network cycle, seconds (IO.CycleSeconds)
	DiskCycles       int64    `json:"disk_cycles_per_message"`     // cycles a disk takes per message (IO.DiskCycles)
	MessagesPerRun   float64  `json:"messages_per_run"`            // mean messages sent per run, I/O included
	// Completions are the per-run completion times, in run order (nil entries of
	// interrupted runs are left out; Runs counts the ones kept).
	Completions []float64 `json:"-"`
}

// batchRun is the outcome of one run of a Batch (summarized into BatchResult).
type batchRun struct {
	Completion   float64 // seconds
	Cycles       int64   // when the last task finished, in network cycles (Completion in cycles)
	Messages     int64   // messages sent, I/O included
	Hops         int64   // links crossed by the run's messages, I/O links included
	Allocations  int     // tasks placed
	Measured     int     // allocations after which D and Lemma 1 were measured (2^m x 2^n meshes)
	SquaresSum   int     // sum of D over the Measured allocations
	CompactSteps int     // Measured allocations after which Lemma 1's condition held
	WaitingAt0   int     // tasks that could not start at time 0
}

// Validate returns the errors of the batch's fields, the one check of its limits
// (the batch command maps them onto its flags): each a *FieldError naming its field
// (Machine, Tasks, MeanSize, CommPerIO, Pattern, Runs, Alloc, Engine, Flit.*), or an
// error of Params or IO, joined and prefixed "batch: "; nil when there are none.
func (b *Batch) Validate() error {
	if b.Machine == nil || b.Machine.IO() == nil {
		return fmt.Errorf("batch: %w", fieldErr("Machine", "", "needs I/O nodes, e.g. mesh:16x16:io=left"))
	}
	var errs []error
	add := func(e *FieldError) { errs = append(errs, e) }
	if b.Tasks < 1 || b.Tasks > 1<<16 {
		add(fieldErr("Tasks", strconv.Itoa(b.Tasks), "must be 1..65536"))
	}
	if !(b.MeanSize >= 1) || b.MeanSize > float64(b.Machine.N()) {
		add(fieldErr("MeanSize", fmt.Sprint(b.MeanSize), "must be between 1 and the machine's %d nodes", b.Machine.N()))
	}
	if b.CommPerIO < 0 || b.CommPerIO > 1<<20 {
		add(fieldErr("CommPerIO", strconv.Itoa(b.CommPerIO), "must be 0..1048576"))
	}
	if b.CommPerIO > 0 && b.Pattern == nil {
		add(fieldErr("Pattern", "", "communications need a pattern"))
	}
	if b.Runs < 1 || b.Runs > 1<<24 {
		add(fieldErr("Runs", strconv.Itoa(b.Runs), "must be 1..16777216"))
	}
	if err := b.Params.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := b.IO.ValidateFor(b.Params); err != nil {
		errs = append(errs, err)
	}
	if alloc.IsAsRun(b.Alloc) {
		add(fieldErr("Alloc", alloc.AsRunName, "replays a trace's recorded placements; batch's tasks are synthetic and have none"))
	} else if _, err := alloc.Parse(b.Alloc, b.Machine, b.AllocOpt); err != nil {
		add(fieldErr("Alloc", "", "%v", err))
	}
	validateEngineOptions(b.Engine, b.Flit, add)
	if len(errs) == 0 && b.Engine == EngineFlit {
		if _, err := b.flitConfig(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("batch: %w", errors.Join(errs...))
	}
	return nil
}

// flitConfig is the flit engine's configuration of the batch, checked against its
// machine (the seed, for a torus's tie-breaking, is unused on a mesh).
func (b *Batch) flitConfig() (netsim.FlitConfig, error) {
	return b.Flit.checkedConfig(b.Machine, b.Params, b.Seed)
}

// Run performs the runs on Workers goroutines. Each run is deterministic in (Seed,
// run index), so the result does not depend on the number of workers. When ctx is
// cancelled it stops within a run's time and returns the summary of the runs that
// finished, with Interrupted set (an error only if none finished).
func (b *Batch) Run(ctx context.Context) (*BatchResult, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	router, err := netsim.NewIORouter(b.Machine)
	if err != nil {
		return nil, err
	}
	runs := make([]*batchRun, b.Runs)
	var mu sync.Mutex
	done := 0
	err = pool(ctx, b.Runs, b.Workers, func() *batchEngine { return &batchEngine{} }, func(ctx context.Context, w *batchEngine, i int) error {
		r, err := b.runOne(ctx, router, w, i)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil // interrupted: the runs that finished are summarized
		}
		if err != nil {
			return fmt.Errorf("run %d: %w", i, err)
		}
		runs[i] = r
		mu.Lock()
		done++
		if b.Progress != nil {
			b.Progress(done, b.Runs)
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := summarizeBatch(runs)
	res.CycleSeconds = b.IO.CycleSeconds(b.Params)
	res.DiskCycles = b.IO.DiskCycles(b.Params)
	if res.Runs < b.Runs {
		res.Interrupted = true
		if res.Runs == 0 {
			return nil, fmt.Errorf("batch: interrupted before any run finished: %w", context.Cause(ctx))
		}
	}
	return res, nil
}

// RunBatches runs the runs of several batch experiments (one per allocator and
// communication count, say) on one pool of workers goroutines (<= 0: one per core),
// all of them at once rather than one experiment after the other, so that the
// workers stay busy up to the last run; each Batch's Workers is ignored. Runs are
// taken in order (the first batch's first), each is deterministic in (Seed, run
// index), and the results come back in the order of bs: the same as Run's one by
// one. When ctx is cancelled the results hold the runs that finished, Interrupted
// set, and nil for batches of which none finished (an error only if no run
// finished at all).
func RunBatches(ctx context.Context, bs []*Batch, workers int) ([]*BatchResult, error) {
	type key struct {
		r  *netsim.IORouter
		p  netsim.Params
		e  Engine
		fc netsim.FlitConfig
	}
	routers := make([]*netsim.IORouter, len(bs))
	byMachine := map[*topo.Grid]*netsim.IORouter{}
	first := make([]int, len(bs)+1) // runs of batch i: first[i] .. first[i+1]-1
	for i, b := range bs {
		if err := b.Validate(); err != nil {
			return nil, err
		}
		r := byMachine[b.Machine]
		if r == nil {
			var err error
			if r, err = netsim.NewIORouter(b.Machine); err != nil {
				return nil, err
			}
			byMachine[b.Machine] = r
		}
		routers[i] = r
		first[i+1] = first[i] + b.Runs
	}
	runs := make([][]*batchRun, len(bs))
	for i, b := range bs {
		runs[i] = make([]*batchRun, b.Runs)
	}
	var mu sync.Mutex
	done := make([]int, len(bs))
	err := pool(ctx, first[len(bs)], workers, func() map[key]*batchEngine { return map[key]*batchEngine{} }, func(ctx context.Context, ws map[key]*batchEngine, k int) error {
		i, _ := slices.BinarySearch(first, k+1)
		i--
		b, run := bs[i], k-first[i]
		kk := key{r: routers[i], p: b.Params, e: b.Engine}
		if b.Engine == EngineFlit {
			kk.fc, _ = b.flitConfig() // validated above
		}
		w := ws[kk]
		if w == nil {
			w = &batchEngine{}
			ws[kk] = w
		}
		r, err := b.runOne(ctx, routers[i], w, run)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil // interrupted: the runs that finished are summarized
		}
		if err != nil {
			return fmt.Errorf("%s, %d communications, run %d: %w", b.Alloc, b.CommPerIO, run, err)
		}
		runs[i][run] = r
		mu.Lock()
		done[i]++
		if b.Progress != nil {
			b.Progress(done[i], b.Runs)
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*BatchResult, len(bs))
	total := 0
	for i, b := range bs {
		res := summarizeBatch(runs[i])
		res.CycleSeconds = b.IO.CycleSeconds(b.Params)
		res.DiskCycles = b.IO.DiskCycles(b.Params)
		total += res.Runs
		if res.Runs < b.Runs {
			res.Interrupted = true
			if res.Runs == 0 {
				continue
			}
		}
		out[i] = res
	}
	if total == 0 && len(bs) > 0 {
		return nil, fmt.Errorf("batch: interrupted before any run finished: %w", context.Cause(ctx))
	}
	return out, nil
}

func summarizeBatch(runs []*batchRun) *BatchResult {
	res := &BatchResult{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum, msgs float64
	measured, squares, compact, waiting := 0, 0, 0, 0
	for _, r := range runs {
		if r == nil {
			continue
		}
		res.Completions = append(res.Completions, r.Completion)
		sum += r.Completion
		msgs += float64(r.Messages)
		res.Min, res.Max = min(res.Min, r.Completion), max(res.Max, r.Completion)
		measured += r.Measured
		squares += r.SquaresSum
		compact += r.CompactSteps
		waiting += r.WaitingAt0
	}
	n := len(res.Completions)
	res.Runs = n
	if n == 0 {
		res.Min, res.Max = 0, 0
		return res
	}
	res.MeanCompletion = sum / float64(n)
	res.MessagesPerRun = msgs / float64(n)
	res.MeanWaitingTasks = float64(waiting) / float64(n)
	if measured > 0 {
		d, c := float64(squares)/float64(measured), float64(compact)/float64(measured)
		res.MeanSquares, res.SpatiallyCompact = &d, &c
	}
	if n > 1 {
		var ss float64
		for _, c := range res.Completions {
			// float64(...) rounds the square before the sum: without it a build with
			// fused multiply-add (arm64, GOAMD64=v3) may fuse them, and std and ci95
			// differed from the default build's in the last digits.
			d := c - res.MeanCompletion
			ss += float64(d * d)
		}
		res.Std = math.Sqrt(ss / float64(n-1))
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
		res.CI95 = tq * res.Std / math.Sqrt(float64(n))
	}
	return res
}

// batchTask is one task's state in a run.
type batchTask struct {
	size      int
	nodes     []int
	started   bool
	finished  bool
	inIO      bool
	commLeft  int   // communications not yet finished
	phase     int   // phase of the pattern within the current communication
	phaseLeft int   // messages of the current phase (or the I/O phase) not yet arrived
	ioEnd     int64 // latest disk completion of the I/O phase's messages so far
	endKnown  bool  // every I/O message has arrived: the task ends at ioEnd
	rng       *netsim.Rand
}

// runAlone performs run i alone (for tests).
func (b *Batch) runAlone(ctx context.Context, i int) (*batchRun, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	router, err := netsim.NewIORouter(b.Machine)
	if err != nil {
		return nil, err
	}
	return b.runOne(ctx, router, &batchEngine{}, i)
}

// batchChunk bounds how far one Run of the message engine goes, so that Ctrl-C is
// seen promptly; batchFlitChunk is the flit engine's, which takes far longer per
// cycle (some milliseconds for a loaded 16x16 mesh's 1,024 cycles). Runs in pieces
// simulate the same cycles as one Run, and tasks end at their last write either way.
const (
	batchChunk     = 1 << 16
	batchFlitChunk = 1 << 10
)

// batchNet is a run's network: the message or the flit engine.
type batchNet interface {
	netsim.Network
	send(netsim.Message) error
}

type batchMsgNet struct{ *netsim.Engine }

func (n batchMsgNet) send(m netsim.Message) error { return n.Send(m) }

type batchFlitNet struct{ *netsim.FlitEngine }

func (n batchFlitNet) send(m netsim.Message) error { return n.Send(m) }

// batchEngine is one worker's network engine, reset between runs (Reset makes it
// behave as a new one), with the current run's delivery callback.
type batchEngine struct {
	net     batchNet
	deliver func(*netsim.Delivery)
}

func (w *batchEngine) get(b *Batch, r netsim.Router, deliver func(*netsim.Delivery)) (batchNet, error) {
	w.deliver = deliver
	switch n := w.net.(type) {
	case batchMsgNet:
		n.Reset()
		return n, nil
	case batchFlitNet:
		n.Reset()
		return n, nil
	}
	cb := func(d *netsim.Delivery) { w.deliver(d) }
	if b.Engine == EngineFlit {
		fc, err := b.flitConfig()
		if err != nil {
			return nil, err
		}
		eng, err := netsim.NewFlitEngine(b.Machine, fc, cb)
		if err != nil {
			return nil, err
		}
		w.net = batchFlitNet{eng}
		return w.net, nil
	}
	eng, err := netsim.NewEngine(r, b.Params, cb)
	if err != nil {
		return nil, err
	}
	w.net = batchMsgNet{eng}
	return w.net, nil
}

func (b *Batch) runOne(ctx context.Context, router *netsim.IORouter, w *batchEngine, run int) (*batchRun, error) {
	a, err := alloc.Parse(b.Alloc, b.Machine, b.AllocOpt)
	if err != nil {
		return nil, err
	}
	cm, _ := alloc.NewCompactness(b.Machine) // nil on meshes that are not 2^m x 2^n
	var running *runningFree                 // the tasks' nodes, for an allocator that reports no state
	if cm != nil {
		running = newRunningFree(a, b.Machine.N())
	}
	n := b.Machine.N()
	K := router.IONodes()
	rng := rand.New(rand.NewPCG(b.Seed, uint64(run)))
	tasks := make([]batchTask, b.Tasks)
	for i := range tasks {
		s := int(math.Round(rng.ExpFloat64() * b.MeanSize))
		tasks[i].size = min(max(s, 1), n)
		tasks[i].rng = netsim.NewRand(b.Seed^0x9e3779b97f4a7c15*uint64(run+1), uint64(i))
	}
	disks := netsim.NewDisks(K, b.IO.DiskCycles(b.Params))
	out := &batchRun{}
	var eng batchNet
	var limit int64
	var cbErr error
	chunk := int64(batchChunk)
	if b.Engine == EngineFlit {
		chunk = batchFlitChunk
	}

	send := func(t int, src, dst int) {
		if err := eng.send(netsim.Message{Src: int32(src), Dst: int32(dst), Tag: int32(t)}); err != nil && cbErr == nil {
			cbErr = fmt.Errorf("internal error: task %d: %w", t, err)
			eng.Stop()
		}
		out.Messages++
	}
	var startIO func(t int)
	// startPhase sends the current phase of task t's current communication; phases
	// that send nothing are skipped.
	startPhase := func(t int) {
		tk := &tasks[t]
		p := len(tk.nodes)
		for tk.commLeft > 0 {
			sent := 0
			b.Pattern.Phase(p, tk.phase, tk.rng, func(s, d int) bool {
				send(t, tk.nodes[s], tk.nodes[d])
				sent++
				return true
			})
			tk.phase++
			if tk.phase == b.Pattern.Phases(p) {
				tk.phase = 0
				tk.commLeft--
				if sent == 0 {
					continue
				}
			}
			if sent > 0 {
				tk.phaseLeft = sent
				return
			}
		}
		startIO(t)
	}
	// The message engine sends a source's messages one at a time, the next when the
	// previous one's tail has arrived. A node's next I/O message is then sent on the
	// delivery of its last (ioLeft[v] still to send): the same run as queueing them
	// all at once, which held len(nodes) x K messages per task (1.6-1.9 GB for 400
	// tasks of mean size 400 on mesh:448x448:io=left). The flit engine injects a
	// source's packets back to back: they are queued at once.
	var ioLeft []int32
	startIO = func(t int) {
		tk := &tasks[t]
		tk.inIO = true
		tk.phaseLeft = len(tk.nodes) * K
		for r, v := range tk.nodes {
			if ioLeft != nil {
				ioLeft[v] = int32(K - 1)
				send(t, v, router.IONode(r%K))
				continue
			}
			for j := range K {
				send(t, v, router.IONode((r+j)%K))
			}
		}
	}
	eng, err = w.get(b, router, func(d *netsim.Delivery) {
		t := int(d.Tag)
		tk := &tasks[t]
		out.Hops += int64(d.Hops)
		if tk.inIO {
			if int(d.Dst) < n {
				cbErr = fmt.Errorf("internal error: task %d's I/O message went to compute node %d", t, d.Dst)
				eng.Stop()
				return
			}
			tk.ioEnd = max(tk.ioEnd, disks.Write(int(d.Dst)-n, d.Arrived))
			tk.phaseLeft--
			if tk.phaseLeft == 0 {
				tk.endKnown = true
				if tk.ioEnd < limit {
					eng.Stop()
				}
			}
			if ioLeft != nil && ioLeft[d.Src] > 0 {
				ioLeft[d.Src]--
				send(t, int(d.Src), router.IONode((router.IOIndex(int(d.Dst))+1)%K))
			}
			return
		}
		tk.phaseLeft--
		if tk.phaseLeft == 0 {
			startPhase(t)
		}
	})
	if err != nil {
		return nil, err
	}
	if _, ok := eng.(batchMsgNet); ok {
		ioLeft = make([]int32, n)
	}
	startWaiting := func(first bool) error {
		for t := range tasks {
			tk := &tasks[t]
			if tk.started {
				continue
			}
			// Starting hundreds of tasks of hundreds of nodes on mesh:448x448 takes
			// seconds (allocations, first messages): not without a look at ctx.
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			nodes, err := a.Allocate(tk.size)
			if err != nil {
				if refusedForNow(err, false) {
					if first {
						out.WaitingAt0++
					}
					continue
				}
				return fmt.Errorf("task %d (%d processors): %w", t, tk.size, err)
			}
			if len(nodes) != tk.size {
				return fmt.Errorf("allocator %s gave task %d %d nodes, want %d", a.Name(), t, len(nodes), tk.size)
			}
			tk.nodes, tk.started = nodes, true
			out.Allocations++
			if err := running.took(nodes); err != nil {
				return err
			}
			if st := running.state(a); st != nil && cm != nil {
				d, ok := cm.Measure(st)
				out.Measured++
				out.SquaresSum += d
				if ok {
					out.CompactSteps++
				}
			}
			tk.commLeft = b.CommPerIO
			if len(tk.nodes) == 1 {
				tk.commLeft = 0
			}
			if tk.commLeft > 0 {
				startPhase(t)
			} else {
				startIO(t)
			}
		}
		return nil
	}
	if err := startWaiting(true); err != nil {
		return nil, err
	}
	finished := 0
	var last int64
	for finished < len(tasks) {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		now := eng.Now()
		next := int64(math.MaxInt64)
		for t := range tasks {
			if tk := &tasks[t]; tk.endKnown && !tk.finished {
				next = min(next, tk.ioEnd)
			}
		}
		if next == math.MaxInt64 && eng.Idle() {
			return nil, fmt.Errorf("internal error: %d tasks unfinished with nothing in the network", len(tasks)-finished)
		}
		limit = min(next, now+chunk)
		if err := eng.Run(limit); err != nil {
			return nil, err
		}
		if cbErr != nil {
			return nil, cbErr
		}
		now = eng.Now()
		released := false
		for t := range tasks {
			tk := &tasks[t]
			if tk.endKnown && !tk.finished && tk.ioEnd <= now {
				if err := a.Release(tk.nodes); err != nil {
					return nil, fmt.Errorf("task %d finishing at cycle %d: %w", t, now, err)
				}
				if err := running.released(tk.nodes); err != nil {
					return nil, err
				}
				tk.finished = true
				finished++
				last = max(last, tk.ioEnd)
				released = true
			}
		}
		if released {
			if err := startWaiting(false); err != nil {
				return nil, err
			}
		}
	}
	out.Cycles = last
	out.Completion = float64(last) * b.IO.CycleSeconds(b.Params)
	return out, nil
}
