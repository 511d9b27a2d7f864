package ilp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/qap"
)

// Formulation names a mixed-integer linear program of the QAP.
type Formulation string

// Formulations of the QAP as a mixed-integer linear program.
const (
	// FormulationAJ is the Adams-Johnson linearization (level-1 RLT), kept sparse:
	// binary x[i][k] (facility i at location k) with assignment constraints, and for
	// each facility pair {i,j} with a non-zero flow (for an ordering: rank offsets up to
	// K) and each ordered location pair (k,l), k != l, a continuous y(ik,jl) in [0,1]
	// standing for x[i][k] x[j][l], tied to x by sum_l y(ik,jl) = x[i][k] for every k and
	// sum_k y(ik,jl) = x[j][l] for every l. Cost of y: A[i][j] B[k][l] + A[j][i] B[l][k].
	FormulationAJ Formulation = "aj"
	// FormulationAJSym aggregates the two orientations of each location pair when B is
	// symmetric: z({i,j},{k,l}) = y(ik,jl) + y(il,jk), one variable per unordered
	// location pair, with sum_l z({i,j},{k,l}) = x[i][k] + x[j][k] for every k. Half the
	// pair variables and rows, a weaker LP relaxation.
	FormulationAJSym Formulation = "aj-sym"
	// FormulationWindow is for banded flows (orderings): for every window of K+1
	// consecutive ranks (cyclically for the ring) a continuous variable per tuple of
	// K+1 distinct nodes, z_r(v_0..v_K) standing for "ranks r..r+K hold v_0..v_K".
	// Consecutive windows agree on their K shared ranks (for every K-tuple, the two
	// marginals are equal), each window's first rank agrees with x, and every pair of
	// ranks within K is charged to one window containing it. The LP relaxation sees
	// whole runs of K+1 nodes, so parity and triangle effects of the distances count
	// (bipartite grids: two unit steps are never followed by a pair at distance 0 or
	// 1), which the pairwise formulations miss. Size: windows x n!/(n-K-1)! columns.
	FormulationWindow Formulation = "window"
	// FormulationWindow3 is the window formulation with windows of 3 ranks (pairs up to
	// offset 2) and Adams-Johnson pair variables for longer offsets: much smaller than
	// FormulationWindow for K >= 3, with a weaker bound on the long-offset terms.
	FormulationWindow3 Formulation = "window3"
)

// formulations backs Formulations; only this package changes it.
var formulations = []Formulation{FormulationWindow, FormulationWindow3, FormulationAJ, FormulationAJSym}

// Formulations returns the formulation names.
// Each call returns a new slice: changing it changes nothing in the package.
func Formulations() []Formulation { return slices.Clone(formulations) }

// CheckFormulation reports an unknown formulation name.
func CheckFormulation(name Formulation) error {
	_, err := ParseFormulation(string(name))
	return err
}

