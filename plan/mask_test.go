package plan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/internal/masktest"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// The replays keep jobs of several partitions in them with an alloc.Mask (the
// nodes outside held from one decision to the next, sim/partition.go): on plan's
// own emulators it must place every job where alloc.AllocateWithout does, on
// random multi-partition histories (internal/masktest.Lockstep): every deployment
// plan builds on the sample fat tree and on torus:4x2x2 (Slurm 22.05 and 26.05:
// names, weights, tree, block, torus3d), each inside the fallback that places
// what Slurm would leave pending (pendingCounter, whose counts must agree too),
// and torus3d alone on larger tori.
func TestMaskPlanEmulators(t *testing.T) {
	parts, names, conf := fourPartitions()
	torus, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	histories := 150
	if testing.Short() {
		histories = 40
	}
	rng := rand.New(rand.NewPCG(12, 6))
	decisions, pending, kinds := 0, 0, map[string]bool{}
	for _, ver := range []Version{{22, 5, 0}, {26, 5, 0}} {
		for _, onTorus := range []bool{false, true} {
			opt := Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree", SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
				TimeLimit: 10 * time.Second, Seed: 1, Version: ver, VersionSource: "test"}
			if onTorus {
				opt.Machine, opt.Hosts, opt.MachineSource = torus, hostsOf(parts["all"]), "torus:4x2x2"
			}
			opt.Trace, opt.TracePath = sacctOf(t, partHistory(rand.New(rand.NewPCG(1, 7)), 20, parts, names)), "sacct.txt"
			p, err := Make(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range p.Deployments {
				if !d.Supported || d.Kind == KindAsRun {
					continue
				}
				kinds[string(d.Kind)] = true
				for h := range histories {
					what := fmt.Sprintf("Slurm %s, %s, deployment %s, history %d", ver, opt.MachineSource, d.Kind, h)
					var pcs [2]*pendingCounter
					var occ [2]alloc.Occupier
					for i := range pcs {
						a, err := d.Allocator()
						if err != nil {
							t.Fatal(err)
						}
						pcs[i] = newPendingCounter(a)
						occ[i] = pcs[i]
					}
					decisions += masktest.Lockstep(t, rng, occ[0], occ[1], 60, what)
					if pcs[0].pending != pcs[1].pending || pcs[0].refused != pcs[1].refused {
						t.Fatalf("%s: the fallback placed %d pending and %d refused jobs, against %d and %d", what, pcs[1].pending, pcs[1].refused, pcs[0].pending, pcs[0].refused)
					}
					pending += pcs[0].pending + pcs[0].refused
				}
			}
		}
	}
	for _, spec := range []string{"torus:4x4x2", "torus:4x4x4", "torus:6x4x2"} {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		dims, _ := slurm.TorusDims(m)
		for h := range histories {
			var tor [2]alloc.Occupier
			for i := range tor {
				if tor[i], err = newTorus3D(m, &torusConfig{dims: dims, placements: slurm.DefaultPlacements(dims)}); err != nil {
					t.Fatal(err)
				}
			}
			decisions += masktest.Lockstep(t, rng, tor[0], tor[1], 80, fmt.Sprintf("torus3d on %s, history %d", spec, h))
		}
	}
	for _, want := range []string{"names", "weights", "tree", "block", "torus3d"} {
		if !kinds[want] {
			t.Errorf("no %s deployment checked (%v)", want, kinds)
		}
	}
	if pending == 0 {
		t.Error("the fallback placed no job: its path is not checked")
	}
	t.Logf("deployments %v: %d decisions placed alike, %d of them by the fallback", kinds, decisions, pending)
}
