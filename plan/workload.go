package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// SyntheticWorkload returns the seeded workload that stands in for a site's history
// on n nodes: count jobs; a fifth of them one node, the others log-uniform between 2
// and n/2 nodes, half of those rounded to a power of two; run times log-uniform
// between 1 minute and 4 hours, estimates equal to run times; Poisson arrivals at
// an offered load of 0.9 of the machine. Deterministic for a seed.
func SyntheticWorkload(n, count int, seed uint64) []sim.Job {
	rng := rand.New(rand.NewPCG(seed, 0x706c616e)) // "plan"
	jobs := make([]sim.Job, count)
	work := 0.0
	maxK := max(2, n/2)
	for i := range jobs {
		k := 1
		if rng.Float64() >= 0.2 && n >= 2 {
			k = int(math.Round(math.Exp(math.Log(2) + rng.Float64()*(math.Log(float64(maxK))-math.Log(2)))))
			if rng.IntN(2) == 0 {
				k = 1 << (bits.Len(uint(k)) - 1)
			}
			k = min(max(k, 2), n)
		}
		rt := int64(math.Round(math.Exp(math.Log(60) + rng.Float64()*(math.Log(4*3600)-math.Log(60)))))
		jobs[i] = sim.Job{ID: i + 1, Procs: k, Runtime: rt, Estimate: rt}
		work += float64(k) * float64(rt)
	}
	mean := work / float64(count) / (0.9 * float64(n)) // mean interarrival time
	t := 0.0
	for i := range jobs {
		jobs[i].Arrival = int64(t)
		t += rng.ExpFloat64() * mean
	}
	return jobs
}

// SyntheticDescription says what SyntheticWorkload generates (for the report).
const SyntheticDescription = "seeded synthetic workload: 20% one-node jobs, the others log-uniform from 2 to n/2 nodes (half rounded down to a power of two); run times log-uniform from 1 min to 4 h, exact estimates; Poisson arrivals at offered load 0.9; scheduled by EASY backfilling"

func (p *Plan) hasNodeLists() bool {
	return p.opt.Trace != nil && p.opt.Trace.Format == sim.FormatSacct
}

