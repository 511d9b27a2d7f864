package sim

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
)

// fieldErrors are the *FieldError values of err and of the errors it joins.
func fieldErrors(err error) []string {
	var out []string
	var walk func(error)
	walk = func(e error) {
		var fe *FieldError
		if errors.As(e, &fe) && e == error(fe) {
			out = append(out, fe.Field)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// TestBatchValidateNamesFields: Validate's refusals name each field at fault (the
// batch command maps them onto its flags), all of them when several are bad, and
// say why: as-run has no placements for synthetic tasks; a bad network parameter
// names itself; more than 64 virtual channels is the flit engine's Flit.VCs.
func TestBatchValidateNamesFields(t *testing.T) {
	for _, c := range []struct {
		mod    func(*Batch)
		fields []string
		words  string
	}{
		{func(b *Batch) { b.Machine = nil }, []string{"Machine"}, "I/O nodes"},
		{func(b *Batch) { b.Tasks = 0 }, []string{"Tasks"}, "1..65536"},
		{func(b *Batch) { b.Tasks = 1<<16 + 1 }, []string{"Tasks"}, "1..65536"},
		{func(b *Batch) { b.MeanSize = 0.5 }, []string{"MeanSize"}, "64 nodes"},
		{func(b *Batch) { b.MeanSize = 65 }, []string{"MeanSize"}, "64 nodes"},
		{func(b *Batch) { b.CommPerIO = 1<<20 + 1 }, []string{"CommPerIO"}, "0..1048576"},
		{func(b *Batch) { b.Runs = 1<<24 + 1 }, []string{"Runs"}, "1..16777216"},
		{func(b *Batch) { b.Alloc = alloc.AsRunName }, []string{"Alloc"}, "synthetic"},
		{func(b *Batch) { b.Engine, b.Flit.VCs = EngineFlit, 65 }, []string{"Flit.VCs"}, "65"},
		{func(b *Batch) { b.Params.MessageFlits = 0 }, nil, "message size 0 flits"},
		{func(b *Batch) { b.Tasks, b.Runs, b.Alloc = 0, 0, "nosuch" }, []string{"Tasks", "Runs", "Alloc"}, "nosuch"},
	} {
		b := liuBatch(t, "mesh:8x8:io=left", "mbs", 1, 2)
		c.mod(b)
		err := b.Validate()
		if err == nil {
			t.Errorf("%+v accepted", b)
			continue
		}
		if got := fieldErrors(err); !slices.Equal(got, c.fields) || !strings.HasPrefix(err.Error(), "batch: ") || !strings.Contains(err.Error(), c.words) {
			t.Errorf("error %q: fields %q, want %q and %q", err, got, c.fields, c.words)
		}
		if _, rerr := b.Run(context.Background()); rerr == nil || rerr.Error() != err.Error() {
			t.Errorf("Run: %v, Validate: %v", rerr, err)
		}
		if _, rerr := b.runAlone(context.Background(), 0); rerr == nil || rerr.Error() != err.Error() {
			t.Errorf("runAlone: %v, Validate: %v", rerr, err)
		}
		good := liuBatch(t, "mesh:8x8:io=left", "mbs", 1, 2)
		if _, rerr := RunBatches(context.Background(), []*Batch{good, b}, 1); rerr == nil || rerr.Error() != err.Error() {
			t.Errorf("RunBatches: %v, Validate: %v", rerr, err)
		}
	}
}

// TestRunBatchesInterrupted: Ctrl-C in the middle of several experiments returns
// the ones that finished in full as they are, the one cut short with the runs it
// finished (each the same as uninterrupted) and Interrupted, and nil for those of
// which no run finished; cancelled before any run, it is an error wrapping the
// cause.
func TestRunBatchesInterrupted(t *testing.T) {
	var bs []*Batch
	var want []*BatchResult
	for _, spec := range []string{"mbs", "bt", "dbt:1/4"} {
		b := liuBatch(t, "mesh:8x8:io=left", spec, 1, 4)
		b.Tasks, b.MeanSize = 8, 8
		r, err := b.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		bs, want = append(bs, b), append(want, r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bs[1].Progress = func(done, total int) {
		if done == 1 {
			cancel() // the fifth run of the pool: the second batch's first
		}
	}
	got, err := RunBatches(ctx, bs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || got[0].Interrupted || !slices.Equal(got[0].Completions, want[0].Completions) {
		t.Errorf("first batch: %+v, want %+v", got[0], want[0])
	}
	if got[1] == nil || !got[1].Interrupted || got[1].Runs != 1 || !slices.Equal(got[1].Completions, want[1].Completions[:1]) {
		t.Errorf("second batch: %+v, want the first of %v, interrupted", got[1], want[1].Completions)
	}
	if got[2] != nil {
		t.Errorf("third batch: %+v, want nil (no run finished)", got[2])
	}
	bs[1].Progress = nil
	cctx, ccancel := context.WithCancelCause(context.Background())
	cause := errors.New("stopped by the test")
	ccancel(cause)
	if got, err := RunBatches(cctx, bs, 2); got != nil || !errors.Is(err, cause) || !strings.Contains(err.Error(), "before any run finished") {
		t.Errorf("cancelled before any run: %v, %v", got, err)
	}
}
