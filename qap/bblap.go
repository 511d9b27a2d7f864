package qap

import (
	"context"
	"math"
)

// lapSolver solves dense linear assignment problems of size up to its capacity by the
// shortest-augmenting-path Hungarian method with potentials (O(m^3)), and keeps the
// dual potentials: for every row i and column j, c[i][j] - u[i] - v[j] >= 0, with
// equality on the optimal assignment, and sum(u) + sum(v) is the optimum. The branch
// and bound uses the reduced costs c - u - v to bound the children of a node without
// solving their assignment problems (Gilmore 1962; Lawler 1963).
type lapSolver struct {
	u, v, minv []float64
	p, way     []int
	used       []bool
}

func newLAPSolver(n int) *lapSolver {
	return &lapSolver{u: make([]float64, n+1), v: make([]float64, n+1), minv: make([]float64, n+1),
		p: make([]int, n+1), way: make([]int, n+1), used: make([]bool, n+1)}
}

// solve returns the minimum of sum c[i][s(i)] over permutations s of 0..m-1 (c is m x m,
// row-major) and writes the reduced costs c[i][j] - u[i] - v[j] into rc (m x m).
func (h *lapSolver) solve(m int, c, rc []float64) float64 {
	total, _ := h.solveContext(context.Background(), m, c, rc)
	return total
}

// solveContext is solve for large m: it checks ctx every 64 rows and reports false
// when ctx has ended. rc may be nil.
func (h *lapSolver) solveContext(ctx context.Context, m int, c, rc []float64) (float64, bool) {
	inf := math.Inf(1)
	u, v, p, way, minv, used := h.u[:m+1], h.v[:m+1], h.p[:m+1], h.way[:m+1], h.minv[:m+1], h.used[:m+1]
	for j := range p {
		u[j], v[j], p[j], way[j] = 0, 0, 0, 0
	}
	for i := 1; i <= m; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return 0, false
		}
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := p[j0]
			delta := inf
			j1 := 0
			row := c[(i0-1)*m:]
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				cur := row[j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j] = cur
					way[j] = j0
				}
				if minv[j] < delta {
					delta = minv[j]
					j1 = j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	var total float64
	for j := 1; j <= m; j++ {
		total += c[(p[j]-1)*m+(j-1)]
	}
	for i := 0; i < m && rc != nil; i++ {
		for j := 0; j < m; j++ {
			// Not clamped at zero: rounding on float data can leave a reduced cost a
			// hair below zero, which only weakens the child bounds.
			rc[i*m+j] = c[i*m+j] - u[i+1] - v[j+1]
		}
	}
	return total, true
}
