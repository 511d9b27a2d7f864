package sim

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/alloc"
)

// Jobs that wait for a block. An allocator that may refuse a job although enough
// nodes are free (alloc.Fragmenting: bt, sbt and dbt without a free block of the
// size, slurm:tree and slurm:block when Slurm would leave the job pending with
// reason Resources) makes the job wait, under every scheduler, until a release
// lets the allocator place it; docs/sim.md, "Jobs that wait for a block":
//
//   - FCFS and Cplant: the head of the queue starts when the allocator places it;
//     until then nothing behind it starts (a refused head blocks the queue as a
//     head too large for the free nodes does).
//   - EASY: a head the allocator refuses gets its reservation from the will-run
//     test of Slurm's select/cons_tres (job_test.c, _will_run_test): the running
//     jobs are taken out in order of estimated end (a copy of the allocator,
//     alloc.Fragmenting.Clone) and the head is placed after each; the first end
//     at which it is placed is the shadow time, and the nodes it got there are
//     its reservation. As Slurm's backfill (backfill.c, _attempt_backfill) keeps
//     a later job off the nodes reserved for the time it would overlap them, a
//     later job may start now if the allocator places it and it ends by its
//     estimate no later than the shadow time, or its allocation keeps the
//     reservation: an allocator that can mark nodes busy (Slurm's emulators,
//     Occupy) chooses its nodes with the reserved ones taken away, as Slurm's
//     avail_bitmap does; the others (bt, sbt, dbt) place it as they would and the
//     job starts only if the head can still be placed at the shadow time on the
//     copy. A later job the allocator refuses waits (no reservation of its own:
//     EASY reserves for the head only, where Slurm reserves for every job it
//     tests up to bf_max_job_test). Jobs of several partitions
//     (easy.passPlaced): each partition's first waiting job gets its
//     reservation from the will-run test on its partition's nodes, off the
//     nodes of the reservations ahead of it (willRunIn), and a job starts now
//     if the allocator places it off the nodes of the reservations ahead that
//     its run overlaps.
//   - A job that the allocator cannot place even on the empty machine can never
//     start: the replay refuses it at the start, naming it (ErrNeverFits).
//
// With an allocator that places every job that fits by count the schedulers are
// the count-based ones, unchanged.

// ErrNeverFits is wrapped by Run when the allocator cannot place a job even on the
// empty machine (a slurm:block job that no block arrangement holds): it would wait
// for ever.
var ErrNeverFits = errors.New("the allocator cannot place the job even on the empty machine")

// refusedForNow reports whether the allocator's error means the request waits for a
// release rather than fails: a fragmenting allocator's ErrFragmented, and, for
// callers that offer requests without counting free nodes first (Batch), too few
// free nodes. The replays and Batch decide waiting by it alone.
func refusedForNow(err error, countChecked bool) bool {
	return errors.Is(err, alloc.ErrFragmented) || (!countChecked && errors.Is(err, alloc.ErrNotEnoughFree))
}

// placer places the jobs the scheduler starts: it asks the allocator for their
// nodes, and for an allocator that may refuse a job that fits by count it keeps
// the copies and the will-run test of EASY's reservation.
type placer struct {
	ctx   context.Context // the replay's: an allocation decision stops with it (alloc.ContextAllocator)
	a     alloc.Allocator
	clock *alloc.Clock      // measures the allocator's own calls on the live machine (nil: none)
	frag  alloc.Fragmenting // nil when the allocator places every job that fits by count
	tab   *jobTable
	now   int64
	// version counts the allocator's changes (starts and releases); the
	// reservation is recomputed when it or the head changes.
	version uint64
	resv    reservation
	empty   alloc.Fragmenting // a copy of the empty machine (never-fit checks)
	fits    map[int64]error   // job size (partitions.key) -> nil, or why it never fits
	ends    []runJob          // scratch
	times   []int64           // scratch: willRunIn's times tried
	held    []int             // scratch: reserved nodes taken away from a later job
	touch   []bool            // scratch: willRunIn's running jobs with a node in the partition
	// The sizes the allocator refused in the current state (at version, version
	// and head for placeBesides): it decides from the state and the size alone,
	// so another job of the size is refused too, without asking (a backfilling
	// pass would otherwise ask once per queued job, O(n) each for slurm:block).
	refused       map[int64]uint64 // by partitions.key
	refusedBeside map[int]besideRefusal
	askAgain      bool // the memos off (Config.askAgain)
	// runIn: willRunIn's last reservation of each partition's front, by
	// partition, reused while it still holds (willRunInMemo.holds)
	runIn map[string]*willRunInMemo
	// parts keeps jobs in their partitions (partition.go); nil: none
	parts *partitions
	// block, when set, is kept away from place's decision besides the
	// outside of the job's partition (partitions.blocked; FCFS and Cplant)
	block []uint64
	// quiet, when set, keeps a refusal from being recorded as a wait for a
	// block (EASY's job refused off the reserved nodes)
	quiet bool
	// runStates: the answers of will-run tries, by a hash of the set of
	// running jobs, the size and the partition (placer.runState)
	runStates  map[uint64][]*runState
	nRunStates int
	stateIDs   []int // scratch
}

