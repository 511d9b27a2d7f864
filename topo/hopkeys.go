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
	NumAnchors int
	NumKeys    int

	h         *hopIndex
	g         *Graph
	df        *synthLayout // a dragonfly's, for rows in closed form (else nil)
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
	if s := g.structLayout(); s != nil && s.span == nil && h.key == nil {
		// A dragonfly without a key table: its rows in closed form, when its keys
		// are its routers one to one.
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
// a dragonfly of up to 4,096 routers) a row is a slice of it; on a larger dragonfly
// (built or recognised: structdist.go) it comes in closed form, O(routers) a row;
// otherwise 64 sources at a time share breadth-first passes over the quotient graph
// (HopRows64). ctx is looked at every 64 rows at most: its cause is returned when
// it has ended.
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
	if hk.df != nil {
		return hk.dragonflyRows(ctx, srcs, row, fn)
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

// dragonflyRows is Rows from the dragonfly's layout: routers of one group 1 apart,
// 1 along a global link, 2 from r to the routers of a group r links into, to those
// linking into r's group and to those two global links away through a third group
// (structdist.go), 3 from the others.
func (hk *HopKeys) dragonflyRows(ctx context.Context, srcs []int32, row []int32, fn func(int, []int32)) error {
	s, g := hk.df, hk.g
	s.dfIndex(g)
	R, a := s.a*s.groups, int32(s.a)
	byRouter := make([]int8, R)
	for i, x := range srcs {
		if i%64 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		r := hk.keyRouter[x]
		A := r / a
		for j := range byRouter {
			byRouter[j] = 3
		}
		for _, B := range s.lgrp[s.lOff[r]:s.lOff[r+1]] {
			for v := B * a; v < (B+1)*a; v++ {
				byRouter[v] = 2
			}
		}
		for u := A * a; u < (A+1)*a; u++ {
			for _, v := range s.glob[s.gOff[u]:s.gOff[u+1]] {
				byRouter[v] = 2
			}
		}
		for _, v := range s.two[s.tOff[r]:s.tOff[r+1]] {
			byRouter[v] = 2
		}
		for v := A * a; v < (A+1)*a; v++ {
			byRouter[v] = 1
		}
		for _, v := range s.glob[s.gOff[r]:s.gOff[r+1]] {
			byRouter[v] = 1
		}
		byRouter[r] = 0
		for y, rv := range hk.keyRouter {
			row[y] = int32(byRouter[rv])
		}
		fn(i, row)
	}
	return nil
}
