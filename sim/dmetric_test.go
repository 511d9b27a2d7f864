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
		unit       dUnit
	}{
		{"bt", "mesh:8x8", dBlock}, {"bt", "mesh:16x8", dBlock}, {"sbt:4", "mesh:8x8", dBlock}, {"dbt:1/4", "mesh:16x8", dBlock},
		{"mbs", "mesh:8x8", dNodes}, {"mbs", "mesh:16x8", dNodes}, {"bf:hilbert", "mesh:8x8", dNodes},
		{"ff:snake", "mesh:16x8", dNodes}, {"d-sbt:4", "mesh:8x8", dNodes},
	} {
		checked += checkFreeSquares(t, c.spec, c.mesh, c.unit, uint64(ci), false)
	}
	if checked < 3000 {
		t.Fatalf("only %d jobs checked", checked)
	}
	t.Logf("%d jobs' D checked", checked)
}

// TestFreeSquaresEveryAllocator: every allocator has a D on a 2^m x 2^n mesh,
// with and without partitions, that of the machine's free set computed by
// brute force from the running jobs (checkFreeSquares): the allocators that
// report no state of their own (the center-based ones, the Slurm emulations,
// paging with pages of one node), measured on the replay's running set
// (runningFree), and paging with pages of several nodes, measured on its pages
// (a job's whole pages busy, as bt's blocks).
func TestFreeSquaresEveryAllocator(t *testing.T) {
	checked := 0
	for ci, c := range []struct {
		spec, mesh string
		unit       dUnit
	}{
		{"mc1x1", "mesh:8x8", dNodes}, {"mc1x1:tb=3,9,3,2", "mesh:16x8", dNodes}, {"mm", "mesh:8x8", dNodes},
		{"genalg", "mesh:16x8", dNodes}, {"mc1x1-greedy", "mesh:8x8", dNodes}, {"mc", "mesh:8x8", dNodes},
		{"slurm:consec", "mesh:8x8", dNodes}, {"slurm:consec", "mesh:16x8", dNodes},
		{"paging:hilbert:0", "mesh:8x8", dNodes}, {"paging:hilbert:1", "mesh:8x8", dPages}, {"paging:snake:1", "mesh:16x8", dPages},
		{"bt", "mesh:8x8", dBlock}, {"mbs", "mesh:16x8", dNodes},
	} {
		checked += checkFreeSquares(t, c.spec, c.mesh, c.unit, uint64(100+ci), true)
	}
	if checked < 4000 {
		t.Fatalf("only %d jobs checked", checked)
	}
	t.Logf("%d jobs' D checked", checked)
}

// dUnit is what a running job keeps busy, for checkFreeSquares.
type dUnit int

const (
	dNodes dUnit = iota // its nodes
	dBlock              // its division-tree block (bt, sbt, dbt: divisionBlock)
	dPages              // its whole 2x2 pages (paging:CURVE:1)
)

// checkFreeSquares replays 150 random jobs with allocator spec on mesh: of
// three overlapping partitions (as-run, FCFS, EASY, Cplant), of one (EASY),
// and, with plain, of none (FCFS, EASY). Each job that no other started
// with is checked: its D (FreeSquares) equals the plain alloc.Squares of the
// machine's free set computed from scratch from the jobs running then (each
// keeping its unit busy). It returns the number of jobs checked.
func checkFreeSquares(t *testing.T, spec, mesh string, unit dUnit, seed uint64, plain bool) int {
	t.Helper()
	checked := 0
	m, err := topo.ParseMachine(mesh)
	if err != nil {
		t.Fatal(err)
	}
	g := m.(*topo.Grid)
	x, n := g.Dims()[0], m.N()
	// lower: the first half of the rows; upper: the rest; left: the first
	// half of the columns (partitions bt's blocks and paging's pages fit).
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
	rng := rand.New(rand.NewPCG(seed, 28))
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
	type run struct {
		sched Sched
		jobs  []Job
		parts map[string][]int
		what  string
	}
	runs := []run{{SchedAsRun, jobs, parts, "three partitions"}, {SchedFCFS, jobs, parts, "three partitions"}, {SchedEASY, jobs, parts, "three partitions"},
		{SchedCplant, jobs, parts, "three partitions"}, {SchedEASY, one, parts, "one partition"}}
	if plain {
		runs = append(runs, run{SchedFCFS, jobs, nil, "no partitions"}, run{SchedEASY, jobs, nil, "no partitions"})
	}
	for _, run := range runs {
		what := fmt.Sprintf("%s on %s, %s, %s", spec, mesh, run.sched, run.what)
		a, err := alloc.Parse(spec, m, alloc.Options{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var res []JobResult
		cfg := Config{Machine: m, Alloc: a, Sched: run.sched, Metrics: MetricsSched, Partitions: run.parts, JobDone: func(r *JobResult) error {
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
			for v := range free {
				free[v] = true
			}
			for _, j := range res {
				if j.ID != r.ID && (j.Start >= r.Start || j.End <= r.Start) {
					continue
				}
				busy := j.Nodes
				switch unit {
				case dBlock:
					busy = divisionBlock(g, j.Nodes)
				case dPages:
					busy = nil
					for _, v := range j.Nodes {
						x0, y0 := v%x&^1, v/x&^1
						busy = append(busy, x0+y0*x, x0+1+y0*x, x0+(y0+1)*x, x0+1+(y0+1)*x)
					}
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
	return checked
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
