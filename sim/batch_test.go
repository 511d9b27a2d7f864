package sim

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

func liuBatch(t testing.TB, machine, spec string, comm, runs int) *Batch {
	t.Helper()
	g, err := topo.ParseSpec(machine)
	if err != nil {
		t.Fatal(err)
	}
	pat, err := netsim.ParsePattern("all-to-all")
	if err != nil {
		t.Fatal(err)
	}
	return &Batch{Machine: g, Alloc: spec, Tasks: 16, MeanSize: 16, CommPerIO: comm, Pattern: pat,
		Params: netsim.DefaultParams(), IO: netsim.LiuIOParams(), Runs: runs, Seed: 1}
}

// TestReplayReportsCompactness: every replay on a 2^m x 2^n mesh reports D and
// spatial compactness (Liu et al. §4); scbt with jobs that never overlap in time
// (released before the next arrives: a last-in first-out release order) is always
// spatially compact; a 6x6 mesh reports none.
func TestReplayReportsCompactness(t *testing.T) {
	var jobs []Job
	for i := range 40 {
		jobs = append(jobs, Job{ID: i + 1, Line: i + 1, Arrival: int64(i * 100), Procs: 1 + (i*7)%13, Runtime: 50, Estimate: -1})
	}
	for _, tc := range []struct {
		machine, alloc string
		want           bool
	}{{"mesh:8x8", "scbt", true}, {"mesh:8x8", "mbs", true}, {"mesh:6x6", "mbs", false}} {
		g, _ := topo.ParseSpec(tc.machine)
		a, err := alloc.Parse(tc.alloc, g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: "fcfs"})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Compactness
		if (c != nil) != tc.want {
			t.Fatalf("%s on %s: compactness %v", tc.alloc, tc.machine, c)
		}
		if c == nil {
			continue
		}
		if tc.alloc == "scbt" && c.PctSpatiallyCompact != 100 {
			t.Errorf("scbt: %.1f%% spatially compact, want 100", c.PctSpatiallyCompact)
		}
		if !(c.MeanFreeSquares >= 1) {
			t.Errorf("%s: mean D %v", tc.alloc, c.MeanFreeSquares)
		}
		t.Logf("%s on %s: mean D %.2f, %.1f%% spatially compact", tc.alloc, tc.machine, c.MeanFreeSquares, c.PctSpatiallyCompact)
	}
}

