package sim

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// flitComm switches a commConfig to the flit engine with BookSim2's defaults.
func flitComm(t *testing.T, cfg Config) Config {
	t.Helper()
	c := *cfg.Comm
	c.Engine = EngineFlit
	c.Flit = netsim.DefaultFlitConfig(cfg.Machine)
	c.Flit.PacketFlits = int(c.Params.MessageFlits)
	cfg.Comm = &c
	return cfg
}

func TestCommFlitLoneJobRunsAtZeroLoadLatency(t *testing.T) {
	// Two neighbours exchange 10 messages of 31 flits in 5 all-to-all phases, the
	// two messages of a phase on opposite links: each phase takes a lone packet's
	// latency over one hop, 2 cycles into the first router, R+VA+SA+ST+L = 5 per
	// hop, R+VA+SA+ST+1 = 5 out of the last router and S-1 = 30 for the tail:
	// 42 cycles (netsim.FlitEngine.ZeroLoadLatency's terms), where the message
	// engine takes R + S = 33. A phase's messages are queued in the cycle the last
	// one of the previous phase arrived, and leave in it (BookSim2 generates and
	// injects in one step); the first phase's are queued when the job starts, after
	// that cycle was simulated, and leave one cycle later: 43 + 4 x 42.
	cfg := flitComm(t, commConfig(t, "mesh:4x4", "freelist:rowmajor", "all-to-all"))
	jobs := []Job{{ID: 1, Procs: 2, Runtime: 10, Estimate: -1}}
	res, err := Run(context.Background(), jobs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res.PerJob[0]
	if got := r.End - r.Start; got != 43+4*42 {
		t.Errorf("ran %d cycles, want 43 + 4 x 42", got)
	}
	if r.Messages != 10 || r.MessageDistance != 1 {
		t.Errorf("%d messages at distance %v, want 10 at 1", r.Messages, r.MessageDistance)
	}
	if c := res.Comm; c == nil || c.Engine != "flit" || c.Flit == nil || c.Flit.VCs != 1 || c.Flit.FlitHops != 10*31 {
		t.Errorf("comm summary %+v: want the flit engine, 1 VC, 310 flit-hops", c)
	}
}

// flitTestJobs are jobs that never overlap: each ends long before the next arrives,
// so both engines place them on the same nodes.
func flitTestJobs() []Job {
	sizes := []int{5, 16, 1, 9, 30, 3, 12, 64, 7, 2}
	var jobs []Job
	for i, p := range sizes {
		jobs = append(jobs, Job{ID: i + 1, Arrival: int64(i) * 100000, Procs: p, Runtime: int64(40 + 13*i), Estimate: -1})
	}
	return jobs
}

func TestCommFlitCarriesTheMessageEnginesTraffic(t *testing.T) {
	// With jobs that never overlap, the engines see the same placements: the flit
	// engine must deliver the same messages over the same routes (dimension order
	// on both), so the same hop counts, only at other times. And it is
	// deterministic.
	for _, pattern := range []string{"n-body", "random", "all-to-all"} {
		msg, err := Run(context.Background(), flitTestJobs(), commConfig(t, "mesh:8x8", "bf:hilbert", pattern))
		if err != nil {
			t.Fatal(err)
		}
		var flit [2]*Result
		for k := range flit {
			if flit[k], err = Run(context.Background(), flitTestJobs(), flitComm(t, commConfig(t, "mesh:8x8", "bf:hilbert", pattern))); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(flit[0], flit[1]) {
			t.Errorf("%s: two flit replays differ", pattern)
		}
		slower := 0
		for i, m := range msg.PerJob {
			f := flit[0].PerJob[i]
			if !reflect.DeepEqual(m.Nodes, f.Nodes) || m.Messages != f.Messages || m.MessageHops != f.MessageHops || m.HopBytes != f.HopBytes {
				t.Errorf("%s, job %d: message engine %v %d msgs %d hops, flit %v %d msgs %d hops", pattern, m.ID, m.Nodes, m.Messages, m.MessageHops, f.Nodes, f.Messages, f.MessageHops)
			}
			if f.End-f.Start > m.End-m.Start {
				slower++
			}
		}
		// The flit router's pipeline (5 cycles a hop, 2 in and out) is slower than
		// the message engine's 2-cycle hops: most jobs take longer.
		if slower < len(msg.PerJob)/2 {
			t.Errorf("%s: only %d of %d jobs ran longer on the flit engine", pattern, slower, len(msg.PerJob))
		}
	}
}

func TestSpecFlitErrorsNameTheField(t *testing.T) {
	base := DefaultSpec()
	base.Trace, base.MachineSpec, base.Alloc, base.Comm = "t.swf", "mesh:8x8", "mc1x1", "n-body"
	for _, c := range []struct {
		field string
		edit  func(s *Spec)
	}{
		{"Engine", func(s *Spec) { s.Engine = "wormhole" }},
		{"Engine", func(s *Spec) { s.Engine, s.Comm = EngineFlit, "" }},
		{"Flit", func(s *Spec) { s.Flit.VCs = 2 }}, // the message engine
		{"Flit.VCs", func(s *Spec) { s.Engine, s.Flit.VCs = EngineFlit, -1 }},
		{"Flit.VCBuffer", func(s *Spec) { s.Engine, s.Flit.VCBuffer = EngineFlit, -8 }},
		{"Flit.LinkDelay", func(s *Spec) { s.Engine, s.Flit.LinkDelay = EngineFlit, -1 }},
	} {
		s := base
		c.edit(&s)
		err := s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v %+v: Validate = %v, want an error of %s", s.Engine, s.Flit, err, c.field)
		}
	}
	s := base
	s.Engine = EngineFlit
	if err := s.Validate(); err != nil {
		t.Errorf("flit with defaults: %v", err)
	}
	// What needs the machine: Prepare (before the trace is read).
	for _, c := range []struct {
		machine string
		flit    FlitOptions
		field   string
	}{
		{"torus:8x8", FlitOptions{VCs: 1}, "Flit.VCs"},
		{"mesh:8x8", FlitOptions{VCBuffer: 1 << 17}, "Flit.VCBuffer"},
		{"mesh:8x8", FlitOptions{VCs: 65}, "Flit.VCs"},
	} {
		s := base
		s.Engine, s.Flit, s.MachineSpec = EngineFlit, c.flit, c.machine
		_, err := s.Prepare()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s %+v: Prepare = %v, want an error of %s", c.machine, c.flit, err, c.field)
		}
	}
}

func TestCommFlitStopsOnCancel(t *testing.T) {
	// One job of 256 processors sending a million messages keeps the flit engine
	// busy for minutes; a cancelled context stops it within a second.
	g, err := topo.ParseSpec("mesh:16x16")
	if err != nil {
		t.Fatal(err)
	}
	cfg := flitComm(t, commConfig(t, "mesh:16x16", "mc1x1", "all-to-all"))
	cfg.Machine = g
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(100*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
	_, err = Run(ctx, []Job{{ID: 1, Procs: 256, Runtime: 1e6, Estimate: -1}}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(<-cancelled); d > time.Second {
		t.Errorf("stopped %v after the cancel", d)
	}
}
