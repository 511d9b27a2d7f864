package ilp

import (
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// Symmetry is a set of symmetry-breaking constraints on the assignment variables
// x[i][k] (facility i at location k) together with a canonicalization that maps any
// assignment to an equivalent one (same objective) satisfying them, so that warm starts
// stay feasible.
type Symmetry struct {
	Desc string // the constraints in words, for notes; "none" when there are none
	fix  []xFix
	rows []xRow
	// Canon maps an assignment (facility -> location) to an equivalent one, of
	// the same objective, that meets the constraints; it does not change p.
	Canon func(p []int) []int
}

type xFix struct {
	i, k int
	v    float64
}

type xTerm struct {
	i, k int
	c    float64
}

type xRow struct {
	terms  []xTerm
	lo, hi float64
}

// OrderingSymmetry returns the symmetry breaking for orderings of m (facilities are
// ranks, locations nodes). Line: an ordering and its reverse have the same F, and so do
// an ordering and its image under a graph automorphism; for grids the automorphisms
// used are reflections of each dimension, translations of wrapped dimensions and
// permutations of interchangeable dimensions, so the first node can be required to lie
// in a fundamental domain (its "orbit representative") and, by reversal, the last node's
// orbit to come no earlier than the first node's. For other graphs only reversal is
// used (first node index < last node index). Ring: rotation fixes node 0 at rank 0 and
// reversal puts node 1 within ranks 1..n/2.
func OrderingSymmetry(m topo.Machine, ring bool) *Symmetry {
	g, _ := m.(*topo.Grid)
	return SymmetryFor(m.N(), g, ring)
}

// SymmetryFor is OrderingSymmetry for n ranks; grid, when not nil, supplies the
// automorphisms.
func SymmetryFor(n int, grid *topo.Grid, ring bool) *Symmetry {
	if n < 3 {
		return &Symmetry{Desc: "none", Canon: func(p []int) []int { return slices.Clone(p) }}
	}
	if ring {
		return ringSymmetry(n)
	}
	orb := make([]int, n) // orbit representative (canonical node) of each node
	var canonMap func(v int) func(u int) int
	desc := "reversal"
	if grid != nil {
		gs := newGridSym(grid)
		for v := range orb {
			orb[v] = gs.transform(v)(v)
		}
		canonMap = gs.transform
		desc = "reversal + grid automorphisms (first node in a fundamental domain)"
	} else {
		for v := range orb {
			orb[v] = v
		}
		canonMap = func(int) func(int) int { return func(u int) int { return u } }
	}
	s := &Symmetry{Desc: desc}
	var reps []int
	for v := 0; v < n; v++ {
		if orb[v] != v {
			s.fix = append(s.fix, xFix{0, v, 0})
		} else {
			reps = append(reps, v)
		}
	}
	// x[0][c] <= sum of x[n-1][u] over u whose orbit is c's or later.
	for _, c := range reps {
		row := xRow{terms: []xTerm{{0, c, 1}}, lo: -1, hi: 0}
		for u := 0; u < n; u++ {
			if orb[u] >= c && u != c {
				row.terms = append(row.terms, xTerm{n - 1, u, -1})
			}
		}
		s.rows = append(s.rows, row)
	}
	s.Canon = func(p []int) []int {
		q := slices.Clone(p)
		if orb[q[0]] > orb[q[n-1]] {
			slices.Reverse(q)
		}
		f := canonMap(q[0])
		for i, v := range q {
			q[i] = f(v)
		}
		return q
	}
	return s
}

func ringSymmetry(n int) *Symmetry {
	s := &Symmetry{Desc: "rotation (node 0 at rank 0) + reversal (node 1 in ranks 1..n/2)"}
	s.fix = append(s.fix, xFix{0, 0, 1})
	for r := n/2 + 1; r < n; r++ {
		s.fix = append(s.fix, xFix{r, 1, 0})
	}
	s.Canon = func(p []int) []int {
		q := make([]int, n)
		z := slices.Index(p, 0)
		for i := range q {
			q[i] = p[(z+i)%n]
		}
		if slices.Index(q, 1) > n/2 {
			slices.Reverse(q[1:])
		}
		return q
	}
	return s
}

// gridSym computes, for a node v of a grid, the automorphism that maps v to its
// canonical representative: wrapped dimensions translated to 0, others reflected into
// their lower half, then interchangeable dimensions (same size and wrap) sorted.
type gridSym struct{ g *topo.Grid }

func newGridSym(g *topo.Grid) gridSym { return gridSym{g} }

func (gs gridSym) transform(v int) func(int) int {
	g := gs.g
	dims, wrap := g.Dims(), g.Wrap()
	d := len(dims)
	c := g.Coord(v, nil)
	shift := make([]int, d)
	flip := make([]bool, d)
	cc := make([]int, d)
	for j := 0; j < d; j++ {
		switch {
		case wrap[j]:
			shift[j] = c[j]
			cc[j] = 0
		case c[j] > dims[j]-1-c[j]:
			flip[j] = true
			cc[j] = dims[j] - 1 - c[j]
		default:
			cc[j] = c[j]
		}
	}
	// perm[j] = source dimension of target dimension j; sort within classes.
	perm := make([]int, d)
	for j := range perm {
		perm[j] = j
	}
	for j := 0; j < d; j++ {
		// Selection of the smallest remaining coordinate among same-class dimensions.
		for k := j + 1; k < d; k++ {
			if dims[k] == dims[j] && wrap[k] == wrap[j] && cc[perm[k]] < cc[perm[j]] {
				perm[j], perm[k] = perm[k], perm[j]
			}
		}
	}
	return func(u int) int {
		x := g.Coord(u, nil)
		y := make([]int, d)
		for j := 0; j < d; j++ {
			switch {
			case wrap[j]:
				x[j] = ((x[j]-shift[j])%dims[j] + dims[j]) % dims[j]
			case flip[j]:
				x[j] = dims[j] - 1 - x[j]
			}
		}
		for j := 0; j < d; j++ {
			y[j] = x[perm[j]]
		}
		return g.Index(y)
	}
}
