package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo"
)

// Op is one step of a workload: job Job (numbered in start order from 0) starts on
// Procs nodes, or, with Release, ends and gives its nodes back.
type Op struct {
	Job     int32 // the job's number, in start order from 0
	Procs   int32 // nodes the job asks for (on a release: those it gives back)
	Release bool  // the job ends; false: it starts
}

// Workload is the sequence of starts and ends every allocator of a measurement
// replays. It depends on job sizes only, never on which nodes a job gets, so every
// allocator that places any k <= free nodes meets the same requests on free sets
// of the same sizes.
type Workload struct {
	Name string // says where the workload comes from (a trace's name, or the synthetic one's seed and sizes)
	Ops  []Op   // starts and ends in the order replayed
	Jobs int    // starts in Ops
	// MaxProcs is the largest job.
	MaxProcs int
}

// MaxSyntheticJobs bounds SyntheticWorkload's jobs: its operations take 24 bytes
// a job (400 MB at the bound), and job numbers are int32 (--jobs 99999999999999
// panicked allocating them).
const MaxSyntheticJobs = 1 << 24

// SyntheticWorkload is the documented synthetic stream of `procalloc bench`: jobs
// of log-uniform sizes 1..max(1, n/8) (seeded PCG), started one after the other;
// before each start, running jobs chosen at random (uniformly, seeded) end while
// the new job does not fit or more than three quarters of the machine would be
// busy. It ends with every job released. Fragmentation comes from the random
// ends, as in a real stream, while the machine stays 60-75% busy.
// More than MaxSyntheticJobs jobs is an error.
func SyntheticWorkload(n, jobs int, seed uint64) (Workload, error) {
	if n < 1 || jobs < 1 {
		return Workload{}, fmt.Errorf("synthetic workload: %d nodes, %d jobs: need at least one of each", n, jobs)
	}
	if jobs > MaxSyntheticJobs {
		return Workload{}, fmt.Errorf("synthetic workload: %d jobs: at most %d", jobs, MaxSyntheticJobs)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5bd1e995))
	maxK := max(1, n/8)
	w := Workload{Name: fmt.Sprintf("synthetic (seed %d): %d jobs of log-uniform sizes 1-%d, random ends, at most 3/4 busy", seed, jobs, maxK), Jobs: jobs}
	w.Ops = make([]Op, 0, 2*jobs)
	type run struct{ job, procs int32 }
	var running []run
	busy := 0
	for j := range jobs {
		k := int(math.Exp(rng.Float64() * math.Log(float64(maxK)+1)))
		k = min(max(k, 1), maxK)
		w.MaxProcs = max(w.MaxProcs, k)
		for len(running) > 0 && (busy+k > n || 4*(busy+k) > 3*n) {
			i := rng.IntN(len(running))
			r := running[i]
			running[i] = running[len(running)-1]
			running = running[:len(running)-1]
			busy -= int(r.procs)
			w.Ops = append(w.Ops, Op{Job: r.job, Procs: r.procs, Release: true})
		}
		w.Ops = append(w.Ops, Op{Job: int32(j), Procs: int32(k)})
		running = append(running, run{int32(j), int32(k)})
		busy += k
	}
	for i := len(running) - 1; i >= 0; i-- {
		w.Ops = append(w.Ops, Op{Job: running[i].job, Procs: running[i].procs, Release: true})
	}
	return w, nil
}

// ErrDoesNotFit is wrapped by TraceWorkload when a job needs more nodes than the
// machine has.
var ErrDoesNotFit = errors.New("job larger than the machine")

