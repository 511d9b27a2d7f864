package topo

import (
	"context"
	"math/bits"
)

// HopKeys is the hop index's grouping of hosts (hopdist.go) for algorithms that rank
// hosts by their distance from a host, such as Gen-Alg on a network
// (alloc/genalg_graph.go): for distinct hosts u and v,
//
//	Dist(u, v) = Off[u] + Off[v] + D(u, v), where D(u, v) is
//	  0                          when Anchor[u] == Anchor[v],
//	  2                          when their anchors differ but Key[u] == Key[v] (twins),
//	  the keys' distance (Rows)  otherwise, and Dist(u, v) = -1 when that is -1.
//
// Anchor is the vertex a pendant host hangs on (its only neighbour) or the host
// itself, numbered densely here (0..NumAnchors-1, in the order of their first host);
// Off is 1 for a pendant host, 0 for a host that is its own anchor; Key is the class
// of the anchor (false twins, equally far from every other vertex), numbered densely
// in the order of their first host, as the hop index's key table numbers them.
// TestHopKeysDist checks the identity against Dist on fat trees, dragonflies and
// irregular graphs.
type HopKeys struct {
	Anchor     []int32 // host -> anchor, 0..NumAnchors-1
	Off        []uint8 // host -> 1 when pendant, else 0
	Key        []int32 // host -> key, 0..NumKeys-1
	AnchorKey  []int32 // anchor -> key
	NumAnchors int     // anchors: the distinct values of Anchor
	NumKeys    int     // keys: the distinct values of Key

	h         *hopIndex
	g         *Graph
	df        *synthLayout // a dragonfly's, for Near (else nil)
	keyRouter []int32      // key -> router index of df
	keyClass  []int32      // key -> class of Q
	classKey  []int32      // class of Q -> key, -1 for a class that no host's anchor is in
}

// HopKeys returns the grouping of g's hosts by anchor and key, building the hop
// index first (BuildHopIndex: ctx's cause, wrapped, when ctx ends before).
func (g *Graph) HopKeys(ctx context.Context) (*HopKeys, error) {
	if err := g.BuildHopIndex(ctx); err != nil {
		return nil, err
	}
	return newHopKeys(g, g.hopIndex()), nil
}

// newHopKeys is HopKeys of g from its hop index h.
func newHopKeys(g *Graph, h *hopIndex) *HopKeys {
	n := g.hosts
	hk := &HopKeys{Anchor: make([]int32, n), Off: make([]uint8, n), Key: make([]int32, n), h: h,
		classKey: make([]int32, h.classes())}
	for i := range hk.classKey {
		hk.classKey[i] = -1
	}
	anchorIdx := map[int32]int32{}
	for v := range n {
		a := h.anchor[v]
		if a != int32(v) {
			hk.Off[v] = 1
		}
		ai, ok := anchorIdx[a]
		c := h.class[v]
		if hk.classKey[c] < 0 {
			hk.classKey[c] = int32(len(hk.keyClass))
			hk.keyClass = append(hk.keyClass, c)
		}
		if !ok {
			ai = int32(len(hk.AnchorKey))
			anchorIdx[a] = ai
			hk.AnchorKey = append(hk.AnchorKey, hk.classKey[c])
		}
		hk.Anchor[v] = ai
		hk.Key[v] = hk.classKey[c]
	}
	hk.NumAnchors, hk.NumKeys = len(hk.AnchorKey), len(hk.keyClass)
	if s := g.structLayout(); s != nil && s.span == nil {
		// A dragonfly: Near in closed form, when its keys are its routers one to
		// one.
		R := s.a * s.groups
		keyRouter, routerKey := make([]int32, hk.NumKeys), make([]int32, R)
		for i := range keyRouter {
			keyRouter[i] = -1
		}
		for i := range routerKey {
			routerKey[i] = -1
		}
		ok := true
		for v := range n {
			r, x := s.routerOf(v), hk.Key[v]
			if keyRouter[x] < 0 && routerKey[r] < 0 {
				keyRouter[x], routerKey[r] = r, x
			}
			ok = ok && keyRouter[x] == r && routerKey[r] == x
		}
		if ok {
			hk.g, hk.df, hk.keyRouter = g, s, keyRouter
		}
	}
	return hk
}

