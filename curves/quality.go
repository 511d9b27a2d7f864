package curves

import (
	"fmt"

	"github.com/procalloc/procalloc/topo"
)

// Objective returns F = sum over node pairs of w(rank difference) x hop distance for
// the ordering o of machine m (Leung et al. 2002 §2.2). With ring, the rank difference
// is taken around the ring: min(t, n-t). Pairs are visited in a fixed order (by lower
// rank, then by offset), so the float sum is reproducible; every solver that reports
// an objective recomputes it with this function. O(n K) distance evaluations.
//
// o must be a valid Order of m (see Order.Validate); an unreachable pair (a disconnected
// graph) is an error.
func Objective(m topo.Machine, o Order, w Weights, ring bool) (float64, error) {
	n := len(o)
	if err := o.Validate(m.N()); err != nil {
		return 0, err
	}
	var f float64
	for r := 0; r < n; r++ {
		a := o[r]
		for t := 1; t <= len(w); t++ {
			s := r + t
			if ring {
				// Offsets t and n-t name the same pair: count each pair once, at its
				// ring distance min(t, n-t); antipodal pairs (2t = n) from their
				// lower rank only.
				if 2*t > n || (2*t == n && r >= n/2) {
					break
				}
				s %= n
			} else if s >= n {
				break
			}
			d := m.Dist(a, o[s])
			if d < 0 {
				return 0, fmt.Errorf("nodes %d and %d are not connected", a, o[s])
			}
			f += w[t-1] * float64(d)
		}
	}
	return f, nil
}

// ObjectiveBrute is the O(n^2) definition of Objective, kept as a test oracle.
func ObjectiveBrute(m topo.Machine, o Order, w Weights, ring bool) float64 {
	n := len(o)
	var f float64
	for r := 0; r < n; r++ {
		for s := r + 1; s < n; s++ {
			t := s - r
			if ring {
				t = min(t, n-t)
			}
			if t <= len(w) {
				f += w[t-1] * float64(m.Dist(o[r], o[s]))
			}
		}
	}
	return f
}

// Steps summarizes the hops between consecutive nodes of an ordering.
type Steps struct {
	Max   int     `json:"max_step"`
	Mean  float64 `json:"mean_step"`
	Jumps int     `json:"jumps"` // steps longer than one hop
}

// StepStats returns the step statistics of o on m; with ring the step from the last
// node back to the first counts too.
func StepStats(m topo.Machine, o Order, ring bool) Steps {
	var s Steps
	n := len(o)
	steps := n - 1
	if ring && n > 1 {
		steps = n
	}
	total := 0
	for r := 0; r < steps; r++ {
		d := m.Dist(o[r], o[(r+1)%n])
		total += d
		s.Max = max(s.Max, d)
		if d > 1 {
			s.Jumps++
		}
	}
	if steps > 0 {
		s.Mean = float64(total) / float64(steps)
	}
	return s
}
