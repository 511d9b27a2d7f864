package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// scheduler decides which queued job starts next. arrive queues job i; depart tells
// it a job has finished (after its nodes are free and it has left running); next
// returns a job to start now, removed from the queue, with the nodes p placed it
// on, or -1. The replay calls next until it returns -1. A job that fits by count
// starts only if the allocator places it (placer.place; wait.go).
type scheduler interface {
	arrive(i int, now int64, free int, running *runSet)
	depart(now int64, free int, running *runSet)
	next(now int64, free int, running *runSet, p *placer) (int, []int, error)
}

// schedulers builds a scheduler by name: one for each of Scheds
// (TestSchedulersAreScheds).
var schedulers = map[string]func(res *jobTable, pt *partitions) scheduler{
	"fcfs":   func(res *jobTable, pt *partitions) scheduler { return newStrict(res, pt, false) },
	"easy":   func(res *jobTable, pt *partitions) scheduler { return newEASY(res, pt) },
	"cplant": func(res *jobTable, pt *partitions) scheduler { return newStrict(res, pt, true) },
	"as-run": func(res *jobTable, _ *partitions) scheduler { return &asRun{res: res} },
}

// asRun starts every job when production started it (Job.Started, from an sacct
// trace), whatever is free: with the as-run allocator the replay then is production's
// own schedule and placement. Run adds a wake-up event at each recorded start.
type asRun struct {
	res   *jobTable
	queue []int
}

func (s *asRun) arrive(i int, _ int64, _ int, _ *runSet) { s.queue = append(s.queue, i) }
func (s *asRun) depart(int64, int, *runSet)              {}

func (s *asRun) next(now int64, _ int, _ *runSet, p *placer) (int, []int, error) {
	for k, i := range s.queue {
		if max(s.res.at(i).Started, s.res.at(i).Arrival) <= now {
			nodes, err := p.place(i)
			if err != nil {
				return -1, nil, err
			}
			if nodes == nil {
				continue // refused now: it waits, the others due start at their times
			}
			s.queue = slices.Delete(s.queue, k, k+1)
			return i, nodes, nil
		}
	}
	return -1, nil, nil
}

func newScheduler(name string, res *jobTable, pt *partitions) (scheduler, error) {
	if name == "" {
		name = "fcfs"
	}
	mk, ok := schedulers[name]
	if !ok {
		return nil, fmt.Errorf("unknown scheduler %q (%s)", name, wantChoice(name, scheds))
	}
	return mk(res, pt), nil
}

// runSet is the running jobs with their estimated end times: jobs in the
// order they started and, once a scheduler has asked for them
// (sortedEnds), byEnd: the same jobs by estimated end (ties in the order they
// started), kept sorted as jobs start and end so that a pass reads them in end
// order without sorting them (EASY's build, the will-run tests). FCFS and
// Cplant never ask and pay nothing for it.
type runSet struct {
	jobs  []runJob
	byEnd []runJob
	track bool // byEnd is kept
}

type runJob struct {
	job    int
	estEnd int64
	procs  int
	in     []int32 // its nodes in each partition (partitions.took; nil without several)
}

func (s *runSet) add(job int, estEnd int64, procs int) { s.addIn(job, estEnd, procs, nil) }

// addIn adds job with in, its nodes in each partition.
func (s *runSet) addIn(job int, estEnd int64, procs int, in []int32) {
	r := runJob{job, estEnd, procs, in}
	s.jobs = append(s.jobs, r)
	if !s.track {
		return
	}
	at := endsAfter(s.byEnd, estEnd)
	if at == len(s.byEnd) {
		s.byEnd = append(s.byEnd, r)
		return
	}
	s.byEnd = slices.Insert(s.byEnd, at, r)
}

func (s *runSet) remove(job int) {
	for i, r := range s.jobs {
		if r.job != job {
			continue
		}
		s.jobs = slices.Delete(s.jobs, i, i+1)
		if !s.track {
			return
		}
		at, _ := slices.BinarySearchFunc(s.byEnd, r.estEnd, func(e runJob, t int64) int { return cmp.Compare(e.estEnd, t) })
		for ; at < len(s.byEnd); at++ {
			if s.byEnd[at].job == job {
				s.byEnd = slices.Delete(s.byEnd, at, at+1)
				return
			}
		}
		return
	}
}

