package alloc

import (
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// CollectionOrder returns nodes, the set Allocate of a has just returned, in the
// order a collected them: the order that decides which processor gets which task
// when a job's tasks are numbered along it (task order "allocator"; Bunde, Leung and
// Mache 2004 §5 suggest the order of processors explains part of their n-body
// results). It changes the order only, never the set.
//
//   - The curve allocators (freelist, ff, bf, sos), paging, MC, MBS, the binary
//     trees, SCBT and PLAS return their nodes in the order they collect them: along
//     the curve from the window's start, pages in curve order, MC's shells around
//     the requested shape (shell, then L1 distance to the center, then index),
//     blocks and leaves in order. Their order is returned as it is.
//   - MC1x1 (and mc1x1-greedy) collects whole L-infinity shells around its center
//     and returns the set sorted by node index: the order is rebuilt as shells
//     around the center (L-infinity distance, then L1 distance, then index). The
//     center is not kept by the allocator; it is recovered from the set as the node
//     of the set whose farthest member is nearest in L-infinity (the set is a ball
//     around its center with a partial outer shell), ties by least total L1
//     distance to the set, then least index.
//   - MM, Gen-Alg, MM+Inc and opt take the k nearest free nodes in L1 around a
//     center (MM+Inc and opt then improve on that): the order is L1 distance from
//     the set's medoid (the node of least total L1 distance to the set, ties by
//     index), ties by index.
//
// Distances wrap on a torus's wrapped dimensions. The center-based orders need node
// coordinates: on a graph (genalg on a fabric) they are an error. Time O(k log k +
// sum of the grid's sides squared), memory O(k + sides).
func CollectionOrder(a Allocator, nodes []int) ([]int, error) {
	out := slices.Clone(nodes)
	var linf bool
	switch a.(type) {
	case *mc1x1:
		linf = true
	case *ptasAlloc, *optAlloc, *graphGenAlg:
	default:
		return out, nil
	}
	g, ok := a.Machine().(*topo.Grid)
	if !ok {
		return nil, fmt.Errorf("task order of %s: recovering the center needs node coordinates; %s has none", a.Name(), a.Machine().Spec())
	}
	if len(out) < 2 {
		return out, nil
	}
	c := CenterOf(g, out, linf)
	cc := g.Coord(c, nil)
	x := make([]int, len(cc))
	type key struct{ inf, l1, node int }
	keys := make([]key, len(out))
	for i, v := range out {
		x = g.Coord(v, x)
		k := key{node: v}
		for j := range x {
			d := g.AxisDist(j, x[j], cc[j])
			k.l1 += d
			k.inf = max(k.inf, d)
		}
		if !linf {
			k.inf = 0
		}
		keys[i] = k
	}
	slices.SortFunc(keys, func(p, q key) int {
		if p.inf != q.inf {
			return p.inf - q.inf
		}
		if p.l1 != q.l1 {
			return p.l1 - q.l1
		}
		return p.node - q.node
	})
	for i, k := range keys {
		out[i] = k.node
	}
	return out, nil
}

// CenterOf returns the center of a node set on grid g, as CollectionOrder recovers
// it: with linf, the node of the set whose farthest member is nearest in
// L-infinity, ties by least total L1 distance to the set; else the medoid, the node
// of least total L1 distance to the set; remaining ties by least index. nodes must
// not be empty.
func CenterOf(g *topo.Grid, nodes []int, linf bool) int {
	dims := g.Dims()
	// Per dimension, for every coordinate c: the total and the largest distance
	// from c to the set's coordinates in that dimension, from a histogram.
	sum := make([][]int, len(dims))
	far := make([][]int, len(dims))
	x := make([]int, len(dims))
	hist := make([][]int, len(dims))
	for j, k := range dims {
		hist[j] = make([]int, k)
	}
	for _, v := range nodes {
		x = g.Coord(v, x)
		for j := range x {
			hist[j][x[j]]++
		}
	}
	for j, k := range dims {
		sum[j], far[j] = make([]int, k), make([]int, k)
		for c := range k {
			for y, n := range hist[j] {
				if n > 0 {
					d := g.AxisDist(j, y, c)
					sum[j][c] += n * d
					far[j][c] = max(far[j][c], d)
				}
			}
		}
	}
	best, bestInf, bestSum := -1, math.MaxInt, math.MaxInt
	for _, v := range nodes {
		x = g.Coord(v, x)
		inf, s := 0, 0
		for j := range x {
			s += sum[j][x[j]]
			inf = max(inf, far[j][x[j]])
		}
		if !linf {
			inf = 0
		}
		if inf < bestInf || (inf == bestInf && (s < bestSum || (s == bestSum && v < best))) {
			best, bestInf, bestSum = v, inf, s
		}
	}
	return best
}
