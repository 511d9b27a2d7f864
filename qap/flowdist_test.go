package qap

import (
	"math/rand/v2"
	"testing"
)

// Flow and Dist read A and B by (row, column): Objective equals the QAP's definition
// sum_ij Flow(i,j) * Dist(p[i],p[j]) written with them, on random asymmetric
// instances and permutations (integer entries, so the sums are exact).
func TestFlowDistAgreeWithObjective(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for trial := range 50 {
		n := 1 + trial%7
		q := &QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
		for i := range q.A {
			q.A[i], q.B[i] = float64(r.IntN(10)), float64(r.IntN(10))
		}
		p := r.Perm(n)
		var want float64
		for i := range n {
			for j := range n {
				want += q.Flow(i, j) * q.Dist(p[i], p[j])
				if q.Flow(i, j) != q.A[i*n+j] || q.Dist(i, j) != q.B[i*n+j] {
					t.Fatalf("Flow/Dist(%d,%d) do not read row %d, column %d", i, j, i, j)
				}
			}
		}
		if got := q.Objective(p); got != want {
			t.Fatalf("n=%d p=%v: Objective %v, sum of Flow x Dist %v", n, p, got, want)
		}
	}
}
