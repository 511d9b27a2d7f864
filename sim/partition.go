package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// Partitions. Slurm places a job on the nodes of its partition only: the select
// plugin is given the partition's nodes that are available (node_scheduler.c), and
// topology/tree and topology/block choose within them. A replay with
// Config.Partitions does the same: the free nodes outside the job's partition are
// marked busy for its decision (Occupy; alloc.AllocateWithout), so that every rule
// of the allocator sees them as Slurm's does, as unavailable. Two forms:
//
//   - every job in one partition (a history without partitions submitted to the
//     default one, or a site's single partition): the nodes outside it are
//     occupied once, before the first job, and freed after the last, so that the
//     free count every scheduler compares with is the partition's (FCFS, EASY and
//     its will-run test, Cplant);
//   - jobs in several partitions: each decision keeps the nodes outside the
//     job's partition away through an alloc.Mask: the free nodes outside the partition
//     of the last decision stay held busy from one decision to the next (a
//     finished job's nodes outside it are held rather than freed), and only a
//     decision in another partition changes them (the held nodes the new
//     partition holds freed, the free ones outside it and not outside the old one
//     occupied). So a run of jobs of one partition pays nothing, a change of
//     partition O(n/64) and the nodes that change, and each decision sees the free
//     state AllocateWithout would give it (the emulations decide from their free
//     nodes alone: alloc's TestMaskMatchesAllocateWithout and plan's
//     TestMaskPlanEmulators play both in lockstep; so do the other Occupiers,
//     the curve and center-based allocators, mbs, paging with pages of one
//     node and the non-contiguous binary trees, each deciding as if jobs held
//     the nodes kept away: TestMaskMatchesAllocateWithoutEveryOccupier,
//     TestOccupyIsTakenByJobs; bt, sbt, dbt and paging with pages of several
//     nodes through their alloc.ForPartitions view, always with a mask, which
//     holds again the nodes kept away of a job's block or pages its release
//     frees: TestBlockOccupiersMatchPlainModel). With an allocator that
//     keeps a view per partition (alloc.Viewer: the Slurm emulations, the
//     curve allocators, mbs, the binary trees and paging's partition view,
//     whose incremental free state is kept per partition, alloc/slurm_view.go,
//     alloc/curve_view.go, alloc/mbs_view.go, alloc/bintree_view.go,
//     alloc/paging_view.go) the
//     mask registers the partitions' outsides as views and a change of
//     partition switches views (O(n/64) and the nodes changed since the view
//     was last used; TestMaskViewsMatchAllocateWithout). Between decisions the
//     allocator counts the held nodes busy; the as-run schedule reads no free
//     count there, and the replay frees them at its end. The as-run schedule
//     starts each job when production started it; FCFS, Cplant and EASY decide
//     by each partition's free count and queue (partCounts; sched.go, strict
//     and easy: Slurm's main scheduler's failed partitions, EASY's reservation
//     for each partition's front: counted with a count-based allocator, placed
//     by a will-run test on the partition's nodes with one that may refuse a
//     job that fits by count, easy.passPlaced).
//
// In both, a job its partition cannot hold now (fewer free nodes in it than it
// asks for, or no switch or block in it that holds it) waits for a release, as
// Slurm leaves it pending (JobResult.WaitedForBlock, BlockWait), where the replay
// without partitions never lacks free nodes under the as-run schedule. An
// allocator that places recorded node lists (alloc.Placer, as-run) is checked
// instead: a recorded node outside the job's partition is an error. A partition
// holding every node restricts nothing, and a replay whose jobs are all in such
// partitions is the replay without Partitions.

// ErrLargerThanPartition is wrapped by Run when a job asks for more processors
// than its partition has; it is also ErrTooLarge (errors.Is).
var ErrLargerThanPartition error = largerThanPartition{}

type largerThanPartition struct{}

func (largerThanPartition) Error() string        { return "job larger than its partition" }
func (largerThanPartition) Is(target error) bool { return target == ErrTooLarge }

