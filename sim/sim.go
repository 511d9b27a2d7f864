package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/topo"
)

// Compat selects whose conventions a replay follows (docs/sim.md).
type Compat = alloc.Compat

// Config describes one replay.
type Config struct {
	Machine topo.Machine    // a *topo.Grid or a *topo.Graph
	Alloc   alloc.Allocator // fresh (every node free); must be on Machine
	Sched   Sched           // SchedFCFS (also the zero value), SchedEASY, SchedCplant or SchedAsRun
	// Compat: run-time estimates and measured distances (under CompatPReMAS plain
	// L1, no wraparound) follow PReMAS's or SST's conventions; zero: procalloc's.
	// The allocator's own Compat is set when it is built (alloc.Options).
	Compat Compat
	// Comm, when set, lets communication over the network decide run times
	// (Bunde et al. 2004 §3.2); see Comm.
	Comm *Comm
	// Pattern is the communication pattern of the static per-job route metrics
	// (message distance, hop-bytes, routes sharing a link); nil means all-to-all.
	// With Comm, Comm.Pattern is used.
	Pattern netsim.Pattern
	// Metrics are the metric groups computed (0: MetricsAll); without MetricsRoute the
	// static route metrics are not measured and the summary has none. Comm needs them.
	// Without MetricsTies the allocator's tie counting is turned off (Summary.Ties
	// nil, JobResult.Ties 0); without MetricsCompact no D is measured
	// (Summary.Compactness nil, JobResult.FreeSquares -1).
	Metrics MetricSet
	// MessageBytes is the message size of the static hop-bytes (default 256, the
	// default 32 flits of 8 bytes); with Comm, its message size is used.
	MessageBytes int64
	// SpanOrder, when set, is the ordering (node of each rank) on whose ranks span,
	// ring span and stretch-span are measured (Leung et al. 2002 §2.3), named
	// SpanName; else a curve allocator's own ordering (alloc.Ranked), else node
	// indices.
	SpanOrder []int
	SpanName  string // names SpanOrder in Summary.SpanOrder ("": "given ordering")
	// Baseline, when set, solves every decision exactly for comparison (Baseline).
	Baseline *Baseline
	// TaskOrder maps each job's tasks onto its nodes (TaskOrder; the zero value
	// keeps the order the allocator returns); TaskSeed seeds TaskOrderRandom, and
	// TaskRanking resolves a curve:NAME that is not a built-in curve (nil: built-in
	// curves only).
	TaskOrder   TaskOrder
	TaskSeed    uint64                                                  // seeds TaskOrderRandom
	TaskRanking func(name string, m topo.Machine) (curves.Order, error) // resolves a curve:NAME that is not built in
	// Progress, when set, is called with the jobs finished so far whenever that
	// number has changed (at most once per event time), so it should be cheap: a
	// counter a caller reads on its own clock.
	Progress func(done, total int)
	// DropNodes forgets each job's node list (JobResult.Nodes) when the job ends
	// (after JobDone has seen it), for callers that keep only the summary or take
	// the per-job results through JobDone: a long trace on a large machine then
	// holds the node lists of the running jobs only (and, with JobDone, of finished
	// jobs waiting for an earlier one), not 8 bytes for every node of every job.
	DropNodes bool
	// NoPerJob keeps no per-job records: each job's is folded into the summary (in
	// trace order, after JobDone has seen it) once it and every earlier job have
	// finished, and forgotten; Result.PerJob is nil and memory holds the records of
	// queued, running and not yet folded jobs only, whatever the trace's length
	// (without JobDone, a finished job not yet folded holds only what the summary
	// reads, 72 bytes against its record's 336, 144 with distances, route metrics
	// or the baseline: a job that waits long costs little for every job that
	// finishes behind it).
	// It does not apply with Comm or the as-run schedule (their records are kept).
	NoPerJob bool
	// JobDone, when set, is called once for every job with its result (Nodes set),
	// in trace order: a job's call comes once it and every job before it have
	// finished, so that per-job output can be written while the replay runs. The
	// result must not be kept past the call (its Nodes may be dropped). An error
	// stops the replay. With Comm the calls come at the end of the replay, once
	// cycles are converted to seconds.
	JobDone func(r *JobResult) error
	// Clock, when set, measures the allocator's calls (Replay.Run reports its
	// reading as Summary.AllocTime).
	Clock *alloc.Clock
	// Partitions, when set, keeps every job on the nodes of its partition (node
	// indices of Machine by partition name; Job.Partition names one, which must be
	// here), as Slurm does (partition.go): jobs of one partition or several
	// under every scheduler (several under EASY with an allocator that places
	// every job that fits by count only); the allocator must be an
	// alloc.Occupier (or place recorded node lists, which are checked). A job its
	// partition cannot hold now waits. nil: every job may have every node.
	Partitions map[string][]int
	// PartitionTiers, with Partitions, is each partition's PriorityTier
	// (slurm.ConfPartition): FCFS, Cplant and EASY take the jobs of a higher
	// tier first, queue order within a tier, as Slurm's schedulers sort their
	// queue (job_scheduler.c, sort_job_queue2; sched.go). A partition not
	// here is of tier 1, Slurm's default; nil: every partition's.
	PartitionTiers map[string]int
	// perJob replays jobs of one partition (or of partitions holding every
	// node) as jobs of several are (partition.go): the tests' check that the
	// two give the same replay.
	perJob bool
	// heldPeak, when set, receives the most JobResults the replay held at once
	// (jobTable.peak): the tests' measure of its memory.
	heldPeak *int
	// noD leaves the D metric out (FreeSquares -1, no Compactness): the
	// slurm:consec replay that BlockWaits' extra wait is measured against
	// reads the mean wait alone (Replay.consecMeanWait).
	noD bool
	// askAgain turns the placer's refusal memos off (placer.refused,
	// refusedBeside): every size is asked of the allocator again. The tests'
	// check that the memos keep every job's start, nodes and wait for a block.
	askAgain bool
}

