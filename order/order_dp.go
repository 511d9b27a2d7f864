package order

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// OrderDPMaxNodes is the largest machine OrderDP accepts.
const OrderDPMaxNodes = 22

// OrderDPMaxStates bounds the number of dynamic-programming states OrderDP will visit
// (the states of all layers together, summed over the ring's prefixes).
const OrderDPMaxStates = 200_000_000

// dpInstead names the methods that apply where the DP does not, for its errors. It
// stays an error (exit 1 in the CLI), not a usage error: the DP is asked for only
// when no structured start is proven optimal first (solveStructured), so --method
// dp does order some larger machines (a fat tree of 32 hosts, through the
// nested-switches start), and whether it is needed is known only after that work.
func dpInstead(n int) string {
	if n <= AutoBBMaxNodes {
		return fmt.Sprintf("use --method bb (exact branch and bound, no HiGHS, up to about %d nodes) or auto (the default)", AutoBBMaxNodes)
	}
	return "use --method auto (the default: the MIP with HiGHS, else local search) or local"
}

// OrderDPResult is an optimal ordering found by OrderDP.
type OrderDPResult struct {
	Order     curves.Order // node of each rank, an optimum of F
	Objective float64      // F of Order, recomputed by curves.Objective
	States    int64        // dynamic-programming states visited
}

// OrderDP returns an ordering of m minimizing F = sum over node pairs of w(rank
// difference) x hop distance (Leung et al. 2002 §2.2; with ring, rank differences
// around the ring), by dynamic programming over subsets: nodes are placed rank by rank,
// and the state is the set already placed together with the last K placed nodes in
// order (K = len(w), capped at the largest rank difference that occurs), which is all
// the future cost depends on. For the ring, node 0 is fixed at rank 0 (rotation) and
// the nodes of ranks 1..K-1 are enumerated, since pairs across the wrap involve them.
// Time about 2^n n^(K+1); it is meant as an exact cross-check for small instances
// (n up to about 16), independent of any MIP solver. Ties are broken toward the
// lexicographically first choice in the enumeration, so the result is deterministic.
func OrderDP(ctx context.Context, m topo.Machine, w curves.Weights, ring bool) (*OrderDPResult, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	n := m.N()
	if n < 1 || n > OrderDPMaxNodes {
		return nil, fmt.Errorf("the exact dynamic program (--method dp) orders at most %d nodes (about 16 finish in seconds; the time and memory double with each node), the machine has %d; %s", OrderDPMaxNodes, n, dpInstead(n))
	}
	d := make([]float64, n*n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			v := m.Dist(a, b)
			if v < 0 {
				return nil, fmt.Errorf("machine is disconnected: nodes %d and %d are not connected", a, b)
			}
			d[a*n+b] = float64(v)
		}
	}
	k := len(w)
	if ring {
		k = min(k, n/2)
	} else {
		k = min(k, n-1)
	}
	dp := &orderDP{ctx: ctx, n: n, k: k, w: w, d: d, ring: ring}
	if n == 1 {
		return dp.result(m, curves.Order{0})
	}
	if est := dp.estimate(); est > OrderDPMaxStates {
		return nil, fmt.Errorf("OrderDP: about %.3g states for n = %d, K = %d (limit %g); %s", est, n, k, float64(OrderDPMaxStates), dpInstead(n))
	}
	var best []int
	bestCost := math.Inf(1)
	if !ring || k <= 1 {
		var prefix []int
		if ring {
			prefix = []int{0}
		}
		c, o, err := dp.run(prefix)
		if err != nil {
			return nil, err
		}
		best, bestCost = o, c
	} else {
		// Enumerate ranks 0..k-1: node 0 at rank 0, then distinct nodes.
		prefix := make([]int, k)
		used := make([]bool, n)
		used[0] = true
		var rec func(pos int) error
		rec = func(pos int) error {
			if pos == k {
				c, o, err := dp.run(prefix)
				if err != nil {
					return err
				}
				if c < bestCost {
					best, bestCost = o, c
				}
				return nil
			}
			for v := 1; v < n; v++ {
				if !used[v] {
					used[v] = true
					prefix[pos] = v
					if err := rec(pos + 1); err != nil {
						return err
					}
					used[v] = false
				}
			}
			return nil
		}
		if err := rec(1); err != nil {
			return nil, err
		}
	}
	return dp.result(m, best)
}