// partitions is a replay's Config.Partitions, checked against its jobs.
type partitions struct {
	away  map[string][]int    // partition -> the nodes outside it, ascending; nil when it holds every node
	out   map[string][]uint64 // partition -> the nodes outside it as a bitmap; nil when it holds every node
	in    map[string][]uint64 // partition -> its nodes as a bitmap (the as-run placements' check)
	index map[string]int64    // partition -> its number (the placer's refusal keys)
	// fixed is the nodes outside the one partition of every job, occupied for
	// the whole replay; nil with several partitions (per decision) or none.
	fixed     []int
	fixedBits []uint64       // fixed as a bitmap
	perJob    bool           // several partitions: each decision keeps its job's outside nodes away
	jobsIn    map[string]int // jobs by partition
	// perJob only: the mask holding the nodes outside the partition of the last
	// decision (cur) busy, from one decision to the next
	mask    *alloc.Mask
	cur     string
	entered bool
	// occ is the Occupier the replay uses in place of Config.Alloc (its
	// alloc.ForPartitions view; nil: Config.Alloc).
	occ alloc.Occupier
	// perJob under a queue scheduler (sched.go): the counts it decides by.
	q *partCounts
	// scratch of enter with nodes blocked besides the partition's outside
	// (FCFS and Cplant: the nodes of partitions whose head failed); two, so
	// that the mask's current set is never the one rewritten
	blockBuf [2][]uint64
	blockGen int          // the buffer blocked wrote last
	maskGen  int          // the buffer the mask holds as its current set (-1: none)
	free     *alloc.State // machineFree's
}

// partCounts is what a queue scheduler knows of jobs of several partitions
// (sched.go): the job partitions numbered 0..m-1 (names sorted; partitions of
// the same nodes share a number), the nodes
// grouped into atoms (nodes in the same job partitions), the free nodes of each
// atom (free: running no job; the nodes the mask holds are free here), and the
// overlaps. Starting or ending a job costs O(k + atoms x m).
type partCounts struct {
	m         int
	id        map[string]int // job partition -> number
	atomOf    []int32        // node -> atom
	atomParts [][]int        // atom -> the partitions holding it
	partAtoms [][]int        // partition -> its atoms
	freeAtom  []int          // free nodes by atom
	size      []int          // nodes by partition
	ov        [][]int        // ov[a][b]: nodes in both a and b
	delta     []int          // scratch: nodes by atom
	touched   []int          // scratch: atoms of delta set
	bits      [][]uint64     // partition -> its nodes as a bitmap
	tier      []int          // partition -> its PriorityTier
}

