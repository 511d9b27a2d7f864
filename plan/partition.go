package plan

import (
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
)

// Partitions. Slurm places a job on the nodes of its partition only (the select
// plugin is given the partition's available nodes), so the replays keep each job
// in its partition under every deployment (sim.Config.Partitions: the nodes
// outside it busy for its decision, alloc.Mask): an sacct job in the partition it ran in (sacct's
// Partition), a job that names none (SWF and converted traces, the synthetic
// workload, an sacct trace without the column) in the default partition, where
// Slurm puts a job submitted without -p. When every partition holds every compute
// host this changes nothing and the plan is the one without partitions.

// planPartition is a partition of slurm.conf on the compute hosts.
type planPartition struct {
	name  string
	line  int
	nodes []int // compute nodes (indices of Plan.Machine), ascending
}

// partitionSets builds p.parts from slurm.conf's partitions on the compute hosts
// (slurm.PartitionsOn: a partition's nodes that are not compute hosts are left
// out) and says whether they restrict the replays (p.partsMatter: some
// partition lacks a compute host).
func (p *Plan) partitionSets(parts []slurm.ConfPartition) {
	n := len(p.Names)
	p.mparts = slurm.PartitionsOn(parts, p.Names, p.computeSet)
	for i, cp := range parts {
		pp := planPartition{name: cp.Name, line: cp.Line, nodes: p.mparts.Nodes[i]}
		if len(pp.nodes) < n {
			p.partsMatter = true
		}
		p.parts = append(p.parts, pp)
	}
}

// defaultNodes is the partition of jobs that name none (slurm's
// MachinePartitions.DefaultNodes): the default partition's name and nodes,
// else (no Default=YES) every partition's nodes, with a warning.
func (p *Plan) defaultNodes() (string, []int) {
	name, nodes, _ := p.mparts.DefaultNodes()
	return name, nodes
}

// assignPartitions sets each job's partition for the replay (p.Jobs, a copy of
// the history's jobs) and the replay's partitions (p.replayParts), and fills the
// report's counts: sim.AssignPartitions, the assignment procalloc sim
// --slurm-conf makes too. Only when the partitions restrict the replay
// (p.partsMatter).
func (p *Plan) assignPartitions() error {
	r := &p.Report
	if !p.partsMatter || len(p.parts) == 0 {
		if p.mparts != nil && p.opt.Trace != nil {
			// Partitions holding every host: the jobs are not kept in them,
			// but their State and limits are said of the history all the
			// same.
			if jp, err := sim.AssignPartitions(p.Jobs, p.mparts, p.computeSet, p.opt.SlurmConfPath); err == nil {
				p.limitWarnings(jp.Keys)
			}
		}
		return nil
	}
	tr := p.opt.Trace
	jp, err := sim.AssignPartitions(p.Jobs, p.mparts, p.computeSet, p.opt.SlurmConfPath)
	if err != nil {
		return &InputError{p.opt.TracePath, err}
	}
	if tr != nil {
		p.limitWarnings(jp.Keys)
	}
	p.Jobs = slices.Clone(p.Jobs)
	for i := range p.Jobs {
		p.Jobs[i].Partition = jp.Keys[i]
	}
	p.replayParts = jp.Nodes
	if jp.UnknownWarning != "" {
		r.Warnings = append(r.Warnings, jp.UnknownWarning)
	}
	if note := jp.UnionNote(); note != "" {
		r.Notes = append(r.Notes, note)
	}
	if unnamed := jp.Unnamed; unnamed > 0 {
		where := "the default partition " + jp.Default
		if jp.NoDefault {
			where = "the nodes of every partition"
			r.Warnings = append(r.Warnings, p.opt.SlurmConfPath+": "+slurm.NoDefaultWarning(unnamed))
		}
		what := "its jobs name no partition"
		switch {
		case tr == nil:
			what = "the synthetic workload names no partition"
		case tr.Format != sim.FormatSacct:
			what = fmt.Sprintf("a %s trace names no Slurm partition (SWF's partition number is not read)", tr.Format)
		case unnamed < len(p.Jobs):
			what = fmt.Sprintf("%d of its jobs name no partition (sacct's Partition empty)", unnamed)
		default:
			what = "the sacct history has no Partition (sacct -o ...,Partition,...)"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s: replayed in %s (%d compute hosts), where Slurm places jobs submitted without -p", what, where, len(jp.DefaultNodes)))
	}
	// The report's counts, in slurm.conf order, then the unions.
	count := map[string]int{}
	for _, j := range p.Jobs {
		count[j.Partition]++
	}
	for _, pp := range p.parts {
		r.Workload.Partitions = append(r.Workload.Partitions, PartitionJobs{Name: pp.name, Hosts: len(pp.nodes), Jobs: count[pp.name]})
		delete(count, pp.name)
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r.Workload.Partitions = append(r.Workload.Partitions, PartitionJobs{Name: k, Hosts: len(p.replayParts[k]), Jobs: count[k]})
	}
	return nil
}

// limitWarnings keeps the jobs of the history (in the partitions keys gives
// them, by job) whose partition State, MaxNodes, MinNodes or MaxTime
// slurm.conf's partitions would have kept from running: sayLimits says them
// once the replays tell how many jobs were replayed.
func (p *Plan) limitWarnings(keys []string) {
	p.limitJobs = slices.Clone(p.Jobs)
	for i := range p.limitJobs {
		p.limitJobs[i].Partition = keys[i]
	}
	p.limitAt = len(p.Report.Warnings)
}

// sayLimits adds the warnings of the first n jobs (the jobs replayed, in trace
// order) that limitWarnings kept, where limitWarnings was called among the
// report's warnings: sim.PartitionLimitWarnings, what procalloc sim
// --slurm-conf says; the replays run them as the history did.
func (p *Plan) sayLimits(n int) {
	if p.limitJobs == nil {
		return
	}
	var ws []string
	for _, w := range sim.PartitionLimitWarnings(p.limitJobs[:min(n, len(p.limitJobs))], p.mparts.Conf) {
		ws = append(ws, p.opt.SlurmConfPath+": "+w)
	}
	p.Report.Warnings = slices.Insert(p.Report.Warnings, min(p.limitAt, len(p.Report.Warnings)), ws...)
	p.limitJobs = nil
}
