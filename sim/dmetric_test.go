package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// With partitions, each job's D (FreeSquares, Liu et al.'s Definition 1) is that
// of the machine's free set, computed here by brute force from the running
// jobs' nodes (bt, sbt, dbt: their whole blocks, the smallest division-tree
// node holding a job's nodes) with the plain Squares: not the allocator's free
// state, where the nodes outside the last decision's partition are held busy
// (alloc.Mask), or the one partition's outside is occupied, and not a
// partition's view of an allocator that keeps one per partition (mbs, the
// curve allocators: alloc.Viewer).
// Random replays of jobs of three overlapping partitions and of one partition,
// under the as-run schedule, FCFS, EASY and Cplant, on 2^m x 2^n meshes; a job
// is checked when no other job started at its time (the running set is then
// plain from the results).
func TestFreeSquaresMachineFreeSetWithPartitions(t *testing.T) {
	checked := 0
	for ci, c := range []struct {
		spec, mesh string
		blocks     bool // a job keeps its whole division-tree block busy
	}{
		{"bt", "mesh:8x8", true}, {"bt", "mesh:16x8", true}, {"sbt:4", "mesh:8x8", true}, {"dbt:1/4", "mesh:16x8", true},
		{"mbs", "mesh:8x8", false}, {"mbs", "mesh:16x8", false}, {"bf:hilbert", "mesh:8x8", false},
		{"ff:snake", "mesh:16x8", false}, {"d-sbt:4", "mesh:8x8", false},
	} {
		m, err := topo.ParseMachine(c.mesh)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Grid)
		x, n := g.Dims()[0], m.N()
		// lower: the first half of the rows; upper: the rest; left: the first
		// half of the columns (partitions bt's blocks fit).
		parts := map[string][]int{}
		for v := range n {
			if v < n/2 {
				parts["lower"] = append(parts["lower"], v)
			} else {
				parts["upper"] = append(parts["upper"], v)
			}
			if v%x < x/2 {
				parts["left"] = append(parts["left"], v)
			}
		}
		names := []string{"lower", "upper", "left"}
		rng := rand.New(rand.NewPCG(uint64(ci), 28))
		var jobs []Job
		for i := range 150 {
			k := 1 + rng.IntN(6)
			if rng.IntN(8) == 0 {
				k = 8 + rng.IntN(9)
			}
			jobs = append(jobs, Job{ID: i + 1, Line: i + 2, Arrival: int64(4 * i), Started: int64(4 * i), Procs: k,
				Runtime: int64(5 + rng.IntN(50)), Estimate: 60, Partition: names[rng.IntN(len(names))]})
		}
		one := slices.Clone(jobs)
		for i := range one {
			one[i].Partition = "upper"
		}
		for _, run := range []struct {
			sched Sched
			jobs  []Job
			what  string
		}{{SchedAsRun, jobs, "three partitions"}, {SchedFCFS, jobs, "three partitions"}, {SchedEASY, jobs, "three partitions"},
			{SchedCplant, jobs, "three partitions"}, {SchedEASY, one, "one partition"}} {
			what := fmt.Sprintf("%s on %s, %s, %s", c.spec, c.mesh, run.sched, run.what)
			a, err := alloc.Parse(c.spec, m, alloc.Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			var res []JobResult
			cfg := Config{Machine: m, Alloc: a, Sched: run.sched, Metrics: MetricsSched, Partitions: parts, JobDone: func(r *JobResult) error {
				res = append(res, JobResult{Job: Job{ID: r.ID}, Start: r.Start, End: r.End, Nodes: slices.Clone(r.Nodes), FreeSquares: r.FreeSquares})
				return nil
			}}
			if _, err := Run(context.Background(), run.jobs, cfg); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			starts := map[int64]int{}
			for _, r := range res {
				starts[r.Start]++
			}
			free := make([]bool, n)
			for _, r := range res {
				if starts[r.Start] > 1 {
					continue
				}
				clear(free)
				for v := range free {
					free[v] = true
				}
				for _, j := range res {
					if j.ID != r.ID && (j.Start >= r.Start || j.End <= r.Start) {
						continue
					}
					busy := j.Nodes
					if c.blocks {
						busy = divisionBlock(g, j.Nodes)
					}
					for _, v := range busy {
						free[v] = false
					}
				}
				want, err := alloc.Squares(m, func(v int) bool { return free[v] })
				if err != nil {
					t.Fatal(err)
				}
				if r.FreeSquares != want {
					t.Fatalf("%s: job %d (started at %d): D %d, the machine's free set has %d", what, r.ID, r.Start, r.FreeSquares, want)
				}
				checked++
			}
		}
	}
	if checked < 3000 {
		t.Fatalf("only %d jobs checked", checked)
	}
	t.Logf("%d jobs' D checked", checked)
}

// divisionBlock returns the nodes of the smallest node of the orthogonal
// division tree of g (a 2^m x 2^n mesh without I/O nodes: the longer side cut
// in halves, x first on a square) that holds every node of nodes: bt's block of
// a job.
func divisionBlock(g *topo.Grid, nodes []int) []int {
	xs := g.Dims()[0]
	x0, y0, w, h := 0, 0, xs, g.Dims()[1]
descend:
	for w*h > 1 {
		cutX := w >= h
		lowHalf, highHalf := true, true
		for _, v := range nodes {
			c := v % xs
			if !cutX {
				c = v / xs
			}
			mid := x0 + w/2
			if !cutX {
				mid = y0 + h/2
			}
			if c < mid {
				highHalf = false
			} else {
				lowHalf = false
			}
		}
		switch {
		case lowHalf && cutX:
			w /= 2
		case highHalf && cutX:
			x0, w = x0+w/2, w/2
		case lowHalf:
			h /= 2
		case highHalf:
			y0, h = y0+h/2, h/2
		default: // nodes in both halves
			break descend
		}
	}
	var out []int
	for y := y0; y < y0+h; y++ {
		for x := x0; x < x0+w; x++ {
			out = append(out, x+y*xs)
		}
	}
	return out
}
