package sweep

import (
	"context"
	"time"

	"github.com/procalloc/procalloc/internal/buildid"

	"github.com/procalloc/procalloc/sim"
)

// Replay is the replay of the item: its parameters (Params.Spec) with its flags
// applied (ApplyFlags), checked (sim.Spec.Validate, whose *sim.FieldError values it
// returns as they are). The files its flags name are read when it is prepared.
func (p Params) Replay(dir string) (sim.Spec, error) {
	s := p.Spec(dir)
	if err := ApplyFlags(&s, p.Flags); err != nil {
		return s, err
	}
	return s, s.Validate()
}

// Runner says how Spec.Run runs items; the zero value runs each item's Replay.
type Runner struct {
	// Workers is the number of items run at once (<= 0: one per core).
	Workers int
	// Replay, when set, builds an item's replay instead of Params.Replay (the
	// procalloc command's, for per-job files); to share machines it gives the
	// replay Networks (sim.Spec.Networks).
	Replay func(it Item) (sim.Runner, error)
	// Networks is what the items' replays share machines and routers through
	// (nil: Run makes one). Run announces each item's replay to it before the
	// first runs and ends it as the item ends, or when Run returns for an item
	// cancelled or never started (sim.Networks.Expect), so that a machine is
	// dropped after its last item and none is kept after Run.
	Networks *sim.Networks
	// Error, when set, rewrites an item's error before it goes into its line (the
	// procalloc command's: sim's flags named, the command that decompresses a
	// trace it does not read).
	Error func(it Item, err error) error
	// Done receives each item's results line (SweepID and Build set) as it ends, one call at
	// a time; an error stops the run (sim.Grid) and is returned.
	Done func(l Line) error
}

// Run runs the items of the sweep (those of Items, or a shard's) as r says. Items
// are deterministic, so their lines (Seconds and AllocTime aside) do not depend on
// Workers. When ctx is cancelled the running items stop within a second and no
// more start; their lines are not passed on. The items on one machine with
// communication on the message engine share its machine and router (r.Networks),
// each machine kept from its first item to its last: items in machine order (those
// of one trace, as Items lists them) hold one machine at a time per worker.
func (s *Spec) Run(ctx context.Context, items []Item, r Runner) error {
	t0 := make([]time.Time, len(items))
	id := s.ID()
	nets := r.Networks
	if nets == nil {
		nets = &sim.Networks{}
	}
	// Each item's replay announced, so that its machine goes with its last item;
	// an item whose parameters are refused takes no machine.
	ended := make([]func(), len(items))
	for i, it := range items {
		ended[i] = func() {}
		if sp, err := it.Params.Replay(s.Dir); err == nil {
			ended[i] = nets.Expect(&sp)
		}
	}
	// The items that end without a line (cancelled, or never started after Done
	// refused one) end their announcements here: a Networks the caller keeps
	// holds no machine of this Run after it returns. Each function ends once.
	defer func() {
		for _, end := range ended {
			end()
		}
	}()
	grid := sim.Grid{Workers: r.Workers,
		Task: func(i int) (sim.Runner, error) {
			t0[i] = time.Now()
			if r.Replay != nil {
				return r.Replay(items[i])
			}
			sp, err := items[i].Params.Replay(s.Dir)
			if err != nil {
				return nil, err
			}
			sp.Networks = nets
			return &sp, nil
		},
		Done: func(i int, g sim.GridResult) error {
			ended[i]()
			err := g.Err
			if err != nil && r.Error != nil {
				err = r.Error(items[i], err)
			}
			if g.Report != nil {
				// The result names the trace as the sweep file does, not as it was
				// opened (joined to the sweep file's directory, which is absolute in
				// --sbatch's script and relative to wherever the sweep was started
				// otherwise), so that a result does not depend on how the sweep was
				// invoked and shards run by a job array merge to the single run's file.
				g.Report.Trace = items[i].Params.Trace
			}
			l := NewLine(s.Name, items[i], g.Report, err, time.Since(t0[i]).Seconds())
			l.SweepID, l.Build = id, buildid.ID()
			if r.Done == nil {
				return nil
			}
			return r.Done(l)
		}}
	return grid.Run(ctx, len(items))
}
