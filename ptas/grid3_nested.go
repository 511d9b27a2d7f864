package ptas

import "math"

// grid3NestedOn turns on grid3Scan's shortcut for a center whose k nearest are
// those of a walked neighbour one step lower along x, y or z with a radius one
// apart (sameAsNested); tests turn it off to compare.
var grid3NestedOn = true

// sameAsNested reports whether two centers one unit step apart, of radii thr and
// thrP with below and belowP points closer than their radii and within and withinP
// points within them, have the same k nearest by (distance, index), where their
// radii differ by one. Every point within r - 1 of one center is within r of the
// other (triangle inequality), so with thr = thrP + 1 the balls of the center of
// larger radius hold those of the other: B(c', thrP - 1) inside B(c, thr - 1) and
// B(c', thrP) inside B(c, thr); nested balls are the same points iff they hold as
// many. Then both centers take all the points closer than their radii and the
// same k - below of the same shell, the lowest-index ones (as sameAsPrev). Unlike
// sameAsBelow it needs no intersection count, so it applies along x and y, where
// the row's tables give none. Measured on issue 32's workload at torus:25x25x25
// (mm, every 97th scored center of every 3rd decision, k nearest computed
// directly): 28 % of the centers scored had the k nearest of the center before
// them along x or y, and 99 % of those a radius one apart.
func sameAsNested(thr, below, within, thrP, belowP, withinP int) bool {
	return (thr == thrP+1 || thrP == thr+1) && below == belowP && within == withinP
}

// walkedCenter is what the scan knows of a center it walked: its radius, its
// counts closer than it and within it, and score's value (the total, or a lower
// bound on it) or, for a center passed over, that of the center whose k nearest it
// shares. It is current while stamp is its slab's.
type walkedCenter struct {
	stamp, thr, below, within int32
	val                       int64
}

// enterSlab makes the slab of centers x = cx the current one of the walked
// centers' store (two slabs: the current and the one before), keeping the
// current as the one before.
func (g *grid3Scan) enterSlab(cx int) {
	if g.slabX[g.slabCur] == cx {
		return
	}
	g.slabCur ^= 1
	s := g.slabCur
	if g.stamp == math.MaxInt32 {
		// Serials start again: the slab before keeps its entries as serial 1.
		p := s ^ 1
		for i := range g.slabs[p] {
			if w := &g.slabs[p][i]; w.stamp == g.slabStamp[p] {
				w.stamp = 1
			} else {
				w.stamp = 0
			}
		}
		clear(g.slabs[s])
		g.stamp, g.slabStamp[p] = 1, 1
	}
	g.stamp++
	g.slabs[s] = grow(g.slabs[s], g.H*g.L)
	g.slabX[s], g.slabStamp[s] = cx, g.stamp
}

// walkedAt returns the walked center (x, y, z) of the store, if it is there.
func (g *grid3Scan) walkedAt(x, y, z int) (*walkedCenter, bool) {
	if x < 0 || y < 0 || z < 0 {
		return nil, false
	}
	for s := range 2 {
		if g.slabX[s] == x {
			w := &g.slabs[s][y*g.L+z]
			return w, w.stamp == g.slabStamp[s]
		}
	}
	return nil, false
}

// keepWalked stores the walked center (cx, cy, cz) of the current slab.
func (g *grid3Scan) keepWalked(cy, cz, thr int, val int64) {
	s := g.slabCur
	g.slabs[s][cy*g.L+cz] = walkedCenter{stamp: g.slabStamp[s], thr: int32(thr), below: int32(g.sumIn), within: int32(g.sumOut), val: val}
}

// nestedSame returns the value of a walked neighbour of (cx, cy, cz) one step
// lower along x, y or z that has the same k nearest by sameAsNested, from walk's
// counts of the center of radius thr. The neighbours along z and y are in the
// current slab (enterSlab(cx)), the one along x in the slab before when that is
// cx - 1 (walkedAt's lookups, without their search for the slab).
func (g *grid3Scan) nestedSame(cx, cy, cz, thr int) (int64, bool) {
	in, out := g.sumIn, g.sumOut
	cur, stamp := g.slabs[g.slabCur], g.slabStamp[g.slabCur]
	i := cy*g.L + cz
	if cz > 0 {
		if w := &cur[i-1]; w.stamp == stamp && sameAsNested(thr, in, out, int(w.thr), int(w.below), int(w.within)) {
			return w.val, true
		}
	}
	if cy > 0 {
		if w := &cur[i-g.L]; w.stamp == stamp && sameAsNested(thr, in, out, int(w.thr), int(w.below), int(w.within)) {
			return w.val, true
		}
	}
	if p := g.slabCur ^ 1; cx > 0 && g.slabX[p] == cx-1 {
		if w := &g.slabs[p][i]; w.stamp == g.slabStamp[p] && sameAsNested(thr, in, out, int(w.thr), int(w.below), int(w.within)) {
			return w.val, true
		}
	}
	return 0, false
}
