package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestSlurmRingConfIsYAML: the same rings given as a topology.conf's RingName=
// lines and as a topology.yaml's ring: topology replay alike, job for job (start,
// end, nodes in order, the waits for a ring segment), under FCFS and EASY, with
// and without an ORDER's weights: random rings (overlapping, some nodes on none,
// one ring of 16 so that every job fits one) on a 256-node mesh, 400 random
// jobs of 1-16 nodes each.
func TestSlurmRingConfIsYAML(t *testing.T) {
	m, err := topo.ParseMachine("mesh:16x16")
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, m.N())
	for i := range hosts {
		hosts[i] = fmt.Sprintf("n%03d", i+1)
	}
	dir := t.TempDir()
	waited, compared := 0, 0
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 11))
		var conf, yml strings.Builder
		fmt.Fprintf(&conf, "# random rings, seed %d\n", seed)
		yml.WriteString("- topology: rings\n  ring:\n    rings:\n")
		nrings := 6 + rng.IntN(20)
		for r := range nrings {
			size := 1 + rng.IntN(16)
			if r == 0 {
				size = 16
			}
			nodes := make([]string, size)
			for i, v := range rng.Perm(m.N())[:size] {
				nodes[i] = hosts[v]
			}
			if rng.IntN(3) == 0 {
				// a run of consecutive names, written as a range
				s := rng.IntN(m.N() - size)
				for i := range nodes {
					nodes[i] = hosts[s+i]
				}
			}
			list, err := hostlist.Compress(nodes)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&conf, "RingName=r%d Nodes=%s\n", r, list)
			fmt.Fprintf(&yml, "      - ring: r%d\n        nodes: %s\n", r, list)
		}
		cpath := filepath.Join(dir, fmt.Sprintf("topology%d.conf", seed))
		ypath := filepath.Join(dir, fmt.Sprintf("topology%d.yaml", seed))
		if err := os.WriteFile(cpath, []byte(conf.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ypath, []byte(yml.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs := make([]Job, 400)
		for i := range jobs {
			rt := int64(1 + rng.IntN(3000))
			jobs[i] = Job{ID: i + 1, Arrival: int64(i * (1 + rng.IntN(60))), Runtime: rt, Estimate: rt + int64(rng.IntN(600)), Procs: 1 + rng.IntN(16)}
		}
		for _, sched := range []Sched{SchedFCFS, SchedEASY} {
			for _, order := range []string{"", "snake"} {
				run := func(spec string) []JobResult {
					s := DefaultSpec()
					s.Alloc, s.Hosts, s.Sched, s.PerJob = spec, hosts, sched, true
					rp := &Replay{Spec: s, Machine: m, Trace: &Trace{}, Jobs: jobs}
					rep, err := rp.Run(context.Background())
					if err != nil {
						t.Fatalf("%s: %v", spec, err)
					}
					return rep.PerJob
				}
				cs, ys := "slurm:ring:"+cpath, "slurm:ring:"+ypath
				if order != "" {
					cs, ys = cs+":"+order, ys+"::"+order
				}
				c, y := run(cs), run(ys)
				if len(c) != len(jobs) || len(y) != len(jobs) {
					t.Fatalf("seed %d %s: %d and %d jobs replayed, want %d", seed, sched, len(c), len(y), len(jobs))
				}
				for i := range c {
					if !reflect.DeepEqual(c[i], y[i]) {
						t.Fatalf("seed %d %s %s: job %d: topology.conf %+v, topology.yaml %+v", seed, sched, order, c[i].ID, c[i], y[i])
					}
					if c[i].WaitedForBlock {
						waited++
					}
					compared++
				}
			}
		}
	}
	// The rings must have made jobs wait for a segment, or the comparison
	// says little about them.
	if waited == 0 {
		t.Errorf("%d jobs compared, none waited for a ring segment", compared)
	}
	t.Logf("%d jobs compared, %d waited for a ring segment", compared, waited)
}
