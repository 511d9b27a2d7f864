package alloc

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
)

// slurm:ring: Slurm's topology/ring selection (Slurm 26.05 on) as Slurm 26.05.3
// has it (tag slurm-26-05-3-1 of SchedMD/slurm: src/plugins/topology/ring/
// eval_nodes_ring.c, eval_nodes_ring and _test_ring; topology_ring.c,
// topology_p_eval_nodes and topology_p_allow_one_node; ring_record.c,
// ring_record_validate), for the jobs and clusters of slurm:consec (whole-node
// jobs of k nodes, no required nodes, no --segment, no GRES). A ring is an
// ordered list of at most 16 nodes (slurm.Rings), position i next to i-1 and
// i+1 and the last next to the first.
//
//   - A job of k nodes takes one segment of a ring: k consecutive positions,
//     wrapping past the last, every node free (in the job's partition). The
//     segment's weight is the highest Weight of its nodes.
//   - Of every segment of every ring the one of lowest weight wins, then the
//     one on the ring with the fewest free nodes (ring_idle_nodes: the tightest
//     ring), then the earliest ring in the file, then the earliest start
//     position (_test_ring replaces the best only when strictly better, rings
//     in file order, starts from 0; its skip past a busy or too heavy node,
//     "step += j", skips only starts whose segment holds that node). A ring
//     with fewer than k positions or fewer than k free nodes is passed over.
//   - No segment: the job waits (ESLURM_TOPO_NO_FIT with EVAL_ACTION_BREAK: no
//     retry with fewer candidates). A job larger than every ring never starts.
//   - No free node of any ring among the job's candidates: Slurm skips the ring
//     plugin and uses its common selection (topology_p_eval_nodes: the plugin
//     is chosen only when rings_nodes_bitmap overlaps the node map); emulated by
//     slurm:consec's rules. While a ring node is free, nodes on no ring are never
//     given to a job of two or more nodes.
//   - One-node jobs skip the plugin (topology_p_allow_one_node is true): the
//     free node of lowest weight, first in node-index order, on a ring or not
//     (select/cons_tres's _get_one_res), as under slurm:block.
//
// A node may be on several rings (Slurm allows it); one named twice in a ring is
// refused by the reader (slurm's Rings.addRing, both formats). Nodes of a ring that are not the
// machine's are an error here (alloc.NewSlurm takes them for a typo; plan
// leaves out the names slurm.conf lacks first, as slurmctld does).

// slurmRings is a SlurmAllocator's topology/ring state: read-only after
// initRings (clones share it).
type slurmRings struct {
	ring  [][]int32 // ring i's nodes (Slurm indices) in ring order
	inAny []bool    // by Slurm index: on some ring (rings_nodes_bitmap)
	onAny []int32   // the Slurm indices on some ring, ascending
	size  int       // the largest ring's size
	// the rings and positions of each Slurm index s:
	// at[off[s]:off[s+1]], each ring<<4 | position
	off, at []int32
	words   int // words of a bitset over the rings
	// uniform: every ring node has one weight (the order of segments is then
	// (ring free count, ring, start)). Otherwise lb[i*(MaxRingSize+1)+k] is the
	// lowest weight of a k-node segment of ring i with every node free, a
	// bound below any segment's weight there.
	uniform bool
	lb      []uint32
	// byLB[k]: the rings of k or more positions by (lb of k, index)
	byLB [slurm.MaxRingSize + 1][]int32
}

func (a *SlurmAllocator) initRings(cfg *slurm.Rings, names []string) error {
	if len(cfg.Rings) == 0 {
		return fmt.Errorf("topology/ring configuration without rings (Slurm: \"No rings configured\"; use slurm.ParseTopologyConf or ParseTopologyYAML)")
	}
	n := len(a.at)
	byName := make(map[string]int32, n)
	for v, nm := range names {
		byName[nm] = int32(v)
	}
	r := &slurmRings{ring: make([][]int32, len(cfg.Rings)), inAny: make([]bool, n)}
	for i, rg := range cfg.Rings {
		if len(rg.Nodes) > slurm.MaxRingSize {
			return fmt.Errorf("%s: ring %s has %d nodes; Slurm's rings hold at most %d (ring_record.c: \"Ring (%s) is bigger than %d\", fatal)", cfg.Where(i), textin.Clip(rg.Name), len(rg.Nodes), slurm.MaxRingSize, textin.Clip(rg.Name), slurm.MaxRingSize)
		}
		set := make([]int32, len(rg.Nodes))
		seen := map[int32]bool{}
		for j, nm := range rg.Nodes {
			v, ok := byName[nm]
			if !ok {
				return fmt.Errorf("%s: ring %s lists node %q, which is not a node of the machine", cfg.Where(i), textin.Clip(rg.Name), textin.Clip(nm))
			}
			if seen[v] {
				return fmt.Errorf("%s: ring %s lists node %q twice", cfg.Where(i), textin.Clip(rg.Name), textin.Clip(nm))
			}
			seen[v] = true
			set[j] = a.idx[v]
			r.inAny[a.idx[v]] = true
		}
		r.ring[i] = set
		r.size = max(r.size, len(set))
	}
	for s, in := range r.inAny {
		if in {
			r.onAny = append(r.onAny, int32(s))
		}
	}
	r.index(a.w)
	a.ring = r
	a.rf = r.newFree()
	if len(r.onAny) < n {
		// ring_record_validate: warning("Rings lack access to %d nodes: %s").
		a.warnings = append(a.warnings, fmt.Sprintf("%d of the machine's %d nodes are on no ring: slurmctld starts with \"Rings lack access to %d nodes\", and they get a job of two or more nodes only when no node of a ring is free", n-len(r.onAny), n, n-len(r.onAny)))
	}
	return nil
}

