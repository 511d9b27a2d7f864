package alloc

import (
	"context"
	"errors"
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

// ErrNotEnoughFree is returned (wrapped) when a request asks for more nodes than are free.
var ErrNotEnoughFree = errors.New("not enough free nodes")

// Allocator chooses nodes for jobs on one machine and tracks which nodes are busy.
// Allocate and Release must be called from one goroutine at a time.
type Allocator interface {
	// Name returns the allocator spec it was built from, e.g. "bf:hilbert" or "mc1x1".
	Name() string
	// Machine returns the machine the allocator works on.
	Machine() topo.Machine
	// Allocate chooses k distinct free nodes, marks them busy and returns them. It
	// returns an error wrapping ErrNotEnoughFree when fewer than k nodes are free, and
	// never changes the state on error.
	Allocate(k int) ([]int, error)
	// Release marks the nodes free again; releasing a node that is not busy is an error
	// and changes nothing.
	Release(nodes []int) error
	// NumFree returns the number of free nodes.
	NumFree() int
}

// ContextAllocator is an allocator whose single decisions can take seconds on large
// machines (MC1x1 counting ties: 17 s of CPU for one decision on an empty
// torus:58x58x58). AllocateContext is Allocate that gives up when ctx ends,
// returning ctx's cause with the state unchanged, so that a replay stops within
// a second of Ctrl-C.
type ContextAllocator interface {
	Allocator // Allocate is AllocateContext with a context that never ends
	// AllocateContext is Allocate, stopping early with ctx's cause (context.Cause)
	// and the state unchanged once ctx ends.
	AllocateContext(ctx context.Context, k int) ([]int, error)
}

// AllocateContext calls a's AllocateContext when it has one, else Allocate.
func AllocateContext(ctx context.Context, a Allocator, k int) ([]int, error) {
	if ca, ok := a.(ContextAllocator); ok {
		return ca.AllocateContext(ctx, k)
	}
	return a.Allocate(k)
}

// Fragmenting is an allocator that may refuse a request although enough nodes are
// free, with an error wrapping ErrFragmented: bt, sbt and dbt (no free block of the
// size), slurm:tree and slurm:block (Slurm leaves the job pending, reason
// Resources). The job then waits for a release (package sim).
type Fragmenting interface {
	Allocator
	// MayFragment reports whether this allocator can refuse a request that the
	// free count allows (ind-bt never does, slurm:consec never does).
	MayFragment() bool
	// Clone returns an independent copy in the same state (the same busy nodes,
	// given out as the same jobs), on which a scheduler asks when a waiting job
	// could be placed (Slurm's will-run test) without changing the allocator. The
	// copy and the original must be used from one goroutine.
	Clone() Fragmenting
}

// PartitionRuled is an allocator whose rule depends on the Slurm partition of the
// job it places: from Slurm 25.05 a partition's Topology= picks its topology of
// topology.yaml, and select/cons_tres evaluates a job with its partition's
// (job_test.c, job_ptr->part_ptr->topology_idx): procalloc plan's current
// configuration of such a site. A replay with partitions (sim.Config.Partitions)
// calls UsePartition with a job's partition before the decisions for it (its
// placement, and a will-run test's on a Clone).
type PartitionRuled interface {
	Allocator
	// UsePartition makes the decisions that follow those of partition name
	// (one the allocator does not know: its default rule).
	UsePartition(name string) error
}

// Occupier is an allocator that can mark given nodes busy without choosing them: a
// scheduler takes nodes away from a decision through it, as Slurm's select plugin
// is given only the nodes a job may have (AllocateWithout). Every allocator whose
// decision is a function of its free nodes is one (Slurm's emulations:
// SlurmAllocator, plan's torus3d; AsRun; the curve allocators, scbt and plas;
// paging with pages of one node; the center-based ones, mc1x1 and its variants,
// mc, mm, mminc, genalg on grids and networks, opt; mbs; the non-contiguous
// binary trees, ind-* and d-*):
// after Occupy(nodes) it decides exactly as a fresh allocator of its kind on whose
// machine those nodes were taken by jobs (each node by a job of one node) and the
// others freed, ties included (the allocators' TestOccupyIsTakenByJobs). Not
// one: paging with pages of several nodes (a job takes whole pages, so a single
// node cannot be busy apart from its page) and bt, sbt, dbt (a job's whole
// power-of-two block is freed with it, nodes it was not given included);
// NoRestriction says so. ForPartitions gives those a BlockOccupier view, exact
// under a Mask (blocks_occupy.go).
type Occupier interface {
	Allocator
	// Occupy marks the nodes busy, all or nothing, as jobs holding them would:
	// Release frees them as a job's. A node that is busy, out of range or
	// listed twice is an error, and nothing changes.
	Occupy(nodes []int) error
	// IsFree reports whether node v is free.
	IsFree(v int) bool
}

// ErrNoRestriction is wrapped by AllocateWithout for an allocator that cannot take
// nodes away from a decision (not an Occupier): the restriction is refused, not
// ignored.
var ErrNoRestriction = errors.New("the allocator cannot keep a decision off given nodes (no Occupy)")

// noOccupier is an allocator that is not an Occupier and says why: the property
// of its definition that keeps a node from being busy apart from its jobs.
type noOccupier interface {
	whyNoOccupy() string
}

// NoRestriction is the error for a, which is not an Occupier: it wraps
// ErrNoRestriction, after a's name and, when a says it, the property that keeps
// it from being one.
func NoRestriction(a Allocator) error {
	if w, ok := a.(noOccupier); ok {
		return fmt.Errorf("%s: %s: %w", a.Name(), w.whyNoOccupy(), ErrNoRestriction)
	}
	return fmt.Errorf("%s: %w", a.Name(), ErrNoRestriction)
}

// AllocateWithout is AllocateContext with the nodes away kept out of the choice:
// those of them that are free are marked busy for the decision (Occupier.Occupy)
// and freed after it, whatever its outcome. This is how Slurm's select plugin
// decides: it is given the nodes of the job's partition that are available
// (select/cons_tres's node bitmap; src/slurmctld/node_scheduler.c), so a node
// outside the partition counts as a busy one in every rule (runs of free nodes,
// switch and block counts, the one-node path). It costs O(len(away)) besides the
// decision; the error wraps ErrNotEnoughFree when fewer than k nodes are free
// outside away. scratch, when given, is reused for the occupied nodes (returned
// for the next call). With away not empty, an allocator that is not an Occupier
// fails with ErrNoRestriction. Clock.AllocateWithout measures the decision. A
// sequence of decisions whose sets change now and then (a replay's partitions)
// costs less through a Mask, which gives each decision the same free state and
// pays for the nodes that change only.
func AllocateWithout(ctx context.Context, a Allocator, k int, away []int, scratch []int) (nodes, held []int, err error) {
	return (*Clock)(nil).AllocateWithout(ctx, a, k, away, scratch)
}

// AllocateWithout is AllocateWithout (the package function) with the decision
// measured as AllocateContext measures it (the Occupy and Release around it are
// not).
func (c *Clock) AllocateWithout(ctx context.Context, a Allocator, k int, away []int, scratch []int) (nodes, held []int, err error) {
	held = scratch[:0]
	if len(away) == 0 {
		nodes, err = c.AllocateContext(ctx, a, k)
		return nodes, held, err
	}
	oc, ok := a.(Occupier)
	if !ok {
		return nil, held, NoRestriction(a)
	}
	for _, v := range away {
		if oc.IsFree(v) {
			held = append(held, v)
		}
	}
	if len(held) == 0 {
		nodes, err = c.AllocateContext(ctx, a, k)
		return nodes, held, err
	}
	if err := oc.Occupy(held); err != nil {
		return nil, held, fmt.Errorf("%s: keeping a decision off %d nodes: %w", a.Name(), len(held), err)
	}
	nodes, err = c.AllocateContext(ctx, a, k)
	if rerr := a.Release(held); rerr != nil {
		return nil, held, fmt.Errorf("%s: internal error: freeing the nodes kept off a decision: %w", a.Name(), rerr)
	}
	return nodes, held, err
}
