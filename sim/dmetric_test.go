package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
		cfg := Config{Machine: m, Alloc: a, Sched: run.sched, Metrics: MetricsSched | MetricsCompact, Partitions: run.parts, JobDone: func(r *JobResult) error {
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

// D is not a scheduling metric (MetricSet: a measure of the machine's whole free
// set, kept up to date at every start and end, not of a job's own times and
// nodes): --metrics sched (MetricsSched) measures none, for an allocator with a
// state of the machine (bt, mbs) and for one measured on the running set
// (mc1x1, slurm:consec, paging), with and without partitions. Every job's
// FreeSquares is -1 (never measured), the summary has no Compactness and its
// JSON no "compactness" key but a metrics_not_computed naming "compact"; with
// sched,compact D is the default's, job by job; the nodes and starts of every
// job are the same with or without the group.
func TestMetricsSchedLeavesOutD(t *testing.T) {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Jobs = tr.Jobs[:600]
	for _, a := range []string{"bt", "mbs", "mc1x1", "slurm:consec", "paging:gilbert:1"} {
		for _, parts := range []bool{false, true} {
			run := func(m MetricSet) *Result {
				t.Helper()
				mach := topo.Mesh(16, 8)
				al, err := alloc.Parse(a, mach, alloc.Options{})
				if err != nil {
					t.Fatal(err)
				}
				jobs := slices.Clone(tr.Jobs)
				var pm map[string][]int
				if parts {
					pm = map[string][]int{}
					for v := range mach.N() {
						pm["all"] = append(pm["all"], v)
						half := []string{"lo", "hi"}[v%16/8] // two 8x8 squares
						pm[half] = append(pm[half], v)
					}
					for i := range jobs {
						if jobs[i].Partition = []string{"lo", "hi", "all"}[i%3]; jobs[i].Procs > 64 {
							jobs[i].Partition = "all"
						}
					}
				}
				res, err := Run(context.Background(), jobs, Config{Machine: mach, Alloc: al, Sched: SchedEASY, Metrics: m, Partitions: pm})
				if err != nil {
					t.Fatalf("%s, partitions %v, metrics %v: %v", a, parts, m, err)
				}
				return res
			}
			all, sched, withD := run(0), run(MetricsSched), run(MetricsSched|MetricsCompact)
			name := fmt.Sprintf("%s, partitions %v", a, parts)
			if all.Compactness == nil || withD.Compactness == nil || *all.Compactness != *withD.Compactness {
				t.Fatalf("%s: compactness %v by default, %v with sched,compact", name, all.Compactness, withD.Compactness)
			}
			if sched.Compactness != nil {
				t.Errorf("%s: --metrics sched computed D: %+v", name, *sched.Compactness)
			}
			if !slices.Equal(sched.NotComputed, []string{"route", "dist", "ties", "compact"}) || all.NotComputed != nil ||
				!slices.Equal(withD.NotComputed, []string{"route", "dist", "ties"}) {
				t.Errorf("%s: not computed %q, %q, %q", name, sched.NotComputed, all.NotComputed, withD.NotComputed)
			}
			b, err := json.Marshal(sched)
			if err != nil {
				t.Fatal(err)
			}
			if js := string(b); strings.Contains(js, `"compactness"`) || !strings.Contains(js, `"metrics_not_computed":["route","dist","ties","compact"]`) {
				t.Errorf("%s: the JSON with sched only: %s", name, js)
			}
			if len(sched.PerJob) != len(tr.Jobs) || len(all.PerJob) != len(tr.Jobs) {
				t.Fatalf("%s: %d and %d jobs", name, len(sched.PerJob), len(all.PerJob))
			}
			for i := range sched.PerJob {
				p, q, r := &sched.PerJob[i], &all.PerJob[i], &withD.PerJob[i]
				if p.FreeSquares != -1 || p.SpatiallyCompact {
					t.Fatalf("%s: job %d measured with sched only: D %d", name, p.ID, p.FreeSquares)
				}
				if q.FreeSquares < 0 || q.FreeSquares != r.FreeSquares || q.SpatiallyCompact != r.SpatiallyCompact {
					t.Fatalf("%s: job %d: D %d by default, %d with sched,compact", name, q.ID, q.FreeSquares, r.FreeSquares)
				}
				if p.Start != q.Start || !slices.Equal(p.Nodes, q.Nodes) {
					t.Fatalf("%s: job %d placed otherwise without D: %d %v against %d %v", name, p.ID, p.Start, p.Nodes, q.Start, q.Nodes)
				}
			}
		}
	}
}