// sortedEnds returns dst holding the running jobs by estimated end, those
// past it taken to end at now (they stay first: the order holds). The order
// within a tie is not a stable sort's of jobs; every user releases or counts
// the jobs of one end time together.
func (s *runSet) sortedEnds(dst []runJob, now int64) []runJob {
	if !s.track || len(s.byEnd) != len(s.jobs) { // the first call, or a runSet made without add (tests)
		s.byEnd = append(s.byEnd[:0], s.jobs...)
		slices.SortStableFunc(s.byEnd, func(a, b runJob) int { return cmp.Compare(a.estEnd, b.estEnd) })
		s.track = true
	}
	dst = append(dst[:0], s.byEnd...)
	for i := range dst {
		if dst[i].estEnd >= now {
			break
		}
		dst[i].estEnd = now
	}
	return dst
}

// endsAfter is the number of jobs of ends (by estimated end) that end by t.
func endsAfter(ends []runJob, t int64) int {
	lo, hi := 0, len(ends)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if ends[h].estEnd <= t {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// strict is FCFS (Cplant false) or the Cplant queue (true). FCFS is strict
// first-come first-served: only the head of the queue (arrival order, then
// trace order) may start, when enough processors are free; no backfilling. The
// Cplant queue of Leung et al. 2002 §3 is kept sorted by requested processors
// (fewest first), then requested time (shortest first), then arrival order, and
// jobs leave from its front only.
//
// With jobs of several partitions (partition.go) each partition has its queue,
// and a pass takes the partitions' fronts in the order of the one queue, as
// Slurm's main scheduler (src/slurmctld/job_scheduler.c, _schedule) walks its
// queue: a front that does not start (too few free nodes in its partition, or
// the allocator refuses it) fails its partition (PART_FLAG_SCHED_FAILED: the
// jobs behind it wait) and takes the partition's nodes out of the nodes the
// later fronts of the pass may have (bit_and_not(avail_node_bitmap,
// part_ptr->node_bitmap)), so that a job of an overlapping partition does not
// start on nodes the failed front waits for. Each call is a pass from the
// start (the replay calls until none starts): O(m log m) besides the
// allocator, m the partitions with queued jobs. With one partition (or none)
// this is the one queue.
//
// Partitions' PriorityTier (Config.PartitionTiers): the fronts of a higher
// tier come first in a pass, then the one queue's order, as Slurm sorts its
// queue by the partition's tier before the job's priority (job_scheduler.c,
// sort_job_queue2, which both _schedule and the backfill plugin use). With
// every tier equal the order is the one above.
type strict struct {
	res    *jobTable
	pt     *partitions // jobs of several partitions; else nil
	cplant bool
	qs     []strictQueue // by partition number (one without partitions)
	seq    int64
	fronts []int  // scratch: partitions with queued jobs, in queue order
	failed []bool // scratch: partitions failed in the pass
}

type strictQueue struct {
	jobs []queued
	head int
}

type queued struct {
	i   int
	seq int64 // arrival order
}

func newStrict(res *jobTable, pt *partitions, cplant bool) *strict {
	s := &strict{res: res, cplant: cplant, qs: make([]strictQueue, 1)}
	if pt != nil && pt.q != nil {
		s.pt = pt
		s.qs = make([]strictQueue, pt.q.m)
		s.failed = make([]bool, pt.q.m)
	}
	return s
}

// cmp orders two queued jobs as the one queue does.
func (s *strict) cmp(a, b queued) int {
	if s.cplant {
		ra, rb := s.res.at(a.i), s.res.at(b.i)
		if ra.Procs != rb.Procs {
			return ra.Procs - rb.Procs
		}
		if ra.EstimateUsed != rb.EstimateUsed {
			return cmp.Compare(ra.EstimateUsed, rb.EstimateUsed)
		}
	}
	return cmp.Compare(a.seq, b.seq) // earlier arrivals stay ahead
}

func (s *strict) depart(int64, int, *runSet) {}

func (s *strict) arrive(i int, _ int64, _ int, _ *runSet) {
	q := &s.qs[s.pt.part(s.res.at(i))]
	e := queued{i, s.seq}
	s.seq++
	if !s.cplant {
		q.jobs = append(q.jobs, e)
		return
	}
	at, _ := slices.BinarySearchFunc(q.jobs[q.head:], e, s.cmp)
	q.jobs = slices.Insert(q.jobs, q.head+at, e)
}

func (s *strict) next(now int64, free int, _ *runSet, p *placer) (int, []int, error) {
	s.fronts = s.fronts[:0]
	for x := range s.qs {
		if q := &s.qs[x]; q.head < len(q.jobs) {
			s.fronts = append(s.fronts, x)
		}
	}
	if len(s.fronts) == 0 {
		return -1, nil, nil
	}
	if s.pt == nil {
		return s.tryFront(0, free, p)
	}
	slices.SortFunc(s.fronts, func(a, b int) int {
		if ta, tb := s.pt.tierOf(a), s.pt.tierOf(b); ta != tb {
			return tb - ta // the higher tier first
		}
		return s.cmp(s.qs[a].jobs[s.qs[a].head], s.qs[b].jobs[s.qs[b].head])
	})
	clear(s.failed)
	anyFailed := false
	for _, x := range s.fronts {
		var f []bool
		if anyFailed {
			f = s.failed
		}
		p.block = nil
		if anyFailed {
			p.block = s.pt.blocked(s.failed)
		}
		i, nodes, err := s.tryFront(x, s.pt.q.freeIn(x, f), p)
		p.block = nil
		if err != nil || i >= 0 {
			return i, nodes, err
		}
		s.failed[x], anyFailed = true, true
	}
	return -1, nil, nil
}

// tryFront starts the front of queue x when free (the free nodes it may have)
// holds it and the allocator places it.
func (s *strict) tryFront(x, free int, p *placer) (int, []int, error) {
	q := &s.qs[x]
	i := q.jobs[q.head].i
	if s.res.at(i).Procs > free {
		return -1, nil, nil
	}
	nodes, err := p.place(i)
	if err != nil || nodes == nil {
		return -1, nil, err // refused: the front waits, and its queue behind it
	}
	q.head++
	if q.head > 1024 && q.head*2 > len(q.jobs) {
		q.jobs = append(q.jobs[:0], q.jobs[q.head:]...)
		q.head = 0
	}
	return i, nodes, nil
}

// easy is EASY backfilling (Lifka 1995) with SST's and PReMAS's rule: the head job
// starts if it fits; otherwise it gets a reservation at the earliest estimated
// completion that frees enough processors (the shadow time), and a later job, in
// queue order, may start now if it fits and either ends by its estimate no later
// than the shadow time or leaves the head enough processors then, counting every
// running job estimated to end by the shadow time (several may end at it). The
// reservation is recomputed on every call; that starts every job when PReMAS's
// stored guarantee does (TestEASYMatchesGuarantee). A running job past its estimate
// (possible only under SST's estimates) is taken to end now.
//
// Jobs of several partitions (partition.go; docs/sim.md, "Partitions"): the
// first waiting job of each partition, in queue order, gets a reservation on
// its partition's nodes, and every job, the later fronts included, starts now
// only if its partition has the free nodes and it delays no reservation ahead
// of it in the queue. The reservations are counted, as the one partition's
// is: a reservation is the partition x, its k nodes and its window [shadow,
// shadow + estimate); it may take min(k, |x ∩ y|) nodes of every partition y
// (all it could, whatever the allocator chooses then); the nodes of partition
// y available at time t are its free ones, those of the running jobs estimated
// to end by t, less what the reservations whose window holds t may take. A
// front's shadow is the earliest time (now, an estimated end or a reservation's
// end) at which its partition has k available and every reservation ahead
// starting within its window still has its k available at its shadow time
// with the front's counted in; a job starting now must keep that for every
// reservation ahead whose shadow time falls in its run (from now to now plus
// its estimate), counted with its actual nodes in each partition (the
// allocator places it, and the start is taken back when it would not keep it). So, as Slurm's backfill
// (src/plugins/sched/backfill/backfill.c, _attempt_backfill) plans each job on
// its partition's nodes (bit_and(avail_bitmap, part_ptr->node_bitmap)) and
// keeps a later job off what earlier plans reserved, a job never delays a
// reservation ahead of it; unlike it, EASY reserves for each partition's front
// only, counts rather than names the reserved nodes, and a front may be
// delayed by jobs ahead of it, other partitions' fronts included. With one
// partition (or none) this is the EASY above, decision for decision.
//
// With an allocator that may refuse a job that fits by count (slurm:tree,
// slurm:block) a count cannot say whether a reservation keeps: the
// reservations of several partitions are then placed, each front's from the
// will-run test on its partition's nodes (passPlaced, placer.willRunIn), as the
// one partition's head's is (backfillPlaced).
//
// Partitions' PriorityTier (Config.PartitionTiers): the queue holds the jobs
// of a higher tier ahead of those of a lower one, arrival order within a
// tier, as Slurm's backfill plugin walks the queue sort_job_queue2 sorted
// (backfill.c, _attempt_backfill): a job of a higher tier that arrives later
// passes the waiting jobs of lower tiers and its reservation comes before
// theirs. With every tier equal the queue is arrival order.
//
// A pass stops walking the queue once the jobs left can do nothing (passEnd):
// none fits its partition's free nodes and every partition with queued jobs
// has its reservation. The queued jobs are counted by size per partition
// (sizeCounts), so a pass knows how many fit from the free counts alone.
type easy struct {
	res   *jobTable
	pt    *partitions // jobs of several partitions; else nil
	m     int         // partitions (1 without)
	queue []easyQueued
	// A pass's scratch.
	ends  []runJob // the running jobs by estimated end (past it: now)
	cum   []int    // cum[j*m+x]: nodes in partition x of ends[:j]
	free  []int    // free nodes by partition
	resv  []easyResv
	has   []bool // the partition has a reservation
	built bool
	cand  []int64
	use   []int32
	// freeBoth[x*m+y]: free nodes in both x and y now, once a pass
	freeBoth   []int
	freeBothOK bool
	// trial: where the allocator would place a job of a size and partition
	// (partitions.key), by partition, at the placer's version
	trial map[int64]easyTrial
	// placed: the reservations of a pass with an allocator that may refuse
	// a job that fits by count (passPlaced), in queue order
	placed []placedResv
	// refusedKeeping: the sizes and partitions (partitions.key) the allocator
	// refused in the pass, by the reservations (of placed, as bits) kept off
	refusedKeeping map[[2]int64]bool
	// sizes: the queued jobs of each partition by size, so that a pass knows
	// how many of them its free nodes could hold (passEnd)
	sizes []sizeCounts
}

// sizeCounts counts jobs by size: a Fenwick tree over the sizes seen (grown,
// doubling, to the largest), O(log n) to add a job or to count those of a size
// or less.
type sizeCounts struct {
	t  []int32 // the tree, t[1:]
	by []int32 // jobs by size
	n  int     // jobs counted
}

func (c *sizeCounts) add(k, d int) {
	c.n += d
	if k >= len(c.t) {
		c.by = slices.Grow(c.by, max(2*len(c.by), k+1)-len(c.by))
		c.by = c.by[:cap(c.by)]
		c.t = make([]int32, len(c.by))
		for j := 1; j < len(c.t); j++ { // the tree built in O(sizes)
			c.t[j] += c.by[j]
			if p := j + j&-j; p < len(c.t) {
				c.t[p] += c.t[j]
			}
		}
	}
	c.by[k] += int32(d)
	for ; k < len(c.t); k += k & -k {
		c.t[k] += int32(d)
	}
}

// upTo is the number of jobs of size k or less.
func (c *sizeCounts) upTo(k int) int {
	s := 0
	for k = min(k, len(c.t)-1); k > 0; k -= k & -k {
		s += int(c.t[k])
	}
	return s
}

// passEnd tells a pass over the queue when the jobs left can do nothing: a
// job starts only if its partition has the free nodes (its size at most
// free[x]), and gets a reservation only if it is its partition's first in the
// pass. With fit the queued jobs that fit their partition's free nodes, and
// open the partitions with queued jobs and no reservation yet, the rest of the
// queue neither starts nor reserves once both are 0 (a pass changes no free
// count: it ends at the first start).
type passEnd struct {
	fit, open int
}

// checkPassEnd (tests only) makes a pass that ends early (passEnd) check that
// each job left, from queue entry qi on, neither fits its partition's free
// nodes (free[x], or free when not negative) nor is its partition's first of
// the pass, and count the passes ended early and the jobs skipped.
var (
	checkPassEnd                  bool
	passEndStops, passEndJobsLeft int
)

func (s *easy) checkSkipped(qi, free int) error {
	if !checkPassEnd {
		return nil
	}
	passEndStops++
	for _, e := range s.queue[qi:] {
		f := free
		if f < 0 {
			f = s.free[e.x]
		}
		if e.k <= f || (free < 0 && !s.has[e.x]) {
			r := s.res.at(e.i)
			return fmt.Errorf("sim: internal error: job %d (%d nodes, partition %d of %d free nodes, reserved %v) skipped by the pass", r.ID, e.k, e.x, f, free >= 0 || s.has[e.x])
		}
		passEndJobsLeft++
	}
	return nil
}

// newPassEnd counts the jobs of the queue that fit free (by partition) and the
// partitions with queued jobs.
func (s *easy) newPassEnd(free []int) passEnd {
	var e passEnd
	for x := range s.sizes {
		if s.sizes[x].n > 0 {
			e.open++
			e.fit += s.sizes[x].upTo(free[x])
		}
	}
	return e
}

// queued adds (d = 1) or removes (-1) queue entry q from the counts.
func (s *easy) queued(q easyQueued, d int) {
	s.sizes[q.x].add(q.k, d)
}

// dequeue removes entry qi of the queue.
func (s *easy) dequeue(qi int) {
	s.queued(s.queue[qi], -1)
	if qi == 0 {
		s.queue = s.queue[1:]
		return
	}
	s.queue = slices.Delete(s.queue, qi, qi+1)
}

// easyQueued is a queued job i of partition number x (0 without several
// partitions) and k processors, looked up once at its arrival rather than at
// every pass.
type easyQueued struct {
	i, x, k int
}

// placedResv is a front's reservation of passPlaced: job holds nodes (the
// will-run test's) from start to end (at least one second).
type placedResv struct {
	job        int
	start, end int64
	nodes      []int
}

// easyResv is a reservation of a pass: partition part's front of k nodes from
// start to end (at least one second), which may take use[y] nodes of
// partition y; the pass's first ends[:j] end by start.
type easyResv struct {
	part       int
	k          int
	start, end int64
	use        []int32
	j          int
}

type easyTrial struct {
	version uint64
	in      []int32
}

func newEASY(res *jobTable, pt *partitions) *easy {
	s := &easy{res: res, m: 1}
	if pt != nil && pt.q != nil {
		s.pt, s.m = pt, pt.q.m
		s.trial = map[int64]easyTrial{}
	}
	s.free, s.has, s.sizes = make([]int, s.m), make([]bool, s.m), make([]sizeCounts, s.m)
	return s
}

// arrive queues job i behind the jobs of its partition's tier and of the
// higher ones, ahead of those of lower tiers (arrival order within a tier).
func (s *easy) arrive(i int, _ int64, _ int, _ *runSet) {
	r := s.res.at(i)
	e := easyQueued{i, s.pt.part(r), r.Procs}
	s.queued(e, 1)
	at := len(s.queue)
	if s.pt != nil && at > 0 && s.pt.tierOf(s.queue[at-1].x) < s.pt.tierOf(e.x) {
		// The queue's tiers do not increase: behind the last job of a tier
		// as high or higher.
		t := s.pt.tierOf(e.x)
		at, _ = slices.BinarySearchFunc(s.queue, t, func(q easyQueued, t int) int {
			if s.pt.tierOf(q.x) >= t {
				return -1
			}
			return 1
		})
	}
	if at == len(s.queue) {
		s.queue = append(s.queue, e)
		return
	}
	s.queue = slices.Insert(s.queue, at, e)
}

func (s *easy) depart(int64, int, *runSet) {}

func (s *easy) next(now int64, free int, running *runSet, p *placer) (int, []int, error) {
	if len(s.queue) == 0 {
		return -1, nil, nil
	}
	if p.frag != nil && s.pt != nil {
		return s.passPlaced(now, running, p)
	}
	if p.frag != nil { // one partition or none
		head := s.queue[0].i
		if s.queue[0].k <= free {
			nodes, err := p.place(head)
			if err != nil {
				return -1, nil, err
			}
			if nodes != nil {
				s.dequeue(0)
				return head, nodes, nil
			}
		}
		return s.backfillPlaced(now, free, running, p)
	}
	s.resv, s.built, s.freeBothOK = s.resv[:0], false, false
	clear(s.has)
	if s.pt == nil {
		s.free[0] = free
	} else {
		for x := range s.free {
			s.free[x] = s.pt.q.freeIn(x, nil)
		}
	}
	end := s.newPassEnd(s.free)
	for qi, e := range s.queue {
		if end.fit == 0 && end.open == 0 {
			if err := s.checkSkipped(qi, -1); err != nil {
				return -1, nil, err
			}
			break // the jobs left neither start nor reserve (passEnd)
		}
		i, x := e.i, e.x
		if e.k <= s.free[x] {
			end.fit--
			nodes, err := s.startNow(i, x, now, running, p)
			if err != nil {
				return -1, nil, err
			}
			if nodes != nil {
				s.dequeue(qi)
				return i, nodes, nil
			}
		}
		if !s.has[x] {
			s.build(now, running)
			s.reserve(x, e.k, s.res.at(i).EstimateUsed, now)
			s.has[x] = true
			end.open--
		}
	}
	return -1, nil, nil
}

// startNow places job i of partition x, whose partition has the free nodes,
// when its start delays no reservation of the pass: nil nodes when it does.
func (s *easy) startNow(i, x int, now int64, running *runSet, p *placer) ([]int, error) {
	if len(s.resv) == 0 {
		return p.place(i)
	}
	r := s.res.at(i)
	if s.fits(now, r.EstimateUsed, -1, s.mayTakeNow(x, r.Procs)) {
		return p.place(i)
	}
	if s.m == 1 {
		return nil, nil // what it may take is what it takes
	}
	// What it must take of each partition y (its k less the free nodes of x
	// outside y) delays one already: no need to see where it would go.
	s.use = s.use[:0]
	for y := range s.m {
		s.use = append(s.use, int32(max(0, r.Procs-(s.free[x]-s.freeBoth[x*s.m+y]))))
	}
	if !s.fits(now, r.EstimateUsed, -1, s.use) {
		return nil, nil
	}
	// It delays a reservation if it takes all it may: where would it go?
	key := s.pt.key(r.Procs, r.Partition)
	if t, ok := s.trial[key]; ok && t.version == p.version {
		if !s.fits(now, r.EstimateUsed, -1, t.in) {
			return nil, nil
		}
		return p.place(i) // where the trial went
	}
	v0 := p.version
	nodes, err := p.place(i)
	if err != nil || nodes == nil {
		return nodes, err
	}
	in := s.pt.q.change(nodes, 0, make([]int32, s.m))
	if s.fits(now, r.EstimateUsed, -1, in) {
		return nodes, nil
	}
	if err := p.unplace(i, nodes, v0); err != nil {
		return nil, err
	}
	s.trial[key] = easyTrial{version: v0, in: in}
	return nil, nil
}

// mayTake is what a job of k nodes in partition x may take of each partition.
func (s *easy) mayTake(x, k int) []int32 {
	s.use = s.use[:0]
	if s.pt == nil {
		return append(s.use, int32(k))
	}
	for y := range s.m {
		s.use = append(s.use, int32(min(k, s.pt.q.ov[x][y])))
	}
	return s.use
}

// mayTakeNow is what a job of k nodes in partition x starting now may take of
// each partition: no more than the free nodes in both.
func (s *easy) mayTakeNow(x, k int) []int32 {
	if s.pt == nil {
		return s.mayTake(x, k)
	}
	if !s.freeBothOK {
		s.freeBothOK = true
		c := s.pt.q
		s.freeBoth = slices.Grow(s.freeBoth[:0], s.m*s.m)[:s.m*s.m]
		clear(s.freeBoth)
		for a, in := range c.atomParts {
			for _, y := range in {
				for _, z := range in {
					s.freeBoth[y*s.m+z] += c.freeAtom[a]
				}
			}
		}
	}
	s.use = s.use[:0]
	for y := range s.m {
		s.use = append(s.use, int32(min(k, s.freeBoth[x*s.m+y])))
	}
	return s.use
}

// build sorts the running jobs by estimated end and counts their nodes by
// partition, once a pass.
func (s *easy) build(now int64, running *runSet) {
	if s.built {
		return
	}
	s.built = true
	s.ends = running.sortedEnds(s.ends, now)
	m := s.m
	s.cum = slices.Grow(s.cum[:0], (len(s.ends)+1)*m)[:(len(s.ends)+1)*m]
	clear(s.cum[:m])
	for j, r := range s.ends {
		row, prev := s.cum[(j+1)*m:(j+2)*m], s.cum[j*m:(j+1)*m]
		if s.pt == nil {
			row[0] = prev[0] + r.procs
			continue
		}
		for x, c := range r.in {
			row[x] = prev[x] + int(c)
		}
	}
}

// avail is the nodes of partition x available at time t (see easy).
func (s *easy) avail(x int, t int64) int {
	return s.availAt(x, endsAfter(s.ends, t), t)
}

// availAt is avail(x, t) with j the jobs of ends that end by t.
func (s *easy) availAt(x, j int, t int64) int {
	a := s.free[x] + s.cum[j*s.m+x]
	for _, h := range s.resv {
		if h.start <= t && t < h.end {
			a -= int(h.use[x])
		}
	}
	return a
}

// fits reports whether a job that may take use[y] nodes of each partition y,
// running from t for window seconds, keeps every reservation starting in its
// run (and, with own >= 0, has use[own] nodes of partition own available at
// t: a reservation's start).
func (s *easy) fits(t, window int64, own int, use []int32) bool {
	if own >= 0 && s.avail(own, t) < int(use[own]) {
		return false
	}
	if window <= 0 {
		return true
	}
	if !s.keeps(t, use) {
		return false
	}
	for _, h := range s.resv {
		if h.start > t && h.start < t+window && !s.keeps(h.start, use) {
			return false
		}
	}
	return true
}

// keeps reports whether taking use from the nodes available at t leaves every
// reservation starting at t its k nodes (a reservation needs them at its start
// only: once started it holds them).
func (s *easy) keeps(t int64, use []int32) bool {
	for _, h := range s.resv {
		if h.start == t && use[h.part] > 0 && s.availAt(h.part, h.j, t) < int(use[h.part]) {
			return false
		}
	}
	return true
}

// reserve adds the reservation of partition x's front (k nodes, estimate est):
// at the earliest time now, an estimated end or a reservation's end at which
// it fits.
func (s *easy) reserve(x, k int, est, now int64) {
	window := max(est, 1)
	use := slices.Clone(s.mayTake(x, k))
	s.cand = append(s.cand[:0], now)
	for _, r := range s.ends {
		if r.estEnd > now {
			s.cand = append(s.cand, r.estEnd)
		}
	}
	for _, h := range s.resv {
		if h.end > now {
			s.cand = append(s.cand, h.end)
		}
	}
	if len(s.resv) > 0 {
		slices.Sort(s.cand)
	}
	last := int64(-1)
	for _, t := range s.cand {
		if t == last {
			continue
		}
		last = t
		if s.fits(t, window, x, use) {
			s.resv = append(s.resv, easyResv{part: x, k: k, start: t, end: t + window, use: use, j: endsAfter(s.ends, t)})
			return
		}
	}
	// cannot happen: with every job ended and every reservation over, the
	// partition holds it
	s.resv = append(s.resv, easyResv{part: x, k: k, start: math.MaxInt64 / 2, end: math.MaxInt64 / 2, use: use, j: len(s.ends)})
}

// backfillPlaced is EASY's backfilling with an allocator that may refuse a job
// that fits by count (wait.go): the head's reservation comes from the will-run
// test, and a later job starts if the allocator places it and it either ends by
// the shadow time or keeps the reservation (placer.placeBesides).
func (s *easy) backfillPlaced(now int64, free int, running *runSet, p *placer) (int, []int, error) {
	head := s.queue[0].i
	fit := s.sizes[0].upTo(free) // the queued jobs that fit (passEnd)
	if s.queue[0].k <= free {
		fit--
	}
	var res reservation
	if plainWillRun {
		var err error
		if res, err = s.headReservation(now, running, p); err != nil {
			return -1, nil, err
		}
	}
	for qi := 1; qi < len(s.queue); qi++ {
		if fit == 0 {
			if err := s.checkSkipped(qi, free); err != nil {
				return -1, nil, err
			}
			break // the jobs left do not fit (passEnd)
		}
		if s.queue[qi].k > free {
			continue
		}
		fit--
		if !res.valid {
			// The will-run test only once a later job fits by count: a
			// pass in which none does uses no reservation.
			var err error
			if res, err = s.headReservation(now, running, p); err != nil {
				return -1, nil, err
			}
		}
		i := s.queue[qi].i
		r := s.res.at(i)
		var nodes []int
		var err error
		if now+r.EstimateUsed <= res.shadow {
			nodes, err = p.place(i)
		} else {
			nodes, err = p.placeBesides(i, head, res, running)
		}
		if err != nil {
			return -1, nil, err
		}
		if nodes != nil {
			s.dequeue(qi)
			return i, nodes, nil
		}
	}
	return -1, nil, nil
}

// headReservation is the head's reservation for backfillPlaced (placer.willRun).
func (s *easy) headReservation(now int64, running *runSet, p *placer) (reservation, error) {
	head := s.queue[0].i
	res, ok, err := p.willRun(head, now, running)
	if err != nil {
		return reservation{}, err
	}
	if !ok {
		r := s.res.at(head)
		return reservation{}, fmt.Errorf("sim: internal error: job %d (%d nodes) is placed on no emptied machine, though it fit the empty one", r.ID, r.Procs)
	}
	return res, nil
}

// plainWillRun (tests only) makes backfillPlaced run the will-run test at
// the start of every pass, passPlaced reserve for every partition's front
// although no later job fits by count, and placer.willRun make every try, as
// before these shortcuts.
var plainWillRun bool

// passPlaced is EASY of several partitions with an allocator that may refuse a
// job that fits by count (wait.go): the reservations are placed, not counted.
// In queue order, a job whose partition has the free nodes starts now if the
// allocator places it off the nodes of every reservation ahead of it that its
// run (from now to now plus its estimate) overlaps, as the one partition's
// later job starts on nodes other than the head's reserved ones
// (placer.placeBesides); the first job of each partition that does not start
// gets its reservation from the will-run test on its partition's nodes, off
// the nodes of the reservations ahead of it whose window overlaps the one
// tried (placer.willRunIn). So no job delays a reservation ahead of it, as
// Slurm's backfill keeps a later job off the nodes earlier plans reserved
// (backfill.c, _attempt_backfill). With one partition this is backfillPlaced,
// decision for decision.
func (s *easy) passPlaced(now int64, running *runSet, p *placer) (int, []int, error) {
	s.placed = s.placed[:0]
	clear(s.has)
	if s.refusedKeeping == nil {
		s.refusedKeeping = map[[2]int64]bool{}
	}
	clear(s.refusedKeeping)
	for x := range s.free {
		s.free[x] = s.pt.q.freeIn(x, nil)
	}
	end := s.newPassEnd(s.free)
	for qi, e := range s.queue {
		if end.fit == 0 && end.open == 0 {
			if err := s.checkSkipped(qi, -1); err != nil {
				return -1, nil, err
			}
			break // the jobs left neither start nor reserve (passEnd)
		}
		i, x := e.i, e.x
		r := s.res.at(i)
		if e.k <= s.free[x] {
			end.fit--
			nodes, err := s.placeKeeping(i, now, p, s.placed)
			if err != nil {
				return -1, nil, err
			}
			if nodes != nil {
				s.dequeue(qi)
				return i, nodes, nil
			}
		}
		if s.has[x] {
			continue
		}
		s.has[x], end.open = true, end.open-1
		if end.fit == 0 && !plainWillRun {
			// No later job fits by count: none is placed in this pass,
			// and the reservation would keep none off its nodes.
			continue
		}
		h, ok, err := p.willRunIn(i, now, running, s.placed)
		if err != nil {
			return -1, nil, err
		}
		if !ok {
			return -1, nil, fmt.Errorf("sim: internal error: job %d (%d nodes) is placed on no emptied partition %s, though it fit the empty one", r.ID, r.Procs, r.Partition)
		}
		s.placed = append(s.placed, h)
	}
	return -1, nil, nil
}

// placeKeeping places job i now off the nodes of the reservations of ahead
// that its run overlaps: nil nodes when the allocator refuses it (a refusal
// for a reservation's sake is not a wait for a block, as in
// placer.placeBesides). The allocator decides from the free nodes, the
// partition and the size alone: a job of a size and partition it refused
// off the same reservations in the pass is refused without asking.
func (s *easy) placeKeeping(i int, now int64, p *placer, ahead []placedResv) ([]int, error) {
	r := s.res.at(i)
	end := now + r.EstimateUsed
	var over int64 // the reservations kept off, as bits (the first 63)
	for j, h := range ahead {
		if h.start < end && now < h.end && j < 63 {
			over |= 1 << j
		}
	}
	if over == 0 && len(ahead) <= 63 {
		return p.place(i)
	}
	key := [2]int64{s.pt.key(r.Procs, r.Partition), over}
	cache := len(ahead) <= 63
	if cache && s.refusedKeeping[key] {
		return nil, nil
	}
	var bm []uint64
	for _, h := range ahead {
		if h.start < end && now < h.end {
			if bm == nil {
				bm = s.pt.freshBlock()
			}
			for _, v := range h.nodes {
				bm[v>>6] |= 1 << (v & 63)
			}
		}
	}
	if bm == nil {
		return p.place(i)
	}
	p.block, p.quiet = bm, true
	nodes, err := p.place(i)
	p.block, p.quiet = nil, false
	if err == nil && nodes == nil && cache {
		s.refusedKeeping[key] = true
	}
	return nodes, err
}