// checkWorkload takes the trace's jobs (checking that every recorded node is a
// compute host) or generates the synthetic workload.
func (p *Plan) checkWorkload() error {
	w := &p.Report.Workload
	n := p.Machine.N()
	tr := p.opt.Trace
	if tr == nil {
		if p.partsMatter {
			// Drawn for the default partition, where its jobs go (assignPartitions).
			_, nodes := p.defaultNodes()
			n = max(1, len(nodes))
		}
		p.Jobs = SyntheticWorkload(n, p.opt.SyntheticJobs, p.opt.Seed)
		p.sched = sim.SchedEASY
		w.Source, w.Jobs, w.Seed, w.Sched, w.Description = "synthetic", len(p.Jobs), p.opt.Seed, string(p.sched), SyntheticDescription
		p.Report.Notes = append(p.Report.Notes, "no job history given (--trace): a seeded synthetic workload stands in; the site's own history predicts better")
		return p.assignPartitions()
	}
	w.Source, w.Path, w.Jobs, w.Skipped = "trace", p.opt.TracePath, len(tr.Jobs), tr.Skipped
	if len(tr.Jobs) == 0 {
		return &InputError{p.opt.TracePath, fmt.Errorf("no jobs to replay")}
	}
	p.Jobs = tr.Jobs
	if p.opt.From != "" || p.opt.To != "" {
		// The window's jobs, cut as sim cuts them (Spec.From, Spec.To).
		from, to, err := tr.WindowBounds(p.opt.From, p.opt.To)
		if err != nil {
			return &InputError{p.opt.TracePath, err}
		}
		if p.Jobs, err = sim.Window(tr.Jobs, from, to); err != nil {
			return &InputError{p.opt.TracePath, err}
		}
		w.Jobs = len(p.Jobs)
		w.Window = &HistoryWindow{From: p.opt.From, To: p.opt.To, FromSeconds: from, ToSeconds: to, Jobs: len(p.Jobs), HistoryJobs: len(tr.Jobs)}
	}
	var big []string
	for _, j := range p.Jobs {
		if j.Procs > n {
			big = append(big, fmt.Sprintf("job %d (line %d, %d nodes)", j.ID, j.Line, j.Procs))
		}
	}
	if len(big) > 0 {
		return &InputError{p.opt.TracePath, fmt.Errorf("%d jobs need more nodes than the %d compute hosts: %s: plan replays the site's own history; give this machine's (the compute hosts are the network's hosts that slurm.conf defines), cut to the period of this configuration (sacct -S/-E)", len(big), n, textin.FirstFew(big, 3, ", "))}
	}
	if tr.Format != sim.FormatSacct {
		p.sched = sim.SchedEASY
		w.Sched = string(p.sched)
		p.Report.Notes = append(p.Report.Notes, fmt.Sprintf("the history is a %s trace without start times or node lists: replayed with EASY backfilling, no as-run deployment", tr.Format))
		return p.assignPartitions()
	}
	p.sched = sim.SchedAsRun
	w.Sched = string(p.sched)
	fabric := map[string]bool{}
	if p.opt.Hosts != nil {
		for _, h := range p.opt.Hosts {
			fabric[h] = true
		}
	} else {
		for _, h := range p.Report.UnmatchedHosts {
			fabric[h] = true
		}
		for _, h := range p.Names {
			fabric[h] = true
		}
	}
	compute := make(map[string]bool, len(p.Names))
	for _, h := range p.Names {
		compute[h] = true
	}
	if p.opt.DropUnknownHosts {
		// Every job naming a host that is not a compute host dropped, counted:
		// the checks below then find none.
		missing := map[string]bool{}
		for _, h := range p.Report.MissingNodes {
			missing[h] = true
		}
		slurmHas := false // a dropped host slurm.conf defines (the network lacks it)
		kept, d := sim.DropUnknownHosts(p.Jobs, func(h string) bool {
			slurmHas = slurmHas || missing[h]
			return compute[h]
		})
		if d.Jobs > 0 {
			d.Lacking = "slurm.conf"
			if slurmHas {
				d.Lacking = "slurm.conf or the network"
			}
			if len(kept) == 0 {
				return &InputError{p.opt.TracePath, fmt.Errorf("every job of the history names a host that is not a compute host: %s", d.Note())}
			}
			p.Jobs, w.Jobs, w.DroppedUnknownHosts = kept, len(kept), &d
			p.Report.Caveats = append(p.Report.Caveats, fmt.Sprintf("%s: the replays and the recommendation rest on the %s kept", d.Note(), textin.CountNoun(len(kept), "job")))
		}
	}
	// Each host of a history's table is checked once, when a job first names it
	// (the error lists names in that order, with that job's line).
	const (
		unchecked = iota
		good
		reported
	)
	status := map[*hostlist.Table][]uint8{}
	var notFabric, notCompute []string
	for _, j := range p.Jobs {
		if j.NodeList.Len() != j.Procs {
			return &InputError{p.opt.TracePath, fmt.Errorf("line %d: job %d has %d nodes in its NodeList for NNodes %d", j.Line, j.ID, j.NodeList.Len(), j.Procs)}
		}
		t := j.NodeList.Table()
		st := status[t]
		if len(st) < t.Len() {
			st = append(st, make([]uint8, t.Len()-len(st))...)
			status[t] = st
		}
		for first, length := range j.NodeList.Runs() {
			for id := first; id < first+length; id++ {
				if st[id] != unchecked {
					continue
				}
				st[id] = reported
				switch h := t.Name(id); {
				case !fabric[h]:
					notFabric = append(notFabric, fmt.Sprintf("%s (line %d)", h, j.Line))
				case !compute[h]:
					notCompute = append(notCompute, fmt.Sprintf("%s (line %d)", h, j.Line))
				default:
					st[id] = good
				}
			}
		}
	}
	if len(notFabric) > 0 {
		return &InputError{p.opt.TracePath, &UnknownHostsError{Msg: fmt.Sprintf("%s of the network %s: %s", historyNames(len(notFabric), "not a host", "not hosts"), p.opt.MachineSource, textin.FirstFew(notFabric, 5, ", "))}}
	}
	if len(notCompute) > 0 {
		return &InputError{p.opt.TracePath, &UnknownHostsError{Msg: fmt.Sprintf("%s: %s", historyNames(len(notCompute), "a host of the network but not a node of "+p.opt.SlurmConfPath, "hosts of the network but not nodes of "+p.opt.SlurmConfPath), textin.FirstFew(notCompute, 5, ", "))}}
	}
	return p.assignPartitions()
}

