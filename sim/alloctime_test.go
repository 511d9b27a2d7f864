package sim

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// countingAlloc counts the calls that reach the allocator, to check the clock's
// counts against.
type countingAlloc struct {
	alloc.Allocator
	allocs, releases int64
}

func (c *countingAlloc) Allocate(k int) ([]int, error) { c.allocs++; return c.Allocator.Allocate(k) }
func (c *countingAlloc) Release(n []int) error         { c.releases++; return c.Allocator.Release(n) }

// A replay through Replay.Run (sim, compare, sweep) reports its allocator's time.
func TestReplayReportsAllocTime(t *testing.T) {
	s := DefaultSpec()
	s.MachineSpec, s.Alloc, s.Trace = "mesh:16x16", "mc1x1", "testdata/LLNL-T3D-1996-2.converted.txt.gz"
	s.Compat = alloc.CompatPReMAS
	rp, err := s.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	rp.Jobs = rp.Jobs[:2000]
	rep, err := rp.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	at := rep.AllocTime
	if at == nil || at.Decisions != 2000 || at.Releases != 2000 || at.TotalSeconds <= 0 || at.TotalSeconds > rep.Seconds {
		t.Errorf("alloc_time %+v in a replay of %g s", at, rep.Seconds)
	}
}

// Every replay reports the allocator's own time: one allocation and one release
// per job, each measured, the totals within the replay's, and a caller's clock
// (with latencies recorded) sees the same calls.
func TestAllocTimeCountsEveryCall(t *testing.T) {
	m, err := topo.ParseMachine("mesh:8x8")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var jobs []Job
	for i := range 300 {
		jobs = append(jobs, Job{ID: i + 1, Arrival: int64(i * 5), Runtime: int64(1 + rng.IntN(200)), Procs: 1 + rng.IntN(40)})
	}
	for _, comm := range []bool{false, true} {
		for _, spec := range []string{"bf:hilbert", "mc1x1", "mm"} {
			a, err := alloc.Parse(spec, m, alloc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ca := &countingAlloc{Allocator: a}
			clk := &alloc.Clock{Record: true}
			cfg := Config{Machine: m, Alloc: ca, Clock: clk}
			if comm {
				pat, err := netsim.ParsePattern("n-body")
				if err != nil {
					t.Fatal(err)
				}
				cfg.Comm = &Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 0.01, CycleSeconds: 10, Seed: 1}
			}
			if _, err := Run(context.Background(), jobs, cfg); err != nil {
				t.Fatalf("%s (comm %v): %v", spec, comm, err)
			}
			at := newAllocTime(clk.Snapshot())
			if at.Decisions != int64(len(jobs)) || at.Releases != int64(len(jobs)) || ca.allocs != at.Decisions || ca.releases != at.Releases {
				t.Errorf("%s (comm %v): %d decisions and %d releases reported, %d and %d made, %d jobs", spec, comm, at.Decisions, at.Releases, ca.allocs, ca.releases, len(jobs))
			}
			if r := clk.Snapshot(); int64(len(r.Latencies)) != at.Decisions {
				t.Errorf("%s: %d latencies for %d decisions", spec, len(r.Latencies), at.Decisions)
			}
			if !(at.AllocateSeconds > 0 && at.ReleaseSeconds > 0) || at.TotalSeconds != at.AllocateSeconds+at.ReleaseSeconds {
				t.Errorf("%s: times %+v", spec, at)
			}
		}
	}
}
