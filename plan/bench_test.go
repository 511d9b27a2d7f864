package plan

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// syntheticHistory is an sacct-like history of count jobs on m: the synthetic
// workload replayed by EASY through Slurm's default selection (slurm:consec on name
// order), each job's start and nodes recorded as sacct records them.
func syntheticHistory(tb testing.TB, m topo.Machine, names []string, count int) *sim.Trace {
	tb.Helper()
	jobs := SyntheticWorkload(m.N(), count, 7)
	a, err := alloc.NewSlurm(m, alloc.SlurmConfig{Names: names})
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]sim.Job, 0, count)
	hosts := hostlist.NewTable(names...) // ids are node indices
	var list []string
	_, err = sim.Run(context.Background(), jobs, sim.Config{Machine: m, Alloc: a, Sched: sim.SchedEASY, Metrics: sim.MetricsSched, NoPerJob: true, DropNodes: true,
		JobDone: func(r *sim.JobResult) error {
			j := r.Job
			j.Started = r.Start
			j.Line = len(out) + 2
			list = list[:0]
			for _, v := range r.Nodes {
				list = append(list, names[v])
			}
			j.NodeList = hosts.List(list)
			out = append(out, j)
			return nil
		}})
	if err != nil {
		tb.Fatal(err)
	}
	return &sim.Trace{Jobs: out, Format: sim.FormatSacct, Hosts: hosts}
}

// benchPlan runs Make on machine spec with a history of jobs jobs, once per
// iteration, and reports the peak heap.
func benchPlan(b *testing.B, spec string, jobs int, limit time.Duration) {
	m, err := topo.ParseMachine(spec)
	if err != nil {
		b.Fatal(err)
	}
	names := curves.NodeNames(m)
	if names == nil {
		b.Fatal("no host names")
	}
	hl, err := hostlist.Compress(names)
	if err != nil {
		b.Fatal(err)
	}
	conf := []byte(fmt.Sprintf("NodeName=%s CPUs=1\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n", hl))
	tr := syntheticHistory(b, m, names, jobs)
	opt := Options{Machine: m, MachineSource: spec, SlurmConf: conf, Trace: tr, TracePath: "history", Version: V2311, VersionSource: "bench", TimeLimit: limit, Seed: 1}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// The peak heap while Make runs, sampled every 20 ms, above the heap held
	// before it (the history as sim reads it: one string per node of every job).
	// HeapInuse counts garbage not yet collected too (with the history live, the
	// collector lets the heap grow to about twice it), so the peak live heap (as the
	// last collection marked it) is reported as well.
	peak := before.HeapInuse
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	liveBefore := live[0].Value.Uint64()
	peakLive := liveBefore
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				metrics.Read(live)
				peakLive = max(peakLive, live[0].Value.Uint64())
			}
		}
	}()
	b.ResetTimer()
	var p *Plan
	for range b.N {
		if p, err = Make(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	close(stop)
	<-sampled
	b.ReportMetric(float64(before.HeapInuse)/1e6, "history-heap-MB")
	b.ReportMetric(float64(peak-before.HeapInuse)/1e6, "plan-peak-heap-MB")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(liveBefore)/1e6, "history-live-MB")
	b.ReportMetric(float64(peakLive-liveBefore)/1e6, "plan-peak-live-MB")
	b.Logf("%s, %d jobs: recommended %s; ordering %s in %.1f s", spec, jobs, p.Report.Recommended, p.Report.Ordering.Status, p.Report.Ordering.Seconds)
}

// Issue 29 item 9: plan on a 10,240-host dragonfly with a 100,000-job history
// (goal: 60 s, 1 GB) and on a 1,024-host fat tree with 10,000 jobs (goal: 10 s).
// go test -run '^$' -bench Plan -benchtime 1x ./plan
func BenchmarkPlanDragonfly10240(b *testing.B) {
	benchPlan(b, "dragonfly:hosts_per_router=8,routers_per_group=16,intergroup_links=5,num_groups=80", 100000, 20*time.Second)
}

func BenchmarkPlanFatTree1024(b *testing.B) {
	benchPlan(b, "fattree:16,16:16,16:4", 10000, 5*time.Second)
}

// plan at 10^5 hosts, the size of the largest sites (docs/plan.md, scale): a
// 131,072-host fat tree and a 102,400-host dragonfly, each with a 3,000-job history.
// go test -run '^$' -bench 'Plan.*(131072|102400)' -benchtime 1x ./plan
func BenchmarkPlanFatTree131072(b *testing.B) {
	benchPlan(b, "fattree:16,16:16,16:16,16:32", 3000, 60*time.Second)
}

func BenchmarkPlanDragonfly102400(b *testing.B) {
	benchPlan(b, "dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=200", 3000, 60*time.Second)
}

// benchReplay times the replays alone (every supported deployment, as Make runs
// them, GOMAXPROCS at a time) of a history of jobs jobs on machine spec for Slurm
// version ver: the inputs checked, the ordering and the deployments built before
// the timer starts. It reports the replays' wall time per job and deployment
// (GOMAXPROCS deployments replayed at a time) and the process's CPU time (user and
// system, every thread's, the collector's too) per job and deployment.
func benchReplay(b *testing.B, spec string, jobs int, ver Version) {
	benchReplayParts(b, spec, jobs, ver, false)
}

