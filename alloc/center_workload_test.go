package alloc_test

import (
	"context"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/bench"
	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// TestMC1x1FastPathsOnWorkloads replays issue 32's workloads with MC1x1 (plain
// and with Johnson's tie-breaking, ties not counted, as a bare allocation or
// `procalloc bench`) twice in lockstep, by the default paths (branch and bound over
// centers, tieSearch, the 2D mesh's budget) and by scoring every center, and
// fails on the first decision where the two take different nodes: the synthetic
// young-free-set stream and the first SDSC Paragon jobs scaled to the machine
// (skipped without the shared trace).
func TestMC1x1FastPathsOnWorkloads(t *testing.T) {
	machines := []string{"mesh:48x48", "torus:12x12x12", "mesh:12x10x9", "torus:40x40"}
	jobs, sdscJobs := 60, 600
	if testing.Short() {
		machines = machines[:2]
		jobs, sdscJobs = 30, 200
	}
	var trace []sim.Job
	if path, err := shared.Find("traces/SDSC-Par-1996-3.1-cln.swf.gz"); err == nil {
		tr, err := sim.ReadTraceFile(path, sim.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		trace = tr.Jobs[:min(sdscJobs, len(tr.Jobs))]
	} else {
		t.Logf("the SDSC trace is not here (%v): the synthetic stream only", err)
	}
	decisions := 0
	for _, spec := range machines {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		ws := []bench.Workload{}
		for seed := range uint64(3) {
			w, err := bench.SyntheticWorkload(m.N(), jobs, seed+1)
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
		if trace != nil {
			scaled := slices.Clone(trace)
			for i := range scaled {
				scaled[i].Procs = max(1, min(m.N(), scaled[i].Procs*max(1, m.N()/416)))
			}
			scaled, err = sim.Scale{Contract: 0.35}.Apply(scaled)
			if err != nil {
				t.Fatal(err)
			}
			w, err := bench.TraceWorkload(context.Background(), "SDSC", scaled, m, sim.SchedFCFS)
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
		for _, as := range []string{"mc1x1", "mc1x1:tb=3,9,3,2"} {
			for _, w := range ws {
				plain, err := alloc.Parse(as, m, alloc.Options{NoMemo: true})
				if err != nil {
					t.Fatal(err)
				}
				alloc.ScoreEveryCenter(plain)
				fast, err := alloc.Parse(as, m, alloc.Options{})
				if err != nil {
					t.Fatal(err)
				}
				held := make([][]int, w.Jobs)
				for i, op := range w.Ops {
					if op.Release {
						for _, a := range []alloc.Allocator{plain, fast} {
							if err := a.Release(held[op.Job]); err != nil {
								t.Fatal(err)
							}
						}
						continue
					}
					want, err := plain.Allocate(int(op.Procs))
					if err != nil {
						t.Fatal(err)
					}
					got, err := fast.Allocate(int(op.Procs))
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s on %s, %s, step %d (k=%d): the default paths took %v, every center scored %v", as, spec, w.Name, i, op.Procs, got, want)
					}
					held[op.Job] = got
					decisions++
				}
			}
		}
	}
	t.Logf("%d decisions compared", decisions)
}
