package alloc

import (
	"context"
	"errors"

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