// newPartitions checks cfg.Partitions against jobs: nil when it is nil or every
// job's partition holds every node.
func newPartitions(jobs []Job, cfg Config) (*partitions, error) {
	if cfg.Partitions == nil {
		return nil, nil
	}
	n := cfg.Machine.N()
	pt := &partitions{away: map[string][]int{}, out: map[string][]uint64{}, in: map[string][]uint64{}, index: map[string]int64{}, jobsIn: map[string]int{}}
	names := make([]string, 0, len(cfg.Partitions))
	for name := range cfg.Partitions {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		nodes := cfg.Partitions[name]
		if len(nodes) == 0 {
			return nil, fmt.Errorf("sim: partition %q has no node", name)
		}
		bm := make([]uint64, (n+63)/64)
		count := 0
		for _, v := range nodes {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("sim: partition %q: node %d is not a node of %s (0 to %d)", name, v, cfg.Machine.Spec(), n-1)
			}
			if bm[v>>6]>>(v&63)&1 != 0 {
				return nil, fmt.Errorf("sim: partition %q lists node %d twice", name, v)
			}
			bm[v>>6] |= 1 << (v & 63)
			count++
		}
		pt.in[name], pt.index[name] = bm, int64(i)
		if count < n {
			away := make([]int, 0, n-count)
			out := make([]uint64, len(bm))
			for v := range n {
				if bm[v>>6]>>(v&63)&1 == 0 {
					away = append(away, v)
					out[v>>6] |= 1 << (v & 63)
				}
			}
			pt.away[name], pt.out[name] = away, out
		}
	}
	// An allocator whose rule depends on the partition (alloc.PartitionRuled)
	// is told each decision's partition: jobs of one partition, or of
	// partitions holding every node, are replayed as jobs of several.
	_, ruled := cfg.Alloc.(alloc.PartitionRuled)
	perJob := cfg.perJob || ruled
	restricted, tier0, tiers := false, 0, false
	for _, j := range jobs {
		nodes, ok := cfg.Partitions[j.Partition]
		if !ok {
			return nil, fmt.Errorf("job %d (line %d): partition %q is not one of the replay's partitions (%s)", j.ID, j.Line, j.Partition, strings.Join(names, ", "))
		}
		if j.Procs > len(nodes) {
			return nil, fmt.Errorf("job %d (line %d) needs %d processors, its partition %s has %d: %w", j.ID, j.Line, j.Procs, j.Partition, len(nodes), ErrLargerThanPartition)
		}
		if len(pt.jobsIn) == 0 {
			tier0 = cfg.tier(j.Partition)
		}
		tiers = tiers || cfg.tier(j.Partition) != tier0
		pt.jobsIn[j.Partition]++
		restricted = restricted || pt.away[j.Partition] != nil
	}
	// Jobs of partitions of several tiers are queued by tier (sched.go), even
	// when every partition holds every node.
	tiers = tiers && cfg.Sched != SchedAsRun
	if !restricted && !perJob && !tiers {
		return nil, nil
	}
	if cfg.Comm != nil || cfg.Baseline != nil {
		return nil, errors.New("sim: partitions are replayed without a communication model or an exact baseline")
	}
	// An allocator whose unit is larger than a node (bt, sbt, dbt, paging with
	// pages of several nodes) is replayed through its alloc.BlockOccupier view,
	// always with a mask: a job's release frees its whole block or pages, so the
	// nodes of it kept away are held again after each release (alloc.Mask).
	if _, ok := cfg.Alloc.(alloc.Occupier); !ok {
		if _, placer := cfg.Alloc.(alloc.Placer); !placer {
			oc, err := alloc.ForPartitions(cfg.Alloc)
			if err != nil {
				return nil, fmt.Errorf("sim: cannot keep jobs in their partitions: allocator %w", err)
			}
			pt.occ, cfg.Alloc = oc, oc
		}
	}
	_, blocks := cfg.Alloc.(alloc.BlockOccupier)
	if len(pt.jobsIn) == 1 && !perJob && !blocks {
		for name := range pt.jobsIn {
			pt.fixed, pt.fixedBits = pt.away[name], pt.out[name]
		}
	} else {
		pt.perJob = true
		pt.mask, pt.maskGen = alloc.NewMask(n), -1
		if cfg.Sched != SchedAsRun {
			pt.q = newPartCounts(pt, n, cfg.tier)
		}
	}
	if _, ok := cfg.Alloc.(alloc.Placer); ok {
		return pt, nil // recorded node lists, checked as placed; nothing is chosen
	}
	oc, ok := cfg.Alloc.(alloc.Occupier)
	if !ok {
		return nil, fmt.Errorf("sim: cannot keep jobs in their partitions: allocator %w", alloc.NoRestriction(cfg.Alloc))
	}
	if pt.mask != nil {
		// An allocator that keeps a view per partition (alloc.Viewer) decides
		// in the job's partition's view: a change of partition switches views.
		parts := make([]string, 0, len(pt.jobsIn))
		for name := range pt.jobsIn {
			parts = append(parts, name)
		}
		slices.Sort(parts)
		sets := make([][]uint64, 0, len(parts))
		for _, name := range parts {
			sets = append(sets, pt.out[name])
		}
		if err := pt.mask.Views(oc, sets); err != nil {
			return nil, fmt.Errorf("sim: keeping the jobs in their partitions: %w", err)
		}
	}
	return pt, nil
}

