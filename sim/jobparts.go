package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// JobPartitions is where each job of a history is replayed on slurm.conf's
// partitions on a machine (AssignPartitions): the one assignment procalloc sim
// --slurm-conf and procalloc plan share.
type JobPartitions struct {
	// Keys[i] is job i's replay partition: a partition of slurm.conf, the
	// default one (a job naming none, or only partitions slurm.conf lacks),
	// slurm.EveryPartition (the same without a Default=YES partition), or the
	// comma-joined names of a heterogeneous job's partitions ("a,b").
	Keys []string
	// Nodes is each key's nodes (indices of the machine, ascending): the
	// replay's Config.Partitions, for the keys of some job only.
	Nodes map[string][]int
	// Default is the default partition's name (MachinePartitions.DefaultNodes),
	// slurm.EveryPartition when slurm.conf has no Default=YES partition.
	Default string
	// DefaultNodes is Default's nodes (indices of the machine, ascending).
	DefaultNodes []int
	// NoDefault says slurm.conf has no Default=YES partition.
	NoDefault bool
	Unnamed   int // jobs naming no partition
	Unions    int // heterogeneous jobs replayed on the union of their partitions
	// UnknownWarning says how many jobs ran in partitions slurm.conf lacks
	// (replayed in the default partition); "" when none did.
	UnknownWarning string
	// DroppedLarger counts the jobs larger than their partition left without a
	// key (Keys[i] == "") when they are dropped (Spec.DropLarger) rather than
	// refused.
	DroppedLarger int
}

// UnionNote says how the heterogeneous jobs are replayed ("" when there is none).
func (jp *JobPartitions) UnionNote() string {
	if jp.Unions == 0 {
		return ""
	}
	return fmt.Sprintf("%d heterogeneous jobs ran in several partitions: each is replayed on the nodes of all of them (Slurm places each component in its own)", jp.Unions)
}

// largerError is a job larger than its partition: its text is the one plan
// gave, and it is ErrLargerThanPartition (errors.Is).
type largerError struct{ text string }

func (e largerError) Error() string { return e.text }
func (e largerError) Unwrap() error { return ErrLargerThanPartition }

// AssignPartitions gives each of jobs the partition it is replayed in, on
// mp (slurm.PartitionsOn of the machine's nodes); nodeIndex maps the Slurm
// names of the recorded node lists (Job.NodeList) to the machine's nodes, and
// conf is slurm.conf's path for the messages. A job's Partition is sacct's,
// comma-joined for a heterogeneous job's components or a job submitted to
// several:
//
//   - of the listed partitions slurm.conf has, the first that holds the
//     job's recorded nodes (all of them, when it has no node list);
//   - else, for several, their union when it holds the nodes (a heterogeneous
//     job whose components ran in different partitions; Unions, UnionNote);
//   - a job naming none, or only partitions slurm.conf lacks (removed since):
//     the default partition (DefaultNodes; without a Default=YES partition the
//     nodes of every partition), as Slurm places a job submitted without -p,
//     after checking its recorded nodes are there (UnknownWarning, Unnamed).
//
// A recorded node outside the job's partition (or not on the machine), a job
// with more nodes (Job.Procs) than its partition, and a job naming no
// partition when no partition has a node are errors naming the job's line
// (the history is of another configuration); the size error is
// ErrLargerThanPartition.
func AssignPartitions(jobs []Job, mp *slurm.MachinePartitions, nodeIndex map[string]int, conf string) (*JobPartitions, error) {
	return assignPartitions(jobs, mp, nodeIndex, conf, false)
}