// jobTable holds the replay's job records by job index: all of them, or, when the
// replay keeps none (Config.NoPerJob), those from the first job not yet passed on
// (base) to the last one arrived, so that memory follows the queued and running
// jobs rather than the trace. Without JobDone either (compact), a finished job's
// record is folded down to what the summary reads (foldRec, and foldExtra once one
// is not zero) at once: the jobs between base and the last arrival that finished
// while an earlier one runs or waits hold a foldRec each, and only the queued and
// running ones a JobResult.
type jobTable struct {
	jobs   []Job
	compat Compat
	recs   []JobResult // job base+i at recs[i]; compact: the unfinished jobs' records, at slot
	base   int
	// compact: slot[i] is job base+i's place in recs (-1 once finished), folds[i]
	// its foldRec once finished, extras[i] its foldExtra (nil while every one
	// folded was zero), free the places in recs no job holds.
	compact bool
	slot    []int32
	folds   []foldRec
	extras  []foldExtra
	free    []int32
	// peak is the most JobResults held at once (recs less its free places).
	peak int
}

func (t *jobTable) at(i int) *JobResult {
	if t.compact {
		return &t.recs[t.slot[i-t.base]]
	}
	return &t.recs[i-t.base]
}

// end is one past the last job with a record.
func (t *jobTable) end() int {
	if t.compact {
		return t.base + len(t.slot)
	}
	return t.base + len(t.recs)
}

// add makes the next job's record.
func (t *jobTable) add(r JobResult) {
	if !t.compact {
		t.recs = append(t.recs, r)
		t.peak = max(t.peak, len(t.recs))
		return
	}
	var s int32
	if k := len(t.free); k > 0 {
		s = t.free[k-1]
		t.free = t.free[:k-1]
		t.recs[s] = r
	} else {
		s = int32(len(t.recs))
		t.recs = append(t.recs, r)
	}
	t.slot = append(t.slot, s)
	t.folds = append(t.folds, foldRec{})
	if t.extras != nil {
		t.extras = append(t.extras, foldExtra{})
	}
	t.peak = max(t.peak, len(t.recs)-len(t.free))
}

// fold replaces finished job i's record by its foldRec (compact).
func (t *jobTable) fold(i int) {
	s := t.slot[i-t.base]
	f, x := foldOf(&t.recs[s])
	t.folds[i-t.base] = f
	if t.extras == nil && !x.zero() { // the first measured: the earlier ones were zero
		t.extras = make([]foldExtra, len(t.folds), cap(t.folds))
	}
	if t.extras != nil {
		t.extras[i-t.base] = x
	}
	t.recs[s] = JobResult{} // its node list and strings go
	t.free = append(t.free, s)
	t.slot[i-t.base] = -1
}

// reach makes the records up to job i.
func (t *jobTable) reach(i int) {
	for j := t.end(); j <= i; j++ {
		t.add(JobResult{Job: t.jobs[j], EstimateUsed: estimate(t.jobs[j], t.compat)})
	}
}

// push adds job i's record, i being the next job (generated jobs), checking it as
// Run checks its jobs.
func (t *jobTable) push(i int, j Job, m topo.Machine, p *placer) error {
	n := m.N()
	if i != t.end() {
		return fmt.Errorf("sim: internal error: job %d arrives after %d", i, t.end())
	}
	if j.Procs > n {
		return fmt.Errorf("job %d (line %d) needs %d processors, the machine %s has %d: %w", j.ID, j.Line, j.Procs, m.Spec(), n, ErrTooLarge)
	}
	if j.Procs < 1 || j.Runtime < 0 {
		return fmt.Errorf("job %d (line %d): %d processors, run time %d", j.ID, j.Line, j.Procs, j.Runtime)
	}
	if err := p.checkFits(&j); err != nil {
		return err
	}
	t.add(JobResult{Job: j, EstimateUsed: estimate(j, t.compat)})
	return nil
}