// besideRefusal is placeBesides' memo of a size it did not start: at the placer's
// version with head's reservation (key), and whether the allocator refused it
// (blocked: the job waits for a block, as place records) or it would have taken
// the head's start.
type besideRefusal struct {
	key     [2]uint64
	blocked bool
}

// reservation is EASY's reservation of a refused head: the shadow time and the
// nodes the will-run test placed it on.
type reservation struct {
	valid   bool
	head    int
	version uint64
	shadow  int64
	nodes   []int
}

func newPlacer(a alloc.Allocator, clock *alloc.Clock, tab *jobTable) *placer {
	p := &placer{ctx: context.Background(), a: a, clock: clock, tab: tab}
	if f, ok := a.(alloc.Fragmenting); ok && f.MayFragment() {
		p.frag = f
		p.empty = f.Clone() // the replay starts with every node free
		p.fits = map[int64]error{}
		p.refused, p.refusedBeside = map[int64]uint64{}, map[int]besideRefusal{}
	}
	return p
}

// checkFits refuses job r when the allocator cannot place it on the empty machine.
func (p *placer) checkFits(r *Job) error {
	if p.frag == nil {
		return nil
	}
	key := p.parts.key(r.Procs, r.Partition)
	err, seen := p.fits[key]
	if !seen {
		if err := usePartition(p.empty, r.Partition); err != nil {
			return err
		}
		nodes, _, aerr := alloc.AllocateWithout(context.Background(), p.empty, r.Procs, p.parts.awayOf(r.Partition), nil)
		if aerr == nil {
			if rerr := p.empty.Release(nodes); rerr != nil {
				return fmt.Errorf("sim: internal error: %w", rerr)
			}
		} else {
			err = aerr
		}
		p.fits[key] = err
	}
	if err != nil {
		where := ""
		if r.Partition != "" && p.parts != nil {
			where = " of partition " + r.Partition
		}
		return fmt.Errorf("job %d (line %d) needs %d nodes%s; %s: %w: %v", r.ID, r.Line, r.Procs, where, p.a.Name(), ErrNeverFits, err)
	}
	return nil
}

// place asks the allocator for job i's nodes now: nil nodes (and no error) when it
// refuses them although they fit by count (the job waits; its first refusal is
// recorded).
func (p *placer) place(i int) ([]int, error) {
	r := p.tab.at(i)
	key := p.parts.key(r.Procs, r.Partition)
	cache := p.frag != nil && p.block == nil && !p.askAgain // a refusal depends on the blocked nodes too
	if cache {
		if v, ok := p.refused[key]; ok && v == p.version {
			p.refusedJob(r)
			return nil, nil
		}
	}
	var nodes []int
	var err error
	if pl, ok := p.a.(alloc.Placer); ok {
		if nodes, err = p.clock.Place(pl, r.NodeList); err == nil {
			if err = p.parts.checkPlaced(r, nodes); err != nil {
				return nil, err
			}
		}
	} else {
		// A job of a partition may lack free nodes in it although the machine
		// has enough (it waits); without partitions the scheduler counted them.
		if err = p.parts.enter(p.a, r.Partition, p.block); err != nil {
			return nil, err
		}
		nodes, err = p.clock.AllocateContext(p.ctx, p.a, r.Procs)
	}
	if err != nil {
		if (p.frag != nil || p.parts != nil) && refusedForNow(err, p.parts == nil) {
			if cache {
				p.refused[key] = p.version
			}
			p.refusedJob(r)
			return nil, nil
		}
		return nil, fmt.Errorf("job %d (%d processors): %w", r.ID, r.Procs, err)
	}
	p.started(r)
	return nodes, nil
}