// machineFree returns the machine's free nodes, the set the D metric measures
// (meter.measureCompactness), given st, the allocator's free state of the whole
// machine (alloc.MachineState): st with the nodes busy only to keep decisions in
// a partition freed, those the mask holds or those outside the one partition of
// every job. The allocator's other busy nodes stay busy: the running jobs' and,
// with bt, sbt and dbt, the rest of their blocks.
func (pt *partitions) machineFree(st *alloc.State) *alloc.State {
	var held []uint64
	switch {
	case pt == nil:
		return st
	case pt.mask != nil:
		held = pt.mask.HeldNodes()
	case pt.fixed != nil:
		held = pt.fixedBits
	default:
		return st
	}
	if pt.free == nil {
		pt.free = alloc.NewState(st.N())
	}
	pt.free.SetUnion(st, held)
	return pt.free
}

// start occupies the nodes outside the one partition of every job.
func (pt *partitions) start(a alloc.Allocator) error {
	if pt == nil || pt.fixed == nil {
		return nil
	}
	oc, ok := a.(alloc.Occupier)
	if !ok {
		return fmt.Errorf("sim: cannot keep jobs in their partition: allocator %w", alloc.NoRestriction(a))
	}
	if err := oc.Occupy(pt.fixed); err != nil {
		return fmt.Errorf("sim: keeping the jobs in their partition: %w", err)
	}
	return nil
}

// end frees what start occupied, or the nodes the mask holds.
func (pt *partitions) end(a alloc.Allocator) error {
	if pt == nil {
		return nil
	}
	if oc, ok := a.(alloc.Occupier); ok && pt.mask != nil {
		if err := pt.mask.Set(oc, nil); err != nil {
			return err
		}
		if err := pt.mask.Views(oc, nil); err != nil { // the allocator's views dropped
			return err
		}
	}
	if pt.fixed == nil {
		return nil
	}
	if err := a.Release(pt.fixed); err != nil {
		return fmt.Errorf("sim: internal error: freeing the nodes outside the partition: %w", err)
	}
	return nil
}

// enter keeps the decisions that follow off the nodes outside partition part
// (several partitions): the mask changes only when part differs from the last
// decision's partition.
//
// block (nil: none), a bitmap from blocked, adds nodes kept away: those of the
// partitions whose head failed earlier in an FCFS or Cplant pass, as Slurm's
// _schedule takes them out of avail_node_bitmap.
func (pt *partitions) enter(a alloc.Allocator, part string, block []uint64) error {
	if pt == nil || !pt.perJob || (pt.entered && part == pt.cur && block == nil && pt.maskGen < 0) {
		return nil
	}
	oc, ok := a.(alloc.Occupier)
	if !ok {
		return fmt.Errorf("sim: cannot keep jobs in their partitions: allocator %w", alloc.NoRestriction(a))
	}
	away, gen := pt.out[part], -1
	if block != nil {
		for w, x := range away {
			block[w] |= x
		}
		away, gen = block, pt.blockGen
	}
	if err := pt.mask.Set(oc, away); err != nil {
		return fmt.Errorf("sim: keeping a job in its partition %s: %w", part, err)
	}
	if err := usePartition(a, part); err != nil {
		return err
	}
	pt.cur, pt.entered, pt.maskGen = part, true, gen
	return nil
}

// usePartition tells an allocator whose rule depends on the partition
// (alloc.PartitionRuled) the partition of the decisions that follow.
func usePartition(a alloc.Allocator, part string) error {
	if r, ok := a.(alloc.PartitionRuled); ok {
		if err := r.UsePartition(part); err != nil {
			return fmt.Errorf("sim: partition %s: %w", part, err)
		}
	}
	return nil
}

// release frees finished job i's nodes, those outside the partition of the last
// decision held (several partitions).
func (pt *partitions) release(c *alloc.Clock, a alloc.Allocator, i int, nodes []int) error {
	if pt == nil || !pt.perJob {
		return c.Release(a, nodes)
	}
	if pt.q != nil {
		pt.q.change(nodes, 1, nil)
	}
	oc, ok := a.(alloc.Occupier)
	if !ok { // a Placer: nothing is held
		return c.Release(a, nodes)
	}
	return pt.mask.Release(c, oc, nodes)
}

// awayOf is the nodes a decision for a job of partition part keeps away (nil: none).
func (pt *partitions) awayOf(part string) []int {
	if pt == nil || !pt.perJob {
		return nil
	}
	return pt.away[part]
}