// benchReplayParts is benchReplay, with parts on a site of three partitions: all
// (every host), lower (the first 5/8 of the hosts in name order) and upper (the
// last 5/8), each job of the history in lower or upper when its recorded nodes are
// (the smaller first), else in all: jobs of lower and upper are kept off 3/8 of the
// hosts at each decision.
func benchReplayParts(b *testing.B, spec string, jobs int, ver Version, parts bool) {
	m, err := topo.ParseMachine(spec)
	if err != nil {
		b.Fatal(err)
	}
	names := curves.NodeNames(m)
	hl, err := hostlist.Compress(names)
	if err != nil {
		b.Fatal(err)
	}
	conf := []byte(fmt.Sprintf("NodeName=%s CPUs=1\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n", hl))
	tr := syntheticHistory(b, m, names, jobs)
	if parts {
		sorted := slices.Clone(names)
		slices.SortFunc(sorted, hostlist.NaturalCompare)
		cut := len(sorted) * 5 / 8
		lo, _ := hostlist.Compress(sorted[:cut])
		hi, _ := hostlist.Compress(sorted[len(sorted)-cut:])
		conf = []byte(fmt.Sprintf("NodeName=%s CPUs=1\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\nPartitionName=all Nodes=ALL Default=YES\nPartitionName=lower Nodes=%s\nPartitionName=upper Nodes=%s\n", hl, lo, hi))
		rank := map[string]int{}
		for i, n := range sorted {
			rank[n] = i
		}
		count := map[string]int{}
		for i := range tr.Jobs {
			j := &tr.Jobs[i]
			minR, maxR := len(sorted), -1
			for _, n := range j.NodeList.Names() {
				minR, maxR = min(minR, rank[n]), max(maxR, rank[n])
			}
			switch {
			case maxR < cut:
				j.Partition = "lower"
			case minR >= len(sorted)-cut:
				j.Partition = "upper"
			default:
				j.Partition = "all"
			}
			count[j.Partition]++
		}
		b.Logf("jobs by partition: %v", count)
	}
	p := &Plan{opt: Options{Machine: m, MachineSource: spec, SlurmConf: conf, SlurmConfPath: "slurm.conf", Trace: tr, TracePath: "history",
		Version: ver, VersionSource: "bench", TimeLimit: 60 * time.Second, Seed: 1, Weights: DefaultWeights(), Threshold: DefaultThreshold}}
	ctx := context.Background()
	if err := p.checkInputs(ctx); err != nil {
		b.Fatal(err)
	}
	if err := p.order(ctx, time.Time{}); err != nil {
		b.Fatal(err)
	}
	if err := p.buildDeployments(ctx, ctx); err != nil {
		b.Fatal(err)
	}
	replayed := 0
	for _, d := range p.Deployments {
		if d.Supported {
			replayed++
		}
	}
	cpu := func() time.Duration { // the process's user+system CPU time
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ResetTimer()
	cpu0 := cpu()
	for range b.N {
		p.Files, p.Report.Deployments = nil, nil
		if err := p.replay(ctx, ctx); err != nil {
			b.Fatal(err)
		}
	}
	used := cpu() - cpu0
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N)/float64(jobs*replayed), "ms/job-deployment")
	b.ReportMetric(float64(used.Microseconds())/1e3/float64(b.N)/float64(jobs*replayed), "cpu-ms/job-deployment")
	b.Logf("%s, %d jobs, Slurm %s: %d deployments replayed, GOMAXPROCS %d", spec, jobs, ver, replayed, runtime.GOMAXPROCS(0))
}

// The replays of a long history at 10^5 hosts (docs/plan.md, "At 10^5 hosts"):
// 10,000 jobs on the 102,400-host dragonfly and on the 131,072-host fat tree, the
// fat tree also for Slurm 26.05 (topology/tree's 24.11 rules).
// go test -run '^$' -bench 'Replay' -benchtime 1x ./plan
func BenchmarkReplayDragonfly102400(b *testing.B) {
	benchReplay(b, "dragonfly:hosts_per_router=8,routers_per_group=64,intergroup_links=4,num_groups=200", 10000, V2311)
}

func BenchmarkReplayFatTree131072(b *testing.B) {
	benchReplay(b, "fattree:16,16:16,16:16,16:32", 10000, V2311)
}

func BenchmarkReplayFatTree131072Slurm2605(b *testing.B) {
	benchReplay(b, "fattree:16,16:16,16:16,16:32", 10000, V2605)
}

// The cost of partitions at 10^5 hosts: 2,000 jobs on the fat tree, in three
// overlapping partitions (benchReplayParts) and in one.
// go test -run '^$' -bench 'ReplayFatTree131072Parts' -benchtime 1x ./plan
func BenchmarkReplayFatTree131072Parts(b *testing.B) {
	jobs := 2000
	if s := os.Getenv("PROCALLOC_BENCH_JOBS"); s != "" {
		jobs, _ = strconv.Atoi(s)
	}
	for _, parts := range []bool{false, true} {
		b.Run(fmt.Sprint("partitions=", parts), func(b *testing.B) {
			benchReplayParts(b, "fattree:16,16:16,16:16,16:32", jobs, V2311, parts)
		})
	}
}