// drop forgets the records before job i (those passed on), moving the others down
// once at least half the table is forgotten.
func (t *jobTable) drop(i int, done *[]bool) {
	k, held := i-t.base, t.end()-t.base
	if k < 1024 || 2*k < held {
		return
	}
	if t.compact {
		n := copy(t.slot, t.slot[k:])
		t.slot = t.slot[:n]
		n = copy(t.folds, t.folds[k:])
		t.folds = t.folds[:n]
		if t.extras != nil {
			t.extras = t.extras[:copy(t.extras, t.extras[k:])]
		}
	} else {
		n := copy(t.recs, t.recs[k:])
		clear(t.recs[n:])
		t.recs = t.recs[:n]
	}
	n := copy(*done, (*done)[k:])
	*done = (*done)[:n]
	t.base = i
}

// jobEmitter passes each job's record on in trace order as jobs finish: to
// Config.JobDone, and, without per-job records, into the summary (agg), after which
// the record is forgotten; it drops node lists (Config.DropNodes) once they are no
// longer needed.
type jobEmitter struct {
	t     *jobTable
	total int
	fn    func(*JobResult) error
	drop  bool
	agg   *aggregate // set without per-job records
	done  []bool     // finished, not yet passed on (job base+i at done[i]), when in order
	next  int        // first job not yet passed on
}

func newJobEmitter(t *jobTable, total int, cfg Config, agg *aggregate, deferred bool) *jobEmitter {
	em := &jobEmitter{t: t, total: total, fn: cfg.JobDone, drop: cfg.DropNodes, agg: agg}
	if !deferred {
		// Kept without calls too: next, the jobs finished in trace order, is what
		// an interrupted replay reports (partial).
		em.done = make([]bool, t.end()-t.base, max(t.end()-t.base, 1024))
	}
	return em
}

// finished tells the emitter that job i has finished and its result is final.
func (em *jobEmitter) finished(i int) error {
	quiet := em.fn == nil && em.agg == nil // nothing to pass on
	if quiet && em.drop {
		em.t.at(i).Nodes = nil
	}
	if em.done == nil { // all the calls at the end
		return nil
	}
	t := em.t
	for len(em.done) < t.end()-t.base {
		em.done = append(em.done, false)
	}
	em.done[i-t.base] = true
	if t.compact {
		t.fold(i)
	}
	for em.next < t.end() && em.done[em.next-t.base] {
		if !quiet {
			if err := em.pass(em.next); err != nil {
				return err
			}
		}
		em.next++
	}
	if em.agg != nil {
		t.drop(em.next, &em.done)
	}
	return nil
}

func (em *jobEmitter) pass(i int) error {
	if em.t.compact { // folded when it finished; no JobDone
		var x *foldExtra
		if em.t.extras != nil {
			x = &em.t.extras[i-em.t.base]
		}
		em.agg.add(&em.t.folds[i-em.t.base], x)
		return nil
	}
	r := em.t.at(i)
	if em.fn != nil {
		if err := em.fn(r); err != nil {
			return fmt.Errorf("job %d: %w", r.ID, err)
		}
	}
	if em.agg != nil {
		f, x := foldOf(r)
		em.agg.add(&f, &x)
	}
	if em.drop || em.agg != nil {
		r.Nodes = nil
	}
	return nil
}

// flush passes on every job not passed on yet (all of them when the calls were
// deferred to the end).
func (em *jobEmitter) flush() error {
	if em.fn == nil && em.agg == nil {
		return nil
	}
	for ; em.next < em.total; em.next++ {
		if err := em.pass(em.next); err != nil {
			return err
		}
	}
	return nil
}

// Scale is load scaling (Leung et al. 2002 §3; Bunde et al. 2004 §3.2). Zero values
// leave the trace as it is. A Spec applies its Scale; a caller of Run applies one
// with Apply before the replay (Run takes the jobs as given).
type Scale struct {
	Work      float64 // work multiple: run times (and estimates) are multiplied by it
	Contract  float64 // arrival contraction: arrival times are multiplied by it
	Replicate int     // replication factor: each job appears this many times
	// Perturb is the largest arrival offset, in seconds, of a replica (uniform in
	// 0..Perturb, seeded); 0 means the trace's mean inter-arrival time.
	Perturb int64
	Seed    uint64 // seeds the replicas' arrival offsets
}