// key is the placer's key for the refusals of a job of size k in partition part:
// the decision depends on both when each job has its partition's nodes.
func (pt *partitions) key(k int, part string) int64 {
	if pt == nil || !pt.perJob {
		return int64(k)
	}
	return int64(k) | pt.index[part]<<32
}

// checkPlaced fails when a recorded placement has a node outside the job's
// partition.
func (pt *partitions) checkPlaced(r *JobResult, nodes []int) error {
	if pt == nil {
		return nil
	}
	bm := pt.in[r.Partition]
	for _, v := range nodes {
		if bm[v>>6]>>(v&63)&1 == 0 {
			return fmt.Errorf("job %d (line %d) ran on node %d, outside its partition %s", r.ID, r.Line, v, r.Partition)
		}
	}
	return nil
}

// tier is partition part's PriorityTier (Config.PartitionTiers; 1 when not given).
func (cfg *Config) tier(part string) int {
	if t, ok := cfg.PartitionTiers[part]; ok {
		return t
	}
	return 1
}

// newPartCounts numbers the partitions of the jobs and groups the nodes into
// atoms: O(n x m/64) once. tier is each partition's PriorityTier.
func newPartCounts(pt *partitions, n int, tier func(string) int) *partCounts {
	names := make([]string, 0, len(pt.jobsIn))
	for name := range pt.jobsIn {
		names = append(names, name)
	}
	slices.Sort(names)
	// Partitions of the same nodes and tier are one for the scheduler: one
	// queue of fronts, one reservation (a replay whose every partition holds
	// every node, all of one tier, is the one without partitions).
	c := &partCounts{id: map[string]int{}, atomOf: make([]int32, n)}
	var uniq []string
	for _, name := range names {
		x := slices.IndexFunc(uniq, func(u string) bool { return slices.Equal(pt.in[u], pt.in[name]) && tier(u) == tier(name) })
		if x < 0 {
			x = len(uniq)
			uniq = append(uniq, name)
			c.tier = append(c.tier, tier(name))
		}
		c.id[name] = x
	}
	names = uniq
	m := len(names)
	for _, name := range names {
		c.bits = append(c.bits, pt.in[name])
	}
	c.m, c.size, c.partAtoms = m, make([]int, m), make([][]int, m)
	words := (m + 63) / 64
	sig := make([]byte, 8*words)
	atoms := map[string]int32{}
	for v := range n {
		clear(sig)
		for i, name := range names {
			if pt.in[name][v>>6]>>(v&63)&1 != 0 {
				sig[i>>3] |= 1 << (i & 7)
			}
		}
		a, ok := atoms[string(sig)]
		if !ok {
			a = int32(len(c.atomParts))
			atoms[string(sig)] = a
			var in []int
			for i := range names {
				if sig[i>>3]>>(i&7)&1 != 0 {
					in = append(in, i)
					c.partAtoms[i] = append(c.partAtoms[i], int(a))
				}
			}
			c.atomParts = append(c.atomParts, in)
			c.freeAtom = append(c.freeAtom, 0)
		}
		c.atomOf[v] = a
		c.freeAtom[a]++
	}
	c.delta = make([]int, len(c.atomParts))
	c.ov = make([][]int, m)
	for i := range c.ov {
		c.ov[i] = make([]int, m)
	}
	for a, in := range c.atomParts {
		for _, x := range in {
			c.size[x] += c.freeAtom[a]
			for _, y := range in {
				c.ov[x][y] += c.freeAtom[a]
			}
		}
	}
	return c
}

// change adds sign to the free count of every node of nodes, and returns, in
// dst (nil: not wanted), the nodes in each partition.
func (c *partCounts) change(nodes []int, sign int, dst []int32) []int32 {
	c.touched = c.touched[:0]
	for _, v := range nodes {
		a := c.atomOf[v]
		if c.delta[a] == 0 {
			c.touched = append(c.touched, int(a))
		}
		c.delta[a]++
	}
	if dst != nil {
		dst = dst[:c.m]
		clear(dst)
	}
	for _, a := range c.touched {
		d := c.delta[a]
		c.freeAtom[a] += sign * d
		if dst != nil {
			for _, x := range c.atomParts[a] {
				dst[x] += int32(d)
			}
		}
		c.delta[a] = 0
	}
	return dst
}