// historyNames is the start of the refusals of a history's node names: "1
// node name of the history is " one, "n node names of the history are " many.
func historyNames(n int, one, many string) string {
	if n == 1 {
		return "1 node name of the history is " + one
	}
	return fmt.Sprintf("%d node names of the history are %s", n, many)
}

// UnknownHostsError is the refusal of a history whose NodeLists name hosts
// that are not compute hosts (not in the network, or not in slurm.conf), with
// the way out: the option that drops their jobs, Options.DropUnknownHosts
// unless Option names another (a command's flag).
type UnknownHostsError struct {
	Msg    string // how many names, which, and what they are not hosts of
	Option string // what drops their jobs; "" for Options.DropUnknownHosts
}

// Error is Msg and the way out.
func (e *UnknownHostsError) Error() string {
	option := e.Option
	if option == "" {
		option = "Options.DropUnknownHosts"
	}
	return e.Msg + " (retired or renamed nodes? " + option + " drops their jobs, counted)"
}

// sizeClass is the report's job-size class of a k-node job: 2, 3-4, 5-8, ...
func sizeClass(k int) (lo, hi int) {
	if k <= 2 {
		return k, k
	}
	hi = 1 << bits.Len(uint(k-1))
	return hi/2 + 1, hi
}

// metricAcc accumulates the placement metrics of jobs of two or more nodes.
type metricAcc struct {
	jobs         int
	hops, leaves float64
	oneLeaf      int
}

func (a *metricAcc) metrics(withLeaves bool) *Metrics {
	m := &Metrics{Jobs: a.jobs}
	if a.jobs == 0 {
		return m
	}
	m.MeanPairwiseHops = a.hops / float64(a.jobs)
	if withLeaves {
		l, pct := a.leaves/float64(a.jobs), 100*float64(a.oneLeaf)/float64(a.jobs)
		m.MeanLeavesSpanned, m.PctOneLeaf = &l, &pct
	}
	return m
}