// OrderDPStates estimates the number of states OrderDP visits for n nodes, K = len(w)
// weights and the line or ring (a guide to its time: about 0.4 microseconds per state
// and node on the project's machines).
func OrderDPStates(n, K int, ring bool) float64 {
	k := K
	if ring {
		k = min(k, n/2)
	} else {
		k = min(k, n-1)
	}
	if n <= 1 {
		return 1
	}
	return (&orderDP{n: n, k: k, ring: ring}).estimate()
}

type orderDP struct {
	ctx    context.Context
	n, k   int
	w      curves.Weights
	d      []float64
	ring   bool
	states int64
}

func (dp *orderDP) result(m topo.Machine, o curves.Order) (*OrderDPResult, error) {
	f, err := curves.Objective(m, o, dp.w, dp.ring)
	if err != nil {
		return nil, err
	}
	return &OrderDPResult{Order: o, Objective: f, States: dp.states}, nil
}

// estimate returns the number of states all runs visit.
func (dp *orderDP) estimate() float64 {
	n, k := dp.n, dp.k
	p := 0
	runs := 1.0
	if dp.ring {
		p = max(1, k)
		for i := 1; i < p; i++ {
			runs *= float64(n - i)
		}
	}
	var total float64
	for s := p; s <= n; s++ {
		total += binom(n-p, s-p) * falling(s, min(s, k))
	}
	return total * runs
}

func binom(n, r int) float64 {
	if r < 0 || r > n {
		return 0
	}
	v := 1.0
	for i := 0; i < r; i++ {
		v = v * float64(n-i) / float64(i+1)
	}
	return v
}

func falling(s, l int) float64 {
	v := 1.0
	for i := 0; i < l; i++ {
		v *= float64(s - i)
	}
	return v
}

func (dp *orderDP) weight(t int) float64 {
	if t >= 1 && t <= len(dp.w) {
		return dp.w[t-1]
	}
	return 0
}

// ringDist is the rank difference of ranks p < q (around the ring with ring).
func (dp *orderDP) ringDist(p, q int) int {
	t := q - p
	if dp.ring {
		t = min(t, dp.n-t)
	}
	return t
}

