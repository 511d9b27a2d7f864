package alloc

import "math"

// The greedy collector's ring axes (greedyCollectShells, mc1x1-greedy on tori):
// while the radius a run has read is small against the ring, a ring axis's
// per-coordinate totals are kept and bounded on the arc around the center, as a
// mesh axis's are on its window, instead of over the whole ring per node taken.

// ringWindowed reports whether a ring axis of side nodes is kept on the arc
// c±(R+1) (greedyCollectShells) while the radius read is R: every node summed is
// within R of c, so a coordinate of the arc and a node summed are at most 2R+1 <=
// side/2 apart along it, and that is their ring distance (the arc's 2R+3
// coordinates are distinct).
func ringWindowed(R, side int) bool { return 2*R+1 <= side/2 && 2*max(R, 0)+3 <= side }

// ringWiden extends the arc c±from of a ring axis's totals key (the ring
// distances to the inner nodes, inner, and to the nodes taken, set) to c±W and
// returns W: a coordinate w > R away from c is beyond every node taken (offsets
// summing to takenOff), so its distance to them is n*w minus or plus that sum.
func ringWiden(key, inner []int, c, from, W, R, takenOff, j, d int, set []int, co []int32) int {
	side := len(key)
	n := len(set)
	for w := from + 1; w <= W; w++ {
		for _, sg := range [2]int{1, -1} {
			t := c + sg*w
			if t < 0 {
				t += side
			} else if t >= side {
				t -= side
			}
			k := inner[t]
			switch {
			case n == 0:
			case w > R:
				k += n*w - sg*takenOff
			default:
				for _, v := range set {
					u := abs(t - int(co[v*d+j]))
					k += min(u, side-u)
				}
			}
			key[t] = k
			if w == 0 {
				break
			}
		}
	}
	return W
}

// ringTake adds to a ring axis's totals key, kept on the arc c±W (W >= 0) or whole
// (W < 0), the ring distances from coordinate p, and returns p's offset from c.
func ringTake(key []int, c, W, p int) int {
	side := len(key)
	off := p - c
	if off > side/2 {
		off -= side
	} else if off < -(side-1)/2 {
		off += side
	}
	if W < 0 {
		axisAddDist(key, p, side, true)
		return off
	}
	// the arc in straight runs between the seam: |t - off| at offset t
	for t := -W; t <= W; {
		u := c + t
		if u < 0 {
			u += side
		} else if u >= side {
			u -= side
		}
		n := min(W-t+1, side-u)
		addAbs(key[u:u+n], off-t)
		t += n
	}
	return off
}

// addAbs adds |i - p| to k[i] for every i (p any integer).
func addAbs(k []int, p int) {
	q := min(max(p, 0), len(k))
	for i := range q {
		k[i] += p - i
	}
	for i := q; i < len(k); i++ {
		k[i] += i - p
	}
}

// ringWhole sets a ring axis's totals key, kept on an arc so far, on the whole
// ring: inner's totals plus the ring distances to the nodes taken (set), from
// their counts and coordinate sums (cnt: side+1 counts, then side+1 sums).
func ringWhole(key, inner, cnt []int, j, d int, set []int, co []int32) {
	side := len(key)
	clear(cnt)
	num, tot := cnt[:side+1], cnt[side+1:]
	for _, v := range set {
		u := int(co[v*d+j])
		num[u+1]++
		tot[u+1] += u
	}
	for i := 1; i <= side; i++ {
		num[i] += num[i-1]
		tot[i] += tot[i-1]
	}
	for u := range side {
		key[u] = inner[u] + ringAxisSum(num, tot, side, u)
	}
}

// ringKeyBounds returns, for the per-coordinate totals k of a ring axis of side
// nodes (k[u]: the sum of the ring distances from u to coordinates all within w of
// c), their least value over the ring and their least over the coordinates D or more
// away from c (math.MaxInt when none is, D > h = side/2), for D > w and 2w <= h,
// without reading the whole ring. Every coordinate summed lies on the arc c-w..c+w;
// two of them are at most 2w <= h apart, so their ring distance is their distance
// along that arc and k is convex there (a sum of |u - v|), its least found by
// bisection as on a mesh axis. Off that arc each distance, followed round the ring
// away from the arc, grows to the antipode of its coordinate and then shrinks: the
// sum is concave on the arc c+w+1..c-w-1, so its least there is at one of the
// arc's ends, and on the arc of the coordinates D or more away, c+D..c-D, likewise.
// TestRingKeyBoundsMatchesScan checks it against a scan of the ring.
func ringKeyBounds(k []int, c, w, D, h int) (least, far int) {
	side := len(k)
	at := func(t int) int { // k at offset t from c, |t| < side
		u := c + t
		if u < 0 {
			u += side
		} else if u >= side {
			u -= side
		}
		return k[u]
	}
	lo, hi := -w, w
	for lo < hi {
		mid := (lo + hi) >> 1
		if at(mid+1) < at(mid) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	least = min(at(lo), at(w+1), at(-w-1))
	far = math.MaxInt
	if D <= h {
		far = min(at(D), at(-D))
	}
	return least, far
}
