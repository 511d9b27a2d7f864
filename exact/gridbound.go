package exact

import (
	"errors"
	"fmt"
	"math"
)

// GridBound returns a lower bound on the total pairwise distance of any k distinct
// nodes of a mesh or torus of the given sides (wrap[j]: dimension j wraps around, its
// distance the shorter way round), the larger of two bounds:
//
//   - the star bound: Σ over pairs = ½ Σ_{v∈S} Σ_{u∈S\v} d(u, v) >= ½ k s(k-1),
//     s(m) the sum of the m smallest distances from a node to the other nodes of the
//     machine, taken at the node whose sorted distances are least: any node on a
//     torus (it is vertex-transitive), a central one along a dimension without
//     wraparound (its distances to a line's nodes are, sorted, at most any other
//     node's, and a bijection per dimension gives one for the product). It is exact
//     for k = n, and it accounts for wraparound;
//   - the sum over the dimensions without wraparound of the least cost along that
//     dimension, Σ_{pairs} |a_j - b_j|, of any k nodes: at most n/L_j nodes share a
//     coordinate, and the cost along a line of a multiset of counts (lineCost, its
//     best order) is antitone in majorization (marginal.go), so the counts
//     (n/L_j, ..., n/L_j, rest) cost least. Along a wrapping dimension the star bound
//     of that dimension alone (at most n/L_j nodes per coordinate) is used. It is
//     exact for k = n on a mesh;
//   - in 2 or 3 dimensions, the unconstrained optimum of Z^d (LatticeBound, Bender
//     et al. 2005), which bounds any k distinct lattice points, so every set of a
//     mesh. Around a torus it does not hold as it is (all 9 nodes of torus:3x3 total
//     54, below the 72 of the best 9 points of Z^2), but it does for the sets that
//     fit, along each wrapping dimension, in an arc of ⌊L/2⌋+1 positions: rotated
//     into it, their ring distances are line distances and they are k distinct
//     lattice points. Any other set costs, along a dimension j where it does not fit,
//     at least L_j(k-1)/2: with h = ⌊L_j/2⌋, the ring distance of two coordinates is
//     half the number of the L_j arcs of h consecutive positions that hold exactly
//     one of them, so that dimension's total is ½ Σ_z A_z (k - A_z), A_z the nodes
//     in arc z, and 1 <= A_z <= k-1 for every z (an empty arc, or a full one, would
//     leave all k in at most ⌊L_j/2⌋+1 consecutive positions). So a torus gets the
//     least of the lattice optimum and, per wrapping dimension, L_j(k-1)/2 plus the
//     other dimensions' bounds.
//
// The total is an integer, so the real bounds are rounded up; LatticeBound's
// recursive extension (beyond the table) is rounded down first by a relative 1e-9,
// far above its float error. Errors: k outside 0..n, bad sides, a total beyond 2^62.
func GridBound(sides []int, wrap []bool, k int) (int64, error) {
	if len(sides) == 0 || len(wrap) != len(sides) {
		return 0, fmt.Errorf("exact: grid of %d sides and %d wrap flags", len(sides), len(wrap))
	}
	n := int64(1)
	for _, L := range sides {
		if L < 1 || L > 1<<30 || n > (1<<40)/int64(L) {
			return 0, fmt.Errorf("exact: grid sides %v", sides)
		}
		n *= int64(L)
	}
	if k < 0 || int64(k) > n {
		return 0, fmt.Errorf("exact: k = %d on a grid of %d nodes", k, n)
	}
	if k <= 1 {
		return 0, nil
	}
	star, err := gridStar(sides, wrap, k)
	if err != nil {
		return 0, err
	}
	axis, err := gridAxes(sides, wrap, n, k)
	if err != nil {
		return 0, err
	}
	var axes int64
	for _, c := range axis {
		axes += c // each at most 2^62 / len(sides) (gridAxes)
	}
	best := max(star, axes)
	if d := len(sides); d == 2 || d == 3 {
		f := LatticeBound(d, k)
		if f > 1<<62 || math.IsNaN(f) {
			return 0, errors.New("exact: lattice bound overflows")
		}
		lb := int64(math.Ceil(f - 1e-9*f))
		// Around a torus the lattice bound holds for the sets that fit, along every
		// wrapping dimension, in an arc of at most ⌊L/2⌋+1 positions (rotated, their
		// ring distances are line distances); any other set costs along such a
		// dimension at least L(k-1)/2 (below), plus the other dimensions' bounds.
		for j, w := range wrap {
			if !w {
				continue
			}
			bad := (int64(sides[j])*int64(k-1) + 1) / 2
			for i, c := range axis {
				if i != j {
					bad += c
				}
			}
			lb = min(lb, bad)
		}
		best = max(best, lb)
	}
	return best, nil
}

// gridAxes is the per-dimension bound of GridBound, one value per dimension (each at
// most 2^62 / dimensions).
func gridAxes(sides []int, wrap []bool, n int64, k int) ([]int64, error) {
	out := make([]int64, len(sides))
	for j, L := range sides {
		capacity := int(n / int64(L))
		var c int64
		if wrap[j] {
			var err error
			if c, err = starOfHist(ringHist(L, int64(capacity)), k); err != nil {
				return nil, err
			}
		} else {
			counts := make([]int, 0, k/capacity+1)
			for left := k; left > 0; left -= capacity {
				counts = append(counts, min(left, capacity))
			}
			c = lineCost(counts)
		}
		if c < 0 || c > (1<<62)/int64(len(sides)) {
			return nil, errors.New("exact: per-dimension bound overflows")
		}
		out[j] = c
	}
	return out, nil
}

// ringHist is the number of nodes at each ring distance from a node of a ring of L
// positions holding per nodes each (the node itself included).
func ringHist(L int, per int64) []int64 {
	h := make([]int64, L/2+1)
	h[0] = per
	for t := 1; t <= (L-1)/2; t++ {
		h[t] = 2 * per
	}
	if L%2 == 0 && L >= 2 {
		h[L/2] = per
	}
	return h
}

// starOfHist is ⌈½ k s(k-1)⌉, s(m) the sum of the m smallest distances of the
// histogram less the node itself (one at distance 0).
func starOfHist(hist []int64, k int) (int64, error) {
	need := int64(k - 1)
	var s int64
	for t, c := range hist {
		if t == 0 {
			c-- // the node itself
		}
		take := min(c, need)
		s += take * int64(t)
		need -= take
		if need == 0 {
			break
		}
	}
	if need > 0 {
		return 0, fmt.Errorf("exact: k = %d beyond the grid", k)
	}
	if s > (1<<62)/int64(k) {
		return 0, errors.New("exact: star bound overflows")
	}
	return (int64(k)*s + 1) / 2, nil
}

// gridStar is the star bound ⌈½ k s(k-1)⌉ of GridBound.
func gridStar(sides []int, wrap []bool, k int) (int64, error) {
	hist := []int64{1} // nodes at each distance from the chosen node
	for j, L := range sides {
		var h []int64
		if wrap[j] {
			h = ringHist(L, 1)
		} else {
			c := (L - 1) / 2
			h = make([]int64, L-c)
			for y := range L {
				t := y - c
				if t < 0 {
					t = -t
				}
				h[t]++
			}
		}
		next := make([]int64, len(hist)+len(h)-1)
		for a, x := range hist {
			if x == 0 {
				continue
			}
			for b, y := range h {
				next[a+b] += x * y
			}
		}
		hist = next
	}
	return starOfHist(hist, k)
}
