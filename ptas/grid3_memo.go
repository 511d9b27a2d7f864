package ptas

import "math"

// CenterMemo carries lower bounds on centers' totals from one call of MM or
// MM+Inc to the next (Options.Memo): an allocator's successive free sets differ
// only where jobs started or ended, and most centers' balls lie elsewhere. It is
// used by MM's 3D bounded scan (grid3Search: TiesByIndex on distinct integer
// points of a 3D box in ascending order) and ignored elsewhere, Gen-Alg included
// (there its upkeep cost more than it saved); the answers are the same with or
// without it. The zero value is ready to use; a CenterMemo must not be used by
// two calls at once.
//
// For each cell that was a center it keeps the k, the radius thr (the k-th
// distance) and the value score reached: the exact total of the k nearest by
// (distance, index), or a lower bound on it where the running sum dropped the
// center. While no point of the ball of radius thr around the cell has come or
// gone, the k nearest are the same points (the ball holds them, and their order
// by distance and index, the free-list order (x, y, z), depends only on their
// places); and for k >= the kept k, the k nearest contain the kept ones (both are
// prefixes of one order), so their total is at least the kept value. A center
// whose kept value exceeds the search's limit is passed over without its walk or
// score. Changes are tracked per cell as the L1 distance to the nearest cell that
// changed since the cell's value was kept: each call diffs its points against the
// previous call's, takes the L1 distance transform of the changed cells (six
// one-dimensional passes) and lowers every cell's distance to it; a kept value
// holds while that distance exceeds its thr.
type CenterMemo struct {
	lo         [3]int // the box covered, in absolute coordinates
	w, h, l    int
	occ        []bool  // the previous call's points
	next       []bool  // scratch: this call's points
	near       []int32 // per cell: L1 distance to the nearest change since its value was kept
	kk, thr    []int32 // per cell: kept k (0: none) and its radius
	val        []int64 // per cell: the kept total or lower bound
	dt         []int32 // scratch: the distance transform of this call's changes
	dx, dy, dz int     // offset of the scan's box in this box
	dropped    int     // centers dropped by kept values (tests)
}

// memoFar caps CenterMemo's distances (larger than any radius of a box that fits).
const memoFar = math.MaxInt32 / 2

// prepare makes m cover the scan's points (occ, the scan's occupancy grid of
// its W x H x L box at lo, (x*H + y)*L + z) and brings its distances up to date with the changes since the
// previous call. A box not inside m's starts m afresh over the union of both.
func (m *CenterMemo) prepare(occ []bool, lo [3]int, W, H, L int) {
	in := m.occ != nil && lo[0] >= m.lo[0] && lo[1] >= m.lo[1] && lo[2] >= m.lo[2] &&
		lo[0]+W <= m.lo[0]+m.w && lo[1]+H <= m.lo[1]+m.h && lo[2]+L <= m.lo[2]+m.l
	if !in {
		nlo, nhi := lo, [3]int{lo[0] + W, lo[1] + H, lo[2] + L}
		if m.occ != nil {
			for j, s := range [3]int{m.w, m.h, m.l} {
				nlo[j], nhi[j] = min(nlo[j], m.lo[j]), max(nhi[j], m.lo[j]+s)
			}
		}
		m.lo, m.w, m.h, m.l = nlo, nhi[0]-nlo[0], nhi[1]-nlo[1], nhi[2]-nlo[2]
		cells := m.w * m.h * m.l
		m.occ, m.next, m.near, m.dt = make([]bool, cells), make([]bool, cells), make([]int32, cells), make([]int32, cells)
		m.kk, m.thr, m.val = make([]int32, cells), make([]int32, cells), make([]int64, cells)
	}
	m.dx, m.dy, m.dz = lo[0]-m.lo[0], lo[1]-m.lo[1], lo[2]-m.lo[2]
	// This call's points in m's box, from the scan's occupancy grid a z-run at a
	// time, and the changes: the cells whose occupancy differs from the previous
	// call's (distance 0), the others far.
	now := m.next
	clear(now)
	for x := range W {
		for y := range H {
			copy(now[m.cell(x, y, 0):m.cell(x, y, L)], occ[(x*H+y)*L:(x*H+y+1)*L])
		}
	}
	dt := m.dt
	changed := false
	for c, o := range m.occ {
		if o != now[c] {
			dt[c] = 0
			changed = true
		} else {
			dt[c] = memoFar
		}
	}
	m.occ, m.next = now, m.occ
	if !changed {
		return
	}
	// The L1 distance transform: along z, then y, then x, each a forward and a
	// backward pass (L1 distances add over the axes, so the passes compose). The
	// y and x passes run over whole rows and planes at once (independent lines).
	l, sx := m.l, m.h*m.l
	for base := 0; base < len(dt); base += l {
		line := dt[base : base+l]
		for z := 1; z < l; z++ {
			line[z] = min(line[z], line[z-1]+1)
		}
		for z := l - 2; z >= 0; z-- {
			line[z] = min(line[z], line[z+1]+1)
		}
	}
	lines := func(cur, prev []int32) {
		for i := range cur {
			cur[i] = min(cur[i], prev[i]+1)
		}
	}
	for x := range m.w {
		p := dt[x*sx : (x+1)*sx]
		for y := 1; y < m.h; y++ {
			lines(p[y*l:(y+1)*l], p[(y-1)*l:y*l])
		}
		for y := m.h - 2; y >= 0; y-- {
			lines(p[y*l:(y+1)*l], p[(y+1)*l:(y+2)*l])
		}
	}
	for x := 1; x < m.w; x++ {
		lines(dt[x*sx:(x+1)*sx], dt[(x-1)*sx:x*sx])
	}
	for x := m.w - 2; x >= 0; x-- {
		lines(dt[x*sx:(x+1)*sx], dt[(x+1)*sx:(x+2)*sx])
	}
	near := m.near[:len(dt)]
	for c, d := range dt {
		near[c] = min(near[c], d)
	}
}

// cell is the index in m of the scan's offsets (x, y, z).
func (m *CenterMemo) cell(x, y, z int) int {
	return ((x+m.dx)*m.h+y+m.dy)*m.l + z + m.dz
}

// drops reports whether the value kept at cell c shows that the center's total
// for k exceeds limit.
func (m *CenterMemo) drops(c, k int, limit int64) bool {
	return m.kk[c] != 0 && int(m.kk[c]) <= k && m.near[c] > m.thr[c] && m.val[c] > limit
}

// keep records score's value v for k at radius thr at cell c.
func (m *CenterMemo) keep(c, k, thr int, v int64) {
	m.kk[c], m.thr[c], m.val[c], m.near[c] = int32(k), int32(thr), v, memoFar
}