// Apply returns the scaled jobs (a new slice; the input is not changed), stably
// sorted by arrival, renumbered in that order when replicated.
func (s Scale) Apply(jobs []Job) ([]Job, error) {
	if s.Work < 0 || s.Contract < 0 || s.Replicate < 0 || s.Perturb < 0 {
		return nil, fmt.Errorf("load scaling: negative factor in %+v", s)
	}
	// A NaN or infinite factor, or one that takes a time past int64, would give
	// negative or arbitrary times (Go's float to int conversion of such a value).
	for _, f := range []struct {
		name   string
		factor float64
	}{{"Work", s.Work}, {"Contract", s.Contract}} {
		if math.IsNaN(f.factor) || math.IsInf(f.factor, 0) {
			return nil, fmt.Errorf("load scaling: %s = %v is not a finite factor", f.name, f.factor)
		}
	}
	if s.Perturb >= 1<<62 {
		return nil, fmt.Errorf("load scaling: Perturb = %d seconds is 2^62 or more", s.Perturb)
	}
	for _, j := range jobs {
		if float64(max(j.Runtime, j.Estimate))*s.Work >= 1<<62 || float64(j.Arrival)*s.Contract >= 1<<62 {
			return nil, fmt.Errorf("load scaling: job %d's times (arrival %d, run time %d, estimate %d) scaled by Work %g and Contract %g pass 2^62 seconds", j.ID, j.Arrival, j.Runtime, j.Estimate, s.Work, s.Contract)
		}
	}
	out := slices.Clone(jobs)
	if s.Replicate > 1 {
		out = make([]Job, len(jobs), len(jobs)*s.Replicate) // no regrowing
		copy(out, jobs)
	}
	if s.Work != 0 && s.Work != 1 {
		for i := range out {
			out[i].Runtime = int64(math.Round(float64(out[i].Runtime) * s.Work))
			if out[i].Estimate > 0 {
				out[i].Estimate = max(1, int64(math.Round(float64(out[i].Estimate)*s.Work)))
			}
		}
	}
	if s.Contract != 0 && s.Contract != 1 {
		for i := range out {
			out[i].Arrival = int64(math.Round(float64(out[i].Arrival) * s.Contract))
		}
	}
	if s.Replicate > 1 && len(out) > 0 {
		p := s.Perturb
		if p == 0 && len(out) > 1 {
			p = (out[len(out)-1].Arrival - out[0].Arrival) / int64(len(out)-1)
		}
		rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
		orig := len(out)
		for r := 1; r < s.Replicate; r++ {
			for i := range orig {
				j := out[i]
				if p > 0 {
					j.Arrival += rng.Int64N(p + 1)
				}
				j.Line = 0
				out = append(out, j)
			}
		}
		slices.SortStableFunc(out, func(a, b Job) int { return cmp.Compare(a.Arrival, b.Arrival) })
		for i := range out {
			out[i].ID = i + 1
		}
	}
	return out, nil
}

// JobResult is what a replay records for one job.
type JobResult struct {
	Job                  // the job as replayed (scaled), times in seconds
	Start, End   int64   // when the job started and ended, seconds of the trace's clock
	Nodes        []int   `json:"-"` // its nodes, in task order (nil once dropped: Config.DropNodes)
	TotalL1      int64   // total pairwise hop (L1) distance of its nodes
	AvgL1        float64 // TotalL1 / (k(k-1)/2); 0 for k = 1
	Span         int     // max - min + 1 of its nodes' ranks in Summary.SpanOrder (node indices by default)
	RingSpan     int     // smallest arc of the ring of ranks 0..N-1 covering them
	BoxVolume    int64   // bounding box volume (nodes)
	BoxSides     int     // sum of the bounding box's side lengths (nodes)
	Components   int     // connected components in the machine's network
	Ties         int     // candidates sharing the best score (TieReporter, MetricsTies), else 0
	EstimateUsed int64   // the estimate the scheduler used
	// WaitedForBlock is set when the allocator refused the job at least once
	// although enough nodes were free (alloc.ErrFragmented: no free block of its
	// size, Slurm's topology leaving it pending; wait.go); BlockWait is the time
	// from that first refusal to its start.
	WaitedForBlock bool
	BlockWait      int64 // seconds from the first refusal to the start (0 unless WaitedForBlock)
	// Route metrics of the job's communication pattern along the machine's routes:
	// without Comm, over one cycle of the pattern (static, no contention); with
	// Comm, over the messages it actually sent.
	Messages        int64   // messages (one cycle of the pattern without Comm)
	MessageHops     int64   // links they crossed
	MessageDistance float64 // MessageHops / Messages
	HopBytes        int64   // sum over messages of hops x message bytes
	MaxShared       int64   // most of the job's routes (one cycle) on one link
	// Compactness of the machine's free set right after the job's allocation
	// (Liu et al. §4; alloc.Compactness), on 2^m x 2^n meshes, with every
	// allocator (meter.measureCompactness: a running job's nodes are busy, and
	// the rest of its bt/sbt/dbt block or of its paging pages): FreeSquares is D
	// (Definition 1), -1 when not measured; SpatiallyCompact is Lemma 1's
	// condition.
	FreeSquares      int
	SpatiallyCompact bool // Lemma 1's condition held (false when not measured)
	// With Config.Baseline: the least total pairwise L1 of any k nodes free at the
	// job's start (the best found when not proven), whether it was proven, and
	// TotalL1 over it (0 when not proven). OptLowerBound is a proven lower bound on
	// that least total (equal to it when proven); OptBounded says it certifies the
	// ratio (it is positive, or the job's total is 0), and RatioUpper is then TotalL1
	// over it (1 for a total of 0), an upper bound on the ratio to the optimum.
	OptTotalL1     int64   // least total pairwise L1 found for k free nodes
	OptProven      bool    // OptTotalL1 is proven least
	RatioToOptimal float64 // TotalL1 / OptTotalL1 when OptProven, else 0
	OptLowerBound  int64   // proven lower bound on the least total
	OptBounded     bool    // OptLowerBound certifies the ratio (RatioUpper)
	RatioUpper     float64 // TotalL1 / OptLowerBound when OptBounded (1 for a total of 0)
}