// took records that a job started on nodes, and returns its nodes in each
// partition (the running job's runJob.in; nil without a queue scheduler of
// several partitions).
func (pt *partitions) took(nodes []int) []int32 {
	if pt == nil || pt.q == nil {
		return nil
	}
	return pt.q.change(nodes, -1, make([]int32, pt.q.m))
}

// tierOf is the PriorityTier of partition number x (1 without several
// partitions).
func (pt *partitions) tierOf(x int) int {
	if pt == nil || pt.q == nil {
		return 1
	}
	return pt.q.tier[x]
}

// part is the number of job r's partition for a queue scheduler (0 without
// several partitions).
func (pt *partitions) part(r *JobResult) int {
	if pt == nil || pt.q == nil {
		return 0
	}
	return pt.q.id[r.Partition]
}

// freeIn is the free nodes of partition x outside the partitions failed marks
// (nil: none).
func (c *partCounts) freeIn(x int, failed []bool) int {
	f := 0
	for _, a := range c.partAtoms[x] {
		if failed != nil && blockedAtom(c.atomParts[a], failed) {
			continue
		}
		f += c.freeAtom[a]
	}
	return f
}

func blockedAtom(in []int, failed []bool) bool {
	for _, x := range in {
		if failed[x] {
			return true
		}
	}
	return false
}

// blocked returns the bitmap of the nodes of the partitions failed marks, nil
// when it marks none.
func (pt *partitions) blocked(failed []bool) []uint64 {
	var bm []uint64
	for x, in := range pt.q.bits {
		if !failed[x] {
			continue
		}
		if bm == nil {
			bm = pt.freshBlock()
		}
		for w, b := range in {
			bm[w] |= b
		}
	}
	return bm
}

// freshBlock returns an empty bitmap of the nodes for enter's block: the
// buffer the mask does not hold as its current set.
func (pt *partitions) freshBlock() []uint64 {
	pt.blockGen = 0
	if pt.maskGen == 0 {
		pt.blockGen = 1
	}
	bm := pt.blockBuf[pt.blockGen]
	if bm == nil {
		bm = make([]uint64, len(pt.q.bits[0]))
		pt.blockBuf[pt.blockGen] = bm
	}
	clear(bm)
	return bm
}

// confParts is what a replay takes of SlurmConf's partitions.
type confParts struct {
	nodes map[string][]int      // Config.Partitions
	tiers map[string]int        // Config.PartitionTiers (nil when every tier is 1)
	conf  []slurm.ConfPartition // as read, for their states and limits
	path  string                // the file
	warns []Warning             // AssignPartitions' warnings: unknown partitions, unions, no default
}

