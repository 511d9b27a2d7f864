package alloc

import (
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register("mc", "MC (Mache, Lo and Windisch 1997; Bunde et al. 2004 §2.3): shells around a requested submesh shape centred on each free node, least total shell number; shape: the most square box holding k (docs/alloc.md)",
		func(arg string, m topo.Machine, _ Options) (Allocator, error) {
			if arg != "" {
				return nil, fmt.Errorf("mc takes no argument (the shape comes from the job size), got %q", textin.Clip(arg))
			}
			g, ok := m.(*topo.Grid)
			if !ok {
				return nil, fmt.Errorf("mc needs a mesh without wraparound, not %s", m.Spec())
			}
			return NewMC(g)
		})
}

// MC is the allocator of J. Mache, V. Lo and K. Windisch, "Minimizing message-passing
// contention in fragmentation-free processor allocation" (PDCS 1997), as Bunde et al.
// 2004 §2.3 describe it: a job requests a submesh shape; every free node evaluates the
// shape placed around itself (shell 0) and the rings of nodes around it (shell s: the
// nodes at L-infinity distance s from the submesh); the job's k nodes are taken from
// the lowest shells, and the cost is the sum of their shell numbers. The cheapest
// centre wins, the first in node-index order on ties.
//
// Trace jobs request no shape, so procalloc gives each the most square box that holds
// it (Shape): side ceil(k^(1/d)) in the first dimension, then the same rule for the
// remaining ceil(k / side) nodes in the others, each side at most the machine's. The
// centre node sits at offset floor((side-1)/2) from the box's low corner in every
// dimension; parts of the box outside the mesh hold no nodes. In the last shell
// needed, nodes are taken by L1 distance to the centre, then by index.
type MC struct {
	g     *topo.Grid
	st    *State
	dims  []int
	fb    *freeBoxes    // prefix sums of the free map
	cs    *centerSearch // the centres of least cost (center_bnb.go)
	dirty bool
	plain bool // tests: cost every free centre instead (the definition's loop)
	c, lo []int
	hi    []int
	keys  []uint64 // chooseNodes
}

// NewMC returns MC on mesh g, every node free. A grid that wraps is refused: the
// shells are boxes of the mesh (Mache et al. place none across a wrap).
func NewMC(g *topo.Grid) (*MC, error) {
	if g.Wraps() {
		return nil, fmt.Errorf("mc needs a mesh without wraparound, not %s", g.Spec())
	}
	d := g.Dims()
	a := &MC{g: g, st: NewState(g.N()), dims: d, dirty: true,
		c: make([]int, len(d)), lo: make([]int, len(d)), hi: make([]int, len(d))}
	a.fb = newFreeBoxes(g, nil)
	a.cs = newCenterSearch(g, a.fb)
	a.cs.first = true // the first centre of least cost in node-index order
	return a, nil
}

// Shape returns the box MC requests for k nodes on a machine of sides dims.
func Shape(k int, dims []int) []int {
	out := make([]int, len(dims))
	rem := k
	for j, d := range dims {
		left := len(dims) - j
		side := int(math.Ceil(math.Pow(float64(rem), 1/float64(left)) - 1e-9))
		side = max(1, min(side, d))
		if left == 1 {
			side = min(rem, d)
		}
		out[j] = side
		rem = (rem + side - 1) / side
	}
	prod := 1
	for _, v := range out {
		prod *= v
	}
	if prod < k {
		copy(out, dims) // only the whole machine holds it
	}
	return out
}

// Name returns "mc", the spec Parse knows it by.
func (a *MC) Name() string { return "mc" }

// Machine returns the mesh the allocator was built for.
func (a *MC) Machine() topo.Machine { return a.g }

// NumFree returns the number of free nodes.
func (a *MC) NumFree() int { return a.st.NumFree() }

// Release marks the nodes free again (Allocator.Release).
func (a *MC) Release(nodes []int) error {
	if err := a.st.Release(nodes); err != nil {
		return err
	}
	a.fb.touch(nodes)
	a.dirty = true
	return nil
}

// cost returns the MC cost of centre c for k nodes with box shape, and the shell L
// from which the last nodes come.
func (a *MC) cost(c, shape []int, k int) (cost, L int) {
	prev := 0
	for s := 0; ; s++ {
		for j := range c {
			a.lo[j] = c[j] - (shape[j]-1)/2 - s
			a.hi[j] = a.lo[j] + shape[j] - 1 + 2*s
		}
		f := a.fb.count(a.lo, a.hi)
		if f >= k {
			return cost + s*(k-prev), s
		}
		cost += s * (f - prev)
		prev = f
	}
}

