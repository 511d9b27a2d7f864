package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkPartitionsAtScale replays 100,000 seeded jobs on mesh:128x80 (10,240
// nodes) under fcfs, cplant and easy with slurm:consec, and 20,000 under easy
// with slurm:tree (leaves of 64 nodes, 16 leaves a spine, one root), each with
// every job in one partition of every node ("1part": the replay without
// partitions) and with the same jobs in three overlapping partitions ("3parts":
// batch, every node, half of the jobs; small, the first quarter, a quarter of
// them, PriorityTier=2; gpu, the last eighth, a quarter), scheduling metrics
// only. Sizes are log-uniform from 1 to a sixteenth of the job's partition, run
// times log-uniform from 1 min to 4 h with estimates up to twice them, arrivals
// at offered load 1.0 on the whole machine, so that queues form and the small
// partition's jobs pass the others'. It is the scale at which a cost per
// queued job per pass, per partition per event or per job and node shows
// (docs/reliability.md, "Partitions at a million jobs"): run it alone with
// -benchtime 1x. bf:hilbert-trunc (100,000 jobs, fcfs) keeps jobs in their
// partitions with a view per partition (alloc.Viewer, alloc/curve_view.go),
// mc1x1 (20,000, easy) without views, holding and freeing the nodes two
// partitions differ by as bitmaps (alloc.BulkOccupier; docs/sim.md, "Which
// allocators take partitions").
func BenchmarkPartitionsAtScale(b *testing.B) {
	m := topo.Mesh(128, 80)
	n := m.N()
	all := make([]int, n)
	names := make([]string, n)
	for v := range all {
		all[v], names[v] = v, fmt.Sprintf("n%05d", v)
	}
	parts := map[string][]int{"batch": all, "small": all[:n/4], "gpu": all[n-n/8:]}
	tiers := map[string]int{"small": 2}
	var conf strings.Builder
	for l := range n / 64 {
		fmt.Fprintf(&conf, "SwitchName=l%d Nodes=n[%05d-%05d]\n", l, l*64, l*64+63)
	}
	for s := range n / 1024 {
		fmt.Fprintf(&conf, "SwitchName=s%d Switches=l[%d-%d]\n", s, s*16, s*16+15)
	}
	fmt.Fprintf(&conf, "SwitchName=root Switches=s[0-%d]\n", n/1024-1)
	tree, err := slurm.ParseTree(strings.NewReader(conf.String()))
	if err != nil {
		b.Fatal(err)
	}
	jobs := partitionJobs(100_000, parts, n)
	one := make([]sim.Job, len(jobs))
	copy(one, jobs)
	for i := range one {
		one[i].Partition = "batch"
	}
	for _, c := range []struct {
		sched sim.Sched
		alloc string
		jobs  int
	}{{sim.SchedFCFS, "slurm:consec", 100_000}, {sim.SchedCplant, "slurm:consec", 100_000}, {sim.SchedEASY, "slurm:consec", 100_000}, {sim.SchedEASY, "slurm:tree", 20_000},
		// a curve allocator, with views (a change of partition switches
		// views), and mc1x1, without (a change of partition holds and frees
		// the nodes two partitions differ by, alloc.Mask, as two bitmaps:
		// alloc.BulkOccupier)
		{sim.SchedFCFS, "bf:hilbert-trunc", 100_000}, {sim.SchedEASY, "mc1x1", 20_000}} {
		for _, p := range []struct {
			name  string
			jobs  []sim.Job
			parts map[string][]int
		}{{"1part", one, map[string][]int{"batch": all}}, {"3parts", jobs, parts}} {
			b.Run(fmt.Sprintf("%s/%s/%s/jobs=%d", c.sched, c.alloc, p.name, c.jobs), func(b *testing.B) {
				cpu0 := processCPU()
				for b.Loop() {
					var a alloc.Allocator
					var err error
					if c.alloc == "slurm:tree" {
						a, err = alloc.NewSlurm(m, alloc.SlurmConfig{Names: names, Tree: tree})
					} else {
						a, err = alloc.Parse(c.alloc, m, alloc.Options{})
					}
					if err != nil {
						b.Fatal(err)
					}
					res, err := sim.Run(context.Background(), p.jobs[:c.jobs], sim.Config{Machine: m, Alloc: a, Sched: c.sched,
						Metrics: sim.MetricsSched, NoPerJob: true, Partitions: p.parts, PartitionTiers: tiers})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(res.MeanWait, "mean-wait-s")
				}
				// CPU rather than wall time: the machine is often shared.
				b.ReportMetric((processCPU()-cpu0)/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// partitionJobs is BenchmarkPartitionsAtScale's workload: count seeded jobs,
// job i in batch (i mod 4 of 0 or 3), small (1) or gpu (2).
func partitionJobs(count int, parts map[string][]int, n int) []sim.Job {
	rng := rand.New(rand.NewPCG(17, 18))
	jobs := make([]sim.Job, count)
	at := int64(0)
	for i := range jobs {
		part := "batch"
		switch i % 4 {
		case 1:
			part = "small"
		case 2:
			part = "gpu"
		}
		size := len(parts[part])
		k := max(1, min(size, int(math.Exp(rng.Float64()*math.Log(float64(size/16))))))
		rt := int64(math.Exp(math.Log(60) + rng.Float64()*math.Log(240)))
		est := rt + rng.Int64N(rt+1)
		jobs[i] = sim.Job{ID: i + 1, Line: i + 1, Arrival: at, Procs: k, Runtime: rt, Estimate: est, Partition: part}
		at += int64(rng.ExpFloat64() * float64(k) * float64(rt) / float64(n))
	}
	return jobs
}

// processCPU is the process's user and system CPU time so far, in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