// Wait returns start - arrival.
func (r *JobResult) Wait() int64 { return r.Start - r.Arrival }

// Response returns end - arrival.
func (r *JobResult) Response() int64 { return r.End - r.Arrival }

// Slowdown returns response / max(run time, 1), the run time being end - start
// (the trace's run time, except with communication deciding it).
func (r *JobResult) Slowdown() float64 { return slowdown(r.Arrival, r.Start, r.End) }

// slowdown is (end - arrival) / max(end - start, 1): JobResult.Slowdown, and the
// summary's fold of a compact record (aggregate.add), the same floating-point value.
func slowdown(arrival, start, end int64) float64 {
	return float64(end-arrival) / float64(max(end-start, 1))
}

type event struct {
	time   int64
	wake   bool // only asks the scheduler again (as-run: a recorded start)
	depart bool
	seq    int
	job    int
}

// before orders events: by time, departures first, then in creation order.
func before(a, b event) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	if a.depart != b.depart {
		return a.depart
	}
	return a.seq < b.seq
}

// eventQueue holds the replay's events: the arrivals (and as-run wake-ups), all
// known at the start, sorted once; the departures, created as jobs start, in a
// binary heap. The next event is the earlier of the two heads, so events come out
// in the order of before, as from one heap, with far fewer comparisons (the heap
// holds the running jobs only).
type eventQueue struct {
	// The known events, sorted by before, from index next: known, when set (as-run
	// wake-ups), else the arrivals of jobs in the order of order (nil: index order).
	known  []event
	jobs   []Job
	order  []int32
	src    *replicaIter // else: generated jobs, in index (and arrival) order
	head   Job          // src's next job (index next), when headOK
	headOK bool
	popped Job // the job of the last arrival popped from src
	nKnown int
	next   int
	dep    []event // a heap under before
}

func (q *eventQueue) len() int { return q.nKnown - q.next + len(q.dep) }

// knownAt returns known event k.
func (q *eventQueue) knownAt(k int) event {
	if q.known != nil {
		return q.known[k]
	}
	if q.src != nil { // k is next
		if !q.headOK {
			q.head, _ = q.src.next()
			q.headOK = true
		}
		return event{time: q.head.Arrival, seq: k, job: k}
	}
	j := k
	if q.order != nil {
		j = int(q.order[k])
	}
	return event{time: q.jobs[j].Arrival, seq: j, job: j}
}

// knownFirst reports whether the next event is the next known one (not a
// departure); the queue must not be empty.
func (q *eventQueue) knownFirst() bool {
	return q.next < q.nKnown && (len(q.dep) == 0 || before(q.knownAt(q.next), q.dep[0]))
}

// peek returns the next event; the queue must not be empty.
func (q *eventQueue) peek() event {
	if q.knownFirst() {
		return q.knownAt(q.next)
	}
	return q.dep[0]
}