// Allocate chooses k free nodes by the MC rule. The centres of least cost come from
// centerSearch's branch and bound over boxes of centres (MC's cost is its sum over
// growing boxes with the job's shape), the first in node-index order winning, as
// when every free centre is costed (TestMCBoundsMatchPlain).
func (a *MC) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	if a.dirty {
		a.fb.rebuild(a.st)
		a.dirty = false
	}
	shape := Shape(k, a.dims)
	best, bestCost, bestL := -1, 0, 0
	if a.plain {
		c := make([]int, len(a.dims))
		for i := range a.g.N() {
			if !a.st.IsFree(i) {
				continue
			}
			c = a.g.Coord(i, c)
			cost, L := a.cost(c, shape, k)
			if best < 0 || cost < bestCost {
				best, bestCost, bestL = i, cost, L
			}
		}
	} else {
		for j, side := range shape {
			a.cs.off[j], a.cs.width[j] = (side-1)/2, side
		}
		for _, l := range a.cs.search(a.st, k) {
			if best < 0 || l.node < best {
				best, bestL = l.node, l.L
			}
		}
	}
	nodes := a.chooseNodes(best, shape, k, bestL)
	if err := a.Occupy(nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

// Occupy marks the nodes busy (Occupier), all or nothing, as Allocate takes its
// nodes: the prefix sums of the free map are brought up to date from the least
// coordinates that changed at the next decision, which then sees the free nodes
// left, as after Allocate.
func (a *MC) Occupy(nodes []int) error {
	if err := a.st.Take(nodes); err != nil {
		return fmt.Errorf("mc: %w", err)
	}
	a.fb.touch(nodes)
	a.dirty = true
	return nil
}

// OccupyFreeIn marks busy the free nodes of set (a bitmap of the nodes), writes
// them to taken and returns their number (BulkOccupier: a Mask's hold of a
// partition's outside), the prefix sums made out of date once, as Occupy of
// their list does.
func (a *MC) OccupyFreeIn(set, taken []uint64) int {
	k := a.st.TakeFreeIn(set, taken)
	if a.fb.touchIn(taken) {
		a.dirty = true
	}
	return k
}

// ReleaseIn frees every node of set (BulkOccupier), all or nothing, as Release
// of their list does.
func (a *MC) ReleaseIn(set []uint64) error {
	if err := a.st.ReleaseIn(set); err != nil {
		return fmt.Errorf("mc: %w", err)
	}
	if a.fb.touchIn(set) {
		a.dirty = true
	}
	return nil
}

// IsFree reports whether node v is free (Occupier).
func (a *MC) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of the bitmap set (Mask's free-list path; Mask takes
// OccupyFreeIn, the bitmap path, first).
func (a *MC) AppendFreeIn(dst []int, set []uint64) []int { return a.st.AppendFreeIn(dst, set) }

// chooseNodes lists the free nodes of shells 0..L-1 around centre i, then the
// closest (L1 to the centre, then index) free nodes of shell L up to k.
func (a *MC) chooseNodes(i int, shape []int, k, L int) []int {
	c := a.g.Coord(i, nil)
	lo := make([]int, len(c))
	hi := make([]int, len(c))
	for j := range c {
		lo[j] = max(0, c[j]-(shape[j]-1)/2-L)
		hi[j] = min(a.dims[j]-1, c[j]-(shape[j]-1)/2+shape[j]-1+L)
	}
	// Each free node as one key, (shell, L1, node) packed high to low, so that a
	// sort of integers gives the order (below 2^24 nodes, and sides summing to
	// less than 2^20, which bounds shell and L1).
	sides := 0
	for _, dj := range a.dims {
		sides += dj
	}
	packed := a.g.N() < 1<<24 && sides < 1<<20
	type cand struct{ shell, l1, node int }
	var cs []cand
	keys := a.keys[:0]
	x := make([]int, len(c))
	copy(x, lo)
	for {
		node := a.g.Index(x)
		if a.st.IsFree(node) {
			sh, l1 := 0, 0
			for j := range x {
				b0 := c[j] - (shape[j]-1)/2
				b1 := b0 + shape[j] - 1
				sh = max(sh, b0-x[j], x[j]-b1)
				l1 += abs(x[j] - c[j])
			}
			if packed {
				keys = append(keys, uint64(sh)<<44|uint64(l1)<<24|uint64(node))
			} else {
				cs = append(cs, cand{sh, l1, node})
			}
		}
		j := 0
		for ; j < len(x); j++ {
			if x[j] < hi[j] {
				x[j]++
				break
			}
			x[j] = lo[j]
		}
		if j == len(x) {
			break
		}
	}
	out := make([]int, 0, k)
	if packed {
		slices.Sort(keys)
		for _, key := range keys[:k] {
			out = append(out, int(key&(1<<24-1)))
		}
		a.keys = keys
		return out
	}
	slices.SortFunc(cs, func(p, q cand) int {
		if p.shell != q.shell {
			return p.shell - q.shell
		}
		if p.l1 != q.l1 {
			return p.l1 - q.l1
		}
		return p.node - q.node
	})
	for _, v := range cs[:k] {
		out = append(out, v.node)
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
