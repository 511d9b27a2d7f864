package qap

import (
	"fmt"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// MaxOrderingNodes is the largest machine OrderingQAP builds a dense QAP for (the
// distance matrix has n^2 entries).
const MaxOrderingNodes = 4096

// OrderingQAP returns the QAP whose solutions are the orderings of m scored by F with
// weights w (Leung et al. 2002 §2.2): facilities are ranks, locations are nodes. With
// ring, rank differences are taken around the ring. Weights w(t) for t that no pair of
// ranks has (t >= n on the line, t > n/2 on the ring) are allowed and simply unused.
// A disconnected machine is an error (F would be infinite).
func OrderingQAP(m topo.Machine, w curves.Weights, ring bool) (*QAP, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	n := m.N()
	if n < 1 {
		return nil, fmt.Errorf("machine has no nodes")
	}
	if n > MaxOrderingNodes {
		return nil, fmt.Errorf("machine has %d nodes; the ordering solver handles at most %d", n, MaxOrderingNodes)
	}
	q := &QAP{N: n, A: make([]float64, n*n), B: make([]float64, n*n), Name: m.Spec()}
	for r := 0; r < n; r++ {
		for s := r + 1; s < n; s++ {
			t := s - r
			if ring {
				t = min(t, n-t)
			}
			if t <= len(w) {
				q.A[r*n+s] = w[t-1]
			}
		}
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			d := m.Dist(a, b)
			if d < 0 {
				return nil, fmt.Errorf("machine is disconnected: nodes %s and %s are not connected (F needs every pair at finite distance)",
					nodeName(m, a), nodeName(m, b))
			}
			q.B[a*n+b] = float64(d)
		}
	}
	return q, nil
}

func nodeName(m topo.Machine, v int) string {
	if g, ok := m.(*topo.Graph); ok {
		return fmt.Sprintf("%q", g.Name(v))
	}
	return fmt.Sprint(v)
}
