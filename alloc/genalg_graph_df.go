package alloc

import (
	"context"
	"fmt"
	"slices"
)

// routerJob is the candidate of router (key) x on a dragonfly whose hosts all hang
// on their routers (a.dfCounts), near and dist its routers within two hops
// (topo.HopKeys.Near), every other router at 3: every center c on x has the list c,
// the free hosts of x, of the routers at 1, at 2, then the rest, each by index, so
// its first k are the first k of x's hosts when x holds k or more (score k(k-1), the
// smallest the smallest center), else all of x's and the first of that list (the
// same for every c on x, centered on x's smallest). Without list it counts the
// candidate's hosts per router (the nearer routers whole, the cutoff's by a merge
// of the routers at 1 or 2, or by the free hosts in index order less the near
// ones) and scores it from the counts (HopKeys.DragonflyCountSumFree: the groups it
// holds whole, and the pieces of x's group, the routers of a group linking into
// it, from the decision's tables of free hosts, topo.DragonflyFree, built for its
// first such candidate; the other routers router by router), the hosts never
// listed; with list it sets a.set to the hosts (the winner's). It returns the score
// and the work done (hosts and routers looked at).
func (a *graphGenAlg) routerJob(x int32, near, dist []int32, k int, list bool) (int64, int, error) {
	own := a.grp(2*x + 1)
	a.set = a.set[:0]
	if len(own) >= k {
		if list {
			for _, v := range own[:k] {
				a.set = append(a.set, int(v))
			}
		}
		return int64(k) * int64(k-1), 1, nil
	}
	a.kGen++
	if a.kGen == 0 {
		clear(a.kStamp)
		a.kGen = 1
	}
	a.rKeys, a.rCnt = a.rKeys[:0], a.rCnt[:0]
	add := func(y int32, c int32) {
		if a.kStamp[y] != a.kGen {
			a.kStamp[y], a.kAt[y] = a.kGen, int32(len(a.rKeys))
			a.rKeys, a.rCnt = append(a.rKeys, y), append(a.rCnt, 0)
		}
		a.rCnt[a.kAt[y]] += c
	}
	addAll := func(y int32) {
		g := a.grp(2*y + 1)
		add(y, int32(len(g)))
		if list {
			for _, v := range g {
				a.set = append(a.set, int(v))
			}
		}
	}
	a.mark++
	if a.mark == 0 {
		clear(a.marked)
		a.mark = 1
	}
	a.marked[x] = a.mark
	var c [3]int64
	for j, y := range near {
		a.marked[y] = a.mark
		if y != x && dist[j] >= 1 && dist[j] <= 2 {
			c[dist[j]] += int64(a.grpOff[2*y+2] - a.grpOff[2*y+1])
		}
	}
	work := len(near)
	addAll(x)
	need := int64(k - len(own))
	cut := int32(3)
	for d := int32(1); d <= 2; d++ {
		if c[d] >= need {
			cut = d
			break
		}
		need -= c[d]
	}
	for j, y := range near {
		if y != x && dist[j] < cut && a.grpOff[2*y+2] > a.grpOff[2*y+1] {
			addAll(y)
		}
	}
	m := int(need)
	work += m
	if cut < 3 && a.keyRuns {
		// The m smallest hosts of the routers at distance cut: their routers by
		// index, the last one's first hosts. The routers are put in buckets of
		// 64 keys (a counting sort), and only the buckets walked until m are
		// sorted: not the whole bucket of routers at distance cut (~1,750 at 2
		// on the 100k dragonfly, of which k = 4096 takes about half).
		nb := a.hk.NumKeys>>keyBucketBits + 1
		a.bOff = resizeZero(a.bOff, nb+1)
		n := 0
		for j, y := range near {
			if y != x && dist[j] == cut && a.grpOff[2*y+2] > a.grpOff[2*y+1] {
				a.bOff[y>>keyBucketBits+1]++
				n++
			}
		}
		for b := range nb {
			a.bOff[b+1] += a.bOff[b]
		}
		a.rKeysB = slices.Grow(a.rKeysB[:0], n)[:n]
		a.fill = append(a.fill[:0], a.bOff[:nb]...)
		for j, y := range near {
			if y != x && dist[j] == cut && a.grpOff[2*y+2] > a.grpOff[2*y+1] {
				b := y >> keyBucketBits
				a.rKeysB[a.fill[b]] = y
				a.fill[b]++
			}
		}
		work += n + nb
	walk:
		for b := range nb {
			bk := a.rKeysB[a.bOff[b]:a.bOff[b+1]]
			slices.Sort(bk) // at most 1 << keyBucketBits keys
			for _, y := range bk {
				g := a.grp(2*y + 1)
				take := min(m, len(g))
				add(y, int32(take))
				if list {
					for _, v := range g[:take] {
						a.set = append(a.set, int(v))
					}
				}
				if m -= take; m == 0 {
					break walk
				}
			}
		}
	} else if cut < 3 {
		// The m smallest hosts of the routers at distance cut: a merge.
		srcs := a.srcs[:0]
		for j, y := range near {
			if y != x && dist[j] == cut && a.grpOff[2*y+2] > a.grpOff[2*y+1] {
				srcs = append(srcs, mergeSrc{list: a.grp(2*y + 1), skip: -1, off: -1})
			}
		}
		a.srcs = srcs
		h := a.heap[:0]
		for si := range srcs {
			h = append(h, mergeHead{srcs[si].list[0], int32(si), 0})
		}
		heapInit(h)
		for range m {
			top := h[0]
			v := top.v
			add(a.hk.Key[v], 1)
			if list {
				a.set = append(a.set, int(v))
			}
			if i := int(top.pos) + 1; i < len(srcs[top.src].list) {
				h[0] = mergeHead{srcs[top.src].list[i], top.src, int32(i)}
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			heapDown(h, 0)
		}
		a.heap = h
	} else if a.keyRuns {
		// The m smallest free hosts of the other routers: the routers by index.
		for _, y := range a.keys {
			if m == 0 {
				break
			}
			work++
			if a.marked[y] == a.mark {
				continue
			}
			g := a.grp(2*y + 1)
			take := min(m, len(g))
			add(y, int32(take))
			if list {
				for _, v := range g[:take] {
					a.set = append(a.set, int(v))
				}
			}
			m -= take
		}
	} else {
		// The m smallest free hosts of the other routers.
		for _, v := range a.free {
			if m == 0 {
				break
			}
			work++
			if y := a.hk.Key[v]; a.marked[y] != a.mark {
				add(y, 1)
				if list {
					a.set = append(a.set, v)
				}
				m--
			}
		}
	}
	if list {
		return 0, work, nil
	}
	work += a.dfFreeTables()
	s, ok := a.hk.DragonflyCountSumFree(a.dfFree, x, a.rKeys, a.rCnt)
	if !ok {
		return 0, work, fmt.Errorf("genalg: no dragonfly closed form for key %d", x)
	}
	return s, work, nil
}

// dfFreeTables builds the free hosts' per-group tables (topo.DragonflyFree),
// once a decision, when a candidate first goes past its router's neighbours
// (whole groups are then likely); it returns the work done (routers looked at).
func (a *graphGenAlg) dfFreeTables() int {
	if a.dfFreeOK {
		return 0
	}
	a.fKeys, a.fCnt = a.fKeys[:0], a.fCnt[:0]
	for _, y := range a.keys {
		a.fKeys, a.fCnt = append(a.fKeys, y), append(a.fCnt, a.grpOff[2*y+2]-a.grpOff[2*y+1])
	}
	a.dfFree, a.dfFreeOK = a.hk.DragonflyFree(a.dfFree, a.fKeys, a.fCnt)
	return len(a.keys)
}

// decideRouters makes the candidates of the routers with a free host (a.keys) in
// turn, on a dragonfly with Near's short form (a.dfNear), and keeps the best. Two
// cuts, neither changing the winner:
//   - a router whose candidate cannot beat the best so far is not walked: every
//     candidate holds all of its router's f free hosts (or k of them), and the
//     others on other routers, each of at most fo free hosts (the most any other
//     router has), any two hosts on different routers at least one hop further
//     apart than two on one router (routerBound); when that bound is above the
//     best score, or equal to it and the router's center larger, the candidate
//     loses whatever it holds;
//   - a router whose own and first-ring routers (its group, its global
//     neighbours) hold k free hosts has its candidate within them: only they are
//     listed (DragonflyNear.List(x, 1)), not the ~routers a group x (1 + 2 x global
//     links) at distance 2. When they hold fewer, the candidate's hosts past them
//     are at least 2 hops from the router's, one more than the bound counts: the
//     bound so raised is tried again before the second ring is listed.
//
// Past the first ring, when the keys are the routers in index order (a built
// dragonfly; keyRuns), the second ring is not listed at all: the candidate is
// taken group by group from the free hosts' tables and its whole groups and
// pieces scored as units (topo.DragonflyNear.CandidateSum, the same score as
// routerJob's counts). ctx is looked at every 64 routers.
func (a *graphGenAlg) decideRouters(ctx context.Context, k int, poll func(int) error) error {
	// The two largest free counts of a router: the most on a router other than x.
	var f1, f2 int32
	for _, y := range a.keys {
		f := a.grpOff[2*y+2] - a.grpOff[2*y+1]
		if f > f1 {
			f1, f2 = f, f1
		} else if f > f2 {
			f2 = f
		}
	}
	for i, x := range a.keys {
		if i%64 == 0 {
			if err := context.Cause(ctx); err != nil {
				return err
			}
		}
		f := a.grpOff[2*x+2] - a.grpOff[2*x+1]
		fo := f1
		if f == f1 {
			fo = f2
		}
		lb := routerBound(int64(k), int64(f), int64(fo), -1)
		center := int(a.grp(2*x + 1)[0])
		loses := func(lb int64) bool {
			return a.bestCenter >= 0 && (lb > a.bestScore || lb == a.bestScore && center > a.bestCenter)
		}
		if loses(lb) {
			a.dfSkipped++
			continue
		}
		near, dist := a.dfNear.List(x, 1)
		if int(f) < k {
			var c1 int64
			for j, y := range near {
				if dist[j] == 1 {
					c1 += int64(a.grpOff[2*y+2] - a.grpOff[2*y+1])
				}
			}
			if c1 < int64(k)-int64(f) {
				if loses(routerBound(int64(k), int64(f), int64(fo), c1)) {
					a.dfSkipped1++
					continue
				}
				a.dfRing2++
				if a.keyRuns {
					// The candidate group by group from the free hosts' tables,
					// its whole groups and pieces scored as units
					// (DragonflyNear.CandidateSum): the rings not listed.
					a.dfFreeTables()
					if s, routers, ok := a.dfNear.CandidateSum(a.dfFree, x, int64(k)); ok {
						if err := poll(routers + a.hk.NumKeys/64); err != nil {
							return err
						}
						if center := int(a.grp(2*x + 1)[0]); a.better(s, center) {
							a.bestScore, a.bestCenter, a.bestKey = s, center, x
						}
						continue
					}
				}
				near, dist = a.dfNear.List(x, 2)
			} else {
				a.dfRing1++
			}
		} else {
			a.dfRing1++
		}
		if err := a.decideRouter(x, near, dist, k, poll); err != nil {
			return err
		}
	}
	return nil
}

// routerBound is a lower bound on the score of a router's candidate of k hosts
// holding the router's f free hosts (all, or k of them) and the rest on other
// routers of at most fo free hosts each: a pair of hosts on one router is 2 hops
// apart, on two routers at least 3, so the score is at least k(k-1) + the pairs
// on different routers, which are fewest when the rest fill routers of fo. With
// c1 >= 0 the free hosts of the routers at distance 1 (the first ring), the
// k - f - c1 hosts past them (when positive) are at least 4 hops from each of the
// router's f: one more a pair.
func routerBound(k, f, fo, c1 int64) int64 {
	c2 := func(c int64) int64 { return c * (c - 1) / 2 }
	f = min(f, k)
	same := c2(f)
	rest := k - f
	if rest > 0 && fo > 0 {
		same += rest/fo*c2(fo) + c2(rest%fo)
	}
	lb := k*(k-1) + c2(k) - same
	if c1 >= 0 && rest > c1 {
		lb += f * (rest - c1)
	}
	return lb
}

// decideRouter makes router x's candidate (routerJob), scored from its counts.
func (a *graphGenAlg) decideRouter(x int32, near, dist []int32, k int, poll func(int) error) error {
	s, w, err := a.routerJob(x, near, dist, k, false)
	if err != nil {
		return err
	}
	if err := poll(w); err != nil {
		return err
	}
	if center := int(a.grp(2*x + 1)[0]); a.better(s, center) {
		a.bestScore, a.bestCenter, a.bestKey = s, center, x
	}
	return nil
}

// listRouter sets a.best to the hosts of router x's candidate.
func (a *graphGenAlg) listRouter(ctx context.Context, x int32, k int) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	near, dist := a.dfNear.List(x, 2)
	if _, _, err := a.routerJob(x, near, dist, k, true); err != nil {
		return err
	}
	a.best = append(a.best[:0], a.set...)
	return nil
}

// keyBucketBits: routerJob buckets the routers at the cutoff distance by key >>
// keyBucketBits.
const keyBucketBits = 6

func heapLess(h []mergeHead, i, j int) bool { return h[i].v < h[j].v }

func heapDown(h []mergeHead, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && heapLess(h, r, l) {
			l = r
		}
		if !heapLess(h, l, i) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

func heapInit(h []mergeHead) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
}
