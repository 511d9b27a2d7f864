package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBatchFlitLoneTask: one task alone on the machine (no other traffic), on both
// engines: the same allocation, the same messages (its pattern's and its writes to
// every I/O node) over routes of the same lengths (the links crossed, I/O links
// included, sum to the same total), and on both the run ends no sooner than its
// disks allow; the flit engine, whose router pipeline takes 5 cycles a hop against
// the message engine's 1, takes longer.
func TestBatchFlitLoneTask(t *testing.T) {
	for _, machine := range []string{"mesh:4x4:io=left", "mesh:4x4:io=top"} {
		for _, comm := range []int{0, 2} {
			b := liuBatch(t, machine, "bt", comm, 1)
			b.Tasks, b.MeanSize = 1, 6
			f := *b
			f.Engine = EngineFlit
			for i := range 6 {
				m, err := b.runAlone(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				fl, err := f.runAlone(context.Background(), i)
				if err != nil {
					t.Fatalf("%s, flit engine, run %d: %v", machine, i, err)
				}
				if m.Messages == 0 || m.Messages != fl.Messages || m.Hops != fl.Hops || m.Allocations != fl.Allocations || m.Allocations != 1 {
					t.Fatalf("%s, %d comm, run %d: message engine %+v, flit engine %+v", machine, comm, i, m, fl)
				}
				// The task's writes: its processors x 4 I/O nodes, each disk taking
				// its share one after the other.
				writes := m.Messages
				if comm > 0 {
					writes = 0 // the pattern's share is unknown here; bound the I/O alone below
				}
				if lb := writes / 4 * b.IO.DiskCycles(b.Params); fl.Cycles < lb || m.Cycles < lb {
					t.Errorf("%s run %d: %d and %d cycles, below the disks' %d", machine, i, m.Cycles, fl.Cycles, lb)
				}
				if fl.Cycles <= m.Cycles {
					t.Errorf("%s, %d comm, run %d: flit engine %d cycles, message engine %d: the flit router's 5-cycle hops should show", machine, comm, i, fl.Cycles, m.Cycles)
				}
			}
		}
	}
}

// TestBatchFlitDeterministic: on the flit engine the same seed gives the same runs,
// whatever the number of workers, run alone or among message-engine batches on one
// pool (each engine kept apart); a buffer too small for the engine changes the
// result or is refused, never ignored.
func TestBatchFlitDeterministic(t *testing.T) {
	b := liuBatch(t, "mesh:8x8:io=left", "d-dbt:1/4", 1, 4)
	b.Tasks, b.MeanSize = 8, 8
	b.Engine = EngineFlit
	b.Workers = 1
	r1, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b.Workers = 2
	r2, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r1.Completions, r2.Completions) || r1.MeanCompletion != r2.MeanCompletion {
		t.Fatalf("1 worker %v, 2 workers %v", r1.Completions, r2.Completions)
	}
	m := *b
	m.Engine = ""
	rs, err := RunBatches(context.Background(), []*Batch{&m, b, &m}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rs[1].Completions, r1.Completions) {
		t.Fatalf("among message-engine batches %v, alone %v", rs[1].Completions, r1.Completions)
	}
	if slices.Equal(rs[0].Completions, r1.Completions) || !slices.Equal(rs[0].Completions, rs[2].Completions) {
		t.Fatalf("message engine %v and %v, flit engine %v", rs[0].Completions, rs[2].Completions, r1.Completions)
	}
	for i := range 4 {
		run, err := b.runAlone(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if run.Completion != r1.Completions[i] {
			t.Fatalf("run %d alone: %v, in the batch %v", i, run.Completion, r1.Completions[i])
		}
	}
	v := *b
	v.Flit.VCs = 4
	r4, err := v.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(r4.Completions, r1.Completions) {
		t.Errorf("4 virtual channels gave the same completions as 1: %v", r1.Completions)
	}
}

// TestBatchFlitBadOptions: engine options are checked as a replay's, each error
// naming its field.
func TestBatchFlitBadOptions(t *testing.T) {
	for _, c := range []struct {
		mod   func(*Batch)
		field string
	}{
		{func(b *Batch) { b.Engine = "booksim" }, "Engine"},
		{func(b *Batch) { b.Flit.VCs = 2 }, "Flit"}, // without EngineFlit
		{func(b *Batch) { b.Engine, b.Flit.VCs = EngineFlit, -1 }, "Flit.VCs"},
		{func(b *Batch) { b.Engine, b.Flit.VCBuffer = EngineFlit, -3 }, "Flit.VCBuffer"},
		{func(b *Batch) { b.Engine, b.Flit.LinkDelay = EngineFlit, -2 }, "Flit.LinkDelay"},
	} {
		b := liuBatch(t, "mesh:4x4:io=left", "bt", 0, 1)
		c.mod(b)
		_, err := b.Run(context.Background())
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.HasPrefix(err.Error(), "batch: "+c.field) {
			t.Errorf("engine %q, flit %+v: error %v, want one naming %s", b.Engine, b.Flit, err, c.field)
		}
	}
}

// TestCommFlitIdleIONodes: a replay's jobs run on the compute nodes only, so on a
// mesh with I/O nodes the flit engine's I/O routers and the attachment routers'
// extra ports stay idle, and jobs that overlap (contending for links) run exactly
// as on the mesh without them.
func TestCommFlitIdleIONodes(t *testing.T) {
	var jobs []Job
	for i, p := range []int{5, 16, 1, 9, 30, 3, 12, 40, 7, 2, 20, 11} {
		jobs = append(jobs, Job{ID: i + 1, Arrival: int64(i) * 40, Procs: p, Runtime: int64(40 + 13*i), Estimate: -1})
	}
	var res [2]*Result
	for k, machine := range []string{"mesh:8x8", "mesh:8x8:io=left"} {
		cfg := flitComm(t, commConfig(t, machine, "bf:hilbert", "all-to-all"))
		r, err := Run(context.Background(), jobs, cfg)
		if err != nil {
			t.Fatalf("%s: %v", machine, err)
		}
		res[k] = r
	}
	if len(res[0].PerJob) != len(jobs) || len(res[1].PerJob) != len(jobs) {
		t.Fatalf("%d and %d jobs ran, want %d", len(res[0].PerJob), len(res[1].PerJob), len(jobs))
	}
	overlap := 0
	for i, a := range res[0].PerJob {
		b := res[1].PerJob[i]
		if a.Start != b.Start || a.End != b.End || a.Messages != b.Messages || a.MessageHops != b.MessageHops {
			t.Errorf("job %d: %+v without I/O nodes, %+v with", a.ID, a, b)
		}
		if i > 0 && a.Start < res[0].PerJob[i-1].End {
			overlap++
		}
	}
	if overlap == 0 {
		t.Error("no two jobs overlap: the test shows nothing about contention")
	}
}

// TestBatchFlitStopsOnCancel: a run that would keep the flit engine busy for
// minutes (16 tasks communicating a thousand times each) stops within a second of
// Ctrl-C: the engine runs in chunks between looks at the context.
func TestBatchFlitStopsOnCancel(t *testing.T) {
	b := liuBatch(t, "mesh:16x16:io=left", "bt", 1000, 1)
	b.Engine = EngineFlit
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(100*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
	_, err := b.runAlone(ctx, 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(<-cancelled); d > time.Second {
		t.Errorf("stopped %v after the cancel", d)
	}
}