// pop removes and returns the next event; the queue must not be empty.
func (q *eventQueue) pop() event {
	if q.knownFirst() {
		e := q.knownAt(q.next)
		q.next++
		if q.src != nil {
			q.popped, q.headOK = q.head, false
		}
		return e
	}
	h := q.dep
	e := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	q.dep = h
	if len(h) == 0 {
		return e
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && before(h[c+1], h[c]) {
			c++
		}
		if !before(h[c], last) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = last
	return e
}

// depart adds a departure.
func (q *eventQueue) depart(e event) {
	q.dep = append(q.dep, e)
	h := q.dep
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !before(e, h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// ErrTooLarge is wrapped by Run when a job asks for more processors than the machine
// has.
var ErrTooLarge = errors.New("job larger than the machine")

// Run replays jobs (in trace order) on cfg.Machine with cfg.Alloc and scheduler
// cfg.Sched, following the PReMAS event loop (reference-simulators.md): events at
// equal times are handled departures first, then arrivals, each in creation order;
// jobs start only after every event of the current time stamp, the scheduler being
// asked again and again until it starts none.
//
// When ctx ends, Run stops within one decision and returns, with ctx's cause as
// the error, the summary of the jobs replayed so far: those that finished before
// the first job of the trace that had not (Config.JobDone has seen exactly them),
// with Interrupted set and JobsInTrace the jobs it was to replay; the tie and
// fallback counts are those of every decision made, and with Comm the network's
// figures those of the messages delivered before the stop. The result is nil when
// no job had finished.
func Run(ctx context.Context, jobs []Job, cfg Config) (*Result, error) {
	return run(ctx, jobs, nil, cfg)
}

// run is Run on jobs, or, when rs is set, on the jobs rs generates (cfg.NoPerJob,
// no Comm, not as-run): the replay then holds neither the jobs nor their records.
func run(ctx context.Context, jobs []Job, rs *replicaStream, cfg Config) (*Result, error) {
	if cfg.Machine == nil || cfg.Alloc == nil {
		return nil, errors.New("sim: no machine or allocator")
	}
	if cfg.Alloc.Machine().N() != cfg.Machine.N() {
		return nil, fmt.Errorf("sim: allocator %s is on %s, not %s", cfg.Alloc.Name(), cfg.Alloc.Machine().Spec(), cfg.Machine.Spec())
	}
	if cfg.Alloc.NumFree() != cfg.Machine.N() {
		return nil, errors.New("sim: the allocator must start with every node free")
	}
	n := cfg.Machine.N()
	for _, j := range jobs {
		if j.Procs > n {
			return nil, fmt.Errorf("job %d (line %d) needs %d processors, the machine %s has %d: %w", j.ID, j.Line, j.Procs, cfg.Machine.Spec(), n, ErrTooLarge)
		}
		if j.Procs < 1 || j.Runtime < 0 {
			return nil, fmt.Errorf("job %d (line %d): %d processors, run time %d", j.ID, j.Line, j.Procs, j.Runtime)
		}
	}
	// Generated jobs are replicas of rs.base: the same partitions and sizes.
	parted := jobs
	if rs != nil {
		parted = rs.base
	}
	pt, err := newPartitions(parted, cfg)
	if err != nil {
		return nil, err
	}
	if pt != nil && pt.occ != nil {
		cfg.Alloc = pt.occ // bt, sbt, dbt, paging: their view for partitions
	}
	stream := cfg.NoPerJob && cfg.Comm == nil && cfg.Sched != SchedAsRun
	total := len(jobs)
	if rs != nil {
		if !stream {
			return nil, errors.New("sim: internal error: generated jobs on a replay that keeps them")
		}
		total = rs.len()
	}
	tab := &jobTable{jobs: jobs, compat: cfg.Compat, compact: stream && cfg.JobDone == nil}
	if err := pt.start(cfg.Alloc); err != nil { // before the placer copies the empty machine
		return nil, err
	}
	pl := newPlacer(cfg.Alloc, cfg.Clock, tab)
	pl.ctx, pl.parts, pl.askAgain = ctx, pt, cfg.askAgain
	for i := range jobs {
		if err := pl.checkFits(&jobs[i]); err != nil {
			return nil, err
		}
	}
	if !stream {
		tab.recs = make([]JobResult, 0, len(jobs))
		tab.reach(len(jobs) - 1)
	}
	sch, err := newScheduler(string(cfg.Sched), tab, pt)
	if err != nil {
		return nil, err
	}
	ties := tieReporter(cfg)
	span, _ := spanOrder(cfg)
	dist := cfg.Metrics.Has(MetricsDist) || cfg.Baseline != nil
	if g, ok := cfg.Machine.(*topo.Graph); ok && dist {
		// The hop index the distances come from, built here where Ctrl-C stops it:
		// 0.3-0.6 s on a network of 10^5 hosts, which the first job's Dist built
		// with no context.
		if err := g.BuildHopIndex(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx) // "interrupted", as the replay says it
			}
			return nil, err
		}
		// Hosts in different parts have no hop distance: a job across them would
		// be measured as if its unreachable pairs cost nothing.
		if err := g.CheckConnected(); err != nil {
			return nil, fmt.Errorf("%s: %w: the pairwise hop distances are undefined; leave the distance metrics out (procalloc's --metrics sched)", g.Spec(), err)
		}
	}
	m, err := newMeter(ctx, cfg.Machine, cfg.Compat, span, dist)
	if err != nil {
		return nil, err
	}
	rm, err := newRouteMeter(ctx, cfg)
	if err != nil {
		return nil, err
	}
	bl, err := newBaseline(ctx, cfg)
	if err != nil {
		return nil, err
	}
	m.bl, m.pt = bl, pt
	if cfg.noD || !cfg.Metrics.Has(MetricsCompact) {
		m.cm = nil
	}
	if m.cm != nil {
		m.running = newRunningFree(cfg.Alloc, n)
	}
	tasks, err := newTaskOrdering(cfg.TaskOrder, cfg.Machine, cfg.TaskSeed, cfg.TaskRanking)
	if err != nil {
		return nil, fmt.Errorf("task order %s: %w", cfg.TaskOrder, err)
	}
	if cfg.Comm != nil {
		if cfg.Sched == SchedAsRun {
			return nil, errors.New("sim: the as-run schedule keeps production's run times; it does not take a communication model")
		}
		return runComm(ctx, tab.recs, cfg, sch, pl, m, rm, tasks)
	}

	q := &eventQueue{}
	seq := total // departures' sequence numbers follow the arrivals'
	if cfg.Sched == SchedAsRun {
		known := make([]event, 0, len(jobs))
		for i, j := range jobs {
			known = append(known, event{time: j.Arrival, seq: i, job: i})
		}
		for i, j := range jobs {
			if j.Started > j.Arrival {
				known = append(known, event{time: j.Started, seq: seq, job: i, wake: true})
				seq++
			}
		}
		slices.SortFunc(known, func(a, b event) int {
			switch {
			case before(a, b):
				return -1
			case before(b, a):
				return 1
			}
			return 0 // only an event compared with itself
		})
		q.known, q.nKnown = known, len(known)
	} else if rs != nil {
		q.src, q.nKnown = rs.iter(), total
	} else {
		// The arrivals in the order of before: by time, then job index.
		q.jobs, q.nKnown = jobs, len(jobs)
		if !slices.IsSortedFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Arrival, b.Arrival) }) {
			q.order = make([]int32, len(jobs))
			for i := range q.order {
				q.order[i] = int32(i)
			}
			slices.SortStableFunc(q.order, func(a, b int32) int { return cmp.Compare(jobs[a].Arrival, jobs[b].Arrival) })
		}
	}
	var agg *aggregate
	if stream {
		agg = &aggregate{}
	}
	em := newJobEmitter(tab, total, cfg, agg, false)
	// stopped is the replay's end when ctx ends: the summary of the jobs that
	// finished, in trace order, before the first one that had not (em.next of
	// them: those JobDone has seen), marked Interrupted, with ctx's cause. during
	// is the error of the allocator's call that ctx stopped, nil between calls:
	// the cause then says which allocator and which of its decisions was running
	// (one takes minutes on 2 x 10^5 nodes: genalg on a dragonfly).
	stopped := func(during error) (*Result, error) {
		cause := context.Cause(ctx)
		if during != nil && errors.Is(during, cause) {
			n := ""
			if cfg.Clock != nil { // stopped calls are not counted (Clock.AllocateContext)
				n = fmt.Sprintf(" %d", cfg.Clock.Snapshot().Allocations+1)
			}
			cause = fmt.Errorf("in %s's allocation decision%s, %w", cfg.Alloc.Name(), n, during)
		}
		k := em.next
		if k == 0 {
			return nil, cause
		}
		var out *Result
		if agg != nil {
			out = agg.result(cfg, ties)
		} else {
			out = summarize(tab.recs[:k], cfg, ties)
		}
		out.Interrupted, out.JobsInTrace = true, total
		return out, cause
	}
	running := &runSet{}
	done, reported := 0, -1
	for q.len() > 0 {
		// Every step looks at ctx: one allocation decision takes tens of
		// milliseconds on 2 x 10^5 nodes (mc1x1 with its ties counted), so a look
		// every 1,024 finished jobs left Ctrl-C waiting for minutes.
		if ctx.Err() != nil {
			return stopped(nil)
		}
		if cfg.Progress != nil && done != reported {
			cfg.Progress(done, total)
			reported = done
		}
		now := q.peek().time
		for q.len() > 0 && q.peek().time == now {
			e := q.pop()
			if e.wake {
				continue
			}
			if !e.depart {
				if q.src != nil {
					if err := tab.push(e.job, q.popped, cfg.Machine, pl); err != nil {
						return nil, err
					}
				}
				tab.reach(e.job)
				sch.arrive(e.job, now, cfg.Alloc.NumFree(), running)
				continue
			}
			r := tab.at(e.job)
			if err := pt.release(cfg.Clock, cfg.Alloc, e.job, r.Nodes); err != nil {
				return nil, fmt.Errorf("job %d finishing at %d: %w", r.ID, now, err)
			}
			if err := m.release(r.Nodes); err != nil {
				return nil, err
			}
			pl.released()
			if err := em.finished(e.job); err != nil { // r may be forgotten now
				return nil, err
			}
			running.remove(e.job)
			sch.depart(now, cfg.Alloc.NumFree(), running)
			done++
		}
		pl.now = now
		for {
			if ctx.Err() != nil { // a release may start many jobs, a decision each
				return stopped(nil)
			}
			i, nodes, err := sch.next(now, cfg.Alloc.NumFree(), running, pl)
			if err != nil {
				if ctx.Err() != nil { // the allocator stopped on it
					return stopped(err)
				}
				return nil, fmt.Errorf("%w at time %d", err, now)
			}
			if i < 0 {
				break
			}
			r := tab.at(i)
			if err := startJob(ctx, r, nodes, cfg, ties, m, rm, tasks); err != nil {
				if ctx.Err() != nil { // the route metrics or the exact baseline stopped on it
					return stopped(nil)
				}
				return nil, fmt.Errorf("%w at time %d", err, now)
			}
			r.Start, r.End = now, now+r.Runtime
			running.addIn(i, r.Start+r.EstimateUsed, r.Procs, pt.took(nodes))
			q.depart(event{time: r.End, depart: true, seq: seq, job: i})
			seq++
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(done, total)
	}
	if done != total {
		return nil, fmt.Errorf("sim: internal error: %d of %d jobs finished", done, total)
	}
	if err := pt.end(cfg.Alloc); err != nil {
		return nil, err
	}
	if cfg.Alloc.NumFree() != n {
		return nil, fmt.Errorf("sim: internal error: %d of %d nodes free after the replay", cfg.Alloc.NumFree(), n)
	}
	if err := em.flush(); err != nil {
		return nil, err
	}
	if cfg.heldPeak != nil {
		*cfg.heldPeak = tab.peak
	}
	if agg != nil {
		return agg.result(cfg, ties), nil
	}
	return summarize(tab.recs, cfg, ties), nil
}

