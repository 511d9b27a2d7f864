package curves

import (
	"fmt"
	"slices"
	"sync"

	"github.com/procalloc/procalloc/topo"
)

func init() {
	mustRegister(Curve{
		Name:    "gilbert3d",
		Summary: "generalized 3D Hilbert curve on any 3D box (octree splits searched for parity); one hop per step on every box tested",
		Applies: func(m topo.Machine) error { _, err := grid3D(m); return err },
		Generate: func(m topo.Machine) (Order, error) {
			g, _ := gridOf(m)
			return Gilbert3D(g)
		},
	})
}

// Gilbert3D returns a generalized 3D Hilbert curve of a box of any size. The curve runs
// from corner (0,0,0) to the far end of a major axis: the longest axis of even length,
// or the longest axis when all are odd (with an even node count the two ends of an
// odd axis have the same checkerboard colour, so no one-hop path joins them).
//
// A box walked from its start corner to the adjacent corner along its major axis a is
// cut (1) in two along a when a is much longer than both other sides (2|a| > 3|b| and
// 2|a| > 3|c|), the first part of even length, as in 2D; otherwise (2) into parts
// found by a small search, memoized per box shape: eight octants (half sizes at the
// middle or one off, visited along any Hamiltonian path of the octant cube from the
// start octant to the one at the far end of a), else Gilbert's three-part split in the
// a-b or a-c plane with the third side whole, else two parts along a. Each part is
// walked recursively from a corner next to the previous part's exit to a corner
// adjacent to it along one of its axes (longest first); the search keeps every part's
// walk possible: its exit side has even length, or all its sides are odd. Boxes with a
// side of 1 are walked by the 2D construction (Gilbert).
//
// Every step is one hop on every box tested: all boxes up to 12 x 12 x 12 and random
// boxes up to 60 x 60 x 60 (the tests). Should the search ever fail on some shape, the
// curve would still be a permutation, with jumps between layers.
func Gilbert3D(g *topo.Grid) (Order, error) {
	if _, err := grid3D(g); err != nil {
		return nil, err
	}
	d := g.Dims()
	major := -1
	for j := 0; j < 3; j++ {
		if d[j]%2 == 0 && (major < 0 || d[j] > d[major]) {
			major = j
		}
	}
	if major < 0 {
		major = 0
		for j := 1; j < 3; j++ {
			if d[j] > d[major] {
				major = j
			}
		}
	}
	stride := [3]int{1, d[0], d[0] * d[1]}
	var ax [3]axis
	ax[0] = axis{d[major], stride[major]}
	k := 1
	for j := 0; j < 3; j++ {
		if j != major {
			ax[k] = axis{d[j], stride[j]}
			k++
		}
	}
	w := gilbert3Walker{out: make(Order, 0, g.N()), plans: map[[3]int]*boxPlan{}}
	w.walk(0, ax[0], ax[1], ax[2])
	if len(w.out) != g.N() {
		return nil, fmt.Errorf("internal error: generalized 3D Hilbert curve visited %d of %d nodes", len(w.out), g.N())
	}
	return w.out, nil
}

type gilbert3Walker struct {
	out   Order
	plans map[[3]int]*boxPlan // local cache of boxPlans
}

// axis is one side of a box being walked: its length and the node-index step of one
// hop along it (negative when the walk runs towards lower coordinates).
type axis struct{ n, u int }

func (w *gilbert3Walker) line(p int, a axis) {
	for i := 0; i < a.n; i++ {
		w.out = append(w.out, p)
		p += a.u
	}
}

// walk emits the box with start node p, major axis a (the walk ends at the corner
// p + (a.n-1)*a.u) and minor axes b, c.
func (w *gilbert3Walker) walk(p int, a, b, c axis) {
	switch {
	case b.n == 1 && c.n == 1:
		w.line(p, a)
		return
	case b.n == 1:
		w.walk2(p, a, c)
		return
	case c.n == 1:
		w.walk2(p, a, b)
		return
	case a.n == 1:
		// Not reachable from a feasible plan (a walk ending where it starts covers one
		// node); walk the b-c rectangle so that every node is still emitted once.
		w.walk2(p, b, c)
		return
	}
	if 2*a.n > 3*b.n && 2*a.n > 3*c.n {
		a1 := a.n / 2
		if a1%2 == 1 && a.n > 2 {
			a1++
		}
		w.walk(p, axis{a1, a.u}, b, c)
		w.walk(p+a1*a.u, axis{a.n - a1, a.u}, b, c)
		return
	}
	key := [3]int{a.n, b.n, c.n}
	plan, ok := w.plans[key]
	if !ok {
		plan = boxPlanFor(a.n, b.n, c.n)
		w.plans[key] = plan
	}
	if plan == nil {
		// No plan found: layers along c, each walked in 2D; complete, but may jump
		// between layers (tests check this does not happen on the boxes they cover).
		for i := 0; i < c.n; i++ {
			w.walk2(p+i*c.u, a, b)
		}
		return
	}
	u := [3]int{a.u, b.u, c.u}
	for i := range plan.parts {
		pt := &plan.parts[i]
		q := p + pt.start[0]*u[0] + pt.start[1]*u[1] + pt.start[2]*u[2]
		var ax [3]axis
		for k := 0; k < 3; k++ {
			ax[k] = axis{pt.len[k], pt.sign[k] * u[pt.along[k]]}
		}
		w.walk(q, ax[0], ax[1], ax[2])
	}
}

