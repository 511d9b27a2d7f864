package qap

import (
	"context"
	"math"
	"slices"
)

// maxWalkBoundWork caps the transitions WalkBound evaluates.
const maxWalkBoundWork = 2e9

// maxWalkBoundNodes is the largest machine WalkBound takes: finding the automorphisms
// that move each node to node 0 grows as n^3 and already takes seconds at 256 nodes,
// where the table would be too large for K >= 2 anyway.
const maxWalkBoundNodes = 128

// WalkBound returns a lower bound on the ordering problem q (flows w(t) between ranks
// t <= K apart, around the ring when ring) on a vertex-transitive machine (every node
// mapped to every other by an automorphism of the distances, as on a torus): the
// cheapest walk in which every K+2 consecutive nodes are distinct, by a dynamic program
// over the last K+1 nodes. Since every node looks alike, a state is stored translated
// so that its last node is node 0, which makes the table n^K entries instead of
// n^(K+1). A line ordering is such a walk of n nodes, so the walk's cost bounds F from
// below; the window of K+2 forbids the short cycles (four steps around a square of a
// grid) that the window and Gilmore-Lawler bounds cannot exclude.
//
// For the ring, F is the line cost of p_0..p_{n-1} plus the pairs across the wrap,
// each at distance at least the smallest distance d between two nodes: F >= walk(n) +
// d * sum of t w(t). Also, repeating the first K nodes after the last gives a walk of
// n+K nodes whose line cost is F plus the pairs among those K nodes; rotating the ring
// so that these are cheapest, their cost is at most the average over rotations, at
// most (K-1) F / n, so F >= walk(n+K) / (1 + (K-1)/n). The larger of the two is
// returned.
//
// ok is false when q is not such an ordering, the machine is not vertex-transitive,
// the work would exceed maxWalkBoundWork, the machine has more than maxWalkBoundNodes
// nodes, or ctx ends.
func WalkBound(ctx context.Context, q *QAP, ring bool) (bound float64, ok bool) {
	n := q.N
	k := Band(q, ring)
	if k < 1 || k+2 > n || (ring && 2*k+1 > n) || n > maxWalkBoundNodes || !q.SymmetricB() {
		return 0, false
	}
	// Toeplitz (circulant) flows: the coefficient of B[p_r][p_s] depends on the rank
	// difference only.
	coef := make([]float64, k+1)
	for t := 1; t <= k; t++ {
		coef[t] = q.A[t] + q.A[t*n]
	}
	for r := 0; r < n; r++ {
		if q.A[r*n+r] != 0 {
			return 0, false
		}
		for s := r + 1; s < n; s++ {
			t := s - r
			if ring {
				t = min(t, n-t)
			}
			c := q.A[r*n+s] + q.A[s*n+r]
			if (t <= k && c != coef[t]) || (t > k && c != 0) {
				return 0, false
			}
		}
	}
	L := k + 2 // window of distinct nodes; the state holds the last L-1 = k+1 nodes
	states := math.Pow(float64(n), float64(L-2))
	if states*float64(n)*float64(n) > maxWalkBoundWork {
		return 0, false
	}
	to0 := mapsToZero(q.B, n) // to0[v]: an automorphism mapping v to node 0
	if to0 == nil {
		return 0, false
	}
	m := L - 2 // free nodes of a canonical state (the last one is node 0)
	size := int(states)
	B := q.B
	inf := math.Inf(1)
	cur := make([]float64, size)
	next := make([]float64, size)
	tup := make([]int, L-1)
	decode := func(code int) {
		for j := m - 1; j >= 0; j-- {
			tup[j] = code % n
			code /= n
		}
		tup[m] = 0
	}
	// First layer: walks of L-1 nodes ending at node 0.
	for code := 0; code < size; code++ {
		decode(code)
		if !distinct(tup) {
			cur[code] = inf
			continue
		}
		var c float64
		for s := 1; s < len(tup); s++ {
			for t := 1; t <= min(k, s); t++ {
				c += coef[t] * B[tup[s-t]*n+tup[s]]
			}
		}
		cur[code] = c
	}
	minOf := func(v []float64) float64 {
		b := inf
		for _, c := range v {
			b = min(b, c)
		}
		return b
	}
	last := n
	if ring {
		last = n + k
	}
	walkN := inf
	for length := L - 1; length < last; length++ {
		if length == n {
			walkN = minOf(cur)
		}
		if ctx.Err() != nil {
			return 0, false
		}
		for i := range next {
			next[i] = inf
		}
		for code := 0; code < size; code++ {
			base := cur[code]
			if math.IsInf(base, 1) {
				continue
			}
			decode(code)
			for v := 0; v < n; v++ {
				if slices.Contains(tup, v) {
					continue
				}
				c := base
				for t := 1; t <= k; t++ {
					c += coef[t] * B[tup[L-1-t]*n+v]
				}
				// New state: the last L-1 nodes tup[1..], v, mapped so that v is 0.
				a := to0[v]
				nc := 0
				for j := 1; j < L-1; j++ {
					nc = nc*n + a[tup[j]]
				}
				if c < next[nc] {
					next[nc] = c
				}
			}
		}
		cur, next = next, cur
	}
	if !ring {
		walkN = minOf(cur)
		return walkN, !math.IsInf(walkN, 1)
	}
	dmin := inf
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a != b {
				dmin = min(dmin, B[a*n+b])
			}
		}
	}
	var wrap float64
	for t := 1; t <= k; t++ {
		wrap += float64(t) * coef[t] * dmin
	}
	b1 := walkN + wrap
	// The division rounds; lower the quotient by a relative 1e-12 so that it never
	// rounds in its favour.
	b2 := minOf(cur) * float64(n) / float64(n+k-1)
	b2 -= 1e-12 * math.Abs(b2)
	best := max(b1, b2)
	return best, !math.IsInf(best, 1)
}
