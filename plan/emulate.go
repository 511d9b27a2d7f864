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
// It is an alloc.Occupier when the emulator is one (every emulator plan builds):
// the replay keeps a job in its partition by occupying the nodes outside it
// (alloc.Mask, alloc.AllocateWithout), and the fallback then takes the
// partition's lowest free nodes; a partition with fewer free nodes than the job
// asks for has no fallback: the job waits (sim's partitions).
type pendingCounter struct {
	alloc.Allocator
	occ     alloc.Occupier
	st      *alloc.State
	pending int
	refused int
}

// errRefused marks a job Slurm refuses at submission under a deployment (torus3d: no
// placement of its size).
var errRefused = errors.New("refused at submission")

func newPendingCounter(a alloc.Allocator) *pendingCounter {
	pc := &pendingCounter{Allocator: a, st: alloc.NewState(a.Machine().N())}
	pc.occ, _ = a.(alloc.Occupier)
	return pc
}

// Occupy marks nodes busy in the emulator and in the fallback's state.
func (pc *pendingCounter) Occupy(nodes []int) error {
	if pc.occ == nil {
		return fmt.Errorf("%s: %w", pc.Name(), alloc.ErrNoRestriction)
	}
	if err := pc.st.Take(nodes); err != nil {
		return err
	}
	if err := pc.occ.Occupy(nodes); err != nil {
		if rerr := pc.st.Release(nodes); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	return nil
}

// IsFree reports whether node v is free.
func (pc *pendingCounter) IsFree(v int) bool { return pc.st.IsFree(v) }

// AppendFreeIn appends the free nodes of set (a bitmap of the nodes) to dst
// (alloc.Mask's bulk path).
func (pc *pendingCounter) AppendFreeIn(dst []int, set []uint64) []int {
	return pc.st.AppendFreeIn(dst, set)
}

func (pc *pendingCounter) Allocate(k int) ([]int, error) {
	nodes, err := pc.Allocator.Allocate(k)
	refused := errors.Is(err, errRefused)
	if err != nil && (refused || errors.Is(err, alloc.ErrFragmented)) && pc.occ != nil {
		if refused {
			pc.refused++
		} else {
			pc.pending++
		}
		nodes = nodes[:0]
		for v := 0; v < pc.st.N() && len(nodes) < k; v++ {
			if pc.st.IsFree(v) {
				nodes = append(nodes, v)
			}
		}
		if len(nodes) < k {
			return nil, err
		}
		if err := pc.occ.Occupy(nodes); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if err := pc.st.Take(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

func (pc *pendingCounter) Release(nodes []int) error {
	if err := pc.st.Release(nodes); err != nil {
		return err
	}
	return pc.Allocator.Release(nodes)
}

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
// pending).
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