// refusedJob records that the allocator refused job r now.
func (p *placer) refusedJob(r *JobResult) {
	if !r.WaitedForBlock && !p.quiet {
		r.WaitedForBlock, r.BlockWait = true, p.now // the first refusal, until the start
	}
}

// started records job r's start now.
func (p *placer) started(r *JobResult) {
	p.version++
	if r.WaitedForBlock {
		r.BlockWait = p.now - r.BlockWait
	}
}

// released tells the placer that nodes were released.
func (p *placer) released() { p.version++ }

// willRun is EASY's reservation of head (refused now or too large for the free
// nodes): the running jobs leave a copy of the allocator in order of estimated
// end (those past their estimate now), and the head is placed after each end
// time; ok is false when it is not placed even on the emptied copy.
//
// A time at which fewer than the head's nodes are free is not tried (it is
// counted, without the copy). With an allocator that decides from its free
// nodes alone (an Occupier) and no node busy but the running jobs', the copy's
// state at a time is the set of jobs still running then, and a try's answer a
// function of that set, the head's size and partition: the answers of earlier
// tries are kept (runStates) and a try whose answer is known is not made. The
// copy is made only for a try not known. checkRunStates (tests) makes every
// known try anyway and fails when the two differ.
func (p *placer) willRun(head int, now int64, running *runSet) (reservation, bool, error) {
	if p.resv.valid && p.resv.head == head && p.resv.version == p.version {
		return p.resv, true, nil
	}
	r := p.tab.at(head)
	k := r.Procs
	p.ends = running.sortedEnds(p.ends, now)
	_, known := p.frag.(alloc.Occupier)
	if known && !plainWillRun {
		busy := 0
		for _, e := range p.ends {
			busy += len(p.tab.at(e.job).Nodes)
		}
		known = busy == p.frag.Machine().N()-p.frag.NumFree()
	} else {
		known = false
	}
	var c alloc.Fragmenting
	clone := func() error {
		c = p.frag.Clone()
		return usePartition(c, r.Partition)
	}
	if !known {
		if err := clone(); err != nil {
			return reservation{}, false, err
		}
	}
	free, done := p.frag.NumFree(), 0 // p.ends[:done] released on c
	for i := 0; i < len(p.ends); {
		t := p.ends[i].estEnd
		for ; i < len(p.ends) && p.ends[i].estEnd == t; i++ {
			free += len(p.tab.at(p.ends[i].job).Nodes)
		}
		if c != nil {
			for ; done < i; done++ {
				if err := c.Release(p.tab.at(p.ends[done].job).Nodes); err != nil {
					return reservation{}, false, fmt.Errorf("sim: internal error: will-run test: %w", err)
				}
			}
			free = c.NumFree()
		}
		if free < k {
			continue
		}
		var st *runState
		if known {
			st = p.runState(k, r.Partition, p.ends[i:], false, nil, nil)
			if st.tried && !checkRunStates {
				if st.placed {
					p.resv = reservation{valid: true, head: head, version: p.version, shadow: t, nodes: slices.Clone(st.nodes)}
					return p.resv, true, nil
				}
				continue
			}
			if c == nil {
				if err := clone(); err != nil {
					return reservation{}, false, err
				}
				for ; done < i; done++ {
					if err := c.Release(p.tab.at(p.ends[done].job).Nodes); err != nil {
						return reservation{}, false, fmt.Errorf("sim: internal error: will-run test: %w", err)
					}
				}
			}
		}
		nodes, err := c.Allocate(k)
		if err != nil && !errors.Is(err, alloc.ErrFragmented) {
			return reservation{}, false, fmt.Errorf("sim: will-run test of job %d: %w", r.ID, err)
		}
		if st != nil {
			if st.tried { // checkRunStates
				runStateChecks++
				if st.placed != (err == nil) || !slices.Equal(st.nodes, nodes) {
					return reservation{}, false, fmt.Errorf("sim: internal error: job %d's will-run try at %d: placed %v on %v known, %v on %v made", r.ID, t, st.placed, st.nodes, err == nil, nodes)
				}
			}
			st.tried, st.placed, st.nodes = true, err == nil, slices.Clone(nodes)
		}
		if err == nil {
			p.resv = reservation{valid: true, head: head, version: p.version, shadow: t, nodes: nodes}
			return p.resv, true, nil
		}
	}
	return reservation{}, false, nil
}

