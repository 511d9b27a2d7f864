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
	"sync"

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
	var big []string
	for _, j := range tr.Jobs {
		if j.Procs > n {
			big = append(big, fmt.Sprintf("job %d (line %d, %d nodes)", j.ID, j.Line, j.Procs))
		}
	}
	if len(big) > 0 {
		return &InputError{p.opt.TracePath, fmt.Errorf("%d jobs need more nodes than the %d compute hosts: %s", len(big), n, firstFew(big, 3))}
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
	// Each host of a history's table is checked once, when a job first names it
	// (the error lists names in that order, with that job's line).
	const (
		unchecked = iota
		good
		reported
	)
	status := map[*hostlist.Table][]uint8{}
	var notFabric, notCompute []string
	for _, j := range tr.Jobs {
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
		return &InputError{p.opt.TracePath, fmt.Errorf("%d node names of the history are not hosts of the network %s: %s", len(notFabric), p.opt.MachineSource, firstFew(notFabric, 5))}
	}
	if len(notCompute) > 0 {
		return &InputError{p.opt.TracePath, fmt.Errorf("%d node names of the history are hosts of the network but not nodes of %s: %s", len(notCompute), p.opt.SlurmConfPath, firstFew(notCompute, 5))}
	}
	return p.assignPartitions()
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

// replay replays the workload under every supported deployment, as many at once
// as there are CPUs (GOMAXPROCS); results and files in deployment order.
func (p *Plan) replay(ctx context.Context) error {
	withLeaves := p.hasLeaves()
	reports := make([]DeploymentReport, len(p.Deployments))
	preds := make([]*File, len(p.Deployments))
	errs := make([]error, len(p.Deployments))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, d := range p.Deployments {
		reports[i] = DeploymentReport{Name: string(d.Kind), Supported: d.Supported, NeedsVersion: d.Kind.NeedsVersion().String(), Reason: d.Why, Settings: d.Settings, Notes: slices.Clone(d.Notes)}
		if !d.Supported {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = context.Cause(ctx)
				return
			}
			p.progress("replaying " + string(d.Kind))
			if preds[i], errs[i] = p.replayOne(ctx, d, &reports[i], withLeaves); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
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
	p.Report.Deployments = reports
	for _, f := range preds {
		if f != nil {
			p.Files = append(p.Files, *f)
		}
	}
	return nil
}

func (p *Plan) replayOne(ctx context.Context, d *Deployment, dr *DeploymentReport, withLeaves bool) (*File, error) {
	a, err := d.Allocator()
	if err != nil {
		return nil, err
	}
	var pc *pendingCounter
	if d.Kind != KindAsRun {
		pc = newPendingCounter(a)
		a = pc
	}
	var all metricAcc
	bySize := map[int]*metricAcc{}
	var pred bytes.Buffer // its bytes become the file: no copy
	predict := p.opt.Trace != nil
	if predict {
		pred.WriteString("job_id,line,submit,start,end,nodes,node_list\n")
	}
	maxLeaf := int32(-1)
	for _, l := range p.leaf {
		maxLeaf = max(maxLeaf, l)
	}
	stamp := make([]int32, maxLeaf+2) // leaf+1 -> the job that last saw it
	gen := int32(0)
	// The predictions' node lists: a job's nodes by their place in natural name
	// order (byName), sorted, compressed by a Compressor of the names in that order.
	var byName []int32
	var ranks []int32
	var rankBits []uint64 // sortRanks' bitmap, one bit a node, zero between jobs
	var comp *hostlist.Compressor
	var line, hl []byte
	if predict {
		order := make([]int, len(d.names))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return hostlist.NaturalCompare(d.names[a], d.names[b]) })
		byName = make([]int32, len(order))
		sortedNames := make([]string, len(order))
		for i, v := range order {
			byName[v] = int32(i)
			sortedNames[i] = d.names[v]
		}
		if comp, err = hostlist.NewCompressor(sortedNames); err != nil {
			return nil, fmt.Errorf("deployment %s: %w", d.Kind, err)
		}
		rankBits = make([]uint64, (len(order)+63)/64)
	}
	waited := 0
	done := func(r *sim.JobResult) error {
		k := len(r.Nodes)
		if r.WaitedForBlock {
			waited++ // refused by its partition's nodes at its recorded start (sim's partitions)
		}
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
			line = append(strconv.AppendQuote(line, string(hl)), '\n')
			pred.Write(line)
		}
		if k < 2 {
			return nil
		}
		gen++
		spanned := 0
		for _, v := range r.Nodes {
			l := p.leaf[v] + 1 // -1 (no leaf) counts as one group
			if stamp[l] != gen {
				stamp[l] = gen
				spanned++
			}
		}
		lo, _ := sizeClass(k)
		acc := bySize[lo]
		if acc == nil {
			acc = &metricAcc{}
			bySize[lo] = acc
		}
		for _, x := range []*metricAcc{&all, acc} {
			x.jobs++
			x.hops += r.AvgL1
			x.leaves += float64(spanned)
			if spanned == 1 {
				x.oneLeaf++
			}
		}
		return nil
	}
	cfg := sim.Config{Machine: p.Machine, Alloc: a, Sched: p.sched, Metrics: sim.MetricsSched | sim.MetricsDist, DropNodes: true, NoPerJob: true, JobDone: done, Partitions: p.replayParts}
	res, err := sim.Run(ctx, p.Jobs, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("replaying deployment %s: %w", d.Kind, err)
	}
	dr.Metrics = all.metrics(withLeaves)
	dr.Metrics.MeanWait = res.MeanWait
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
	if pc != nil && pc.refused > 0 {
		dr.Refused = pc.refused
		dr.Notes = append(dr.Notes, fmt.Sprintf("%d jobs have a size Slurm refuses at submission under this deployment (here placed on the lowest free nodes, so that every deployment runs the same schedule)", pc.refused))
	}
	if pc != nil && pc.pending > 0 {
		dr.Pending = pc.pending
		dr.Notes = append(dr.Notes, fmt.Sprintf("%d jobs found no switch or block holding them: Slurm would leave them pending (here placed on the lowest free nodes, so that every deployment runs the same schedule)", pc.pending))
	}
	if waited > 0 {
		dr.Waited = waited
		dr.Notes = append(dr.Notes, fmt.Sprintf("%d jobs found too few free nodes in their partition when production started them (other jobs' placements under this deployment took them): they waited for a release, as Slurm would have kept them pending, so this deployment's schedule differs from production's for them", waited))
	}
	if predict {
		name := "predictions/" + string(d.Kind) + ".csv"
		dr.Predictions = name
		return &File{Name: name, Data: pred.Bytes()}, nil
	}
	return nil, nil
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