// Rows calls fn(i, row) for every srcs[i] (keys), with row[y] the distance between
// the keys srcs[i] and y != srcs[i] (their anchors' distance in the quotient graph:
// D above), -1 when they are not connected, and row[srcs[i]] = 0; row is scratch,
// valid during the call only. On the key table (a fat tree of up to 4,096 keys,
// a dragonfly of up to 4,096 routers) a row is a slice of it; otherwise 64 sources
// at a time share breadth-first passes over the quotient graph (HopRows64). ctx is
// looked at every 64 rows at most: its cause is returned when it has ended. On a
// dragonfly Near says the same in less.
func (hk *HopKeys) Rows(ctx context.Context, srcs []int32, fn func(i int, row []int32)) error {
	h := hk.h
	nk := hk.NumKeys
	row := make([]int32, nk)
	if h.key != nil {
		for i, x := range srcs {
			if i%ctxEvery == 0 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			base := int(x) * h.nkey
			for y := range nk {
				if h.t8 != nil {
					d := h.t8[base+y]
					row[y] = int32(d)
					if d == unreachable8 {
						row[y] = -1
					}
				} else {
					d := h.t16[base+y]
					row[y] = int32(d)
					if d == unreachable16 {
						row[y] = -1
					}
				}
			}
			row[x] = 0
			fn(i, row)
		}
		return nil
	}
	nq := h.classes()
	seen, front, next := make([]uint64, nq), make([]uint64, nq), make([]uint64, nq)
	rows := make([]int32, 64*nk)
	cls := make([]int32, 0, 64)
	for base := 0; base < len(srcs); base += 64 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		batch := srcs[base:min(base+64, len(srcs))]
		cls = cls[:0]
		for _, x := range batch {
			cls = append(cls, hk.keyClass[x])
		}
		for i := range rows[:len(batch)*nk] {
			rows[i] = -1
		}
		HopRows64(h.q, cls, seen, front, next, func(c int32, w uint64, d int) {
			y := hk.classKey[c]
			if y < 0 {
				return
			}
			for ; w != 0; w &= w - 1 {
				b := bits.TrailingZeros64(w)
				rows[b*nk+int(y)] = int32(d)
			}
		})
		for b := range batch {
			fn(base+b, rows[b*nk:(b+1)*nk])
		}
	}
	return nil
}

// KeyDist returns the distance between keys x and y (D above; -1 when they are
// not connected, 0 when x == y) from the key table, and false, with nothing
// looked up, when the index has no key table (Rows then searches).
func (hk *HopKeys) KeyDist(x, y int32) (int32, bool) {
	h := hk.h
	if h.key == nil {
		return 0, false
	}
	if x == y {
		return 0, true
	}
	i := int(x)*h.nkey + int(y)
	if h.t8 != nil {
		if d := h.t8[i]; d != unreachable8 {
			return int32(d), true
		}
		return -1, true
	}
	if d := h.t16[i]; d != unreachable16 {
		return int32(d), true
	}
	return -1, true
}

// Near calls fn(i, keys, dist, far) for every srcs[i] (keys) with the keys nearer to
// it than far, their distances dist (srcs[i] itself at 0), every other key being
// at distance far; keys and dist are scratch, valid during the call only. It
// reports false, calling nothing, when it has no such short form: it has one on a
// dragonfly (built or recognised from a file; structdist.go), where far is 3 and
// the near keys are the routers of the source's group and those a global link
// away (1), and the routers of the groups those links reach, those linking into
// the source's group and those two global links away through a third group (2):
// about routers a group x (1 + 2 x global links a router) of them, against every
// router in a row. ctx is looked at every 64 sources: its cause is returned when it
// has ended.
func (hk *HopKeys) Near(ctx context.Context, srcs []int32, fn func(i int, keys, dist []int32, far int32)) (bool, error) {
	w := hk.DragonflyNear()
	if w == nil {
		return false, nil
	}
	for i, x := range srcs {
		if i%64 == 0 && ctx.Err() != nil {
			return true, context.Cause(ctx)
		}
		keys, dist := w.List(x, 2)
		fn(i, keys, dist, 3)
	}
	return true, nil
}

// DragonflyCountSum is the total pairwise hop distance (Graph.PairDistSum) of a set
// of hosts on a dragonfly with Near's short form (every host pendant on its router,
// the keys its routers), given counts[i] > 0 hosts on key keys[i] (distinct keys)
// instead of the hosts: structdist.go's closed form, O(routers x global links^2).
// It reports false, computing nothing, on any other network.
func (hk *HopKeys) DragonflyCountSum(keys, counts []int32) (int64, bool) {
	if hk.df == nil {
		return 0, false
	}
	return hk.df.dragonflySumCounts(hk.g, keys, hk.keyRouter, counts), true
}
