package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/sortedset"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// pendingCounter is an emulator that, where Slurm would leave a job pending for
// want of a switch or block that holds it (alloc.ErrFragmented) or refuse it at
// submission (errRefused), places it anyway on the free nodes of lowest index and
// counts it, so that the replay's schedule stays the same for every deployment; the
// report says how many.
//
// It is an alloc.Occupier (every emulator plan builds is one): the replay keeps a
// job in its partition by occupying the nodes outside it (alloc.Mask,
// alloc.AllocateWithout), and the fallback then takes the partition's lowest free
// nodes; a partition with fewer free nodes than the job asks for has no fallback:
// the job waits (sim's partitions). The free state is the emulator's own (IsFree,
// NumFree, AppendFreeIn), so that the fallback sees what the emulator's decision
// sees: with an emulator that keeps a view per partition (alloc.Viewer: the Slurm
// emulations) the current view's free nodes, the partition's, and a fallback's
// nodes are occupied in the machine and so in every view. replayed returns the
// allocator to replay: the counter, or the counter as a Viewer when the
// emulator is one.
type pendingCounter struct {
	emulator
	pending int
	refused int
}

// emulator is what plan's emulators are (alloc.SlurmAllocator, torus3D): an
// alloc.Occupier that lists its free nodes of a bitmap at once (alloc.Mask's
// bulk path).
type emulator interface {
	alloc.Occupier
	AppendFreeIn(dst []int, set []uint64) []int
}

// viewingCounter is a pendingCounter over an emulator that keeps views: the
// views are the emulator's (alloc.Mask.Views registers the partitions with it
// through the counter), and so is the free state every decision and fallback
// reads.
type viewingCounter struct {
	*pendingCounter
	v alloc.Viewer
}

// errRefused marks a job Slurm refuses at submission under a deployment (torus3d: no
// placement of its size).
var errRefused = errors.New("refused at submission")

func newPendingCounter(a emulator) *pendingCounter {
	return &pendingCounter{emulator: a}
}

// replayed returns pc, as an alloc.Viewer when its emulator is one: the
// allocator a replay is given.
func (pc *pendingCounter) replayed() alloc.Occupier {
	if v, ok := pc.emulator.(alloc.Viewer); ok {
		return &viewingCounter{pendingCounter: pc, v: v}
	}
	return pc
}

func (pc *pendingCounter) Allocate(k int) ([]int, error) {
	nodes, err := pc.emulator.Allocate(k)
	refused := errors.Is(err, errRefused)
	if err == nil || !refused && !errors.Is(err, alloc.ErrFragmented) {
		return nodes, err
	}
	if refused {
		pc.refused++
	} else {
		pc.pending++
	}
	nodes = nodes[:0]
	for v, n := 0, pc.Machine().N(); v < n && len(nodes) < k; v++ {
		if pc.IsFree(v) {
			nodes = append(nodes, v)
		}
	}
	if len(nodes) < k {
		return nil, err
	}
	if err := pc.Occupy(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

// AddView, UseView and DropViews are the emulator's (alloc.Viewer).
func (vc *viewingCounter) AddView(away []uint64) (int, error) { return vc.v.AddView(away) }
func (vc *viewingCounter) UseView(v int) error                { return vc.v.UseView(v) }
func (vc *viewingCounter) DropViews()                         { vc.v.DropViews() }

// torusConfig is a torus3d topology: dims (x fastest) and placements.
type torusConfig struct {
	dims       [3]int
	placements []slurm.Box
}

// torus3D emulates Slurm 26.05's torus3d selection (eval_nodes_torus3d.c, as
// measured in slurm/newslurm_test.go on Slurm 26.05.3): among the anchors of the
// placement of the job's size whose nodes are all free, the one overlapping the
// fewest entirely free anchors of the next larger placement; ties to the earlier
// anchor (anchors x outermost, z innermost, spaced by the placement's dims). A job
// whose size has no placement is refused (Slurm refuses it at submission), and one
// that finds no free anchor fails with alloc.ErrFragmented (Slurm leaves it
// pending). It keeps no views (alloc.Viewer): a replay keeps its jobs in their
// partitions by holding the nodes outside (alloc.Mask), since its decisions, not
// the partition changes, take its time (docs/plan.md, "Cost").
type torus3D struct {
	m       topo.Machine
	st      *alloc.State
	cfg     *torusConfig
	anchors map[int][][]int // placement index -> anchors
}

func newTorus3D(m topo.Machine, cfg *torusConfig) (*torus3D, error) {
	if n := cfg.dims[0] * cfg.dims[1] * cfg.dims[2]; n != m.N() {
		return nil, fmt.Errorf("torus3d of %d nodes on a machine of %d", n, m.N())
	}
	return &torus3D{m: m, st: alloc.NewState(m.N()), cfg: cfg, anchors: map[int][][]int{}}, nil
}

func (t *torus3D) Name() string              { return "slurm:torus3d" }
func (t *torus3D) Machine() topo.Machine     { return t.m }
func (t *torus3D) NumFree() int              { return t.st.NumFree() }
func (t *torus3D) Release(nodes []int) error { return t.st.Release(nodes) }

// Occupy marks nodes busy (pendingCounter's fallback; alloc.Occupier, which keeps
// a job in its partition).
func (t *torus3D) Occupy(nodes []int) error { return t.st.Take(nodes) }

// IsFree reports whether node v is free.
func (t *torus3D) IsFree(v int) bool { return t.st.IsFree(v) }

// AppendFreeIn appends the free nodes of set (a bitmap of the nodes) to dst
// (alloc.Mask's bulk path).
func (t *torus3D) AppendFreeIn(dst []int, set []uint64) []int { return t.st.AppendFreeIn(dst, set) }

func (t *torus3D) anchorsOf(i int) [][]int {
	if a, ok := t.anchors[i]; ok {
		return a
	}
	out := t.cfg.placements[i].Anchors(t.cfg.dims)
	t.anchors[i] = out
	return out
}

func (t *torus3D) allFree(a []int) bool {
	for _, v := range a {
		if !t.st.IsFree(v) {
			return false
		}
	}
	return true
}

// Allocate places a k-node job on a placement box.
func (t *torus3D) Allocate(k int) ([]int, error) {
	if err := t.st.CheckRequest(k); err != nil {
		return nil, err
	}
	cur, next := -1, -1
	for i, b := range t.cfg.placements {
		if b.Size() == k && cur < 0 {
			cur = i
		}
		if b.Size() > k {
			next = i
			break
		}
	}
	if cur < 0 {
		return nil, fmt.Errorf("torus3d: no placement of %d nodes; Slurm refuses the job (Requested topology configuration is not available): %w", k, errRefused)
	}
	var best []int
	bestCost := -1
	for _, a := range t.anchorsOf(cur) {
		if !t.allFree(a) {
			continue
		}
		cost := 0
		if next >= 0 {
			for _, na := range t.anchorsOf(next) {
				if t.allFree(na) && sortedset.Overlap(na, a) {
					cost++
				}
			}
		}
		if best == nil || cost < bestCost {
			best, bestCost = a, cost
		}
	}
	if best == nil {
		return nil, fmt.Errorf("torus3d: no free %s box for %d nodes; Slurm leaves the job pending: %w", t.cfg.placements[cur], k, alloc.ErrFragmented)
	}
	out := slices.Clone(best)
	if err := t.st.Take(out); err != nil {
		return nil, err
	}
	return out, nil
}