// readPartitions reads SlurmConf's partitions on m's nodes (named by Hosts, or
// a graph's names; slurm.PartitionsOn) and returns jobs (a copy) each with the
// partition it is replayed in (AssignPartitions, as procalloc plan assigns
// them), without those larger than their partition when DropLarger, and the
// warnings about them.
func (s *Spec) readPartitions(ctx context.Context, m topo.Machine, jobs []Job) ([]Job, *confParts, error) {
	path := s.Path(s.SlurmConf)
	fail := func(err error) error { return &FileError{Field: "SlurmConf", Path: path, Err: err} }
	r, err := s.open(s.SlurmConf)
	if err != nil {
		return nil, nil, fail(err)
	}
	data, err := textin.ReadAll(textin.ContextReader(ctx, r), slurm.MaxConfFileBytes, "the file")
	r.Close()
	if err != nil {
		return nil, nil, fail(err)
	}
	conf, err := slurm.ReadConfIncluding(data, path, slurm.ReadIncluded)
	if err != nil {
		return nil, nil, fail(err)
	}
	nodes, err := conf.NodesContext(ctx)
	if err != nil {
		return nil, nil, fail(err)
	}
	cps, err := conf.Partitions(nodes)
	if err != nil {
		return nil, nil, fail(err)
	}
	if len(cps) == 0 {
		return nil, nil, fail(errors.New("no PartitionName line"))
	}
	names := s.nodeNames(m)
	if names == nil {
		return nil, nil, fieldErr("SlurmConf", path, "needs the names of %s's nodes ({HostsFile} or {Hostlist}) to find its partitions' nodes", m.Spec())
	}
	index := make(map[string]int, len(names))
	for v, name := range names {
		index[name] = v
	}
	mp := slurm.PartitionsOn(cps, names, index)
	var tiers map[string]int
	for _, cp := range cps {
		if cp.PriorityTier != 1 {
			if tiers == nil {
				tiers = map[string]int{}
			}
			tiers[cp.Name] = cp.PriorityTier
		}
	}
	jp, err := assignPartitions(jobs, mp, index, path, s.DropLarger)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Trace, err)
	}
	kept := make([]Job, 0, len(jobs)-jp.DroppedLarger)
	for i := range jobs {
		if jp.Keys[i] == "" {
			continue // larger than its partition, dropped (DropLarger)
		}
		kept = append(kept, jobs[i])
		kept[len(kept)-1].Partition = jp.Keys[i]
	}
	jobs = kept
	var warns []Warning
	for _, text := range []string{jp.UnknownWarning, jp.UnionNote()} {
		if text != "" {
			warns = append(warns, Warning{Field: "SlurmConf", File: path, Text: text})
		}
	}
	if jp.Unnamed > 0 && jp.NoDefault {
		warns = append(warns, Warning{Field: "SlurmConf", File: path, Text: slurm.NoDefaultWarning(jp.Unnamed)})
	}
	return jobs, &confParts{nodes: jp.Nodes, tiers: tiers, conf: cps, path: path, warns: warns}, nil
}

// nodeNames are the names of the resolved machine's nodes a history's NodeLists
// are read against: Hosts, else the graph's host names (nil: none).
func (s *Spec) nodeNames(m topo.Machine) []string {
	if s.Hosts != nil {
		return s.Hosts
	}
	return curves.NodeNames(m)
}

// defaultWarnings is AssignPartitions' warnings: jobs of partitions slurm.conf
// lacks replayed in the default one, heterogeneous jobs on the union of their
// partitions, jobs naming no partition on the nodes of every partition when
// slurm.conf has no Default=YES one (nil when none).
func (cp *confParts) defaultWarnings() []Warning {
	if cp == nil {
		return nil
	}
	return cp.warns
}

// limitWarnings says which of jobs their partition's State or limits would
// have kept from running (slurmctld's job_limits_check, job_mgr.c: a job
// asking for more nodes than MaxNodes or fewer than MinNodes, or a time limit
// over MaxTime, stays pending, PartitionNodeLimit or PartitionTimeLimit; in a
// DOWN partition it stays pending, PartitionDown; in an INACTIVE one,
// PartitionInactive; a DRAIN or INACTIVE partition takes no new job,
// _alt_part_test). The history ran them: the configuration then was not this
// one (limits changed, a partition drained or downed since, or an
// administrator's or a QOS's override, which job_limits_check and
// _qos_part_check honour). The replay runs them as the history did and says so,
// one warning per case with the count and the first job: dropping them would
// change the load without a word, refusing the replay would make a current
// slurm.conf useless for an older history. Node counts are Job.Procs (nodes),
// time limits Job.Estimate (seconds; unknown: not checked).
func (cp *confParts) limitWarnings(jobs []Job) []Warning {
	if cp == nil {
		return nil
	}
	var ws []Warning
	for _, text := range PartitionLimitWarnings(jobs, cp.conf) {
		ws = append(ws, Warning{Field: "SlurmConf", File: cp.path, Text: text})
	}
	return ws
}