// runState is the answer of a will-run try (placer.willRun) of a job of k nodes
// of partition part on the copy whose busy nodes are those of jobs (sorted job
// indices, each running: a job runs once, on the same nodes): placed on nodes,
// or refused. For willRunIn (in), the copy is the partition's (its outside
// busy), jobs are those with a node in it, and the try is kept off the nodes
// away (the reservations ahead).
type runState struct {
	k      int
	part   string
	in     bool
	jobs   []int
	away   []int
	tried  bool
	placed bool
	nodes  []int
}

// runStatesMax bounds the answers kept: past it they are dropped (the tries
// are made again).
const runStatesMax = 64

// runState returns the answer kept for a try of k nodes of part with the jobs
// of ends running, a new one (tried false) when none is. For willRunIn (in),
// only the jobs of ends that touch the partition count (touch[i] for ends[i],
// ends being the tail of the call's sorted ends) and away is part of the key.
func (p *placer) runState(k int, part string, ends []runJob, in bool, touch []bool, away []int) *runState {
	var h uint64 // the jobs' set, in any order
	ids := p.stateIDs[:0]
	for i, e := range ends {
		if in && !touch[i] {
			continue
		}
		x := uint64(e.job)*0x9E3779B97F4A7C15 + 1
		x ^= x >> 31
		h += x * 0xBF58476D1CE4E5B9
		ids = append(ids, e.job)
	}
	slices.Sort(ids)
	p.stateIDs = ids
	h ^= uint64(k) * 0x94D049BB133111EB
	if in {
		h ^= 0xD6E8FEB86659FD93
		for _, v := range away {
			h = (h ^ uint64(v)) * 0x100000001B3
		}
	}
	for _, st := range p.runStates[h] {
		if st.k == k && st.part == part && st.in == in && slices.Equal(st.jobs, ids) && slices.Equal(st.away, away) {
			return st
		}
	}
	if p.runStates == nil || p.nRunStates >= runStatesMax {
		p.runStates, p.nRunStates = map[uint64][]*runState{}, 0
	}
	st := &runState{k: k, part: part, in: in, jobs: slices.Clone(ids), away: slices.Clone(away)}
	p.runStates[h] = append(p.runStates[h], st)
	p.nRunStates++
	return st
}

// checkRunStates (tests only) makes willRun make the tries whose answer it
// knows, fail when the two differ, and count them in runStateChecks.
var (
	checkRunStates bool
	runStateChecks int
)

