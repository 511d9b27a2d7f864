package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkEASYPartitions replays 2,000 seeded jobs (sizes log-uniform 1 to
// n/16, run times log-uniform 1 min to 4 h with estimates up to twice them,
// arrivals at offered load 1.2 on the whole machine, so that queues form) with slurm:consec
// under EASY on meshes of 16,384 and 102,400 nodes: "1part" with every job in
// one partition holding every node (the replay without partitions), "3parts"
// with the same jobs spread over three overlapping partitions (batch: every
// node, half of the jobs; small: the first quarter; gpu: the last eighth, which
// batch overlaps and small does not), each job's partition holding it. The
// ratio of the two is the cost of several partitions; "3parts-asrun" replays
// the 3-partition EASY schedule as-run (each job at its EASY start), the cost
// of the partition changes without EASY's passes (docs/reliability.md, "EASY,
// FCFS and Cplant with several partitions").
func BenchmarkEASYPartitions(b *testing.B) {
	for _, side := range []int{128, 320} {
		m := topo.Mesh(side, side)
		n := m.N()
		all := make([]int, n)
		for v := range all {
			all[v] = v
		}
		parts := map[string][]int{"batch": all, "small": all[:n/4], "gpu": all[n-n/8:]}
		rng := rand.New(rand.NewPCG(7, 8))
		jobs := make([]sim.Job, 2000)
		at := int64(0)
		for i := range jobs {
			k := int(math.Exp(rng.Float64() * math.Log(float64(n/16))))
			rt := int64(math.Exp(math.Log(60) + rng.Float64()*math.Log(240)))
			est := rt + rng.Int64N(rt+1)
			part := "batch"
			switch i % 4 {
			case 1:
				part = "small"
			case 2:
				part = "gpu"
			}
			k = max(1, min(k, len(parts[part])))
			jobs[i] = sim.Job{ID: i + 1, Line: i + 1, Arrival: at, Procs: k, Runtime: rt, Estimate: est, Partition: part}
			at += int64(rng.ExpFloat64() * float64(k) * float64(rt) / (1.2 * float64(n)))
		}
		one := make([]sim.Job, len(jobs))
		copy(one, jobs)
		for i := range one {
			one[i].Partition = "batch"
		}
		replay := func(b *testing.B, jobs []sim.Job, parts map[string][]int, sched sim.Sched) *sim.Result {
			a, err := alloc.Parse("slurm:consec", m, alloc.Options{})
			if err != nil {
				b.Fatal(err)
			}
			res, err := sim.Run(context.Background(), jobs, sim.Config{Machine: m, Alloc: a, Sched: sched, Metrics: sim.MetricsSched, Partitions: parts})
			if err != nil {
				b.Fatal(err)
			}
			return res
		}
		// The 3-partition EASY schedule replayed as-run: the same starts and
		// partition changes without EASY's passes.
		asRun := make([]sim.Job, len(jobs))
		copy(asRun, jobs)
		for i, r := range replay(b, jobs, parts, sim.SchedEASY).PerJob {
			asRun[i].Started = r.Start
		}
		for _, c := range []struct {
			name  string
			jobs  []sim.Job
			parts map[string][]int
			sched sim.Sched
		}{{"1part", one, map[string][]int{"batch": all}, sim.SchedEASY}, {"3parts", jobs, parts, sim.SchedEASY}, {"3parts-asrun", asRun, parts, sim.SchedAsRun}} {
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				for range b.N {
					b.ReportMetric(replay(b, c.jobs, c.parts, c.sched).MeanWait, "mean-wait-s")
				}
			})
		}
	}
}

// BenchmarkBlockPartitions replays 3,000 seeded jobs (sizes log-uniform 1 to
// n/16, run times and arrivals as BenchmarkEASYPartitions's, offered load 1.2)
// under EASY with bt and paging:hilbert:1 on mesh:128x128, the allocators whose
// unit is larger than a node (alloc.ForPartitions): "1part" with every job in
// one partition holding every node, "4parts" with the jobs of LANL-CM5's
// replay with four partitions (docs/reliability.md, "Views per partition for
// bt, sbt, dbt and paging"): batch every node (half of the jobs), small the
// first quarter of the rows, gpu the last quarter, debug the second quarter
// at PriorityTier 2, each job of n/16 nodes or fewer held by a block of its
// partition. The ratio of the two is the cost of the partitions: views of
// the tree's counts (bt) and of the pages held whole (paging) switched at a
// change of partition, where a mask held every node two partitions differ
// by.
func BenchmarkBlockPartitions(b *testing.B) {
	m := topo.Mesh(128, 128)
	n := m.N()
	all := make([]int, n)
	for v := range all {
		all[v] = v
	}
	parts := map[string][]int{"batch": all, "small": all[:n/4], "gpu": all[n-n/4:], "debug": all[n/4 : n/2]}
	tiers := map[string]int{"debug": 2}
	names := []string{"batch", "batch", "batch", "batch", "small", "small", "gpu", "debug"}
	rng := rand.New(rand.NewPCG(11, 12))
	jobs := make([]sim.Job, 1000)
	at := int64(0)
	for i := range jobs {
		k := int(math.Exp(rng.Float64() * math.Log(float64(n/16))))
		rt := int64(math.Exp(math.Log(60) + rng.Float64()*math.Log(240)))
		est := rt + rng.Int64N(rt+1)
		jobs[i] = sim.Job{ID: i + 1, Line: i + 1, Arrival: at, Procs: max(1, k), Runtime: rt, Estimate: est, Partition: names[i%8]}
		at += int64(rng.ExpFloat64() * float64(k) * float64(rt) / (0.9 * float64(n)))
	}
	one := make([]sim.Job, len(jobs))
	copy(one, jobs)
	for i := range one {
		one[i].Partition = "batch"
	}
	for _, spec := range []string{"bt", "paging:hilbert:1"} {
		for _, c := range []struct {
			name  string
			jobs  []sim.Job
			parts map[string][]int
		}{{"1part", one, map[string][]int{"batch": all}}, {"4parts", jobs, parts}} {
			b.Run(fmt.Sprintf("%s/%s", spec, c.name), func(b *testing.B) {
				for range b.N {
					a, err := alloc.Parse(spec, m, alloc.Options{})
					if err != nil {
						b.Fatal(err)
					}
					res, err := sim.Run(context.Background(), c.jobs, sim.Config{Machine: m, Alloc: a, Sched: sim.SchedEASY,
						Metrics: sim.MetricsSched, Partitions: c.parts, PartitionTiers: tiers})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(res.MeanWait, "mean-wait-s")
				}
			})
		}
	}
}