// ParseFormulation returns the formulation named s.
func ParseFormulation(s string) (Formulation, error) {
	if f := Formulation(s); slices.Contains(formulations, f) {
		return f, nil
	}
	names := make([]string, len(formulations))
	for i, f := range formulations {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown formulation %q (want %s)", s, strings.Join(names, ", "))
}

// ModelSize returns the number of columns of the formulation for q (ring: flows banded
// around the ring), or 0 when the formulation does not apply.
func ModelSize(q *qap.QAP, formulation Formulation, ring bool) int {
	n := q.N
	pairsLonger := func(k int) int {
		c := 0
		for _, pr := range qap.FacilityPairs(q) {
			t := pr[1] - pr[0]
			if ring {
				t = min(t, n-t)
			}
			if t > k {
				c++
			}
		}
		return c
	}
	switch formulation {
	case FormulationWindow, FormulationWindow3:
		k := qap.Band(q, ring)
		if formulation == FormulationWindow3 {
			k = min(k, 2)
		}
		if k == 0 || k+1 > n {
			return 0
		}
		t := 1
		for i := 0; i <= k; i++ {
			t *= n - i
			if t > MaxWindowTuples {
				return 1 << 40
			}
		}
		w := n - k
		if ring {
			w = n
		}
		return n*n + w*t + pairsLonger(k)*n*(n-1)
	case FormulationAJSym:
		return n*n + pairsLonger(0)*n*(n-1)/2
	default:
		return n*n + pairsLonger(0)*n*(n-1)
	}
}

// AutoFormulation picks the formulation for q: the full window formulation when its
// windows are small (at most autoWindowTuples tuples), else windows of 3 ranks plus
// pair variables, else AJ, each only when within maxCols columns.
func AutoFormulation(q *qap.QAP, ring bool, maxCols int) Formulation {
	n := q.N
	k := qap.Band(q, ring)
	if k >= 1 && k+1 < n {
		t := 1.0
		for i := 0; i <= k; i++ {
			t *= float64(n - i)
		}
		if c := ModelSize(q, FormulationWindow, ring); t <= autoWindowTuples && c > 0 && c <= maxCols {
			return FormulationWindow
		}
		if c := ModelSize(q, FormulationWindow3, ring); k >= 2 && c > 0 && c <= maxCols {
			return FormulationWindow3
		}
	}
	return FormulationAJ
}

const autoWindowTuples = 20000

// Model is a built formulation with the column layout needed to encode starting
// solutions and decode results.
type Model struct {
	q          *qap.QAP
	name       Formulation
	HiGHS      *highs.Model // the MIP itself, ready for highs.Solve
	pairs      [][2]int     // facility pairs with AJ pair variables
	aggregated bool         // pair variables per unordered location pair (aj-sym)
	perPair    int          // pair variables per facility pair
	yBase      int          // first pair column
	win        *windowLayout
}

func (mm *Model) x(i, k int) int { return i*mm.q.N + k }

// y returns the pair column for facility pair index p with i at k and j at l.
func (mm *Model) y(p, k, l int) int {
	n := mm.q.N
	if mm.aggregated {
		if k > l {
			k, l = l, k
		}
		// Unordered pairs k < l in row-major upper-triangle order.
		return mm.yBase + p*mm.perPair + k*(2*n-k-1)/2 + (l - k - 1)
	}
	ll := l
	if l > k {
		ll--
	}
	return mm.yBase + p*mm.perPair + k*(n-1) + ll
}

// BuildModel builds the formulation of q with the symmetry-breaking constraints sym
// (may be nil). ring matters for the window formulation only.
func BuildModel(q *qap.QAP, name Formulation, ring bool, sym *Symmetry) (*Model, error) {
	if err := CheckFormulation(name); err != nil {
		return nil, err
	}
	if name == FormulationAJSym && !q.SymmetricB() {
		return nil, fmt.Errorf("formulation %s needs a symmetric distance matrix B", name)
	}
	mm := &Model{q: q, name: name, HiGHS: &highs.Model{}}
	addAssignment(mm)
	switch name {
	case FormulationWindow, FormulationWindow3:
		kw := qap.Band(q, ring)
		if name == FormulationWindow3 {
			kw = min(kw, 2)
		}
		long, err := addWindows(mm, ring, kw)
		if err != nil {
			return nil, err
		}
		addAJPairs(mm, long, false)
	default:
		addAJPairs(mm, qap.FacilityPairs(q), name == FormulationAJSym)
	}
	if sym != nil {
		addSymmetry(mm, sym)
	}
	return mm, nil
}

// addAssignment adds the x columns (with the diagonal flow costs) and the assignment
// constraints.
func addAssignment(mm *Model) {
	q, m, n := mm.q, mm.HiGHS, mm.q.N
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			m.AddCol(q.A[i*n+i]*q.B[k*n+k], 0, 1, true)
		}
	}
	idx := make([]int, n)
	val := make([]float64, n)
	for i := range val {
		val[i] = 1
	}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			idx[k] = mm.x(i, k)
		}
		m.AddRow(1, 1, idx, val)
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			idx[i] = mm.x(i, k)
		}
		m.AddRow(1, 1, idx, val)
	}
}

