package alloc

import (
	"fmt"
	"math/bits"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/ptas"
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register("mm", "MM, Manhattan Median (Bender et al. 2005 §3): k nearest free nodes in L1 around every median candidate, best total pairwise L1 (package ptas)",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newPTASAlloc("mm", arg, m, opt)
		})
	register("genalg", "Gen-Alg (Krumke et al. 1997; Bunde et al. 2004 §2.2): k nearest free nodes in L1 around every free node, best total pairwise L1 (package ptas)",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newPTASAlloc("genalg", arg, m, opt)
		})
	register("mminc", "MM+Inc (Bender et al. 2005 §5): MM, then swaps of a chosen and a free node while they lower the total pairwise L1 (package ptas)",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newPTASAlloc("mminc", arg, m, opt)
		})
}

// ptasAlloc runs one of package ptas's center-based subset algorithms on the free
// nodes at every allocation, so that MM and Gen-Alg have one implementation; a
// request on a free set met before gets its remembered answer (decisionMemo). The free
// nodes are passed in PReMAS free-list order (x outermost); under CompatPReMAS with
// ptas.TiesPReMAS (the reference's working-array rules), otherwise with
// ptas.TiesByIndex. Distances are plain coordinate L1: on a torus the choice ignores
// wraparound (the replay still measures hop distances).
type ptasAlloc struct {
	name  string
	kind  string
	g     *topo.Grid
	st    *State
	order []int
	pts   []geom.Point // coordinates of every node
	ties  ptas.Ties

	fl   []int
	mark []uint64 // scratch bitset over the nodes, zero between calls (inOrder)
	free [][]int  // the free nodes' coordinates ([]int, not geom.Point: package ptas takes [][]T without a copy)
	seen decisionMemo
	memo ptas.CenterMemo // bounds kept between decisions (3D, TiesByIndex)
}

func newPTASAlloc(name, arg string, m topo.Machine, opt Options) (Allocator, error) {
	g, ok := m.(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("%s needs a mesh or torus, not %s", name, m.Spec())
	}
	if arg != "" {
		return nil, fmt.Errorf("%s takes no argument, got %q", name, textin.Clip(arg))
	}
	a := &ptasAlloc{name: name, kind: name, g: g, st: NewState(g.N()), order: FreeListOrder(g), ties: ptas.TiesByIndex}
	if opt.Compat == CompatPReMAS {
		a.ties = ptas.TiesPReMAS
	}
	a.seen.off = opt.NoMemo
	a.pts = make([]geom.Point, g.N())
	for i := range a.pts {
		a.pts[i] = g.Coord(i, nil)
	}
	return a, nil
}

func (a *ptasAlloc) Name() string          { return a.name }
func (a *ptasAlloc) Machine() topo.Machine { return a.g }
func (a *ptasAlloc) NumFree() int          { return a.st.NumFree() }
func (a *ptasAlloc) Release(nodes []int) error {
	return a.st.Release(nodes)
}

// Occupy marks the nodes busy (Occupier), all or nothing, as a decision takes
// its nodes: every decision reads the free nodes from the state (the bounds
// package ptas keeps between decisions, CenterMemo, follow the changes of the
// free nodes, whoever made them; the remembered decisions are keyed by the
// whole free bitmap).
func (a *ptasAlloc) Occupy(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	return nil
}

// OccupyFreeIn marks busy the free nodes of set (a bitmap of the nodes), writes
// them to taken and returns their number (BulkOccupier: a Mask's hold of a
// partition's outside): the state alone, as Occupy.
func (a *ptasAlloc) OccupyFreeIn(set, taken []uint64) int { return a.st.TakeFreeIn(set, taken) }

// ReleaseIn frees every node of set (BulkOccupier), all or nothing.
func (a *ptasAlloc) ReleaseIn(set []uint64) error {
	if err := a.st.ReleaseIn(set); err != nil {
		return fmt.Errorf("%s: %w", a.name, err)
	}
	return nil
}

// IsFree reports whether node v is free (Occupier).
func (a *ptasAlloc) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's free-list path; Mask takes
// OccupyFreeIn, the bitmap path, first).
func (a *ptasAlloc) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

func (a *ptasAlloc) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	if nodes, _, ok := a.seen.lookup(k, false, a.st); ok {
		if err := a.st.Take(nodes); err != nil {
			return nil, fmt.Errorf("%s: internal error: %w", a.name, err)
		}
		return nodes, nil
	}
	a.fl = a.st.AppendFreeInOrder(a.fl[:0], a.order)
	var nodes []int
	if k == len(a.fl) {
		nodes = a.st.AppendFree(make([]int, 0, k))
	} else {
		a.free = a.free[:0]
		for _, v := range a.fl {
			a.free = append(a.free, []int(a.pts[v]))
		}
		var (
			res ptas.Result
			err error
		)
		opt := ptas.Options{Ties: a.ties, Ascending: true} // the nodes are put in order below anyway
		if a.ties == ptas.TiesByIndex {
			opt.Memo = &a.memo
		}
		if f, ok := exact.LatticeOptimum(len(a.g.Dims()), k); ok {
			opt.Floor = float64(f)
		}
		switch a.kind {
		case "mm":
			res, err = ptas.MM(a.free, k, opt)
		case "genalg":
			res, err = ptas.GenAlg(a.free, k, opt)
		default:
			res, err = ptas.MMInc(a.free, k, opt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.name, err)
		}
		if len(res.Indices) != k {
			return nil, fmt.Errorf("%s: internal error: %d nodes chosen, want %d", a.name, len(res.Indices), k)
		}
		nodes = a.inOrder(res.Indices)
	}
	if err := a.st.Take(nodes); err != nil {
		return nil, fmt.Errorf("%s: internal error: %w", a.name, err)
	}
	a.seen.store(nodes, 0, TieStats{})
	return nodes, nil
}

// inOrder returns the nodes a.fl[p], p in idx, in ascending node order. They are
// distinct and below N, so they are marked in a bitset and read back a word at a
// time over the words they span (O(span/64 + k)) instead of being sorted.
func (a *ptasAlloc) inOrder(idx []int) []int {
	if a.mark == nil {
		a.mark = make([]uint64, (a.g.N()+63)/64)
	}
	lo, hi := len(a.mark), -1
	for _, p := range idx {
		v := a.fl[p]
		a.mark[v>>6] |= 1 << (v & 63)
		lo, hi = min(lo, v>>6), max(hi, v>>6)
	}
	nodes := make([]int, 0, len(idx))
	for w := lo; w <= hi; w++ {
		for b := a.mark[w]; b != 0; b &= b - 1 {
			nodes = append(nodes, w<<6|bits.TrailingZeros64(b))
		}
		a.mark[w] = 0
	}
	return nodes
}
