package plan

import (
	"errors"
	"fmt"

	"github.com/procalloc/procalloc/alloc"
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
	if r, ok := pc.emulator.(alloc.PartitionRuled); ok {
		return &ruledCounter{pendingCounter: pc, r: r}
	}
	return pc
}

// ruledCounter is a pendingCounter over an emulator whose rule depends on the
// job's partition (partSwitch): the replay tells it each decision's partition.
type ruledCounter struct {
	*pendingCounter
	r alloc.PartitionRuled
}

// UsePartition is the emulator's (alloc.PartitionRuled).
func (rc *ruledCounter) UsePartition(name string) error { return rc.r.UsePartition(name) }

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
	// nodeAt is the node at each torus position (x fastest), nil when node v
	// is at position v (a torus --machine; a site's topology.yaml may list
	// its nodes in another order than the network's); -1 at a position that
	// holds no node (a torus given by regions that leave it uncovered).
	nodeAt []int
}

// placementsFor is, in the placement list's order, the index of the first
// placement larger than k (next; -1: none), whose free anchors a choice overlaps
// as little as it can, and of the first placement of k nodes before it (cur; -1:
// none, the job is refused), the rule torus3D.Allocate has always read.
func (c *torusConfig) placementsFor(k int) (cur, next int) {
	cur, next = -1, -1
	for i, b := range c.placements {
		if b.Size() == k && cur < 0 {
			cur = i
		}
		if b.Size() > k {
			next = i
			break
		}
	}
	return cur, next
}

// torus3D emulates Slurm 26.05's torus3d selection (eval_nodes_torus3d.c, as
// measured in slurm/newslurm_test.go on Slurm 26.05.3): among the anchors of the
// placement of the job's size whose nodes are all free, the one overlapping the
// fewest entirely free anchors of the next larger placement; ties to the earlier
// anchor (anchors x outermost, z innermost, spaced by the placement's dims:
// slurm.Box.Anchors). A job whose size has no placement is refused (Slurm refuses
// it at submission), and one that finds no free anchor fails with
// alloc.ErrFragmented (Slurm leaves it pending). It keeps no views (alloc.Viewer):
// a replay keeps its jobs in their partitions by holding the nodes outside
// (alloc.Mask).
//
// Positions without a node (nodeAt -1: regions leaving holes) are as Slurm
// 26.05.3 has them (torus3d_record.c, _build_placement_anchors: an anchor's
// bitmap holds only its real nodes, anchor_nodes counts them;
// eval_nodes_torus3d.c): the job's placement skips every anchor whose box holds
// one ("Skip anchors where not all cells are occupied by valid nodes"), while an
// anchor of the next placement is entirely free when its real nodes are
// (bit_super_set of its bitmap): a hole is busy for the first, free for the
// second (busy and holeFree).
//
// A decision is arithmetic on the torus, not a walk of node sets: a summed-volume
// table of the busy nodes (rebuilt, O(n), at the first decision after a change)
// gives each anchor's busy count in O(1); the anchors of the next placement that
// overlap a box are those whose origins lie in a window around it (on each axis
// the origins o in (a-S, a+s) modulo the axis, a the box's origin, s its side, S
// the next placement's: a range of the multiples of the next placement's origin
// spacing), whose free ones are looked at one by one when the candidates are few
// (fewestOverlaps), else counted in O(1) a candidate by a summed-volume table of
// the next placement's free anchors over its origins' grid; a count stops once it
// cannot win, and an overlap-free candidate ends the search. A decision is
// O(n + anchors of the two placements), memory O(n); Take, Release and Occupy
// mark the busy table stale and cost what alloc.State does.
type torus3D struct {
	m     topo.Machine
	st    *alloc.State
	cfg   *torusConfig
	place map[int]*torusPlacement // placement index -> its anchors' arithmetic

	busy  []int32 // summed-volume table of the busy nodes and the holes, (d0+1)(d1+1)(d2+1)
	stale bool    // busy is out of date
	// holeFree is busy with the holes free (the next placement's anchors),
	// the same slice as busy when there is no hole (holes false).
	holeFree []int32
	holes    bool
	freeA    []int32   // summed-volume table of the next placement's free anchors
	cand     []int32   // free anchors of the job's placement (origin indexes), scratch
	win      [3][]arc2 // per axis and origin index of the job's placement, its window

	counted [2]int // decisions whose overlaps were counted in the windows, by the table (for the tests)
}

