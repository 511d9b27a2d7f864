package curves

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/procalloc/procalloc/topo"
)

// Objective returns F = sum over node pairs of w(rank difference) x hop distance for
// the ordering o of machine m (Leung et al. 2002 §2.2). With ring, the rank difference
// is taken around the ring: min(t, n-t), each pair counted once. The hop distances are
// summed exactly, in integers, per rank difference t (D_t), and F = sum over t = 1..K
// of w(t) x D_t in order of t, so the result is reproducible and does not depend on
// how distances are computed; every solver that reports an objective recomputes it
// with this function. O(n K) distance evaluations (on grids a few subtractions each,
// on graphs one hop-index lookup each, see topo.Graph.Dist).
//
// o must be a valid Order of m (see Order.Validate) and w valid weights (see
// Weights.Validate: a NaN or negative weight gave a NaN or negative F without an
// error); an unreachable pair (a disconnected graph) is an error.
func Objective(m topo.Machine, o Order, w Weights, ring bool) (float64, error) {
	return ObjectiveContext(context.Background(), m, o, w, ring)
}

// ObjectiveContext is Objective that stops, returning ctx's cause, within about a
// second of ctx's end: O(n K) takes minutes on a few million nodes with K in the
// thousands (evaluate was stopped by the command's watchdog instead).
func ObjectiveContext(ctx context.Context, m topo.Machine, o Order, w Weights, ring bool) (float64, error) {
	if err := o.Validate(m.N()); err != nil {
		return 0, err
	}
	if err := w.Validate(); err != nil {
		return 0, err
	}
	sums, err := lagSums(ctx, m, o, len(w), ring)
	if err != nil {
		return 0, err
	}
	var f float64
	for t, d := range sums {
		f += w[t] * float64(d)
	}
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w with weights %s on %s: scale the weights down", ErrOverflow, w, m.Spec())
	}
	return f, nil
}

// ErrOverflow is wrapped by Objective's error when F exceeds float64: an ordering
// with long steps can overflow where a better one fits (list:4e305 on mesh:20x20:
// morton overflows, the snake's 399 x 4e305 fits).
var ErrOverflow = errors.New("the objective F overflows float64")

// LagSums returns D_t for t = 1..k (fewer when the line or ring has no pairs that far
// apart): the sum of the hop distances of o's pairs whose rank difference is t (around
// the ring with ring), in integers, so that F = sum w(t) D_t can be recomputed in
// exact arithmetic by code that certifies optimality. o must be a valid Order of m.
func LagSums(m topo.Machine, o Order, k int, ring bool) ([]int64, error) {
	if err := o.Validate(m.N()); err != nil {
		return nil, err
	}
	return lagSums(context.Background(), m, o, k, ring)
}

func lagSums(ctx context.Context, m topo.Machine, o Order, k int, ring bool) ([]int64, error) {
	sums := make([]int64, LagCount(len(o), k, ring))
	if g, ok := m.(*topo.Grid); ok {
		return sums, gridOffsetSums(ctx, g, o, ring, sums)
	}
	return sums, machineOffsetSums(ctx, m, o, ring, sums)
}

// lagPoll is how many pair distances the offset sums add between two looks at
// their context (a few milliseconds).
const lagPoll = 1 << 20

// LagCount returns how many rank differences t = 1, 2, ... have pairs: t < n on a
// line, 2t <= n on a ring; at most k.
func LagCount(n, k int, ring bool) int {
	if ring {
		return min(k, n/2)
	}
	return min(k, max(n-1, 0))
}

// LagPairs returns how many lower ranks r have a pair at difference t: all n on a
// ring (the partner is (r+t) mod n), except the antipodal difference 2t = n, whose
// pairs are counted from r < n/2 only; n-t on a line.
func LagPairs(n, t int, ring bool) int {
	if !ring {
		return n - t
	}
	if 2*t == n {
		return n / 2
	}
	return n
}

