package sim

import (
	"cmp"
	"fmt"
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
var schedulers = map[string]func(res *jobTable) scheduler{
	"fcfs":   func(res *jobTable) scheduler { return &fcfs{res: res} },
	"easy":   func(res *jobTable) scheduler { return &easy{res: res} },
	"cplant": func(res *jobTable) scheduler { return &cplant{res: res} },
	"as-run": func(res *jobTable) scheduler { return &asRun{res: res} },
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

func newScheduler(name string, res *jobTable) (scheduler, error) {
	if name == "" {
		name = "fcfs"
	}
	mk, ok := schedulers[name]
	if !ok {
		return nil, fmt.Errorf("unknown scheduler %q (want %s)", name, Choices(scheds))
	}
	return mk(res), nil
}

// runSet is the running jobs with their estimated end times.
type runSet struct {
	jobs []runJob
}

type runJob struct {
	job    int
	estEnd int64
	procs  int
}

func (s *runSet) add(job int, estEnd int64, procs int) {
	s.jobs = append(s.jobs, runJob{job, estEnd, procs})
}

func (s *runSet) remove(job int) {
	for i, r := range s.jobs {
		if r.job == job {
			s.jobs = slices.Delete(s.jobs, i, i+1)
			return
		}
	}
}

// fcfs is strict first-come first-served: only the head of the queue (arrival order,
// then trace order) may start, when enough processors are free; no backfilling.
type fcfs struct {
	res   *jobTable
	queue []int
	head  int
}

func (s *fcfs) arrive(i int, _ int64, _ int, _ *runSet) { s.queue = append(s.queue, i) }
func (s *fcfs) depart(int64, int, *runSet)              {}

func (s *fcfs) next(now int64, free int, _ *runSet, p *placer) (int, []int, error) {
	if s.head == len(s.queue) {
		return -1, nil, nil
	}
	i := s.queue[s.head]
	if s.res.at(i).Procs > free {
		return -1, nil, nil
	}
	nodes, err := p.place(i)
	if err != nil || nodes == nil {
		return -1, nil, err // refused: the head waits, and the queue behind it
	}
	s.head++
	if s.head > 1024 && s.head*2 > len(s.queue) {
		s.queue = append(s.queue[:0], s.queue[s.head:]...)
		s.head = 0
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
type easy struct {
	res   *jobTable
	queue []int
	ends  []runJob
}

func (s *easy) arrive(i int, _ int64, _ int, _ *runSet) { s.queue = append(s.queue, i) }
func (s *easy) depart(int64, int, *runSet)              {}

func (s *easy) next(now int64, free int, running *runSet, p *placer) (int, []int, error) {
	if len(s.queue) == 0 {
		return -1, nil, nil
	}
	head := s.queue[0]
	if s.res.at(head).Procs <= free {
		nodes, err := p.place(head)
		if err != nil {
			return -1, nil, err
		}
		if nodes != nil {
			s.queue = s.queue[1:]
			return head, nodes, nil
		}
	}
	if p.frag != nil {
		return s.backfillPlaced(now, free, running, p)
	}
	s.ends = append(s.ends[:0], running.jobs...)
	for i := range s.ends {
		s.ends[i].estEnd = max(s.ends[i].estEnd, now)
	}
	slices.SortStableFunc(s.ends, func(a, b runJob) int { return cmp.Compare(a.estEnd, b.estEnd) })
	avail := free
	shadow := int64(-1)
	for _, r := range s.ends {
		avail += r.procs
		if avail >= s.res.at(head).Procs {
			shadow = r.estEnd
			break
		}
	}
	if shadow < 0 {
		return -1, nil, nil // cannot happen: every job fits the empty machine
	}
	// Processors left over at the shadow time: every job ending by then counts,
	// including others that end at the shadow time itself.
	avail = free
	for _, r := range s.ends {
		if r.estEnd > shadow {
			break
		}
		avail += r.procs
	}
	extra := avail - s.res.at(head).Procs
	for qi := 1; qi < len(s.queue); qi++ {
		i := s.queue[qi]
		r := s.res.at(i)
		if r.Procs > free {
			continue
		}
		if now+r.EstimateUsed <= shadow || r.Procs <= extra {
			nodes, err := p.place(i)
			if err != nil || nodes == nil {
				return -1, nil, err // cannot happen: the allocator places what fits by count
			}
			s.queue = slices.Delete(s.queue, qi, qi+1)
			return i, nodes, nil
		}
	}
	return -1, nil, nil
}

// backfillPlaced is EASY's backfilling with an allocator that may refuse a job
// that fits by count (wait.go): the head's reservation comes from the will-run
// test, and a later job starts if the allocator places it and it either ends by
// the shadow time or keeps the reservation (placer.placeBesides).
func (s *easy) backfillPlaced(now int64, free int, running *runSet, p *placer) (int, []int, error) {
	head := s.queue[0]
	res, ok, err := p.willRun(head, now, running)
	if err != nil {
		return -1, nil, err
	}
	if !ok {
		r := s.res.at(head)
		return -1, nil, fmt.Errorf("sim: internal error: job %d (%d nodes) is placed on no emptied machine, though it fit the empty one", r.ID, r.Procs)
	}
	for qi := 1; qi < len(s.queue); qi++ {
		i := s.queue[qi]
		r := s.res.at(i)
		if r.Procs > free {
			continue
		}
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
			s.queue = slices.Delete(s.queue, qi, qi+1)
			return i, nodes, nil
		}
	}
	return -1, nil, nil
}

// cplant is the Cplant queue of Leung et al. 2002 §3: the queue is kept sorted by
// requested processors (fewest first), then requested time (shortest first), then
// arrival order, and jobs leave from its front only.
type cplant struct {
	res   *jobTable
	queue []int
}

func (s *cplant) depart(int64, int, *runSet) {}

func (s *cplant) arrive(i int, _ int64, _ int, _ *runSet) {
	r := s.res.at(i)
	at, _ := slices.BinarySearchFunc(s.queue, i, func(q, _ int) int {
		o := s.res.at(q)
		if o.Procs != r.Procs {
			return o.Procs - r.Procs
		}
		if o.EstimateUsed != r.EstimateUsed {
			return cmp.Compare(o.EstimateUsed, r.EstimateUsed)
		}
		return -1 // earlier arrivals stay ahead
	})
	s.queue = slices.Insert(s.queue, at, i)
}

func (s *cplant) next(now int64, free int, _ *runSet, p *placer) (int, []int, error) {
	if len(s.queue) == 0 || s.res.at(s.queue[0]).Procs > free {
		return -1, nil, nil
	}
	i := s.queue[0]
	nodes, err := p.place(i)
	if err != nil || nodes == nil {
		return -1, nil, err // refused: the front waits, and the queue behind it
	}
	s.queue = s.queue[1:]
	return i, nodes, nil
}
