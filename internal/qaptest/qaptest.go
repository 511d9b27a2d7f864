package qaptest

import (
	"math/rand/v2"

	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/qap"
)

// RandomQAP returns an n x n QAP with integer entries in 0..maxv, B symmetric when
// symB, and the flows multiplied by scale (0.1 gives float data without granularity).
func RandomQAP(rng *rand.Rand, n, maxv int, symB bool, scale float64) *qap.QAP {
	q := &qap.QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n)}
	for i := range q.A {
		q.A[i] = float64(rng.IntN(maxv+1)) * scale
		q.B[i] = float64(rng.IntN(maxv + 1))
	}
	if symB {
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				q.B[i*n+j] = q.B[j*n+i]
			}
		}
	}
	return q
}

// QAPBrute returns the minimum of q over all permutations.
func QAPBrute(q *qap.QAP) float64 { return oracle.MinOverPermutations(q.N, q.Objective) }