// gridOffsetSums adds, per dimension, the coordinate distances of all pairs at each
// rank difference: tight loops over coordinates laid out in rank order.
func gridOffsetSums(ctx context.Context, g *topo.Grid, o Order, ring bool, sums []int64) error {
	n := len(o)
	done := 0 // pairs added since the last look at ctx
	dims, wrap := g.Dims(), g.Wrap()
	coords := make([]int32, n)
	for j, size := range dims {
		if size == 1 {
			continue
		}
		stride := 1
		for k := 0; k < j; k++ {
			stride *= dims[k]
		}
		for r, v := range o {
			coords[r] = int32(v / stride % size)
		}
		sz := int32(size)
		for t := 1; t <= len(sums); t++ {
			cnt := LagPairs(n, t, ring)
			if done += cnt; done >= lagPoll {
				done = 0
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
			}
			var d int64
			// Pairs (r, r+t) without wrapping the rank, then (r, r+t-n) for the ring.
			lin := min(cnt, n-t)
			a, b := coords[:lin], coords[t:t+lin]
			if wrap[j] {
				for i := range a {
					v := a[i] - b[i]
					if v < 0 {
						v = -v
					}
					d += int64(min(v, sz-v))
				}
			} else {
				for i := range a {
					v := a[i] - b[i]
					if v < 0 {
						v = -v
					}
					d += int64(v)
				}
			}
			for r := lin; r < cnt; r++ {
				v := coords[r] - coords[r+t-n]
				if v < 0 {
					v = -v
				}
				if wrap[j] {
					v = min(v, sz-v)
				}
				d += int64(v)
			}
			sums[t-1] += d
		}
	}
	return nil
}

// distPoll is how many Dist calls the sums over machines other than grids make
// between two looks at their context. A graph's Dist may cost a breadth-first
// search from both ends (a few milliseconds on 2 x 10^5 nodes, see topo.Graph.Dist),
// so the poll counts calls, not pairs of grid coordinates: counted by lagPoll, an
// edge list of mesh:448x448 was polled once in 35 s of evaluate.
const distPoll = 256

// machineOffsetSums sums the distances of o's pairs per rank difference, through
// Dist (graphs answer from their hop index).
func machineOffsetSums(ctx context.Context, m topo.Machine, o Order, ring bool, sums []int64) error {
	n := len(o)
	calls := distPoll - 1 // Dist calls since the last look at ctx (the first call looks)
	for r := 0; r < n; r++ {
		for t := 1; t <= len(sums); t++ {
			if r >= LagPairs(n, t, ring) {
				break
			}
			if calls++; calls >= distPoll {
				calls = 0
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
			}
			s := r + t
			if s >= n {
				s -= n
			}
			d := m.Dist(o[r], o[s])
			if d < 0 {
				return fmt.Errorf("nodes %d and %d are not connected", o[r], o[s])
			}
			sums[t-1] += int64(d)
		}
	}
	return nil
}

// Steps summarizes the hops between consecutive nodes of an ordering.
type Steps struct {
	Max   int     `json:"max_step"`  // longest step, hops
	Mean  float64 `json:"mean_step"` // mean step, hops
	Jumps int     `json:"jumps"`     // steps longer than the shortest host-to-host distance
}

// StepStats returns the step statistics of o on m; with ring the step from the last
// node back to the first counts too. A jump is a step longer than the shortest
// distance between two nodes: one hop, or on a switched network the shortest way
// from a host through switches to another (two hops over a shared switch).
func StepStats(m topo.Machine, o Order, ring bool) Steps {
	s, _ := StepStatsContext(context.Background(), m, o, ring)
	return s
}

// StepStatsContext is StepStats that stops, returning ctx's cause, within about a
// second of ctx's end: its n distances cost as much as a term of the objective
// (seconds on a 2 x 10^5-node edge list).
func StepStatsContext(ctx context.Context, m topo.Machine, o Order, ring bool) (Steps, error) {
	var s Steps
	near := 1
	if g, ok := m.(*topo.Graph); ok && g.Vertices() > g.N() && g.N() > 1 {
		near = g.HostSpacing()
	}
	n := len(o)
	steps := n - 1
	if ring && n > 1 {
		steps = n
	}
	total := 0
	for r := 0; r < steps; r++ {
		if r%distPoll == 0 && ctx.Err() != nil {
			return Steps{}, context.Cause(ctx)
		}
		d := m.Dist(o[r], o[(r+1)%n])
		total += d
		s.Max = max(s.Max, d)
		if d > near {
			s.Jumps++
		}
	}
	if steps > 0 {
		s.Mean = float64(total) / float64(steps)
	}
	return s, nil
}