// index makes the rings' look-up tables: each node's rings and positions,
// and the weight bounds (unequal weights only).
func (r *slurmRings) index(w []uint32) {
	n := len(r.inAny)
	r.off = make([]int32, n+1)
	for _, ring := range r.ring {
		for _, s := range ring {
			r.off[s+1]++
		}
	}
	for s := range n {
		r.off[s+1] += r.off[s]
	}
	r.at = make([]int32, r.off[n])
	fill := slices.Clone(r.off[:n])
	for i, ring := range r.ring {
		for p, s := range ring {
			r.at[fill[s]] = int32(i)<<4 | int32(p)
			fill[s]++
		}
	}
	r.words = (len(r.ring) + 63) / 64
	r.uniform = true
	for _, s := range r.onAny {
		if w[s] != w[r.onAny[0]] {
			r.uniform = false
			break
		}
	}
	if r.uniform {
		return
	}
	const m = slurm.MaxRingSize + 1
	r.lb = make([]uint32, len(r.ring)*m)
	for i, ring := range r.ring {
		lb := r.lb[i*m : (i+1)*m]
		for k := range lb {
			lb[k] = math.MaxUint32
		}
		nr := len(ring)
		for start := range nr {
			var mx uint32
			for k := 1; k <= nr; k++ {
				mx = max(mx, w[ring[(start+k-1)%nr]])
				lb[k] = min(lb[k], mx)
			}
		}
	}
	for k := 2; k <= r.size; k++ {
		var order []int32
		for i, ring := range r.ring {
			if len(ring) >= k {
				order = append(order, int32(i))
			}
		}
		slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(r.lb[int(x)*m+k], r.lb[int(y)*m+k]) })
		r.byLB[k] = order
	}
}

// ringFree is slurm:ring's incremental state (a view's): each ring's free
// positions, the rings by their free count, and the free nodes on some ring.
// A node's change costs O(its rings); a decision reads the rings with at least
// k free nodes, by free count then file order, and stops at the first (equal
// weights) or past every ring whose bound is no better than the best so far.
type ringFree struct {
	mask   []uint16 // bit p of ring i: its position p is free
	byIdle []uint64 // bitset of the rings with c free nodes at [c*words:(c+1)*words]
	onFree int      // free nodes on some ring
}

func (r *slurmRings) newFree() *ringFree {
	rf := &ringFree{mask: make([]uint16, len(r.ring)), byIdle: make([]uint64, (slurm.MaxRingSize+1)*r.words), onFree: len(r.onAny)}
	for i, ring := range r.ring {
		rf.mask[i] = uint16(1<<len(ring) - 1)
		c := len(ring)
		rf.byIdle[c*r.words+i>>6] |= 1 << (i & 63)
	}
	return rf
}

func (rf *ringFree) clone() *ringFree {
	c := *rf
	c.mask, c.byIdle = slices.Clone(rf.mask), slices.Clone(rf.byIdle)
	return &c
}

// note records that Slurm index s became free (free) or busy in rf.
func (r *slurmRings) note(rf *ringFree, s int32, free bool) {
	if !r.inAny[s] {
		return
	}
	if free {
		rf.onFree++
	} else {
		rf.onFree--
	}
	for _, x := range r.at[r.off[s]:r.off[s+1]] {
		i, p := x>>4, x&15
		m := rf.mask[i]
		c := bits.OnesCount16(m)
		if free {
			m |= 1 << p
		} else {
			m &^= 1 << p
		}
		rf.mask[i] = m
		w, bit := int(i)>>6, uint64(1)<<(i&63)
		rf.byIdle[c*r.words+w] &^= bit
		rf.byIdle[bits.OnesCount16(m)*r.words+w] |= bit
	}
}

// segmentStarts returns the positions p < n of a ring of n positions, free
// ones mask, at which k consecutive positions (wrapping) are free, as a bitset.
func segmentStarts(mask uint16, n, k int) uint32 {
	d := uint32(mask) | uint32(mask)<<n
	r := d
	for j := 1; j < k; j++ {
		r &= d >> j
	}
	return r & (1<<n - 1)
}

