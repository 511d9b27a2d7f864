package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// sharedRunner is an item's replay that reads how many machines its Networks
// holds once it has run (its own, while its line is not yet handed over).
type sharedRunner struct {
	sp   sim.Spec
	nets *sim.Networks
	held *int
}

func (r sharedRunner) Run(ctx context.Context) (*sim.Report, error) {
	rep, err := r.sp.Run(ctx)
	*r.held = max(*r.held, r.nets.Machines())
	return rep, err
}

// netsSweep is the sweep of KTH's first jobs with all-to-all communication on
// machines and allocators (YAML lists), whose want items it checks it has.
func netsSweep(t *testing.T, machines, allocators string, want int) (*Spec, []Item) {
	t.Helper()
	s, err := Parse([]byte(`name: nets
traces: [../testdata/KTH-SP2-1996-2.converted.txt.gz]
machines: `+machines+`
allocators: `+allocators+`
patterns: [all-to-all]
flags: [--to, "400000", --drop-larger]
`), "nets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	items := s.Items()
	if len(items) != want {
		t.Fatalf("%d items, want %d", len(items), want)
	}
	return s, items
}

// A sweep drops each machine after its last item: over three machines in machine
// order, one worker, the Networks holds at most one machine at any moment (the
// one the running item uses), none once an item was its machine's last, through
// the library's runner and through a Replay hook (the procalloc command's), and
// each line is the one of the item replayed alone, without sharing.
func TestSweepDropsEachMachineAfterItsLastItem(t *testing.T) {
	s, items := netsSweep(t, `[mesh:10x10, "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13", torus:8x8]`, "[bf:rcm, ff:name-order]", 6)
	// line is l without what depends on the run (time, build).
	line := func(l Line) string {
		l.Seconds, l.AllocTime, l.Build, l.SweepID = 0, nil, "", ""
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	alone := map[string]string{}
	for _, it := range items {
		sp, err := it.Params.Replay(s.Dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := sp.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Comm == nil || rep.Jobs == 0 {
			t.Fatalf("%s: no communication figures or no jobs", it.Params.Machine)
		}
		rep.Trace = it.Params.Trace
		alone[it.Key] = line(NewLine(s.Name, it, rep, nil, 0))
	}
	for _, hook := range []bool{false, true} {
		nets := &sim.Networks{}
		held, n := 0, 0
		r := Runner{Workers: 1, Networks: nets, Done: func(l Line) error {
			// The line of item n: its machine is held only if a later item uses it.
			want := 0
			if n+1 < len(items) && items[n+1].Params.Machine == l.Params.Machine {
				want = 1
			}
			if got := nets.Machines(); got != want {
				t.Errorf("hook %v: after item %d (%s), %d machines held, want %d", hook, n, l.Params.Machine, got, want)
			}
			if l.Status != StatusOK || line(l) != alone[l.Key] {
				t.Errorf("hook %v: item %d's line\n%s\nalone\n%s", hook, n, line(l), alone[l.Key])
			}
			n++
			return nil
		}}
		if hook {
			r.Replay = func(it Item) (sim.Runner, error) {
				sp, err := it.Params.Replay(s.Dir)
				sp.Networks = nets
				return sharedRunner{sp, nets, &held}, err
			}
		}
		if err := s.Run(context.Background(), items, r); err != nil {
			t.Fatal(err)
		}
		if n != len(items) {
			t.Fatalf("hook %v: %d lines, want %d", hook, n, len(items))
		}
		if hook && held != 1 {
			t.Errorf("hook %v: at most %d machines held while an item ran, want 1", hook, held)
		}
	}
}

// A sweep that ends early (its Done refuses a line, or ctx is cancelled) leaves no
// machine in a Networks the caller keeps: the items that never ran, or were
// cancelled, have no line, but their announcements end with Run.
func TestSweepEndedEarlyKeepsNoMachine(t *testing.T) {
	s, items := netsSweep(t, "[mesh:10x10]", "[bf:rcm, ff:name-order, mc1x1]", 3)
	stop := errors.New("stop")
	for _, how := range []string{"done refuses", "ctx cancelled"} {
		nets := &sim.Networks{}
		ctx, cancel := context.WithCancel(context.Background())
		lines := 0
		r := Runner{Workers: 1, Networks: nets, Done: func(l Line) error {
			lines++
			if got := nets.Machines(); got != 1 {
				t.Errorf("%s: after the first item %d machines held, want 1 (the later items')", how, got)
			}
			if how == "done refuses" {
				return stop
			}
			cancel()
			return nil
		}}
		err := s.Run(ctx, items, r)
		cancel()
		if how == "done refuses" && !errors.Is(err, stop) {
			t.Errorf("%s: Run returned %v, want the Done's error", how, err)
		}
		if lines != 1 {
			t.Errorf("%s: %d lines, want 1", how, lines)
		}
		if got := nets.Machines(); got != 0 {
			t.Errorf("%s: %d machines held after Run returned, want 0", how, got)
		}
	}
}