// PartitionLimitWarnings is limitWarnings' sentences: which of jobs (each in
// its Partition, as AssignPartitions gives it) the State or limits of its
// partition of conf would have kept from running, one sentence per case with
// the count and the first job; what procalloc sim --slurm-conf and procalloc
// plan say of a history.
func PartitionLimitWarnings(jobs []Job, conf []slurm.ConfPartition) []string {
	byName := make(map[string]*slurm.ConfPartition, len(conf))
	for i := range conf {
		byName[conf[i].Name] = &conf[i]
	}
	type tally struct {
		count int
		first string
	}
	const (
		maxNodes = iota
		minNodes
		maxTime
		down
		inactive
		drain
		cases
	)
	var t [cases]tally
	note := func(c int, format string, args ...any) {
		if t[c].count == 0 {
			t[c].first = fmt.Sprintf(format, args...)
		}
		t[c].count++
	}
	for _, j := range jobs {
		p := byName[j.Partition]
		if p == nil {
			continue // the union of a heterogeneous job's partitions: no limits of its own
		}
		switch p.State {
		case "DOWN":
			note(down, "job %d (line %d) in %s", j.ID, j.Line, p.Name)
		case "INACTIVE":
			note(inactive, "job %d (line %d) in %s", j.ID, j.Line, p.Name)
		case "DRAIN":
			note(drain, "job %d (line %d) in %s", j.ID, j.Line, p.Name)
		}
		if p.MaxNodes >= 0 && int64(j.Procs) > p.MaxNodes {
			note(maxNodes, "job %d (line %d), %d nodes in %s of MaxNodes=%d", j.ID, j.Line, j.Procs, p.Name, p.MaxNodes)
		}
		if int64(j.Procs) < p.MinNodes {
			note(minNodes, "job %d (line %d), %d nodes in %s of MinNodes=%d", j.ID, j.Line, j.Procs, p.Name, p.MinNodes)
		}
		if p.MaxTime >= 0 && j.Estimate > p.MaxTime*60 {
			note(maxTime, "job %d (line %d), a time limit of %d s in %s of MaxTime=%d min", j.ID, j.Line, j.Estimate, p.Name, p.MaxTime)
		}
	}
	what := [cases]string{
		maxNodes: "ask for more nodes than their partition's MaxNodes, which slurmctld would leave pending (PartitionNodeLimit)",
		minNodes: "ask for fewer nodes than their partition's MinNodes, which slurmctld would leave pending (PartitionNodeLimit)",
		maxTime:  "have a time limit over their partition's MaxTime, which slurmctld would leave pending (PartitionTimeLimit)",
		down:     "are in a partition of State=DOWN, which slurmctld would leave pending (PartitionDown)",
		inactive: "are in a partition of State=INACTIVE, which slurmctld would neither take nor start (PartitionInactive)",
		drain:    "are in a partition of State=DRAIN, which slurmctld would not take (it starts only the jobs queued before the drain)",
	}
	// what a single job does (1 of the N jobs replayed asks ...).
	one := [cases]string{
		maxNodes: "asks for more nodes than its partition's MaxNodes, which slurmctld would leave pending (PartitionNodeLimit)",
		minNodes: "asks for fewer nodes than its partition's MinNodes, which slurmctld would leave pending (PartitionNodeLimit)",
		maxTime:  "has a time limit over its partition's MaxTime, which slurmctld would leave pending (PartitionTimeLimit)",
		down:     "is in a partition of State=DOWN, which slurmctld would leave pending (PartitionDown)",
		inactive: "is in a partition of State=INACTIVE, which slurmctld would neither take nor start (PartitionInactive)",
		drain:    "is in a partition of State=DRAIN, which slurmctld would not take (it starts only the jobs queued before the drain)",
	}
	var ws []string
	for c := range cases {
		switch {
		case t[c].count == 1:
			ws = append(ws, fmt.Sprintf(
				"1 of the %d jobs replayed %s; the history ran it, so it is replayed as it ran (%s)",
				len(jobs), one[c], t[c].first))
		case t[c].count > 1:
			ws = append(ws, fmt.Sprintf(
				"%d of the %d jobs replayed %s; the history ran them, so they are replayed as it ran them (first: %s)",
				t[c].count, len(jobs), what[c], t[c].first))
		}
	}
	return ws
}