// tieReporter returns the allocator's tie counter with tie counting on when the
// replay reports tie statistics (MetricsTies: Johnson 2010 Fig. 4), else nil with
// tie counting off: counting ties is what makes MC1x1's decisions slow on large
// machines (its fast paths run without it) and never changes the nodes chosen.
func tieReporter(cfg Config) alloc.TieReporter {
	ties, _ := cfg.Alloc.(alloc.TieReporter)
	if ties == nil {
		return nil
	}
	if !cfg.Metrics.Has(MetricsTies) {
		ties.CountTies(false) // an allocator reused after a replay that counted them
		return nil
	}
	ties.CountTies(true)
	return ties
}

// startJob measures the allocation of r's nodes (placed by the placer).
func startJob(ctx context.Context, r *JobResult, nodes []int, cfg Config, ties alloc.TieReporter, m *meter, rm *routeMeter, tasks *taskOrdering) error {
	var err error
	if len(nodes) != r.Procs {
		return fmt.Errorf("allocator %s gave job %d %d nodes, want %d", cfg.Alloc.Name(), r.ID, len(nodes), r.Procs)
	}
	if nodes, err = tasks.apply(cfg.Alloc, r.ID, nodes); err != nil {
		return fmt.Errorf("job %d: %w", r.ID, err)
	}
	r.Nodes = nodes
	if ties != nil {
		r.Ties = ties.LastTies()
	}
	m.measure(r)
	if err := rm.measure(ctx, r); err != nil {
		return err
	}
	if err := m.measureCompactness(r, cfg.Alloc); err != nil {
		return err
	}
	if m.bl != nil {
		if err := m.bl.measure(ctx, r); err != nil {
			return err
		}
		m.bl.take(r.Nodes)
	}
	return nil
}

// estimate is the run-time estimate the scheduler sees. PReMAS (and procalloc's
// default) raise an estimate below the run time, including -1 "unknown", to the run
// time; SST replaces -1 or 0 by twice the run time and keeps other estimates.
func estimate(j Job, c Compat) int64 {
	if c == alloc.CompatSST {
		if j.Estimate <= 0 {
			return 2 * j.Runtime
		}
		return j.Estimate
	}
	return max(j.Estimate, j.Runtime)
}

// spanOrder returns the ordering spans are measured on and its name (see
// Config.SpanOrder).
func spanOrder(cfg Config) ([]int, string) {
	if cfg.SpanOrder != nil {
		name := cfg.SpanName
		if name == "" {
			name = "given ordering"
		}
		return cfg.SpanOrder, name
	}
	if r, ok := cfg.Alloc.(alloc.Ranked); ok {
		return r.Ordering(), "allocator's ordering"
	}
	return nil, "node index"
}
