package plan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/internal/masktest"
	"github.com/procalloc/procalloc/sim"
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
	histories := 150
	if testing.Short() {
		histories = 40
	}
	rng := rand.New(rand.NewPCG(12, 6))
	decisions, pending, kinds := 0, 0, map[string]bool{}
	eachPlanEmulator(t, false, 20, func(d *Deployment, what string) {
		kinds[string(d.Kind)] = true
		for h := range histories {
			what := fmt.Sprintf("%s, history %d", what, h)
			var pcs [2]*pendingCounter
			var occ [2]alloc.Occupier
			for i := range pcs {
				pcs[i] = newPendingCounter(planEmulator(t, d))
				occ[i] = pcs[i]
			}
			decisions += masktest.Lockstep(t, rng, occ[0], occ[1], 60, what)
			if pcs[0].pending != pcs[1].pending || pcs[0].refused != pcs[1].refused {
				t.Fatalf("%s: the fallback placed %d pending and %d refused jobs, against %d and %d", what, pcs[1].pending, pcs[1].refused, pcs[0].pending, pcs[0].refused)
			}
			pending += pcs[0].pending + pcs[0].refused
		}
	})
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

// eachPlanEmulator calls f with every deployment plan builds (but as-run) on the
// sample fat tree and on torus:4x2x2, for Slurm 22.05 and 26.05, made from a
// history of jobs jobs in the four overlapping partitions of fourPartitions: names, weights and current
// (slurm:consec), tree, block and torus3d. With more, on fattree:4,4:4,4:8 too
// (128 hosts: bitmaps of two words) in four partitions of its own.
func eachPlanEmulator(t *testing.T, more bool, jobs int, f func(d *Deployment, what string)) {
	t.Helper()
	parts, names, conf := fourPartitions()
	torus, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	machines := []string{"fattree", "torus:4x2x2"}
	if more {
		machines = append(machines, "fattree:4,4:4,4:8")
	}
	for _, ver := range []Version{{Major: 22, Minor: 5}, {Major: 26, Minor: 5}} {
		for _, spec := range machines {
			opt := Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: spec, SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
				TimeLimit: 10 * time.Second, Seed: 1, Version: ver, VersionSource: "test"}
			parts := parts
			switch spec {
			case "torus:4x2x2":
				opt.Machine, opt.Hosts = torus, hostsOf(parts["all"])
			case "fattree:4,4:4,4:8":
				if opt.Machine, err = topo.ParseMachine(spec); err != nil {
					t.Fatal(err)
				}
				parts = map[string][]int{}
				for v := 1; v <= 128; v++ {
					parts["all"] = append(parts["all"], v)
				}
				parts["debug"], parts["left"], parts["right"] = parts["all"][96:], parts["all"][:80], parts["all"][48:]
				opt.Hosts, opt.TimeLimit = hostsOf(parts["all"]), 0
				opt.SlurmConf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-128]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\nPartitionName=all Nodes=ALL\n" +
					"PartitionName=debug Nodes=node[97-128]\nPartitionName=left Nodes=node[01-80] Default=YES\nPartitionName=right Nodes=node[49-128]\n")
			}
			opt.Trace, opt.TracePath = sacctOf(t, partHistory(rand.New(rand.NewPCG(1, 7)), jobs, parts, names)), "sacct.txt"
			p, err := Make(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range p.Deployments {
				if d.Supported && d.Kind != KindAsRun {
					f(d, fmt.Sprintf("Slurm %s, %s, deployment %s", ver, opt.MachineSource, d.Kind))
				}
			}
		}
	}
}

// planEmulator returns a new emulator of deployment d.
func planEmulator(t *testing.T, d *Deployment) emulator {
	t.Helper()
	a, err := d.Allocator()
	if err != nil {
		t.Fatal(err)
	}
	em, ok := a.(emulator)
	if !ok {
		t.Fatalf("deployment %s: emulator %s is not an Occupier listing its free nodes", d.Kind, a.Name())
	}
	return em
}

