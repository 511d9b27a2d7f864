package alloc

import (
	"fmt"
	"math/bits"
)

// Mask keeps an Occupier's decisions off a set of nodes that changes now and then
// (a replay's jobs of several Slurm partitions), at the cost of what changes rather
// than of the nodes kept off. It holds busy (Occupy) the free nodes outside the
// allowed set between decisions, not only during one as AllocateWithout does:
//
//   - Set(away) changes the set: the held nodes that away no longer lists are
//     freed, and the free nodes that away lists and the previous set did not are
//     held; a run of decisions with one set pays nothing;
//   - Release frees a job's nodes, holding those of them that the current set
//     keeps away (they would be held at the next decision anyway);
//   - Set(nil) frees every held node.
//
// A decision after Set(away) therefore sees exactly the free state that
// AllocateWithout(away) gives it (the free nodes outside away), and places the
// job on the same nodes whenever the allocator's decision depends on its free
// nodes alone, not on the order of the changes that led to them: true of Slurm's
// emulations (their incremental counts are exact, slurm_free.go) and of plan's
// torus3d and fallback (alloc/mask_test.go and plan's tests check them in
// lockstep with AllocateWithout). Between decisions the allocator reports the
// held nodes busy (NumFree, IsFree): a caller that reads the free state there
// adds Held, or calls Set(nil) first.
//
// The sets are bitmaps of the machine's nodes (bit v of word v/64: node v kept
// away); Set costs O(n/64) besides the nodes it frees and holds.
type Mask struct {
	n     int
	away  []uint64 // the current set (nil: none)
	held  []uint64 // nodes held busy by the mask
	nheld int
	buf   []int
	diff  []uint64
}

// freeAppender is an Occupier that lists its free nodes of a bitmap at once
// (State.AppendFreeIn): Set's bulk path, in place of IsFree node by node.
type freeAppender interface {
	AppendFreeIn(dst []int, set []uint64) []int
}

// NewMask returns a mask of an n-node machine keeping nothing away.
func NewMask(n int) *Mask {
	return &Mask{n: n, held: make([]uint64, (n+63)/64)}
}

// Held returns the number of nodes the mask holds busy.
func (m *Mask) Held() int { return m.nheld }

// Set keeps the decisions that follow off the nodes of away (a bitmap of the n
// nodes; nil or empty: none): the held nodes away does not list are released, the
// free nodes it lists that are not held are occupied. away is kept until the next
// Set and must not change meanwhile.
func (m *Mask) Set(a Occupier, away []uint64) error {
	if len(away) == 0 {
		away = nil
	}
	if away != nil && len(away) != len(m.held) {
		return fmt.Errorf("mask: a set of %d words for %d nodes", len(away), m.n)
	}
	if away == nil && m.away == nil || away != nil && m.away != nil && &away[0] == &m.away[0] {
		return nil // the current set (the same bitmap): nothing changes
	}
	// Free the held nodes the new set allows.
	m.buf = m.buf[:0]
	if m.nheld > 0 {
		for w, h := range m.held {
			x := h
			if away != nil {
				x &^= away[w]
			}
			for ; x != 0; x &= x - 1 {
				m.buf = append(m.buf, w<<6+bits.TrailingZeros64(x))
			}
		}
	}
	if len(m.buf) > 0 {
		if err := a.Release(m.buf); err != nil {
			return fmt.Errorf("%s: internal error: freeing nodes a partition no longer keeps away: %w", a.Name(), err)
		}
		for _, v := range m.buf {
			m.held[v>>6] &^= 1 << (v & 63)
		}
		m.nheld -= len(m.buf)
	}
	// Hold the free nodes the new set keeps away and the old one did not (those
	// the old one kept away are held or busy already).
	m.buf = m.buf[:0]
	if away != nil {
		set := away
		if m.away != nil {
			m.diff = append(m.diff[:0], away...)
			for w, x := range m.away {
				m.diff[w] &^= x
			}
			set = m.diff
		}
		if fa, ok := a.(freeAppender); ok {
			m.buf = fa.AppendFreeIn(m.buf, set)
		} else {
			for w, x := range set {
				for ; x != 0; x &= x - 1 {
					if v := w<<6 + bits.TrailingZeros64(x); a.IsFree(v) {
						m.buf = append(m.buf, v)
					}
				}
			}
		}
	}
	if len(m.buf) > 0 {
		if err := a.Occupy(m.buf); err != nil {
			return fmt.Errorf("%s: keeping a decision off %d nodes: %w", a.Name(), len(m.buf), err)
		}
		for _, v := range m.buf {
			m.held[v>>6] |= 1 << (v & 63)
		}
		m.nheld += len(m.buf)
	}
	m.away = away
	return nil
}

// Release frees a job's nodes (measured by c, as Clock.Release does), holding those
// the current set keeps away. A node that is not busy, or listed twice, is an
// error, and nothing changes.
func (m *Mask) Release(c *Clock, a Occupier, nodes []int) error {
	if m.away == nil {
		return c.Release(a, nodes)
	}
	m.buf = m.buf[:0]
	kept := 0
	for j, v := range nodes {
		if !m.keptAway(v) {
			m.buf = append(m.buf, v)
			continue
		}
		if a.IsFree(v) || m.held[v>>6]>>(v&63)&1 != 0 {
			m.undo(nodes[:j])
			return fmt.Errorf("release: node %d is not busy", v)
		}
		m.held[v>>6] |= 1 << (v & 63)
		kept++
	}
	if kept == 0 {
		return c.Release(a, nodes)
	}
	// Called even with every node held, so that c counts one release per job.
	if err := c.Release(a, m.buf); err != nil {
		m.undo(nodes)
		return err
	}
	m.nheld += kept
	return nil
}

// keptAway reports whether the current set keeps node v away.
func (m *Mask) keptAway(v int) bool {
	return v >= 0 && v < m.n && m.away[v>>6]>>(v&63)&1 != 0
}

// undo clears the held bits Release set for nodes.
func (m *Mask) undo(nodes []int) {
	for _, v := range nodes {
		if m.keptAway(v) {
			m.held[v>>6] &^= 1 << (v & 63)
		}
	}
}