// torusPlacement is a placement's anchors: per axis its origins in Slurm's order
// (slurm.Box.Origins), as indexes j of the origin j*spacing (the origins are the
// multiples of spacing), and per j the arcs its box covers on the axis, as
// offsets into the busy table.
type torusPlacement struct {
	side    [3]int
	spacing [3]int
	order   [3][]int32 // Slurm's order of the origins, as j
	covers  [3][]arc2  // per j, the box's cells on the axis
}

// arc2 is at most two ranges [lo, hi) of an axis, wrapped, as offsets (the cell
// index times the axis's stride in a summed-volume table).
type arc2 struct {
	n      int8
	lo, hi [2]int32
}

// arcsOf returns the cells [lo, lo+l) of an axis of n cells, wrapped (l of n or
// more: the axis once), as offsets of stride.
func arcsOf(lo, l, n, stride int) arc2 {
	if l >= n {
		return arc2{n: 1, hi: [2]int32{int32(n * stride)}}
	}
	lo = ((lo % n) + n) % n
	if lo+l <= n {
		return arc2{n: 1, lo: [2]int32{int32(lo * stride)}, hi: [2]int32{int32((lo + l) * stride)}}
	}
	return arc2{n: 2, lo: [2]int32{int32(lo * stride), 0}, hi: [2]int32{int32(n * stride), int32((lo + l - n) * stride)}}
}

// strides returns the strides of a summed-volume table of a grid of n cells.
func strides(n [3]int) [3]int { return [3]int{1, n[0] + 1, (n[0] + 1) * (n[1] + 1)} }

// boxSum sums a summed-volume table over the product of three arcs.
func boxSum(t []int32, x, y, z *arc2) int32 {
	var s int32
	for i := range x.n {
		lx, hx := x.lo[i], x.hi[i]
		for j := range y.n {
			ly, hy := y.lo[j], y.hi[j]
			for k := range z.n {
				lz, hz := z.lo[k], z.hi[k]
				s += t[hx+hy+hz] - t[lx+hy+hz] - t[hx+ly+hz] - t[hx+hy+lz] +
					t[lx+ly+hz] + t[lx+hy+lz] + t[hx+ly+lz] - t[lx+ly+lz]
			}
		}
	}
	return s
}

// integrate turns table, holding a grid of n's cells at (x+1, y+1, z+1) and zeros
// on the planes x, y or z = 0, into its summed-volume table.
func integrate(table []int32, n [3]int) {
	st := strides(n)
	for z := 1; z <= n[2]; z++ {
		for y := 1; y <= n[1]; y++ {
			row := table[y*st[1]+z*st[2]:]
			for x := 1; x <= n[0]; x++ {
				row[x] += row[x-1]
			}
		}
	}
	for z := 1; z <= n[2]; z++ {
		for y := 1; y <= n[1]; y++ {
			row, prev := table[y*st[1]+z*st[2]:], table[(y-1)*st[1]+z*st[2]:]
			for x := 1; x <= n[0]; x++ {
				row[x] += prev[x]
			}
		}
	}
	for z := 1; z <= n[2]; z++ {
		plane, prev := table[z*st[2]:(z+1)*st[2]], table[(z-1)*st[2]:]
		for i := range plane {
			plane[i] += prev[i]
		}
	}
}

func newTorus3D(m topo.Machine, cfg *torusConfig) (*torus3D, error) {
	d := cfg.dims
	n := d[0] * d[1] * d[2]
	holes := false
	if cfg.nodeAt == nil && n != m.N() {
		return nil, fmt.Errorf("torus3d of %d nodes on a machine of %d", n, m.N())
	}
	if cfg.nodeAt != nil {
		if len(cfg.nodeAt) != n {
			return nil, fmt.Errorf("torus3d of %d positions, %d in its position map", n, len(cfg.nodeAt))
		}
		for _, v := range cfg.nodeAt {
			if v >= m.N() {
				return nil, fmt.Errorf("torus3d position of node %d on a machine of %d", v, m.N())
			}
			holes = holes || v < 0
		}
	}
	for _, b := range cfg.placements {
		if b.X < 1 || b.Y < 1 || b.Z < 1 {
			return nil, fmt.Errorf("torus3d placement %s: a side below 1", b)
		}
	}
	t := &torus3D{
		m: m, st: alloc.NewState(m.N()), cfg: cfg, place: map[int]*torusPlacement{},
		busy: make([]int32, (d[0]+1)*(d[1]+1)*(d[2]+1)), stale: true,
	}
	t.holeFree, t.holes = t.busy, holes
	if holes {
		t.holeFree = make([]int32, len(t.busy))
	}
	return t, nil
}

// node is the node at torus position pos, -1 for none.
func (t *torus3D) node(pos int) int {
	if t.cfg.nodeAt != nil {
		return t.cfg.nodeAt[pos]
	}
	return pos
}