// willRunIn is the reservation of head, the first waiting job of its
// partition among several (easy.passPlaced), with the reservations ahead of it
// kept: the will-run test of willRun on the nodes of head's partition (a copy
// of the allocator with the nodes outside it held busy, the running jobs'
// nodes in it freed in order of estimated end), tried at now, at each
// estimated end and at each end of a reservation ahead, in time order, each
// time off the nodes of the reservations ahead whose window overlaps head's
// (from the time tried to it plus head's estimate, at least one second). The
// first time at which the allocator places head is its start, the nodes it got
// there its reservation; ok is false when it is not placed even on the emptied
// partition. The reservation an earlier pass found for head is reused while it
// holds (willRunInMemo.holds: no start or end since, the same reservations
// ahead, now not past its start): a pass after an arrival then clones no
// allocator for the fronts that did not change.
func (p *placer) willRunIn(head int, now int64, running *runSet, ahead []placedResv) (placedResv, bool, error) {
	r := p.tab.at(head)
	k, window := r.Procs, max(r.EstimateUsed, 1)
	memo := p.runIn[r.Partition]
	hit := memo.holds(p.version, head, now, window, ahead)
	if hit && !checkRunInMemo {
		return memo.res, true, nil
	}
	if err := p.parts.enter(p.a, r.Partition, nil); err != nil {
		return placedResv{}, false, err
	}
	c := p.frag.Clone()
	if err := usePartition(c, r.Partition); err != nil {
		return placedResv{}, false, err
	}
	in := p.parts.in[r.Partition]
	p.ends = running.sortedEnds(p.ends, now)
	// With an Occupier (its decision a function of its free nodes) whose copy
	// has no node of the partition busy but the running jobs' (its outside is
	// held busy: the view's or the mask's), a try's answer is a function of
	// the jobs still running with a node in the partition, the size and the
	// nodes kept away: known answers are kept (runState) and not made again.
	// Not with whole blocks (BlockOccupier), whose copy holds more.
	_, known := c.(alloc.Occupier)
	var touch []bool
	if _, blocks := c.(alloc.BlockOccupier); known && !blocks && !plainWillRun {
		touch = p.touch[:0]
		busy := 0
		for _, e := range p.ends {
			n := 0
			for _, v := range p.tab.at(e.job).Nodes {
				n += int(in[v>>6] >> (v & 63) & 1)
			}
			busy += n
			touch = append(touch, n > 0)
		}
		p.touch = touch
		size := 0
		for _, w := range in {
			size += bits.OnesCount64(w)
		}
		known = c.NumFree() == size-busy
	} else {
		known = false
	}
	times := append(p.times[:0], now)
	for _, e := range p.ends {
		times = append(times, e.estEnd)
	}
	for _, h := range ahead {
		times = append(times, max(h.end, now))
	}
	if len(ahead) > 0 {
		slices.Sort(times)
	}
	times = slices.Compact(times)
	p.times = times
	var away []int
	var awayOf uint64
	awayOK := false
	// With an allocator whose release frees a job's whole block or pages
	// (alloc.BlockOccupier) a job's nodes are released whole and the free
	// nodes outside the partition held again, as the mask does.
	bo, blocks := c.(alloc.BlockOccupier)
	j := 0
	for _, t := range times {
		released := false
		for ; j < len(p.ends) && p.ends[j].estEnd <= t; j++ {
			p.held = p.held[:0]
			for _, v := range p.tab.at(p.ends[j].job).Nodes {
				if blocks || in[v>>6]>>(v&63)&1 != 0 {
					p.held = append(p.held, v)
				}
			}
			if err := c.Release(p.held); err != nil {
				return placedResv{}, false, fmt.Errorf("sim: internal error: will-run test: %w", err)
			}
			released = true
		}
		if blocks && released {
			var err error
			if p.held, err = alloc.HoldFreeIn(bo, p.parts.out[r.Partition], p.held); err != nil {
				return placedResv{}, false, fmt.Errorf("sim: internal error: will-run test: %w", err)
			}
		}
		if c.NumFree() < k {
			continue
		}
		// The nodes of the reservations ahead overlapping [t, t + window),
		// made again only when that set changes (the first 64 as bits).
		var over uint64
		for a, h := range ahead {
			if h.start < t+window && t < h.end && a < 64 {
				over |= 1 << a
			}
		}
		if !awayOK || over != awayOf || len(ahead) > 64 {
			away = away[:0]
			for _, h := range ahead {
				if h.start < t+window && t < h.end {
					away = append(away, h.nodes...)
				}
			}
			if len(away) > 0 { // reservations of disjoint windows may share nodes
				slices.Sort(away)
				away = slices.Compact(away)
			}
			awayOf, awayOK = over, true
		}
		var nodes []int
		var err error
		var st *runState
		if known {
			st = p.runState(k, r.Partition, p.ends[j:], true, touch[j:], away)
		}
		if st != nil && st.tried && !checkRunStates {
			if !st.placed {
				continue
			}
			nodes = slices.Clone(st.nodes)
		} else {
			nodes, p.held, err = alloc.AllocateWithout(p.ctx, c, k, away, p.held)
			if st != nil && (err == nil || refusedForNow(err, false)) {
				if st.tried { // checkRunStates
					runStateChecks++
					if st.placed != (err == nil) || !slices.Equal(st.nodes, nodes) {
						return placedResv{}, false, fmt.Errorf("sim: internal error: job %d's will-run try in %s at %d: placed %v on %v known, %v on %v made", r.ID, r.Partition, t, st.placed, st.nodes, err == nil, nodes)
					}
				}
				st.tried, st.placed, st.nodes = true, err == nil, slices.Clone(nodes)
			}
		}
		if err == nil {
			res := placedResv{job: head, start: t, end: t + window, nodes: nodes}
			if hit { // checkRunInMemo
				runInMemoHits++
				if res.start != memo.res.start || res.end != memo.res.end || !slices.Equal(res.nodes, memo.res.nodes) {
					return placedResv{}, false, fmt.Errorf("sim: internal error: job %d's reserved start %d on %v, the will-run test's %d on %v", r.ID, memo.res.start, memo.res.nodes, res.start, res.nodes)
				}
				return memo.res, true, nil
			}
			p.remember(res, now, times, ahead)
			return res, true, nil
		}
		if !refusedForNow(err, false) {
			return placedResv{}, false, fmt.Errorf("sim: will-run test of job %d: %w", r.ID, err)
		}
	}
	if hit {
		return placedResv{}, false, fmt.Errorf("sim: internal error: job %d's reserved start %d, but the will-run test places it never", r.ID, memo.res.start)
	}
	return placedResv{}, false, nil
}