// replay replays the workload under every supported deployment; results and
// files in deployment order. Without a deadline (rctx == ctx) as many replays run
// at once as there are CPUs (GOMAXPROCS). With one, rctx ends at it: every
// replay runs at once, kept within a few jobs of each other (lockstep), and when
// rctx ends before they have all finished, the report covers the workload's
// first jobs that every deployment replayed, and says so (Workload.Stopped). ctx
// ending (Ctrl-C) is an error, as before.
func (p *Plan) replay(ctx, rctx context.Context) error {
	withLeaves := p.hasLeaves()
	reports := make([]DeploymentReport, len(p.Deployments))
	runs := make([]*replayed, len(p.Deployments))
	errs := make([]error, len(p.Deployments))
	cctx, cancel := context.WithCancel(rctx)
	defer cancel()
	var ls *lockstep
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	if rctx != ctx {
		ls = newLockstep(cctx, len(p.Deployments), lockstepWindow)
		defer ls.close()
		sem = nil
		// Every replay runs at once: the progress is the jobs the slowest has
		// passed on (each 0.5 %), not each replay's start (all in the first
		// moment, when a terminal's progress line is not drawn yet).
		var names []string
		for _, d := range p.Deployments {
			if d.Supported {
				names = append(names, string(d.Kind))
			}
		}
		total := len(p.Jobs)
		stage := fmt.Sprintf("replaying %s", strings.Join(names, ", "))
		ls.step = max(1, total/200)
		ls.onMin = func(m int) { p.progress(fmt.Sprintf("%s: job %d of %d", stage, m, total)) }
	}
	running := &runningReplays{p: p}
	for _, d := range p.Deployments {
		if d.Supported {
			running.total++
		}
	}
	var wg sync.WaitGroup
	for i, d := range p.Deployments {
		reports[i] = DeploymentReport{Name: string(d.Kind), Supported: d.Supported, NeedsVersion: d.Kind.NeedsVersion().String(), Reason: d.Why, Settings: d.Settings, Notes: slices.Clone(d.Notes)}
		if !d.Supported {
			if ls != nil {
				ls.finish(i)
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ls != nil {
				defer ls.finish(i)
			}
			if sem != nil {
				sem <- struct{}{}
				defer func() { <-sem }()
			}
			if cctx.Err() != nil {
				if ctx.Err() != nil {
					errs[i] = context.Cause(ctx)
				} else {
					runs[i] = &replayed{} // the deadline came first: nothing replayed
				}
				return
			}
			if ls == nil {
				running.start(d.Kind)
				defer running.finish(d.Kind)
			}
			var passed func(n int)
			if ls != nil {
				passed = func(n int) { ls.passed(i, n) }
			}
			runs[i], errs[i] = p.replayOne(cctx, d, passed)
			if errs[i] != nil && runs[i] != nil && rctx.Err() != nil && ctx.Err() == nil {
				errs[i] = nil // the deadline: runs[i] holds what was replayed
			}
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil { // Ctrl-C: nothing to report
		return context.Cause(ctx)
	}
	// The first error in deployment order that is not the cancellation it caused.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		return first
	}
	// The jobs every deployment replayed: all of them, or, when the deadline
	// stopped the replays, the first n (trace order) that every one passed on.
	total := len(p.Jobs)
	n := total
	for i, rp := range runs {
		if p.Deployments[i].Supported {
			n = min(n, len(rp.jobs))
		}
	}
	if len(p.unbuilt) > 0 {
		n = 0 // the time limit came during the builds: no replay ran
	}
	if n < total && rctx.Err() == nil {
		return fmt.Errorf("plan: internal error: %d of %d jobs replayed under every deployment, and no deadline", n, total)
	}
	p.sayLimits(n)
	if n < total {
		p.Report.Workload.Stopped = &ReplayStop{Jobs: n, Reason: context.Cause(rctx).Error(), During: "the replays"}
		if len(p.unbuilt) > 0 {
			p.Report.Workload.Stopped.During = "the deployments' builds"
		}
	}
	for i, rp := range runs {
		if rp == nil {
			continue
		}
		if f := p.summarizeReplay(p.Deployments[i], rp, n, &reports[i], withLeaves); f != nil {
			p.Files = append(p.Files, *f)
		}
	}
	p.Report.Deployments = reports
	return nil
}

// runningReplays tells Options.Progress the replays running and how many have
// finished, when they run a few at a time (no deadline): the last one started
// alone named the stage while others ran on.
type runningReplays struct {
	p           *Plan
	mu          sync.Mutex
	now         []Kind
	done, total int
}

func (r *runningReplays) start(k Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = append(r.now, k)
	r.tell()
}

func (r *runningReplays) finish(k Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.Index(r.now, k); i >= 0 {
		r.now = slices.Delete(r.now, i, i+1)
	}
	r.done++
	if len(r.now) > 0 {
		r.tell()
	}
}

// tell reports the stage; r.mu held.
func (r *runningReplays) tell() {
	names := make([]string, len(r.now))
	for i, k := range r.now {
		names[i] = string(k)
	}
	r.p.progress(fmt.Sprintf("replaying %s (%d of %d replays done)", strings.Join(names, ", "), r.done, r.total))
}

// lockstepWindow is how many jobs one replay may pass on ahead of the slowest
// while a deadline may stop them.
const lockstepWindow = 64

// lockstep keeps concurrent replays within a window of jobs of each other, so
// that when a deadline stops them the jobs every one replayed are about as many
// as the slowest could replay in the time all of them had.
type lockstep struct {
	mu     sync.Mutex
	cond   *sync.Cond
	n      []int  // jobs passed on by each replay
	active []bool // replays not finished
	window int
	min    int // least n over active replays
	wakeAt int // broadcast once min reaches it (math.MaxInt: nobody waits)
	stop   func() bool
	ctx    context.Context
	// onMin, when set, is told min each time it reaches next (then next += step),
	// l.mu held: the progress of the replays as a whole (Options.Progress).
	onMin      func(min int)
	next, step int
}

func newLockstep(ctx context.Context, replays, window int) *lockstep {
	l := &lockstep{n: make([]int, replays), active: make([]bool, replays), window: window, wakeAt: math.MaxInt, ctx: ctx}
	for i := range l.active {
		l.active[i] = true
	}
	l.cond = sync.NewCond(&l.mu)
	// Waiters wake when ctx ends: the replays then stop at their next look.
	l.stop = context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	return l
}

func (l *lockstep) close() { l.stop() }

// update recomputes min and wakes the waiters once it reaches wakeAt; l.mu held.
func (l *lockstep) update() {
	m := math.MaxInt
	for i, a := range l.active {
		if a {
			m = min(m, l.n[i])
		}
	}
	l.min = m
	if l.onMin != nil && m != math.MaxInt && m >= l.next {
		l.next = m + l.step
		l.onMin(m)
	}
	if m >= l.wakeAt {
		l.wakeAt = math.MaxInt
		l.cond.Broadcast()
	}
}

// passed records that replay i has passed on n jobs, and waits while it is more
// than the window ahead of the slowest active replay (until ctx ends).
func (l *lockstep) passed(i, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n[i] = n
	if l.n[i] > l.min+l.window || n-1 == l.min {
		l.update()
	}
	for n > l.min+l.window && l.ctx.Err() == nil {
		// Wake at half the window, not at every job the slowest passes on.
		l.wakeAt = min(l.wakeAt, n-l.window/2)
		l.cond.Wait()
	}
}

// finish takes replay i out of the lockstep (finished, failed or not run).
func (l *lockstep) finish(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[i] = false
	l.wakeAt = 0 // the slowest may have gone: every waiter looks again
	l.update()
}

// replaySetup, when set (by a test), is called as each replay's setup starts
// (atomic: an abandoned setup may start after the test has moved on).
var replaySetup atomic.Pointer[func(k Kind)]

// jobPassed, when set (by a test), is told each job a replay passes on.
var jobPassed func(k Kind, n int)

// replayed is one deployment's replay: each job it passed on (trace order) and its
// predictions, to be summarized over the jobs every deployment replayed.
type replayed struct {
	jobs    []replayedJob
	res     *sim.Result  // the replay's summary; nil when stopped before any job
	pred    bytes.Buffer // the predictions' CSV, when there is a trace
	predEnd []int        // end of each job's line in pred
	pending int          // jobs placed although Slurm would leave them pending
	refused int          // jobs placed although Slurm refuses them at submission
}

// replayedJob is what the report needs of one job of a replay.
type replayedJob struct {
	k, spanned int32   // nodes; leaf switches spanned (k >= 2)
	hops       float64 // mean pairwise hops (sim.JobResult.AvgL1)
	wait       int64   // seconds from arrival to start
	waited     bool    // waited for a release of its partition's nodes (JobResult.WaitedForBlock)
}

// replayOne replays the workload under deployment d. passed, when set, is told
// the jobs passed on so far after each (it may wait: lockstep). When ctx ends the
// replay stops, and what it replayed is returned with ctx's cause.
func (p *Plan) replayOne(ctx context.Context, d *Deployment, passed func(n int)) (*replayed, error) {
	rp := &replayed{}
	var pc *pendingCounter
	predict := p.opt.Trace != nil
	var a alloc.Allocator
	// The predictions' node lists: a job's nodes by their place in natural name
	// order (byName), sorted, compressed by a Compressor of the names in that order.
	var byName []int32
	var comp *hostlist.Compressor
	// The emulator and the names' sort take about half a second at 10^5 hosts and
	// look at no context: run where ctx stops the wait (untilDone).
	err := untilDone(ctx, func() error {
		if f := replaySetup.Load(); f != nil {
			(*f)(d.Kind)
		}
		var err error
		if a, err = d.Allocator(); err != nil {
			return err
		}
		if predict {
			if byName, comp, err = nameRanks(d.names); err != nil {
				return fmt.Errorf("deployment %s: %w", d.Kind, err)
			}
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return rp, context.Cause(ctx)
		}
		return nil, err
	}
	if d.Kind != KindAsRun {
		em, ok := a.(emulator)
		if !ok {
			return nil, fmt.Errorf("deployment %s: internal error: emulator %s cannot keep jobs in their partitions: %w", d.Kind, a.Name(), alloc.ErrNoRestriction)
		}
		// With an emulator that keeps views (the Slurm emulations) the
		// partitions are its views (sim's partitions, alloc.Mask.Views).
		pc = newPendingCounter(em)
		a = pc.replayed()
	}
	if predict {
		rp.pred.WriteString("job_id,line,submit,start,end,nodes,node_list\n")
		rp.predEnd = make([]int, 0, len(p.Jobs))
	}
	rp.jobs = make([]replayedJob, 0, len(p.Jobs))
	maxLeaf := int32(-1)
	for _, l := range p.leaf {
		maxLeaf = max(maxLeaf, l)
	}
	stamp := make([]int32, maxLeaf+2) // leaf+1 -> the job that last saw it
	gen := int32(0)
	var ranks []int32
	var rankBits []uint64 // sortRanks' bitmap, one bit a node, zero between jobs
	if predict {
		rankBits = make([]uint64, (len(byName)+63)/64)
	}
	var line, hl []byte
	done := func(r *sim.JobResult) error {
		k := len(r.Nodes)
		if predict {
			ranks = ranks[:0]
			for _, v := range r.Nodes {
				ranks = append(ranks, byName[v])
			}
			if !slices.IsSorted(ranks) { // emulators taking nodes in name order give them sorted
				sortRanks(ranks, rankBits)
			}
			// job_id,line,submit,start,end,nodes,"node_list"
			line = line[:0]
			for _, x := range [...]int64{int64(r.ID), int64(r.Line), r.Arrival, r.Start, r.End, int64(k)} {
				line = append(strconv.AppendInt(line, x, 10), ',')
			}
			hl = comp.Append(hl[:0], ranks)
			line = append(appendCSVQuoted(line, hl), '\n')
			rp.pred.Write(line)
			rp.predEnd = append(rp.predEnd, rp.pred.Len())
		}
		// WaitedForBlock: refused by its partition's nodes at its recorded start
		// (sim's partitions).
		j := replayedJob{k: int32(k), hops: r.AvgL1, wait: r.Wait(), waited: r.WaitedForBlock}
		if k >= 2 {
			gen++
			for _, v := range r.Nodes {
				l := p.leaf[v] + 1 // -1 (no leaf) counts as one group
				if stamp[l] != gen {
					stamp[l] = gen
					j.spanned++
				}
			}
		}
		rp.jobs = append(rp.jobs, j)
		if jobPassed != nil {
			jobPassed(d.Kind, len(rp.jobs))
		}
		if passed != nil {
			passed(len(rp.jobs))
		}
		return nil
	}
	cfg := sim.Config{Machine: p.Machine, Alloc: a, Sched: p.sched, Metrics: sim.MetricsSched | sim.MetricsDist, DropNodes: true, NoPerJob: true, JobDone: done, Partitions: p.replayParts}
	rp.res, err = sim.Run(ctx, p.Jobs, cfg)
	if pc != nil {
		rp.pending, rp.refused = pc.pending, pc.refused
	}
	if err != nil {
		if ctx.Err() != nil {
			return rp, context.Cause(ctx)
		}
		return nil, fmt.Errorf("replaying deployment %s: %w", d.Kind, err)
	}
	return rp, nil
}

// nameRanks returns each node's place in natural name order and a Compressor of
// the names in that order.
func nameRanks(names []string) ([]int32, *hostlist.Compressor, error) {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return hostlist.NaturalCompare(names[a], names[b]) })
	byName := make([]int32, len(order))
	sortedNames := make([]string, len(order))
	for i, v := range order {
		byName[v] = int32(i)
		sortedNames[i] = names[v]
	}
	comp, err := hostlist.NewCompressor(sortedNames)
	if err != nil {
		return nil, nil, err
	}
	return byName, comp, nil
}

// summarizeReplay fills deployment d's report from the first n jobs of its replay
// rp (every job when n is the workload's) and returns its predictions file, if
// any.
func (p *Plan) summarizeReplay(d *Deployment, rp *replayed, n int, dr *DeploymentReport, withLeaves bool) *File {
	var all metricAcc
	bySize := map[int]*metricAcc{}
	wait := 0.0
	waited := 0
	for _, j := range rp.jobs[:n] {
		wait += float64(j.wait)
		if j.waited {
			waited++
		}
		if j.k < 2 {
			continue
		}
		lo, _ := sizeClass(int(j.k))
		acc := bySize[lo]
		if acc == nil {
			acc = &metricAcc{}
			bySize[lo] = acc
		}
		for _, x := range []*metricAcc{&all, acc} {
			x.jobs++
			x.hops += j.hops
			x.leaves += float64(j.spanned)
			if j.spanned == 1 {
				x.oneLeaf++
			}
		}
	}
	complete := n == len(p.Jobs)
	dr.Metrics = all.metrics(withLeaves)
	switch {
	case complete && rp.res != nil:
		dr.Metrics.MeanWait = rp.res.MeanWait
	case n > 0:
		dr.Metrics.MeanWait = wait / float64(n)
	}
	los := make([]int, 0, len(bySize))
	for lo := range bySize {
		los = append(los, lo)
	}
	slices.Sort(los)
	for _, lo := range los {
		l, h := sizeClass(lo)
		label := fmt.Sprint(l)
		if h != l {
			label = fmt.Sprintf("%d-%d", l, h)
		}
		dr.BySize = append(dr.BySize, SizeMetrics{Class: label, MinNodes: l, MaxNodes: h, Metrics: bySize[lo].metrics(withLeaves)})
	}
	among := ""
	if !complete {
		// The emulator counts as it places, not by job: these are the jobs it had
		// started when the replay stopped, n of them or more.
		among = fmt.Sprintf(" among the jobs its replay had started when the time limit stopped it (%d or more)", len(rp.jobs))
	}
	dr.Refused, dr.Pending, dr.Waited = rp.refused, rp.pending, waited
	dr.Notes = append(dr.Notes, deploymentNotes(rp.refused, rp.pending, waited, among)...)
	if p.opt.Trace == nil || n == 0 {
		return nil
	}
	name := "predictions/" + string(d.Kind) + ".csv"
	data := rp.pred.Bytes()
	if !complete {
		// Named so that it is not taken for the whole history's.
		name = fmt.Sprintf("predictions/%s.first-%d-jobs.csv", d.Kind, n)
		data = data[:rp.predEnd[n-1]]
	}
	dr.Predictions = name
	return &File{Name: name, Data: data}
}

// sortRanks sorts distinct ranks (0 to 64 len(bm) - 1): a job of more than a
// 256th of the nodes through the bitmap bm (left zero), O(k + n/64), a smaller one
// by comparisons (a 5,000-node job of a 10^5-node machine sorted in about a fifth
// of a millisecond, in every replay).
func sortRanks(ranks []int32, bm []uint64) {
	if len(ranks) <= 64*len(bm)/256 {
		slices.Sort(ranks)
		return
	}
	for _, r := range ranks {
		bm[r>>6] |= 1 << (r & 63)
	}
	out := ranks[:0]
	for wi, w := range bm {
		for w != 0 {
			out = append(out, int32(wi<<6+bits.TrailingZeros64(w)))
			w &= w - 1
		}
		bm[wi] = 0
	}
}

// appendCSVQuoted appends s to dst as a quoted CSV field, as encoding/csv writes
// one (RFC 4180): in double quotes, a quote inside doubled, every other byte as it
// is. The predictions' node_list is always quoted (a hostlist's commas).
// strconv.AppendQuote, used before, wrote Go's escapes: a node named a\1
// (slurm.conf's "a\\1") came out as "a\\1", which CSV readers read as a\\1.
func appendCSVQuoted(dst, s []byte) []byte {
	dst = append(dst, '"')
	for {
		i := bytes.IndexByte(s, '"')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '"')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// deploymentNotes are a deployment's notes on the jobs its replay could not start
// as production did: refused by size, pending (no switch or block holds them) and
// waited (too few free nodes when production started them); among qualifies the
// counts when a time limit cut the replay. A count of 1 is said in the singular.
func deploymentNotes(refused, pending, waited int, among string) []string {
	var notes []string
	if refused > 0 {
		notes = append(notes, fmt.Sprintf("%s%s %s a size Slurm refuses at submission under this deployment (here placed on the lowest free nodes, so that every deployment runs the same schedule)", textin.CountNoun(refused, "job"), among, pick(refused, "has", "have")))
	}
	if pending > 0 {
		them := pick(pending, "it", "them")
		notes = append(notes, fmt.Sprintf("%s%s found no switch or block holding %s: Slurm would leave %s pending (here placed on the lowest free nodes, so that every deployment runs the same schedule)", textin.CountNoun(pending, "job"), among, them, them))
	}
	if waited > 0 {
		them := pick(waited, "it", "them")
		notes = append(notes, fmt.Sprintf("%s found too few free nodes in %s partition when production started %s (other jobs' placements under this deployment took them): %s waited for a release, as Slurm would have kept %s pending, so this deployment's schedule differs from production's for %s", textin.CountNoun(waited, "job"), pick(waited, "its", "their"), them, pick(waited, "it", "they"), them, them))
	}
	return notes
}

// pick is one when n is 1, else many: the word agreeing with a count.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