// TestBatchDeterministicAndChecked: the same seed gives the same runs whatever the
// number of workers; a run's completion is at least the time the disks need for
// the I/O alone (every message of every task written at the disk speed, spread
// perfectly over the I/O nodes); bad configurations are refused.
func TestBatchDeterministicAndChecked(t *testing.T) {
	b := liuBatch(t, "mesh:8x8:io=left", "d-dbt:1/4", 2, 6)
	b.Tasks, b.MeanSize = 8, 8
	b.Workers = 1
	r1, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b.Workers = 3
	r2, _ := b.Run(context.Background())
	if !slices.Equal(r1.Completions, r2.Completions) {
		t.Fatalf("1 worker %v, 3 workers %v", r1.Completions, r2.Completions)
	}
	for i := range 6 {
		run, err := b.runAlone(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if run.Completion != r1.Completions[i] {
			t.Fatalf("run %d alone: %v, in the batch %v", i, run.Completion, r1.Completions[i])
		}
		// Lower bound: the I/O messages (processors x 8 I/O nodes) over 8 disks.
		procs := 0
		rng := rand.New(rand.NewPCG(b.Seed, uint64(i)))
		for range b.Tasks {
			procs += min(max(int(math.Round(rng.ExpFloat64()*b.MeanSize)), 1), 64)
		}
		bound := int64(procs) * b.IO.DiskCycles(b.Params) // procs x 8 messages / 8 disks
		if run.Cycles < bound {
			t.Errorf("run %d: %d cycles, below the disks' %d", i, run.Cycles, bound)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Run(ctx); err == nil {
		t.Error("a cancelled batch returned no error")
	}
	for _, bad := range []func(*Batch){
		func(b *Batch) { b.Machine = topo.Mesh(8, 8) },
		func(b *Batch) { b.Alloc = "sbt:1000" },
		func(b *Batch) { b.Runs = 0 },
		func(b *Batch) { b.MeanSize = math.NaN() },
		func(b *Batch) { b.CommPerIO = -1 },
		func(b *Batch) { b.Pattern = nil },
		func(b *Batch) { b.IO.DiskBytesPerSecond = math.Inf(1) },
	} {
		c := *b
		bad(&c)
		if _, err := c.Run(context.Background()); err == nil {
			t.Errorf("bad batch %+v accepted", c)
		}
	}
}

// TestBatchInterruptKeepsFinishedRuns: Ctrl-C after some runs returns those runs,
// marked interrupted, each equal to the same run of an uninterrupted batch.
func TestBatchInterruptKeepsFinishedRuns(t *testing.T) {
	b := liuBatch(t, "mesh:8x8:io=left", "ind-sbt:4", 1, 40)
	b.Tasks, b.MeanSize, b.Workers = 8, 8, 1
	full, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Progress = func(done, total int) {
		if done == 5 {
			cancel()
		}
	}
	part, err := b.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !part.Interrupted || part.Runs != 5 || !slices.Equal(part.Completions, full.Completions[:5]) {
		t.Fatalf("interrupted: %v, %d runs, %v; full starts %v", part.Interrupted, part.Runs, part.Completions, full.Completions[:5])
	}
}

// Several batch experiments on one pool give each the result of its own Run, in
// order, whatever the number of workers, and report every run once.
func TestRunBatchesIsRunEach(t *testing.T) {
	var bs []*Batch
	for _, spec := range []string{"dbt:1/4", "mbs", "bt"} {
		for _, comm := range []int{0, 2} {
			bs = append(bs, liuBatch(t, "mesh:16x16:io=left", spec, comm, 5))
		}
	}
	bs = append(bs, liuBatch(t, "mesh:8x8:io=left", "mbs", 1, 3)) // another machine
	var want []BatchResult
	for _, b := range bs {
		b.Workers = 1
		r, err := b.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, *r)
	}
	for _, workers := range []int{1, 3} {
		calls := make([]int, len(bs))
		for i, b := range bs {
			b.Progress = func(done, total int) {
				calls[i]++
				if done != calls[i] || total != b.Runs {
					t.Errorf("batch %d: progress %d of %d at call %d", i, done, total, calls[i])
				}
			}
		}
		got, err := RunBatches(context.Background(), bs, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i := range bs {
			if got[i] == nil || !slices.Equal(got[i].Completions, want[i].Completions) || got[i].MeanCompletion != want[i].MeanCompletion ||
				got[i].MessagesPerRun != want[i].MessagesPerRun || got[i].MeanWaitingTasks != want[i].MeanWaitingTasks || calls[i] != bs[i].Runs {
				t.Fatalf("%d workers, batch %d (%s, %d comm): %+v, want %+v", workers, i, bs[i].Alloc, bs[i].CommPerIO, got[i], want[i])
			}
		}
	}
}

// A run looks at ctx before starting each task: starting hundreds of large tasks
// on mesh:448x448 took seconds before the first look. Cancelled, a run queues
// nothing.
func TestBatchRunStopsBeforeQueueingTasks(t *testing.T) {
	b := liuBatch(t, "mesh:8x8:io=left", "ind-sbt:4", 0, 1)
	b.Tasks, b.MeanSize = 8, 4
	router, err := netsim.NewIORouter(b.Machine)
	if err != nil {
		t.Fatal(err)
	}
	w := &batchEngine{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.runOne(ctx, router, w, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if w.net == nil || !w.net.Idle() {
		t.Errorf("a cancelled run queued messages (engine idle: %v)", w.net != nil && w.net.Idle())
	}
}

// A task's I/O phase sends each node's next message when its last has arrived:
// none waits at its source behind another. Queued all at once, they held a message
// per node and I/O node per task (1.6-1.9 GB for 400 tasks of mean size 400 on
// mesh:448x448:io=left). The message engine sends a source's messages one at a
// time, so the run is the same (the CLI's outputs were compared byte for byte).
func TestBatchIOMessagesNotQueuedAhead(t *testing.T) {
	b := liuBatch(t, "mesh:16x16:io=left", "bf:snake", 0, 1)
	b.MeanSize = 32
	router, err := netsim.NewIORouter(b.Machine)
	if err != nil {
		t.Fatal(err)
	}
	w := &batchEngine{}
	delivered, waited := 0, 0
	eng, err := netsim.NewEngine(router, b.Params, func(d *netsim.Delivery) {
		delivered++
		if d.Injected != d.Queued {
			waited++
		}
		w.deliver(d)
	})
	if err != nil {
		t.Fatal(err)
	}
	w.net = batchMsgNet{eng}
	run, err := b.runOne(context.Background(), router, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(delivered) != run.Messages || delivered < 16*router.IONodes() {
		t.Fatalf("%d messages delivered, %d sent", delivered, run.Messages)
	}
	if waited > 0 {
		t.Errorf("%d of %d I/O messages waited at their source behind another", waited, delivered)
	}
}

// TestBatchDWithoutState: batch measures D with an allocator that reports no
// state (the tasks' nodes, runningFree) as with one: paging with pages of one
// node chooses as the sorted free list along the same curve (a CurveAllocator,
// measured on its State), so their runs, D and spatial compactness are the
// same; mc1x1 has a D on the 2^m x 2^n mesh too.
func TestBatchDWithoutState(t *testing.T) {
	var got []*BatchResult
	for _, spec := range []string{"freelist:hilbert", "paging:hilbert:0", "mc1x1"} {
		b := liuBatch(t, "mesh:8x8:io=left", spec, 1, 4)
		r, err := b.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if r.MeanSquares == nil || r.SpatiallyCompact == nil || !(*r.MeanSquares >= 1) {
			t.Fatalf("%s: no D (%v, %v)", spec, r.MeanSquares, r.SpatiallyCompact)
		}
		got = append(got, r)
	}
	a, p := got[0], got[1]
	if !slices.Equal(a.Completions, p.Completions) || *a.MeanSquares != *p.MeanSquares || *a.SpatiallyCompact != *p.SpatiallyCompact {
		t.Fatalf("freelist:hilbert: %v, D %v, %v; paging:hilbert:0: %v, D %v, %v", a.Completions, *a.MeanSquares, *a.SpatiallyCompact,
			p.Completions, *p.MeanSquares, *p.SpatiallyCompact)
	}
	t.Logf("D %.3f, %.3f spatially compact; mc1x1 D %.3f", *a.MeanSquares, *a.SpatiallyCompact, *got[2].MeanSquares)
}