// ringSegment is a candidate segment: ring, start position, weight (its
// heaviest node's) and the ring's free nodes.
type ringSegment struct {
	ring, start int
	w           uint32
	idle        int
}

// ringSelect is eval_nodes_ring for a k-node job (see above), from the
// incremental state. With equal weights: the rings with c = k, k+1, ... free
// nodes in file order, the first segment found is the least in (ring free
// count, ring, start). With unequal weights: the rings by their bound (lb),
// until the bound exceeds the best segment's weight, each segment compared by
// (weight, ring free count, ring, start). ringSelectScan is the plain scan it
// is checked against.
func (a *SlurmAllocator) ringSelect(k int) ([]int32, error) {
	rs, rf := a.ring, a.rf
	if k == 1 {
		return []int32{a.wo.at[a.wo.kth(1)]}, nil // _get_one_res, as blockSelect
	}
	if rf.onFree == 0 {
		return a.consec(k), nil
	}
	if k > rs.size {
		return nil, a.ringNoFit(k)
	}
	if rs.uniform {
		for c := k; c <= rs.size; c++ {
			row := rf.byIdle[c*rs.words : (c+1)*rs.words]
			for wi, word := range row {
				for ; word != 0; word &= word - 1 {
					i := wi<<6 + bits.TrailingZeros64(word)
					ring := rs.ring[i]
					if starts := segmentStarts(rf.mask[i], len(ring), k); starts != 0 {
						return ringPicked(ring, bits.TrailingZeros32(starts), k), nil
					}
				}
			}
		}
		return nil, a.ringNoFit(k)
	}
	const m = slurm.MaxRingSize + 1
	best := ringSegment{ring: -1}
	for _, i32 := range rs.byLB[k] {
		i := int(i32)
		if best.ring >= 0 && rs.lb[i*m+k] > best.w {
			break // no later ring has a segment as light
		}
		mask := rf.mask[i]
		c := bits.OnesCount16(mask)
		if c < k {
			continue
		}
		ring := rs.ring[i]
		n := len(ring)
		for starts := segmentStarts(mask, n, k); starts != 0; starts &= starts - 1 {
			start := bits.TrailingZeros32(starts)
			var w uint32
			ok := true
			for j := range k {
				w = max(w, a.w[ring[(start+j)%n]])
				if best.ring >= 0 && w > best.w {
					ok = false
					break
				}
			}
			if ok && (best.ring < 0 || w < best.w || w == best.w && (c < best.idle || c == best.idle && (i < best.ring || i == best.ring && start < best.start))) {
				best = ringSegment{ring: i, start: start, w: w, idle: c}
			}
		}
	}
	if best.ring < 0 {
		return nil, a.ringNoFit(k)
	}
	return ringPicked(rs.ring[best.ring], best.start, k), nil
}

// ringPicked is the k positions of ring from start.
func ringPicked(ring []int32, start, k int) []int32 {
	picked := make([]int32, k)
	for j := range k {
		picked[j] = ring[(start+j)%len(ring)]
	}
	return picked
}

// ringNoFit is the error of a k-node job no ring segment holds.
func (a *SlurmAllocator) ringNoFit(k int) error {
	if k > a.ring.size {
		return fmt.Errorf("request for %d nodes: the largest ring has %d nodes; Slurm leaves the job pending forever while a node of a ring is free: %w", k, a.ring.size, ErrFragmented)
	}
	return fmt.Errorf("request for %d nodes: no ring has %d consecutive free nodes; Slurm leaves the job pending: %w", k, k, ErrFragmented)
}

// ringSelectScan is eval_nodes_ring for a k-node job as Slurm's code runs it:
// every ring scanned, every node's state read (O(ring nodes)); the reference
// ringSelect is checked against.
func (a *SlurmAllocator) ringSelectScan(k int) ([]int32, error) {
	rs := a.ring
	if k == 1 {
		return []int32{a.wo.at[a.wo.kth(1)]}, nil
	}
	anyFree := false
	for _, s := range rs.onAny {
		if a.free(s) {
			anyFree = true
			break
		}
	}
	if !anyFree {
		return a.consec(k), nil
	}
	best := ringSegment{ring: -1}
	for i, ring := range rs.ring {
		n := len(ring)
		if n < k {
			continue
		}
		idle := 0
		for _, s := range ring {
			if a.free(s) {
				idle++
			}
		}
		if idle < k {
			continue
		}
		for start := 0; start < n; {
			step, ok := 1, true
			var w uint32
			for j := range k {
				s := ring[(start+j)%n]
				if !a.free(s) || best.ring >= 0 && a.w[s] > best.w {
					ok, step = false, step+j
					break
				}
				w = max(w, a.w[s])
			}
			if ok && (best.ring < 0 || w < best.w || w == best.w && idle < best.idle) {
				best = ringSegment{ring: i, start: start, w: w, idle: idle}
			}
			start += step
		}
	}
	if best.ring < 0 {
		return nil, a.ringNoFit(k)
	}
	return ringPicked(rs.ring[best.ring], best.start, k), nil
}