// addAJPairs adds Adams-Johnson pair variables and linking constraints for pairs.
func addAJPairs(mm *Model, pairs [][2]int, aggregated bool) {
	q, m, n := mm.q, mm.HiGHS, mm.q.N
	mm.pairs, mm.aggregated = pairs, aggregated
	mm.yBase = m.NumCols()
	if aggregated {
		mm.perPair = n * (n - 1) / 2
	} else {
		mm.perPair = n * (n - 1)
	}
	for _, pr := range pairs {
		i, j := pr[0], pr[1]
		aij, aji := q.A[i*n+j], q.A[j*n+i]
		if aggregated {
			for k := 0; k < n; k++ {
				for l := k + 1; l < n; l++ {
					m.AddCol((aij+aji)*q.B[k*n+l], 0, 1, false)
				}
			}
		} else {
			for k := 0; k < n; k++ {
				for l := 0; l < n; l++ {
					if l != k {
						m.AddCol(aij*q.B[k*n+l]+aji*q.B[l*n+k], 0, 1, false)
					}
				}
			}
		}
	}
	idx := make([]int, 0, n+2)
	val := make([]float64, 0, n+2)
	row := func(extra ...int) {
		val = val[:0]
		for range len(idx) {
			val = append(val, 1)
		}
		for _, c := range extra {
			idx = append(idx, c)
			val = append(val, -1)
		}
		m.AddRow(0, 0, idx, val)
	}
	for p, pr := range pairs {
		i, j := pr[0], pr[1]
		if aggregated {
			for k := 0; k < n; k++ {
				idx = idx[:0]
				for l := 0; l < n; l++ {
					if l != k {
						idx = append(idx, mm.y(p, k, l))
					}
				}
				row(mm.x(i, k), mm.x(j, k))
			}
			continue
		}
		for k := 0; k < n; k++ { // i at k: j somewhere else
			idx = idx[:0]
			for l := 0; l < n; l++ {
				if l != k {
					idx = append(idx, mm.y(p, k, l))
				}
			}
			row(mm.x(i, k))
		}
		for l := 0; l < n; l++ { // j at l: i somewhere else
			idx = idx[:0]
			for k := 0; k < n; k++ {
				if k != l {
					idx = append(idx, mm.y(p, k, l))
				}
			}
			row(mm.x(j, l))
		}
	}
}

// Encode returns the column values of assignment p.
func (mm *Model) Encode(p []int) []float64 {
	v := make([]float64, mm.HiGHS.NumCols())
	for i, k := range p {
		v[mm.x(i, k)] = 1
	}
	if wl := mm.win; wl != nil {
		t := make([]int, wl.k+1)
		for r := 0; r < wl.windows; r++ {
			for j := range t {
				t[j] = p[wl.rank(r, j)]
			}
			v[wl.col(r, wl.encodeTuple(t))] = 1
		}
	}
	for pi, pr := range mm.pairs {
		v[mm.y(pi, p[pr[0]], p[pr[1]])] = 1
	}
	return v
}

// Decode reads the assignment from column values (x rounded).
func (mm *Model) Decode(v []float64) ([]int, error) {
	n := mm.q.N
	p := make([]int, n)
	for i := 0; i < n; i++ {
		best, bk := -1.0, -1
		for k := 0; k < n; k++ {
			if x := v[mm.x(i, k)]; x > best {
				best, bk = x, k
			}
		}
		if best < 0.5 {
			return nil, fmt.Errorf("MIP solution has no location for facility %d", i)
		}
		p[i] = bk
	}
	if err := mm.q.CheckPerm(p); err != nil {
		return nil, fmt.Errorf("MIP solution: %w", err)
	}
	return p, nil
}
