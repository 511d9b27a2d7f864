package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
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
	nodes []int  // compute nodes (indices of Plan.Machine), ascending
	in    []bool // by compute node
}

// partitionSets builds p.parts from slurm.conf's partitions on the compute hosts
// (slurm.PartitionsOn: a partition's nodes that are not compute hosts are left
// out) and says whether they restrict the replays (p.partsMatter: some
// partition lacks a compute host).
func (p *Plan) partitionSets(parts []slurm.ConfPartition) {
	n := len(p.Names)
	p.mparts = slurm.PartitionsOn(parts, p.Names, p.computeSet)
	for i, cp := range parts {
		pp := planPartition{name: cp.Name, line: cp.Line, nodes: p.mparts.Nodes[i], in: make([]bool, n)}
		for _, v := range pp.nodes {
			pp.in[v] = true
		}
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
// report's counts. Only when the partitions restrict the replay (p.partsMatter).
func (p *Plan) assignPartitions() error {
	if !p.partsMatter || len(p.parts) == 0 {
		return nil
	}
	r := &p.Report
	tr := p.opt.Trace
	p.Jobs = slices.Clone(p.Jobs)
	p.replayParts = map[string][]int{}
	dkey, dnodes := p.defaultNodes()
	noDefault := p.mparts.Default < 0
	unknown := map[string]int{} // partitions slurm.conf lacks -> jobs
	var unknownFirst []string
	unnamed, unions := 0, 0
	// The history's node names by table id -> compute node (-1: none); the jobs
	// of a trace share one table.
	var table *hostlist.Table
	var idNode []int32
	nodeOf := func(l hostlist.List, id int32) int32 {
		if t := l.Table(); t != table {
			table, idNode = t, idNode[:0]
		}
		for int(id) >= len(idNode) {
			v, ok := p.computeSet[table.Name(int32(len(idNode)))]
			if !ok {
				v = -1
			}
			idNode = append(idNode, int32(v))
		}
		return idNode[id]
	}
	// outside returns the name of the first recorded node of j for which in is
	// false (or that is no compute host), "" when there is none.
	outside := func(j *sim.Job, in func(v int32) bool) string {
		for first, length := range j.NodeList.Runs() {
			for id := first; id < first+length; id++ {
				if v := nodeOf(j.NodeList, id); v < 0 || !in(v) {
					return j.NodeList.Table().Name(id)
				}
			}
		}
		return ""
	}
	use := func(key string, nodes []int) {
		if _, ok := p.replayParts[key]; !ok {
			p.replayParts[key] = nodes
		}
	}
	inDefault := func(v int32) bool { _, ok := slices.BinarySearch(dnodes, int(v)); return ok }
	for i := range p.Jobs {
		j := &p.Jobs[i]
		var idx []int
		for _, name := range strings.Split(j.Partition, ",") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			if k := p.mparts.Index(name); k >= 0 {
				idx = append(idx, k)
			} else {
				if unknown[name] == 0 {
					unknownFirst = append(unknownFirst, fmt.Sprintf("%s (line %d)", name, j.Line))
				}
				unknown[name]++
			}
		}
		if len(idx) == 0 {
			// No partition, or none slurm.conf has: the default one, as Slurm
			// places a job submitted without -p.
			if j.Partition == "" {
				unnamed++
			}
			if noDefault && len(dnodes) == 0 {
				return &InputError{p.opt.TracePath, fmt.Errorf("line %d: job %d names no partition of %s, which has no Default=YES partition and no partition holding a compute host", j.Line, j.ID, p.opt.SlurmConfPath)}
			}
			if tr != nil && j.NodeList.Len() > 0 {
				if h := outside(j, inDefault); h != "" {
					what, hint := "names no partition", fmt.Sprintf("add Partition to sacct's -o (sacct -o %s)", sim.SacctFields)
					if j.Partition != "" {
						what = fmt.Sprintf("ran in partition %s, which %s lacks", j.Partition, p.opt.SlurmConfPath)
						hint = "cut the history to the period of this slurm.conf (sacct -S/-E)"
					}
					return &InputError{p.opt.TracePath, fmt.Errorf("line %d: job %d %s, and its node %s is not in the default partition %s where it would be replayed: %s, or give the slurm.conf the history ran under", j.Line, j.ID, what, h, dkey, hint)}
				}
			}
			if j.Procs > len(dnodes) {
				return &InputError{p.opt.TracePath, fmt.Errorf("line %d: job %d needs %d nodes, the default partition %s has %d compute hosts", j.Line, j.ID, j.Procs, dkey, len(dnodes))}
			}
			j.Partition = dkey
			use(dkey, dnodes)
			continue
		}
		// The partition that holds the recorded nodes, the first listed (a job
		// submitted to several ran in one); without a node list, the first.
		chosen := -1
		for _, k := range idx {
			pp := &p.parts[k]
			if j.NodeList.Len() == 0 || outside(j, func(v int32) bool { return pp.in[v] }) == "" {
				chosen = k
				break
			}
		}
		if chosen >= 0 {
			pp := &p.parts[chosen]
			if j.Procs > len(pp.nodes) {
				return &InputError{p.opt.TracePath, fmt.Errorf("line %d: job %d needs %d nodes, its partition %s has %d compute hosts", j.Line, j.ID, j.Procs, pp.name, len(pp.nodes))}
			}
			j.Partition = pp.name
			use(pp.name, pp.nodes)
			continue
		}
		if len(idx) > 1 {
			// A heterogeneous job whose components ran in different partitions:
			// the union of its partitions, if it holds the nodes.
			inAny := func(v int32) bool {
				for _, k := range idx {
					if p.parts[k].in[v] {
						return true
					}
				}
				return false
			}
			if outside(j, inAny) == "" {
				var names []string
				var nodes []int
				for v := range p.Names {
					if inAny(int32(v)) {
						nodes = append(nodes, v)
					}
				}
				for _, k := range idx {
					names = append(names, p.parts[k].name)
				}
				key := strings.Join(names, ",")
				j.Partition = key
				use(key, nodes)
				unions++
				continue
			}
		}
		pp := &p.parts[idx[0]]
		h := outside(j, func(v int32) bool { return pp.in[v] })
		return &InputError{p.opt.TracePath, fmt.Errorf("line %d: job %d ran on %s, which is not in its partition %s (%s line %d): the history is of another configuration; cut it to the period of this slurm.conf (sacct -S/-E) or give the slurm.conf it ran under", j.Line, j.ID, h, pp.name, p.opt.SlurmConfPath, pp.line)}
	}
	if len(unknown) > 0 {
		total := 0
		for _, c := range unknown {
			total += c
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d jobs of the history ran in partitions %s does not have (%s): they are replayed in the default partition %s, as jobs submitted without -p (Slurm would refuse -p with an unknown partition)", total, p.opt.SlurmConfPath, textin.FirstFew(unknownFirst, 5, ", "), dkey))
	}
	if unions > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d heterogeneous jobs ran in several partitions: each is replayed on the nodes of all of them (Slurm places each component in its own)", unions))
	}
	if unnamed > 0 {
		where := "the default partition " + dkey
		if noDefault {
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
		r.Notes = append(r.Notes, fmt.Sprintf("%s: replayed in %s (%d compute hosts), where Slurm places jobs submitted without -p", what, where, len(dnodes)))
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