// TraceWorkload is the order in which jobs start and end when the trace's jobs
// are replayed by sim with scheduler sched on m: a replay with a stand-in
// allocator (the first k free nodes in index order) records it. The schedulers
// decide from free counts only, so this is the order every allocator that places
// any k <= free nodes sees in that replay. A job larger than the machine is an
// error naming the first one (wrapping ErrDoesNotFit).
func TraceWorkload(ctx context.Context, name string, jobs []sim.Job, m topo.Machine, sched sim.Sched) (Workload, error) {
	n := m.N()
	for _, j := range jobs {
		if j.Procs > n {
			return Workload{}, fmt.Errorf("job %d (line %d) needs %d nodes, the machine %s has %d: %w", j.ID, j.Line, j.Procs, m.Spec(), n, ErrDoesNotFit)
		}
	}
	if len(jobs) == 0 {
		return Workload{}, errors.New("the trace has no jobs")
	}
	rec := &startRecorder{m: m, st: alloc.NewState(n), owner: make([]int32, n)}
	if _, err := sim.Run(ctx, jobs, sim.Config{Machine: m, Alloc: rec, Sched: sched, Metrics: sim.MetricsSched, DropNodes: true}); err != nil {
		return Workload{}, err
	}
	return Workload{Name: name, Ops: rec.ops, Jobs: int(rec.jobs), MaxProcs: rec.maxK}, nil
}

// startRecorder is the stand-in allocator of TraceWorkload: it takes the first k free
// nodes and records the starts and ends.
type startRecorder struct {
	m     topo.Machine
	st    *alloc.State
	owner []int32
	ops   []Op
	jobs  int32
	maxK  int
	buf   []int
}

func (r *startRecorder) Name() string          { return "startRecorder" }
func (r *startRecorder) Machine() topo.Machine { return r.m }
func (r *startRecorder) NumFree() int          { return r.st.NumFree() }

func (r *startRecorder) Allocate(k int) ([]int, error) {
	if err := r.st.CheckRequest(k); err != nil {
		return nil, err
	}
	r.buf = r.st.AppendFree(r.buf[:0])
	nodes := append([]int(nil), r.buf[:k]...)
	if err := r.st.Take(nodes); err != nil {
		return nil, err
	}
	for _, v := range nodes {
		r.owner[v] = r.jobs
	}
	r.ops = append(r.ops, Op{Job: r.jobs, Procs: int32(k)})
	r.jobs++
	r.maxK = max(r.maxK, k)
	return nodes, nil
}

func (r *startRecorder) Release(nodes []int) error {
	if len(nodes) == 0 {
		return errors.New("empty release")
	}
	job := r.owner[nodes[0]]
	if err := r.st.Release(nodes); err != nil {
		return err
	}
	r.ops = append(r.ops, Op{Job: job, Procs: int32(len(nodes)), Release: true})
	return nil
}

// youngFreeSetMachines backs YoungFreeSetMachines; only this package changes it.
var youngFreeSetMachines = []string{"mesh:128x128", "torus:128x128", "mesh:16x16x16", "torus:16x16x16", "mesh:25x25x25", "torus:25x25x25"}

// YoungFreeSetMachines returns the machines of issue 34 item 5's young-free-set
// measurements (BenchmarkGreedyYoungFreeSet here, alloc's BenchmarkGreedyCounts):
// each mesh beside the torus of the same sides, so the two can be compared.
// Each call returns a new slice: changing it changes nothing in the package.
func YoungFreeSetMachines() []string { return slices.Clone(youngFreeSetMachines) }

// ScaledSDSC is issue 32's workload on m, the one its speed goal for the
// center-based allocators is measured on: of the SDSC Paragon log's jobs (sdsc, as
// sim.ReadTraceFile reads traces/SDSC-Par-1996-3.1-cln.swf.gz), the first 3,000,
// each size multiplied by n/416 (the Paragon's 416 nodes to m's n; at least 1, at
// most n), arrivals contracted by 0.35, in the start and end order of an FCFS
// replay (TraceWorkload). sdsc is not changed.
func ScaledSDSC(ctx context.Context, sdsc []sim.Job, m topo.Machine) (Workload, error) {
	n := m.N()
	jobs := slices.Clone(sdsc[:min(3000, len(sdsc))])
	for i := range jobs {
		jobs[i].Procs = max(1, min(n, jobs[i].Procs*(n/416)))
	}
	jobs, err := sim.Scale{Contract: 0.35}.Apply(jobs)
	if err != nil {
		return Workload{}, fmt.Errorf("issue 32's SDSC workload: %w", err)
	}
	return TraceWorkload(ctx, "SDSC Paragon, first 3,000 jobs scaled", jobs, m, sim.SchedFCFS)
}