// The replays give the emulators that keep views (alloc.Viewer: the Slurm
// emulations) the partitions as views (pendingCounter.replayed, Mask.Views):
// each decision then reads the view of its job's partition, and the fallback
// that places what Slurm would leave pending reads it too. On random
// multi-partition histories (internal/masktest.LockstepViews: registered
// partitions, others not, random nodes kept away besides, releases between
// decisions) every decision of every deployment plan builds must give the
// nodes or the error that AllocateWithout gives on a copy without views, with
// the same pending and refused counts; torus3d keeps no views (each decision
// after a change rebuilds its busy table, O(n), so a view would save nothing)
// and is played with the mask's holds. Fails if the fallback reads a free state that does not follow the
// view switches, or a fallback's nodes are not occupied in the views.
func TestMaskViewsPlanEmulators(t *testing.T) {
	histories := 150
	if testing.Short() {
		histories = 40
	}
	rng := rand.New(rand.NewPCG(12, 7))
	decisions, pending, viewed, held := 0, 0, map[string]bool{}, map[string]bool{}
	eachPlanEmulator(t, true, 20, func(d *Deployment, what string) {
		for h := range histories {
			what := fmt.Sprintf("%s, history %d", what, h)
			ref, pc := newPendingCounter(planEmulator(t, d)), newPendingCounter(planEmulator(t, d))
			got := pc.replayed()
			kind := string(d.Kind)
			if _, ok := got.(alloc.Viewer); ok {
				viewed[kind] = true
				n := masktest.LockstepViews(t, rng, ref, got, 60, what)
				decisions += n
				pending += pc.pending + pc.refused
			} else {
				held[kind] = true
				decisions += masktest.Lockstep(t, rng, ref, got, 60, what)
			}
			if ref.pending != pc.pending || ref.refused != pc.refused {
				t.Fatalf("%s: the fallback placed %d pending and %d refused jobs, against %d and %d", what, pc.pending, pc.refused, ref.pending, ref.refused)
			}
		}
	})
	for _, want := range []string{"current", "names", "weights", "tree", "block"} {
		if !viewed[want] {
			t.Errorf("no %s deployment replayed with views (%v)", want, viewed)
		}
	}
	if !held["torus3d"] || viewed["torus3d"] {
		t.Errorf("torus3d replayed with views %v, with holds %v", viewed["torus3d"], held["torus3d"])
	}
	if pending == 0 {
		t.Error("the fallback placed no job with views: its path is not checked")
	}
	t.Logf("with views %v, with holds %v: %d decisions placed alike, %d of them by the fallback with views", viewed, held, decisions, pending)
}

// plan's replays (sim.Run with the job's partition, as replayOne runs it) of a
// multi-partition history under every deployment plan builds: with the
// emulator's views (pendingCounter.replayed; the view switches counted) each job
// starts when and where it starts with the mask's holds (the counter without
// views, checked in lockstep with AllocateWithout by TestMaskPlanEmulators),
// and the pending and refused counts agree.
func TestReplayViewsAsHolds(t *testing.T) {
	jobs := 400
	if testing.Short() {
		jobs = 150
	}
	switches, pending := map[string]int{}, 0
	eachPlanEmulator(t, true, jobs, func(d *Deployment, what string) {
		p := d.plan
		if p.replayParts == nil {
			t.Fatalf("%s: the history's partitions change nothing", what)
		}
		type placed struct {
			id         int
			start, end int64
			nodes      []int
		}
		replay := func(a alloc.Allocator) []placed {
			var out []placed
			done := func(r *sim.JobResult) error {
				out = append(out, placed{r.ID, r.Start, r.End, slices.Clone(r.Nodes)})
				return nil
			}
			cfg := sim.Config{Machine: p.Machine, Alloc: a, Sched: p.sched, Metrics: sim.MetricsSched, DropNodes: true, NoPerJob: true, JobDone: done, Partitions: p.replayParts}
			if _, err := sim.Run(context.Background(), p.Jobs, cfg); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			return out
		}
		held, viewed := newPendingCounter(planEmulator(t, d)), newPendingCounter(planEmulator(t, d))
		want := replay(held)
		a := viewed.replayed()
		uses := 0
		if vc, ok := a.(*viewingCounter); ok {
			a = &countedViews{vc, &uses}
		}
		got := replay(a)
		if len(got) != len(want) {
			t.Fatalf("%s: %d jobs replayed with views, %d with holds", what, len(got), len(want))
		}
		for i := range want {
			if got[i].id != want[i].id || got[i].start != want[i].start || got[i].end != want[i].end || !slices.Equal(got[i].nodes, want[i].nodes) {
				t.Fatalf("%s: job %d: with views %+v, with holds %+v", what, i, got[i], want[i])
			}
		}
		if viewed.pending != held.pending || viewed.refused != held.refused {
			t.Fatalf("%s: with views %d pending and %d refused, with holds %d and %d", what, viewed.pending, viewed.refused, held.pending, held.refused)
		}
		switches[string(d.Kind)] += uses
		pending += viewed.pending + viewed.refused
	})
	for _, kind := range []string{"current", "names", "weights", "tree", "block"} {
		if switches[kind] == 0 {
			t.Errorf("deployment %s: no view switch in its replays (%v)", kind, switches)
		}
	}
	if switches["torus3d"] != 0 {
		t.Errorf("torus3d switched views (%v)", switches)
	}
	if pending == 0 {
		t.Error("the fallback placed no job: its path is not checked")
	}
	t.Logf("view switches by deployment %v; %d jobs placed by the fallback with views", switches, pending)
}

// countedViews counts a viewingCounter's view switches.
type countedViews struct {
	*viewingCounter
	uses *int
}

func (c *countedViews) UseView(v int) error {
	*c.uses++
	return c.viewingCounter.UseView(v)
}