// walk2 is Gilbert's 2D construction (see gilbertWalker.walk) on the plane of a
// (major) and b.
func (w *gilbert3Walker) walk2(p int, a, b axis) {
	if b.n == 1 {
		w.line(p, a)
		return
	}
	if a.n == 1 {
		w.line(p, b)
		return
	}
	if a.n == 2 && b.n == 2 {
		w.out = append(w.out, p, p+b.u, p+b.u+a.u, p+a.u)
		return
	}
	a2, b2 := a.n/2, b.n/2
	if 2*a.n > 3*b.n {
		if a2%2 == 1 && a.n > 2 {
			a2++
		}
		w.walk2(p, axis{a2, a.u}, b)
		w.walk2(p+a2*a.u, axis{a.n - a2, a.u}, b)
		return
	}
	if b2%2 == 1 && b.n > 2 {
		b2++
	}
	w.walk2(p, axis{b2, b.u}, axis{a2, a.u})
	w.walk2(p+b2*b.u, a, axis{b.n - b2, b.u})
	w.walk2(p+(a.n-1)*a.u+(b2-1)*b.u, axis{b2, -b.u}, axis{a.n - a2, -a.u})
}

// boxPlan splits a box (local axes 0 = a, 1 = b, 2 = c) into parts walked in order;
// each part has a start cell and three sides, major first, each along a local axis
// with a direction.
type boxPlan struct {
	parts []planPart
}

type planPart struct {
	start [3]int
	len   [3]int
	along [3]int
	sign  [3]int
}

// region is a sub-box of a partition: lower corner and size, in local coordinates.
type region struct{ lo, size [3]int }

var (
	boxPlans    sync.Map // [3]int -> *boxPlan (nil when none was found)
	octantPaths [][8][3]int
	pathsOnce   sync.Once
)

// cubePaths returns the Hamiltonian paths of the 3-cube from octant (0,0,0) to
// (1,0,0).
func cubePaths() [][8][3]int {
	pathsOnce.Do(func() {
		var path [8][3]int
		var used [8]bool
		var rec func(k int)
		rec = func(k int) {
			cur := path[k-1]
			if k == 8 {
				if cur == [3]int{1, 0, 0} {
					octantPaths = append(octantPaths, path)
				}
				return
			}
			for j := 0; j < 3; j++ {
				next := cur
				next[j] ^= 1
				id := next[0] | next[1]<<1 | next[2]<<2
				if used[id] || (next == [3]int{1, 0, 0} && k != 7) {
					continue
				}
				used[id] = true
				path[k] = next
				rec(k + 1)
				used[id] = false
			}
		}
		used[0] = true
		rec(1)
	})
	return octantPaths
}

func boxPlanFor(la, lb, lc int) *boxPlan {
	key := [3]int{la, lb, lc}
	if p, ok := boxPlans.Load(key); ok {
		return p.(*boxPlan)
	}
	p := searchBoxPlan(key)
	boxPlans.Store(key, p)
	return p
}

// halves lists the split points of a side: the middle first, then one off.
func halves(n int) []int {
	var hs []int
	for _, v := range []int{n / 2, n/2 + 1, n/2 - 1} {
		if v >= 1 && v <= n-1 && !slices.Contains(hs, v) {
			hs = append(hs, v)
		}
	}
	return hs
}

