package qap

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// maxWindowBoundWork caps the tuples WindowBound enumerates (over all distinct windows).
const maxWindowBoundWork = 2e8

// WindowBound returns a lower bound for a QAP whose flows are banded (an ordering
// problem: flows only between ranks at most K apart, cyclically when ring). Every pair
// of ranks within K lies in one or more windows of K+1 consecutive ranks; splitting
// its flow evenly among them writes the objective as a sum over windows of a cost that
// depends only on the K+1 nodes in the window, so the sum over windows of the cheapest
// tuple of K+1 distinct nodes bounds the objective from below. Unlike the
// Gilmore-Lawler bound it sees how the distances of a run of ranks interact (on a
// bipartite grid, two unit steps force the pair two ranks apart to distance 2), which
// certifies, for instance, F = 125 for the 8x8 torus with w = (1, 1/2). ok is false
// when the flows are not banded narrowly enough or the enumeration would be too long.
func WindowBound(ctx context.Context, q *QAP, ring bool) (bound float64, ok bool) {
	n := q.N
	k := Band(q, ring)
	if k == 0 || k+1 > n || (ring && 2*k >= n) {
		return 0, false
	}
	// Wider windows see more of each run and give stronger bounds; use the widest
	// whose enumeration stays within the budget (pruning makes it much cheaper than
	// the count suggests on nonnegative data).
	best := 0.0
	found := false
	for width := k + 1; width <= n && (!ring || width < n); width++ {
		tuples := 1.0
		for i := 0; i < width; i++ {
			tuples *= float64(n - i)
		}
		if width > k+1 && tuples > windowBoundBudget {
			break
		}
		b, ok := windowBound(ctx, q, ring, k, width)
		if !ok {
			break
		}
		best, found = max(best, b), true
	}
	return best, found
}

// windowBoundBudget bounds the tuples per window pattern of the wider windows.
const windowBoundBudget = 3e6

// windowBound is WindowBound with windows of the given width (> k).
func windowBound(ctx context.Context, q *QAP, ring bool, k, width int) (bound float64, ok bool) {
	n := q.N
	windows := n - width + 1
	if ring {
		windows = n
	}
	in := func(r, i int) (int, bool) { // offset of rank i in window r
		o := i - r
		if ring {
			o = ((o % n) + n) % n
		}
		return o, o >= 0 && o < width
	}
	type term struct {
		oi, oj   int
		aij, aji float64
	}
	patterns := map[string][]term{}
	count := map[string]int{}
	var keys []string
	pairs := FacilityPairs(q)
	cover := make([]int, len(pairs))
	for r := 0; r < windows; r++ {
		for pi, pr := range pairs {
			_, ok1 := in(r, pr[0])
			_, ok2 := in(r, pr[1])
			if ok1 && ok2 {
				cover[pi]++
			}
		}
	}
	for pi := range pairs {
		if cover[pi] == 0 {
			return 0, false // a flow pair outside every window: not banded
		}
	}
	for r := 0; r < windows; r++ {
		var ts []term
		for pi, pr := range pairs {
			oi, ok1 := in(r, pr[0])
			oj, ok2 := in(r, pr[1])
			if !ok1 || !ok2 {
				continue
			}
			c := float64(cover[pi])
			ts = append(ts, term{oi, oj, q.A[pr[0]*n+pr[1]] / c, q.A[pr[1]*n+pr[0]] / c})
		}
		slices.SortFunc(ts, func(a, b term) int {
			if a.oi != b.oi {
				return a.oi - b.oi
			}
			return a.oj - b.oj
		})
		var sb strings.Builder
		for _, t := range ts {
			fmt.Fprintf(&sb, "%d,%d,%x,%x;", t.oi, t.oj, math.Float64bits(t.aij), math.Float64bits(t.aji))
		}
		key := sb.String()
		if _, seen := patterns[key]; !seen {
			patterns[key] = ts
			keys = append(keys, key)
		}
		count[key]++
	}
	tuples := 1.0
	for i := 0; i < width; i++ {
		tuples *= float64(n - i)
	}
	if tuples*float64(len(keys)) > maxWindowBoundWork {
		return 0, false
	}
	nonneg := true
	for _, v := range q.B {
		if v < 0 {
			nonneg = false
		}
	}
	var total float64
	for _, key := range keys {
		ts := patterns[key]
		for _, t := range ts {
			if t.aij < 0 || t.aji < 0 {
				nonneg = false
			}
		}
		// Terms grouped by the later offset, so a partial tuple's cost is final for the
		// offsets assigned so far.
		byLast := make([][]term, width)
		for _, t := range ts {
			last := max(t.oi, t.oj)
			byLast[last] = append(byLast[last], t)
		}
		best := math.Inf(1)
		tup := make([]int, width)
		used := make([]bool, n)
		steps := 0
		var rec func(depth int, cost float64) bool
		rec = func(depth int, cost float64) bool {
			if depth == width {
				best = min(best, cost)
				return true
			}
			for v := 0; v < n; v++ {
				if used[v] {
					continue
				}
				steps++
				if steps&0xfffff == 0 && ctx.Err() != nil {
					return false
				}
				c := cost
				for _, t := range byLast[depth] {
					a, b := v, v
					if t.oi != depth {
						a = tup[t.oi]
					}
					if t.oj != depth {
						b = tup[t.oj]
					}
					c += t.aij*q.B[a*n+b] + t.aji*q.B[b*n+a]
				}
				if nonneg && c >= best {
					continue
				}
				tup[depth] = v
				used[v] = true
				ok := rec(depth+1, c)
				used[v] = false
				if !ok {
					return false
				}
			}
			return true
		}
		if !rec(0, 0) {
			return 0, false
		}
		total += best * float64(count[key])
	}
	// Diagonal flows: each facility's cheapest location.
	for i := 0; i < n; i++ {
		if a := q.A[i*n+i]; a != 0 {
			m := math.Inf(1)
			for v := 0; v < n; v++ {
				m = min(m, a*q.B[v*n+v])
			}
			total += m
		}
	}
	return total, true
}
