package ilp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/ilp/highs"
)

// Formulations of the QAP as a mixed-integer linear program.
const (
	// FormulationAJ is the Adams-Johnson linearization (level-1 RLT), kept sparse:
	// binary x[i][k] (facility i at location k) with assignment constraints, and for
	// each facility pair {i,j} with a non-zero flow (for an ordering: rank offsets up to
	// K) and each ordered location pair (k,l), k != l, a continuous y(ik,jl) in [0,1]
	// standing for x[i][k] x[j][l], tied to x by sum_l y(ik,jl) = x[i][k] for every k and
	// sum_k y(ik,jl) = x[j][l] for every l. Cost of y: A[i][j] B[k][l] + A[j][i] B[l][k].
	FormulationAJ = "aj"
	// FormulationAJSym aggregates the two orientations of each location pair when B is
	// symmetric: z({i,j},{k,l}) = y(ik,jl) + y(il,jk), one variable per unordered
	// location pair, with sum_l z({i,j},{k,l}) = x[i][k] + x[j][k] for every k. Half the
	// pair variables and rows, a weaker LP relaxation.
	FormulationAJSym = "aj-sym"
)

// Formulations lists the formulation names.
var Formulations = []string{FormulationAJ, FormulationAJSym}

func checkFormulation(name string) error {
	if slices.Contains(Formulations, name) {
		return nil
	}
	return fmt.Errorf("unknown formulation %q (want %s)", name, strings.Join(Formulations, ", "))
}

// facilityPairs returns the facility pairs i < j with a non-zero flow either way.
func facilityPairs(q *QAP) [][2]int {
	var ps [][2]int
	n := q.N
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if q.A[i*n+j] != 0 || q.A[j*n+i] != 0 {
				ps = append(ps, [2]int{i, j})
			}
		}
	}
	return ps
}

// ModelSize returns the number of columns of the formulation for q.
func ModelSize(q *QAP, formulation string) int {
	n := q.N
	p := len(facilityPairs(q))
	if formulation == FormulationAJSym {
		return n*n + p*n*(n-1)/2
	}
	return n*n + p*n*(n-1)
}

// mipModel is a built formulation with the column layout needed to encode starting
// solutions and decode results.
type mipModel struct {
	q       *QAP
	name    string
	model   *highs.Model
	pairs   [][2]int
	perPair int // pair variables per facility pair
	yBase   int // first pair column
}

func (mm *mipModel) x(i, k int) int { return i*mm.q.N + k }

// y returns the pair column for facility pair index p with i at k and j at l.
func (mm *mipModel) y(p, k, l int) int {
	n := mm.q.N
	if mm.name == FormulationAJSym {
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

// buildModel builds the formulation of q with the symmetry-breaking constraints sym
// (may be nil).
func buildModel(q *QAP, name string, sym *symmetry) (*mipModel, error) {
	if err := checkFormulation(name); err != nil {
		return nil, err
	}
	if name == FormulationAJSym && !q.symmetricB() {
		return nil, fmt.Errorf("formulation %s needs a symmetric distance matrix B", name)
	}
	n := q.N
	mm := &mipModel{q: q, name: name, model: &highs.Model{}, pairs: facilityPairs(q)}
	m := mm.model
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			m.AddCol(q.A[i*n+i]*q.B[k*n+k], 0, 1, true)
		}
	}
	mm.yBase = n * n
	if name == FormulationAJSym {
		mm.perPair = n * (n - 1) / 2
	} else {
		mm.perPair = n * (n - 1)
	}
	for _, pr := range mm.pairs {
		i, j := pr[0], pr[1]
		aij, aji := q.A[i*n+j], q.A[j*n+i]
		if name == FormulationAJSym {
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
	if m.NumCols() != mm.yBase+len(mm.pairs)*mm.perPair {
		return nil, fmt.Errorf("internal error: column layout")
	}
	idx := make([]int, 0, n+2)
	val := make([]float64, 0, n+2)
	ones := func(k int) []float64 {
		val = val[:0]
		for range k {
			val = append(val, 1)
		}
		return val
	}
	// Assignment constraints.
	for i := 0; i < n; i++ {
		idx = idx[:0]
		for k := 0; k < n; k++ {
			idx = append(idx, mm.x(i, k))
		}
		m.AddRow(1, 1, idx, ones(n))
	}
	for k := 0; k < n; k++ {
		idx = idx[:0]
		for i := 0; i < n; i++ {
			idx = append(idx, mm.x(i, k))
		}
		m.AddRow(1, 1, idx, ones(n))
	}
	// Linking constraints.
	for p, pr := range mm.pairs {
		i, j := pr[0], pr[1]
		if name == FormulationAJSym {
			for k := 0; k < n; k++ {
				idx = idx[:0]
				for l := 0; l < n; l++ {
					if l != k {
						idx = append(idx, mm.y(p, k, l))
					}
				}
				v := ones(n - 1)
				idx = append(idx, mm.x(i, k), mm.x(j, k))
				v = append(v, -1, -1)
				m.AddRow(0, 0, idx, v)
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
			v := ones(n - 1)
			idx = append(idx, mm.x(i, k))
			v = append(v, -1)
			m.AddRow(0, 0, idx, v)
		}
		for l := 0; l < n; l++ { // j at l: i somewhere else
			idx = idx[:0]
			for k := 0; k < n; k++ {
				if k != l {
					idx = append(idx, mm.y(p, k, l))
				}
			}
			v := ones(n - 1)
			idx = append(idx, mm.x(j, l))
			v = append(v, -1)
			m.AddRow(0, 0, idx, v)
		}
	}
	if sym != nil {
		for _, f := range sym.fix {
			c := mm.x(f.i, f.k)
			m.ColLower[c], m.ColUpper[c] = f.v, f.v
		}
		for _, r := range sym.rows {
			idx, val = idx[:0], val[:0]
			for _, t := range r.terms {
				idx = append(idx, mm.x(t.i, t.k))
				val = append(val, t.c)
			}
			m.AddRow(r.lo, r.hi, idx, val)
		}
	}
	return mm, nil
}

// encode returns the column values of assignment p.
func (mm *mipModel) encode(p []int) []float64 {
	v := make([]float64, mm.model.NumCols())
	for i, k := range p {
		v[mm.x(i, k)] = 1
	}
	for pi, pr := range mm.pairs {
		v[mm.y(pi, p[pr[0]], p[pr[1]])] = 1
	}
	return v
}

// decode reads the assignment from column values (x rounded).
func (mm *mipModel) decode(v []float64) ([]int, error) {
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

// granularity returns g > 0 when every objective value of q is an integer multiple of
// g (entries of A and B dyadic rationals), else 0.
func granularity(q *QAP) float64 {
	ea, okA := dyadicExp(q.A)
	eb, okB := dyadicExp(q.B)
	if !okA || !okB || ea+eb > 40 {
		return 0
	}
	return math.Ldexp(1, -(ea + eb))
}

// dyadicExp returns the smallest e <= 30 with v * 2^e integral for every v in vs.
func dyadicExp(vs []float64) (int, bool) {
	e := 0
	for _, v := range vs {
		for e <= 30 {
			s := math.Ldexp(v, e)
			if s == math.Trunc(s) && math.Abs(s) < 1<<52 {
				break
			}
			e++
		}
		if e > 30 {
			return 0, false
		}
	}
	return e, true
}