// searchBoxPlan tries, in order: octant splits (all half sizes near the middle, every
// Hamiltonian path of the octant cube), then Gilbert's three-part split in the a-b or
// a-c plane with the third side whole, then two parts along a.
func searchBoxPlan(l [3]int) *boxPlan {
	end := [3]int{l[0] - 1, 0, 0}
	try := func(parts []region) *boxPlan {
		plan := &boxPlan{parts: make([]planPart, len(parts))}
		if planSearch(parts, 0, [3]int{}, end, plan) {
			return plan
		}
		return nil
	}
	for _, h0 := range halves(l[0]) {
		for _, h1 := range halves(l[1]) {
			for _, h2 := range halves(l[2]) {
				half := [3]int{h0, h1, h2}
				for _, path := range cubePaths() {
					parts := make([]region, 8)
					for k, oct := range path {
						for j := 0; j < 3; j++ {
							if oct[j] == 0 {
								parts[k].lo[j], parts[k].size[j] = 0, half[j]
							} else {
								parts[k].lo[j], parts[k].size[j] = half[j], l[j]-half[j]
							}
						}
					}
					if p := try(parts); p != nil {
						return p
					}
				}
			}
		}
	}
	for _, m := range []int{1, 2} { // the minor axis the three-part split runs along
		o := 3 - m // the axis kept whole
		for _, ha := range halves(l[0]) {
			for _, hm := range halves(l[m]) {
				var p1, p2, p3 region
				p1.size[0], p1.size[m], p1.size[o] = ha, hm, l[o]
				p2.lo[m] = hm
				p2.size[0], p2.size[m], p2.size[o] = l[0], l[m]-hm, l[o]
				p3.lo[0] = ha
				p3.size[0], p3.size[m], p3.size[o] = l[0]-ha, hm, l[o]
				if p := try([]region{p1, p2, p3}); p != nil {
					return p
				}
			}
		}
	}
	for _, ha := range halves(l[0]) {
		var p1, p2 region
		p1.size = [3]int{ha, l[1], l[2]}
		p2.lo[0] = ha
		p2.size = [3]int{l[0] - ha, l[1], l[2]}
		if p := try([]region{p1, p2}); p != nil {
			return p
		}
	}
	return nil
}

// planSearch chooses, for part k entered at cell e (a corner of the part), an exit
// axis whose walk is possible (even length, or all sides odd; length 1 only for a
// single cell) and whose exit corner is next to a corner of part k+1 (or is the
// box's end for the last part), depth first.
func planSearch(parts []region, k int, e, end [3]int, plan *boxPlan) bool {
	r := parts[k]
	n := r.size[0] * r.size[1] * r.size[2]
	var dir [3]int
	for j := 0; j < 3; j++ {
		switch e[j] {
		case r.lo[j]:
			dir[j] = 1
		case r.lo[j] + r.size[j] - 1:
			dir[j] = -1
		default:
			return false // not a corner
		}
	}
	for _, j := range exitAxisOrder(r.size) {
		if (r.size[j] == 1 && n > 1) || (r.size[j]%2 == 1 && n%2 == 0) {
			continue
		}
		x := e
		x[j] += dir[j] * (r.size[j] - 1)
		var next [3]int
		if k == len(parts)-1 {
			if x != end {
				continue
			}
		} else {
			found := false
			nr := parts[k+1]
			for m := 0; m < 3 && !found; m++ {
				for _, s := range []int{-1, 1} {
					c := x
					c[m] += s
					if inRegion(nr, c) && isCorner(nr, c) {
						next, found = c, true
						break
					}
				}
			}
			if !found {
				continue
			}
		}
		pt := &plan.parts[k]
		pt.start = e
		pt.len[0], pt.along[0], pt.sign[0] = r.size[j], j, dir[j]
		q := 1
		for i := 0; i < 3; i++ {
			if i != j {
				pt.len[q], pt.along[q], pt.sign[q] = r.size[i], i, dir[i]
				q++
			}
		}
		if k == len(parts)-1 || planSearch(parts, k+1, next, end, plan) {
			return true
		}
	}
	return false
}

func inRegion(r region, c [3]int) bool {
	for j := 0; j < 3; j++ {
		if c[j] < r.lo[j] || c[j] >= r.lo[j]+r.size[j] {
			return false
		}
	}
	return true
}

func isCorner(r region, c [3]int) bool {
	for j := 0; j < 3; j++ {
		if c[j] != r.lo[j] && c[j] != r.lo[j]+r.size[j]-1 {
			return false
		}
	}
	return true
}

// exitAxisOrder lists the axes a part may exit along, longest first (ties by axis),
// so that walks run along their long side as in the Hilbert curve.
func exitAxisOrder(size [3]int) [3]int {
	o := [3]int{0, 1, 2}
	for i := 1; i < 3; i++ {
		for k := i; k > 0 && size[o[k]] > size[o[k-1]]; k-- {
			o[k], o[k-1] = o[k-1], o[k]
		}
	}
	return o
}