// assignPartitions is AssignPartitions; with dropLarger a job larger than its
// partition gets no key and is counted (DroppedLarger) instead of refused, as
// Spec.DropLarger drops a job larger than the machine.
func assignPartitions(jobs []Job, mp *slurm.MachinePartitions, nodeIndex map[string]int, conf string, dropLarger bool) (*JobPartitions, error) {
	jp := &JobPartitions{Keys: make([]string, len(jobs)), Nodes: map[string][]int{}}
	dkey, dnodes, union := mp.DefaultNodes()
	jp.Default, jp.DefaultNodes, jp.NoDefault = dkey, dnodes, union
	n := 0
	for _, v := range nodeIndex {
		n = max(n, v+1)
	}
	in := make([][]bool, len(mp.Conf)) // partition -> by node; built when first asked
	inPart := func(k int) []bool {
		if in[k] == nil {
			in[k] = make([]bool, n)
			for _, v := range mp.Nodes[k] {
				if v < n {
					in[k][v] = true
				}
			}
		}
		return in[k]
	}
	unknown := map[string]int{} // partitions slurm.conf lacks -> jobs
	var unknownFirst []string
	// The history's node names by table id -> machine node (-1: none); the jobs
	// of a trace share one table.
	var table *hostlist.Table
	var idNode []int32
	nodeOf := func(l hostlist.List, id int32) int32 {
		if t := l.Table(); t != table {
			table, idNode = t, idNode[:0]
		}
		for int(id) >= len(idNode) {
			v, ok := nodeIndex[table.Name(int32(len(idNode)))]
			if !ok {
				v = -1
			}
			idNode = append(idNode, int32(v))
		}
		return idNode[id]
	}
	// outside returns the name of the first recorded node of j for which in is
	// false (or that is not on the machine), "" when there is none.
	outside := func(j *Job, in func(v int32) bool) string {
		for first, length := range j.NodeList.Runs() {
			for id := first; id < first+length; id++ {
				if v := nodeOf(j.NodeList, id); v < 0 || !in(v) {
					return j.NodeList.Table().Name(id)
				}
			}
		}
		return ""
	}
	use := func(i int, key string, nodes []int) {
		jp.Keys[i] = key
		if _, ok := jp.Nodes[key]; !ok {
			jp.Nodes[key] = nodes
		}
	}
	inDefault := func(v int32) bool { _, ok := slices.BinarySearch(dnodes, int(v)); return ok }
	for i := range jobs {
		j := &jobs[i]
		var idx []int
		for _, name := range strings.Split(j.Partition, ",") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			if k := mp.Index(name); k >= 0 {
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
				jp.Unnamed++
			}
			if union && len(dnodes) == 0 {
				return nil, fmt.Errorf("line %d: job %d names no partition of %s, which has no Default=YES partition and no partition holding a compute host", j.Line, j.ID, conf)
			}
			if j.NodeList.Len() > 0 {
				if h := outside(j, inDefault); h != "" {
					what, hint := "names no partition", fmt.Sprintf("add Partition to sacct's -o (sacct -o %s)", SacctFields)
					if j.Partition != "" {
						what = fmt.Sprintf("ran in partition %s, which %s lacks", j.Partition, conf)
						hint = "cut the history to the period of this slurm.conf (sacct -S/-E)"
					}
					return nil, fmt.Errorf("line %d: job %d %s, and its node %s is not in the default partition %s where it would be replayed: %s, or give the slurm.conf the history ran under", j.Line, j.ID, what, h, dkey, hint)
				}
			}
			if j.Procs > len(dnodes) {
				if dropLarger {
					jp.DroppedLarger++
					continue
				}
				return nil, largerError{fmt.Sprintf("line %d: job %d needs %d nodes, the default partition %s has %d compute hosts", j.Line, j.ID, j.Procs, dkey, len(dnodes))}
			}
			use(i, dkey, dnodes)
			continue
		}
		// The partition that holds the recorded nodes, the first listed (a job
		// submitted to several ran in one); without a node list, the first.
		chosen := -1
		for _, k := range idx {
			if j.NodeList.Len() == 0 || outside(j, func(v int32) bool { return inPart(k)[v] }) == "" {
				chosen = k
				break
			}
		}
		if chosen >= 0 {
			cp, nodes := &mp.Conf[chosen], mp.Nodes[chosen]
			if j.Procs > len(nodes) {
				if dropLarger {
					jp.DroppedLarger++
					continue
				}
				return nil, largerError{fmt.Sprintf("line %d: job %d needs %d nodes, its partition %s has %d compute hosts", j.Line, j.ID, j.Procs, cp.Name, len(nodes))}
			}
			use(i, cp.Name, nodes)
			continue
		}
		if len(idx) > 1 {
			// A heterogeneous job whose components ran in different partitions:
			// the union of its partitions, if it holds the nodes.
			inAny := func(v int32) bool {
				for _, k := range idx {
					if inPart(k)[v] {
						return true
					}
				}
				return false
			}
			if outside(j, inAny) == "" {
				var names []string
				var nodes []int
				for v := range n {
					if inAny(int32(v)) {
						nodes = append(nodes, v)
					}
				}
				for _, k := range idx {
					names = append(names, mp.Conf[k].Name)
				}
				use(i, strings.Join(names, ","), nodes)
				jp.Unions++
				continue
			}
		}
		cp := &mp.Conf[idx[0]]
		h := outside(j, func(v int32) bool { return inPart(idx[0])[v] })
		return nil, fmt.Errorf("line %d: job %d ran on %s, which is not in its partition %s (%s line %d): the history is of another configuration; cut it to the period of this slurm.conf (sacct -S/-E) or give the slurm.conf it ran under", j.Line, j.ID, h, cp.Name, conf, cp.Line)
	}
	if len(unknown) > 0 {
		total := 0
		for _, c := range unknown {
			total += c
		}
		jp.UnknownWarning = fmt.Sprintf("%d jobs of the history ran in partitions %s does not have (%s): they are replayed in the default partition %s, as jobs submitted without -p (Slurm would refuse -p with an unknown partition)", total, conf, textin.FirstFew(unknownFirst, 5, ", "), dkey)
	}
	return jp, nil
}