// run solves the problem with ranks 0..len(prefix)-1 fixed to prefix and returns the
// optimal cost and ordering.
func (dp *orderDP) run(prefix []int) (float64, []int, error) {
	n, k := dp.n, dp.k
	P := len(prefix)
	var s0 uint32
	for _, v := range prefix {
		s0 |= 1 << v
	}
	// Cost of the pairs inside the prefix.
	var c0 float64
	for q := 0; q < P; q++ {
		for p := 0; p < q; p++ {
			c0 += dp.weight(dp.ringDist(p, q)) * dp.d[prefix[p]*n+prefix[q]]
		}
	}
	// Masks of each layer: s0 plus (s - P) of the other nodes, in increasing order.
	free := ^s0 & (1<<n - 1)
	layers := make([][]uint32, n+1)
	rank := make([]int32, 1<<n)
	for sub := uint32(0); ; sub = (sub - free) & free {
		mask := s0 | sub
		s := bits.OnesCount32(mask)
		rank[mask] = int32(len(layers[s]))
		layers[s] = append(layers[s], mask)
		if sub == free {
			break
		}
	}
	// Layers sorted by construction order are fine: rank is the index in the layer.
	tl := func(s int) int { return min(s, k) } // tuple length at layer s
	width := func(s int) int { return int(falling(s, tl(s))) }

	// The start state: the last min(P, k) prefix nodes, most recent first.
	tuple := make([]int, 0, k)
	for t := 0; t < tl(P); t++ {
		tuple = append(tuple, prefix[P-1-t])
	}
	cur := make([]float64, len(layers[P])*width(P))
	for i := range cur {
		cur[i] = math.Inf(1)
	}
	cur[int(rank[s0])*width(P)+encodeTuple(s0, tuple)] = c0
	parents := make([][]uint8, n+1) // parents[s][state]: node dropped from the tuple (255: none)
	dp.states++

	next := []float64(nil)
	dec := make([]int, k)
	newT := make([]int, k)
	for s := P; s < n; s++ {
		if err := context.Cause(dp.ctx); err != nil {
			return 0, nil, err
		}
		ws, wn := width(s), width(s+1)
		L, Ln := tl(s), tl(s+1)
		size := len(layers[s+1]) * wn
		if cap(next) >= size {
			next = next[:size]
		} else {
			next = make([]float64, size)
		}
		for i := range next {
			next[i] = math.Inf(1)
		}
		par := make([]uint8, size)
		dp.states += int64(size)
		q := s // rank of the node placed now
		for mi, mask := range layers[s] {
			base := mi * ws
			for ti := 0; ti < ws; ti++ {
				c := cur[base+ti]
				if math.IsInf(c, 1) {
					continue
				}
				decodeTuple(mask, ti, L, dec)
				drop := uint8(255)
				if L == Ln {
					drop = uint8(dec[L-1])
				}
				for v := 0; v < n; v++ {
					if mask&(1<<v) != 0 {
						continue
					}
					add := 0.0
					for t := 1; t <= L; t++ {
						add += dp.weight(t) * dp.d[v*n+dec[t-1]]
					}
					if dp.ring {
						// Pairs across the wrap with the prefix ranks not in the tuple.
						for p := 0; p < P && p < q-L; p++ {
							if t := n - q + p; t <= k {
								add += dp.weight(t) * dp.d[v*n+prefix[p]]
							}
						}
					}
					nm := mask | 1<<v
					newT[0] = v
					copy(newT[1:Ln], dec[:Ln-1])
					idx := int(rank[nm])*wn + encodeTuple(nm, newT[:Ln])
					if c+add < next[idx] {
						next[idx] = c + add
						par[idx] = drop
					}
				}
			}
		}
		parents[s+1] = par
		cur, next = next, cur
	}
	// Best final state.
	full := uint32(1<<n - 1)
	wf := width(n)
	bestIdx, best := -1, math.Inf(1)
	for ti := 0; ti < wf; ti++ {
		if c := cur[int(rank[full])*wf+ti]; c < best {
			best, bestIdx = c, ti
		}
	}
	if bestIdx < 0 {
		return 0, nil, fmt.Errorf("internal error: OrderDP found no ordering")
	}
	// Backtrack: the predecessor's tuple is this tuple without its first node, plus
	// the node that dropped out of the window (if any).
	order := make([]int, n)
	mask := full
	tup := make([]int, tl(n))
	decodeTuple(mask, bestIdx, tl(n), tup)
	for s := n; s > P; s-- {
		ls := tl(s)
		drop := parents[s][int(rank[mask])*width(s)+encodeTuple(mask, tup[:ls])]
		v := tup[0]
		order[s-1] = v
		mask &^= 1 << v
		prev := append([]int(nil), tup[1:ls]...)
		if drop != 255 {
			prev = append(prev, int(drop))
		}
		tup = prev
	}
	copy(order, prefix)
	return best, order, nil
}

// encodeTuple returns the mixed-radix index of tuple (distinct members of mask): the
// first element's position among mask's members, the second's among the rest, ...
func encodeTuple(mask uint32, tuple []int) int {
	idx, mul := 0, 1
	rest := mask
	size := bits.OnesCount32(mask)
	for _, v := range tuple {
		pos := bits.OnesCount32(rest & (1<<v - 1))
		idx += pos * mul
		mul *= size
		size--
		rest &^= 1 << v
	}
	return idx
}

// decodeTuple inverts encodeTuple for a tuple of length l, writing into dst.
func decodeTuple(mask uint32, idx, l int, dst []int) {
	rest := mask
	size := bits.OnesCount32(mask)
	for i := 0; i < l; i++ {
		pos := idx % size
		idx /= size
		size--
		// The pos-th member of rest.
		r := rest
		for range pos {
			r &= r - 1
		}
		v := bits.TrailingZeros32(r)
		dst[i] = v
		rest &^= 1 << v
	}
}