// checkRunInMemo (tests only) makes willRunIn run the will-run test when its
// memo holds, fail when the two differ, and count the memo's uses in
// runInMemoHits.
var (
	checkRunInMemo bool
	runInMemoHits  int
)

// willRunInMemo is a reservation willRunIn found (res, for job head, at
// placer version, at time now, having tried times, with the reservations
// ahead).
type willRunInMemo struct {
	version uint64
	head    int
	now     int64
	times   []int64
	ahead   []placedResv
	res     placedResv
}

// remember keeps res, the reservation willRunIn found at now by trying times
// (sorted, each once; the last is res.start), for the next pass.
func (p *placer) remember(res placedResv, now int64, times []int64, ahead []placedResv) {
	if p.runIn == nil {
		p.runIn = map[string]*willRunInMemo{}
	}
	part := p.tab.at(res.job).Partition
	m := p.runIn[part]
	if m == nil {
		m = &willRunInMemo{}
		p.runIn[part] = m
	}
	m.version, m.head, m.now, m.res = p.version, res.job, now, res
	m.times = append(m.times[:0], times...)
	m.ahead = m.ahead[:0]
	for _, h := range ahead {
		m.ahead = append(m.ahead, placedResv{job: h.job, start: h.start, end: h.end, nodes: slices.Clone(h.nodes)})
	}
}

// holds reports whether willRunIn of head at now (window its estimate, at
// least one second), with the reservations ahead, would find m.res again,
// without the will-run test. A try at time t is a function of t alone while
// the allocator and the running jobs are those of m (the same version) and
// the reservations ahead are the same: the copy with the nodes of the jobs
// estimated to end by t freed (those past their estimate end now, by t), off
// the nodes of the reservations ahead whose window overlaps [t, t + window).
// The tries at m's times before m.res.start failed and the one at it placed
// head on m.res.nodes. From a later now up to m.res.start, the times tried are
// now and m's times after it: the same tries, but the one at now when it is
// not one of m's. Its jobs ended are those of the last of m's times before it,
// t' (every estimated end and reservation end from m.now on is one of m's
// times), and so are the reservations it is kept off, unless one starts
// within a window after t' and by a window after now (its overlap begins
// between the two): then it is tried anew, and holds says no.
func (m *willRunInMemo) holds(version uint64, head int, now, window int64, ahead []placedResv) bool {
	if m == nil || m.version != version || m.head != head || now < m.now || now > m.res.start || len(ahead) != len(m.ahead) {
		return false
	}
	for j, h := range ahead {
		g := m.ahead[j]
		if h.job != g.job || h.start != g.start || h.end != g.end || !slices.Equal(h.nodes, g.nodes) {
			return false
		}
	}
	if now == m.now || now == m.res.start {
		return true
	}
	j := endsAfterTime(m.times, now) // m.times[:j] are at or before now
	if j == 0 {
		return false
	}
	if t := m.times[j-1]; t != now {
		for _, h := range ahead {
			if t+window <= h.start && h.start < now+window {
				return false
			}
		}
	}
	return true
}