func (t *torus3D) Name() string          { return "slurm:torus3d" }
func (t *torus3D) Machine() topo.Machine { return t.m }
func (t *torus3D) NumFree() int          { return t.st.NumFree() }

// Release frees nodes.
func (t *torus3D) Release(nodes []int) error {
	t.stale = true
	return t.st.Release(nodes)
}

// Occupy marks nodes busy (pendingCounter's fallback; alloc.Occupier, which keeps
// a job in its partition).
func (t *torus3D) Occupy(nodes []int) error {
	t.stale = true
	return t.st.Take(nodes)
}

// IsFree reports whether node v is free.
func (t *torus3D) IsFree(v int) bool { return t.st.IsFree(v) }

// AppendFreeIn appends the free nodes of set (a bitmap of the nodes) to dst
// (alloc.Mask's bulk path).
func (t *torus3D) AppendFreeIn(dst []int, set []uint64) []int { return t.st.AppendFreeIn(dst, set) }

func (t *torus3D) placement(i int) *torusPlacement {
	if p, ok := t.place[i]; ok {
		return p
	}
	b, d := t.cfg.placements[i], t.cfg.dims
	st := strides(d)
	p := &torusPlacement{side: [3]int{b.X, b.Y, b.Z}}
	for a, origins := range b.Origins(d) {
		g := d[a] / len(origins)
		p.spacing[a] = g
		p.order[a] = make([]int32, len(origins))
		p.covers[a] = make([]arc2, len(origins))
		for k, o := range origins {
			p.order[a][k] = int32(o / g)
			p.covers[a][o/g] = arcsOf(o, p.side[a], d[a], st[a])
		}
	}
	t.place[i] = p
	return p
}

// Allocate places a k-node job on a placement box.
func (t *torus3D) Allocate(k int) ([]int, error) {
	if err := t.st.CheckRequest(k); err != nil {
		return nil, err
	}
	cur, next := t.cfg.placementsFor(k)
	if cur < 0 {
		return nil, fmt.Errorf("torus3d: no placement of %d nodes; Slurm refuses the job (Requested topology configuration is not available): %w", k, errRefused)
	}
	d := t.cfg.dims
	if t.stale {
		st := strides(d)
		clear(t.busy)
		if t.holes {
			clear(t.holeFree)
		}
		v := 0
		for z := 1; z <= d[2]; z++ {
			for y := 1; y <= d[1]; y++ {
				at := y*st[1] + z*st[2]
				row, hrow := t.busy[at:], t.holeFree[at:]
				for x := 1; x <= d[0]; x++ {
					switch u := t.node(v); {
					case u < 0:
						row[x] = 1
					case !t.st.IsFree(u):
						row[x], hrow[x] = 1, 1
					}
					v++
				}
			}
		}
		integrate(t.busy, d)
		if t.holes {
			integrate(t.holeFree, d)
		}
		t.stale = false
	}
	// The free anchors of the job's placement, in Slurm's order.
	pc := t.placement(cur)
	t.cand = t.cand[:0]
	for _, jx := range pc.order[0] {
		cx := &pc.covers[0][jx]
		for _, jy := range pc.order[1] {
			cy := &pc.covers[1][jy]
			for _, jz := range pc.order[2] {
				if boxSum(t.busy, cx, cy, &pc.covers[2][jz]) == 0 {
					t.cand = append(t.cand, jx, jy, jz)
				}
			}
		}
	}
	if len(t.cand) == 0 {
		return nil, fmt.Errorf("torus3d: no free %s box for %d nodes; Slurm leaves the job pending: %w", t.cfg.placements[cur], k, alloc.ErrFragmented)
	}
	best := t.cand[:3]
	if next >= 0 && len(t.cand) > 3 {
		best = t.fewestOverlaps(pc, t.placement(next))
	}
	var origin [3]int
	for a := range 3 {
		origin[a] = int(best[a]) * pc.spacing[a]
	}
	out := t.cfg.placements[cur].NodesAt(d, origin)
	if t.cfg.nodeAt != nil {
		for i, pos := range out {
			out[i] = t.cfg.nodeAt[pos]
		}
	}
	if err := t.st.Take(out); err != nil {
		return nil, err
	}
	t.stale = true
	return out, nil
}

