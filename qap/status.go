package qap

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Status says how a solve ended.
type Status string

// Statuses of a solve.
const (
	StatusOptimal     Status = "optimal"     // Objective == Bound (within the solution granularity)
	StatusGap         Status = "gap_limit"   // stopped at the requested relative gap
	StatusTimeLimit   Status = "time_limit"  // the context's deadline ended the solve first
	StatusInterrupted Status = "interrupted" // the context was cancelled
	StatusHeuristic   Status = "heuristic"   // no MIP was run (MethodLocal, or too large): local search + bound only
	// StatusUnproven: the MIP solver stopped saying it was done (optimal, or a status
	// procalloc does not know), but its bound does not certify the objective. The
	// result is the best ordering found with the bound that does hold; the notes say
	// what the solver claimed.
	StatusUnproven Status = "unproven"
)

// CheckSolvable refuses data the bounds and tolerances are not made for, and
// matrices that are not N x N.
func (q *QAP) CheckSolvable() error {
	if err := q.checkShape(); err != nil {
		return err
	}
	n := q.N
	var sumA, maxB float64
	for _, m := range []struct {
		name string
		v    []float64
	}{{"flow", q.A}, {"distance", q.B}} {
		for idx, v := range m.v {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s [%d][%d] = %v is not finite", m.name, idx/n, idx%n, v)
			}
			if v < 0 {
				return fmt.Errorf("%s [%d][%d] = %v is negative: procalloc's lower bounds assume non-negative flows and distances, so it cannot certify such an instance (add a constant to make the entries non-negative)", m.name, idx/n, idx%n, v)
			}
		}
	}
	for _, v := range q.A {
		sumA += v
	}
	for _, v := range q.B {
		maxB = max(maxB, v)
	}
	if math.IsInf(sumA, 0) {
		return fmt.Errorf("the flows alone sum past float64's range; scale the weights down")
	}
	if t := sumA * maxB; math.IsInf(t, 0) || t > math.MaxFloat64/4 {
		return fmt.Errorf("the objective can reach %g (sum of flows %g times largest distance %g), beyond what float64 holds; scale the weights down", t, sumA, maxB)
	}
	return nil
}

// ContextStatus is the status of a solve the context stopped: StatusTimeLimit past
// its deadline, else StatusInterrupted.
func ContextStatus(ctx context.Context) Status {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return StatusTimeLimit
	}
	return StatusInterrupted
}

// RoundBound rounds a lower bound up to the next multiple of g (g > 0), which is still
// a lower bound when every objective value is a multiple of g.
func RoundBound(b, g float64) float64 {
	if g <= 0 || math.IsInf(b, 0) || math.IsNaN(b) {
		return b
	}
	return math.Ceil(b/g-1e-6) * g
}

// RelGap is the relative gap (obj - bound) / |obj| of a certificate, +Inf without a bound.
func RelGap(obj, bound float64) float64 {
	if math.IsInf(bound, -1) {
		return math.Inf(1)
	}
	if obj == 0 {
		if bound >= 0 {
			return 0
		}
		return math.Inf(1)
	}
	return max(0, (obj-bound)/math.Abs(obj))
}

// Granularity returns g > 0 when every objective value of q is an integer multiple of
// g (entries of A and B dyadic rationals) and at most 2^52 g, so that float64 computes
// objective values, their differences and the bounds built from them exactly; else 0.
// Data whose objective can pass 2^52 g are rounded: see Rounded.
func Granularity(q *QAP) float64 {
	ea, okA := dyadicExp(q.A)
	eb, okB := dyadicExp(q.B)
	if !okA || !okB || ea+eb > 40 {
		return 0
	}
	g := math.Ldexp(1, -(ea + eb))
	if ObjectiveRange(q) > math.Ldexp(g, 52) {
		return 0
	}
	return g
}

// DyadicUnit returns 2^-e for the smallest e <= 30 with every v * 2^e an integer,
// else 0: every sum of the vs times integers is a multiple of it (an ordering's F of
// dyadic weights on hop distances).
func DyadicUnit(vs []float64) float64 {
	e, ok := dyadicExp(vs)
	if !ok {
		return 0
	}
	return math.Ldexp(1, -e)
}

// Rounded reports whether q's entries are integers or dyadic rationals (multiples of
// 2^-30) whose objective values can still pass 2^52 times their granularity: float64
// then rounds them, so two assignments of different cost may compare equal and no
// bound can certify an assignment optimal. (Entries that are not dyadic, such as
// 0.1, are rounded when read; for them optimal means within a relative 1e-9.)
func Rounded(q *QAP) bool {
	_, okA := dyadicExp(q.A)
	_, okB := dyadicExp(q.B)
	return okA && okB && Granularity(q) == 0
}

// ObjectiveRange is an upper bound on every |objective value| of q: the sum of the
// flows' magnitudes times the largest distance magnitude (times 1 + 2^-40, for the
// rounding of the sum itself).
func ObjectiveRange(q *QAP) float64 {
	var sumA, maxB float64
	for _, v := range q.A {
		sumA += math.Abs(v)
	}
	for _, v := range q.B {
		maxB = max(maxB, math.Abs(v))
	}
	return sumA * maxB * (1 + 0x1p-40)
}

// dyadicExp returns the smallest e <= 30 with v * 2^e integral for every v in vs.
func dyadicExp(vs []float64) (int, bool) {
	e := 0
	for _, v := range vs {
		for e <= 30 {
			if s := math.Ldexp(v, e); s == math.Trunc(s) {
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

// FacilityPairs returns the facility pairs i < j with a non-zero flow either way.
func FacilityPairs(q *QAP) [][2]int {
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

// openMin is the smallest of om and the lower bounds of the children in rest: what
// a search stopped at a node still leaves open below it (the stop path of both
// branch and bounds).
func openMin[C any](rest []C, lb func(C) float64, om float64) float64 {
	for _, c := range rest {
		om = min(om, lb(c))
	}
	return om
}

// FormatBound prints a bound for a note, "not computed" when infinite.
func FormatBound(b float64) string {
	if math.IsInf(b, 0) {
		return "not computed"
	}
	return fmt.Sprintf("%.10g", b)
}