// endsAfterTime is the number of times (sorted) at or before t.
func endsAfterTime(times []int64, t int64) int {
	j, found := slices.BinarySearch(times, t)
	if found {
		j++
	}
	return j
}

// placeBesides places job i now so that the reservation res of head keeps: with
// an allocator that can mark nodes busy, on nodes other than the reserved ones;
// else where the allocator places it, if the head is still placed at the shadow
// time (on a copy with every running job ending by then gone). Nil nodes when
// it cannot start now.
func (p *placer) placeBesides(i, head int, res reservation, running *runSet) (nodes []int, err error) {
	r := p.tab.at(i)
	key := [2]uint64{p.version, uint64(head)}
	if b, ok := p.refusedBeside[r.Procs]; ok && b.key == key && !p.askAgain {
		if b.blocked {
			p.refusedJob(r) // as place would record it
		}
		return nil, nil
	}
	blocked := false
	defer func() {
		if nodes == nil && err == nil {
			p.refusedBeside[r.Procs] = besideRefusal{key, blocked}
		}
	}()
	if oc, ok := p.a.(alloc.Occupier); ok {
		held := 0
		for _, v := range res.nodes {
			if oc.IsFree(v) {
				held++
			}
		}
		if p.a.NumFree()-held < r.Procs {
			return nil, nil
		}
		nodes, p.held, err = p.clock.AllocateWithout(p.ctx, p.a, r.Procs, res.nodes, p.held)
		if err != nil {
			if refusedForNow(err, false) {
				return nil, nil
			}
			return nil, fmt.Errorf("job %d (%d processors): %w", r.ID, r.Procs, err)
		}
		p.started(r)
		return nodes, nil
	}
	v0 := p.version
	nodes, err = p.place(i)
	if err != nil || nodes == nil {
		blocked = err == nil // the allocator refused it (place recorded the wait)
		return nil, err
	}
	// A copy with job i running and every running job ending by the shadow time
	// gone: is the head placed?
	c := p.frag.Clone()
	for _, rj := range running.jobs {
		if max(rj.estEnd, p.now) <= res.shadow {
			if err := c.Release(p.tab.at(rj.job).Nodes); err != nil {
				return nil, fmt.Errorf("sim: internal error: %w", err)
			}
		}
	}
	if c.NumFree() >= p.tab.at(head).Procs {
		if _, err := c.Allocate(p.tab.at(head).Procs); err == nil {
			return nodes, nil
		} else if !errors.Is(err, alloc.ErrFragmented) {
			return nil, fmt.Errorf("sim: will-run test of job %d: %w", p.tab.at(head).ID, err)
		}
	}
	// The head would lose its start: job i does not start now, and the allocator
	// is back in the state it was in.
	if err := p.clock.Release(p.a, nodes); err != nil {
		return nil, fmt.Errorf("sim: internal error: %w", err)
	}
	p.version = v0
	if r.WaitedForBlock {
		r.BlockWait = p.now - r.BlockWait // back to the first refusal's time
	}
	return nil, nil
}

// unplace takes back the start of job i on nodes, which place gave it with the
// placer at version v0: the allocator is back in the state it was in (EASY's
// trial of a later job of several partitions that would delay a reservation).
func (p *placer) unplace(i int, nodes []int, v0 uint64) error {
	if err := p.clock.Release(p.a, nodes); err != nil {
		return fmt.Errorf("sim: internal error: %w", err)
	}
	p.version = v0
	if r := p.tab.at(i); r.WaitedForBlock {
		r.BlockWait = p.now - r.BlockWait // back to the first refusal's time
	}
	return nil
}