// fewestOverlaps returns the candidate (t.cand, origin indexes of placement pc
// in Slurm's order) whose box overlaps the fewest entirely free anchors of
// placement pn, the first of them on a tie. With few candidates (their windows
// hold fewer of pn's anchors than pn has) it looks at the anchors in each window,
// a candidate's count stopping once it reaches the best; else it counts them in a
// summed-volume table of pn's free anchors.
func (t *torus3D) fewestOverlaps(pc, pn *torusPlacement) []int32 {
	var grid [3]int // pn's origins' grid: origin j*spacing on each axis
	for a := range 3 {
		grid[a] = len(pn.order[a])
	}
	// Per axis and origin of pc, the window of pn's origins whose boxes overlap
	// its box: o in (a-S, a+s) modulo the axis, o = j*spacing (a window of s+S-1
	// of the axis or more holds every j: the axis once).
	for a := range 3 {
		n := len(pc.covers[a])
		if cap(t.win[a]) < n {
			t.win[a] = make([]arc2, n)
		}
		t.win[a] = t.win[a][:n]
		s, S, g := pc.side[a], pn.side[a], pn.spacing[a]
		for j := range n {
			o := j * pc.spacing[a]
			first := floorDiv(o-S+g, g) // ceil((o-S+1)/g)
			last := floorDiv(o+s-1, g)
			t.win[a][j] = arcsOf(first, last-first+1, grid[a], 1)
		}
	}
	volume := grid[0] * grid[1] * grid[2]
	work := 0
	for i := 0; i < len(t.cand) && work <= volume; i += 3 {
		work += t.win[0][t.cand[i]].len() * t.win[1][t.cand[i+1]].len() * t.win[2][t.cand[i+2]].len()
	}
	var best []int32
	bestCost := int32(-1)
	if work <= volume {
		t.counted[0]++
		for i := 0; i < len(t.cand); i += 3 {
			c := t.cand[i : i+3]
			if cost := t.freeInWindow(pn, c, bestCost); bestCost < 0 || cost < bestCost {
				best, bestCost = c, cost
			}
			if bestCost == 0 {
				break
			}
		}
		return best
	}
	t.counted[1]++
	gs := strides(grid)
	if need := (grid[0] + 1) * (grid[1] + 1) * (grid[2] + 1); cap(t.freeA) < need {
		t.freeA = make([]int32, need)
	} else {
		t.freeA = t.freeA[:need]
		clear(t.freeA)
	}
	for jz := range grid[2] {
		cz := &pn.covers[2][jz]
		for jy := range grid[1] {
			cy := &pn.covers[1][jy]
			row := t.freeA[(jy+1)*gs[1]+(jz+1)*gs[2]:]
			for jx := range grid[0] {
				if boxSum(t.holeFree, &pn.covers[0][jx], cy, cz) == 0 {
					row[jx+1] = 1
				}
			}
		}
	}
	integrate(t.freeA, grid)
	for i := 0; i < len(t.cand); i += 3 {
		c := t.cand[i : i+3]
		x, y, z := t.win[0][c[0]].scaled(gs[0]), t.win[1][c[1]].scaled(gs[1]), t.win[2][c[2]].scaled(gs[2])
		if cost := boxSum(t.freeA, &x, &y, &z); bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
		if bestCost == 0 {
			break
		}
	}
	return best
}

// freeInWindow counts the entirely free anchors of pn in the window of candidate
// c (t.win), stopping at limit when limit >= 0 (the count then cannot win).
func (t *torus3D) freeInWindow(pn *torusPlacement, c []int32, limit int32) int32 {
	wx, wy, wz := &t.win[0][c[0]], &t.win[1][c[1]], &t.win[2][c[2]]
	var cost int32
	for i := range wx.n {
		for jx := wx.lo[i]; jx < wx.hi[i]; jx++ {
			cx := &pn.covers[0][jx]
			for k := range wy.n {
				for jy := wy.lo[k]; jy < wy.hi[k]; jy++ {
					cy := &pn.covers[1][jy]
					for l := range wz.n {
						for jz := wz.lo[l]; jz < wz.hi[l]; jz++ {
							if boxSum(t.holeFree, cx, cy, &pn.covers[2][jz]) == 0 {
								if cost++; limit >= 0 && cost >= limit {
									return cost
								}
							}
						}
					}
				}
			}
		}
	}
	return cost
}

// len is the number of cells of r.
func (r *arc2) len() int {
	n := 0
	for i := range r.n {
		n += int(r.hi[i] - r.lo[i])
	}
	return n
}

// scaled returns r (of stride 1) with its offsets of stride.
func (r arc2) scaled(stride int) arc2 {
	for i := range r.n {
		r.lo[i] *= int32(stride)
		r.hi[i] *= int32(stride)
	}
	return r
}

// floorDiv is a/b rounded down (b > 0).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
