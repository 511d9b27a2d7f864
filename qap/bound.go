package qap

import (
	"context"
	"slices"
)

// MaxGLBNodes is the largest QAP GilmoreLawlerBound handles (O(n^3) time, n^2 memory).
const MaxGLBNodes = 2048

// GilmoreLawlerBound returns the Gilmore-Lawler lower bound of q: for facility i at
// location k the cheapest possible cost of i's own flows is a minimal scalar product of
// i's flows with k's distances (rearrangement inequality); a linear assignment over
// those costs (Hungarian method) bounds the whole objective from below. When B is
// symmetric the flows are symmetrized first ((A + A^T)/2), which leaves the objective
// unchanged and tightens the bound. For an ordering with w = (1) on a graph with a
// Hamiltonian path it equals n-1, the optimum. ok is false when q is too large or ctx
// ends first.
func GilmoreLawlerBound(ctx context.Context, q *QAP) (bound float64, ok bool) {
	n := q.N
	if n > MaxGLBNodes {
		return 0, false
	}
	sym := q.SymmetricB()
	// Off-diagonal flows of each facility, sorted descending.
	flows := make([][]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			var a float64
			if sym {
				a = (q.A[i*n+j] + q.A[j*n+i]) / 2
			} else {
				a = q.A[i*n+j]
			}
			if a != 0 {
				flows[i] = append(flows[i], a)
			}
		}
		slices.Sort(flows[i])
		slices.Reverse(flows[i])
	}
	// Off-diagonal distances of each location, sorted ascending.
	dists := make([][]float64, n)
	for k := 0; k < n; k++ {
		d := make([]float64, 0, n-1)
		for l := 0; l < n; l++ {
			if l != k {
				d = append(d, q.B[k*n+l])
			}
		}
		slices.Sort(d)
		dists[k] = d
	}
	cost := make([]float64, n*n)
	for i := 0; i < n; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return 0, false
		}
		f := flows[i]
		npos := 0
		for npos < len(f) && f[npos] > 0 {
			npos++
		}
		for k := 0; k < n; k++ {
			d := dists[k]
			c := q.A[i*n+i] * q.B[k*n+k]
			// Positive flows take the smallest distances, negative flows (most negative
			// first) the largest; zero flows the rest.
			for t := 0; t < npos; t++ {
				c += f[t] * d[t]
			}
			for t := len(f) - 1; t >= npos; t-- {
				c += f[t] * d[len(d)-(len(f)-t)]
			}
			cost[i*n+k] = c
		}
	}
	v, ok := assignmentMin(ctx, n, cost)
	return v, ok
}

// assignmentMin returns the minimum of sum cost[i][p(i)] over permutations p
// (the Hungarian method of lapSolver, O(n^3)), or false when ctx ends first.
func assignmentMin(ctx context.Context, n int, cost []float64) (float64, bool) {
	return newLAPSolver(n).solveContext(ctx, n, cost, nil)
}
