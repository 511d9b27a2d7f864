package highs

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Inf is the bound meaning "no bound" (HiGHS treats values >= 1e20 as infinite).
var Inf = math.Inf(1)

// Model is a mixed-integer linear program: minimize (or maximize) Cost·x + Offset subject
// to RowLower <= A x <= RowUpper and ColLower <= x <= ColUpper, some columns integer.
// A is stored row by row (sparse); build it with AddCol and AddRow.
type Model struct {
	Maximize bool    // maximize instead of minimize
	Offset   float64 // constant added to the objective

	Cost, ColLower, ColUpper []float64 // per column: objective coefficient and bounds (Inf, -Inf: none)
	Integer                  []bool    // per column: integer; all false (or nil) is an LP

	RowLower, RowUpper []float64 // per row: bounds on A x (Inf, -Inf: none)
	rowStart           []int32   // len = rows+1 once a row exists
	rowIndex           []int32
	rowValue           []float64
}

// NumCols returns the number of columns (variables).
func (m *Model) NumCols() int { return len(m.Cost) }

// NumRows returns the number of constraints.
func (m *Model) NumRows() int { return len(m.RowLower) }

// AddCol adds a variable with objective coefficient cost and bounds [lo, hi] and returns
// its index.
func (m *Model) AddCol(cost, lo, hi float64, integer bool) int {
	m.Cost = append(m.Cost, cost)
	m.ColLower = append(m.ColLower, lo)
	m.ColUpper = append(m.ColUpper, hi)
	m.Integer = append(m.Integer, integer)
	return len(m.Cost) - 1
}

// AddRow adds the constraint lo <= sum val[k] x[idx[k]] <= hi and returns its index.
// Indices must name existing columns and not repeat within the row.
func (m *Model) AddRow(lo, hi float64, idx []int, val []float64) int {
	if len(m.rowStart) == 0 {
		m.rowStart = append(m.rowStart, 0)
	}
	for k, j := range idx {
		m.rowIndex = append(m.rowIndex, int32(j))
		m.rowValue = append(m.rowValue, val[k])
	}
	m.rowStart = append(m.rowStart, int32(len(m.rowIndex)))
	m.RowLower = append(m.RowLower, lo)
	m.RowUpper = append(m.RowUpper, hi)
	return len(m.RowLower) - 1
}

// Check returns an error describing the first inconsistency in the model.
func (m *Model) Check() error {
	n := len(m.Cost)
	if len(m.ColLower) != n || len(m.ColUpper) != n || len(m.Integer) != n {
		return fmt.Errorf("highs: model has %d costs but %d/%d/%d bounds/integrality entries",
			n, len(m.ColLower), len(m.ColUpper), len(m.Integer))
	}
	if len(m.RowUpper) != len(m.RowLower) {
		return fmt.Errorf("highs: %d row lower bounds, %d upper", len(m.RowLower), len(m.RowUpper))
	}
	if n > math.MaxInt32 || len(m.rowIndex) > math.MaxInt32 {
		return fmt.Errorf("highs: model too large (%d columns, %d nonzeros)", n, len(m.rowIndex))
	}
	for j := 0; j < n; j++ {
		if math.IsNaN(m.Cost[j]) || math.IsInf(m.Cost[j], 0) {
			return fmt.Errorf("highs: column %d has cost %g", j, m.Cost[j])
		}
		if m.ColLower[j] > m.ColUpper[j] {
			return fmt.Errorf("highs: column %d has bounds [%g, %g]", j, m.ColLower[j], m.ColUpper[j])
		}
	}
	for r := range m.RowLower {
		if m.RowLower[r] > m.RowUpper[r] {
			return fmt.Errorf("highs: row %d has bounds [%g, %g]", r, m.RowLower[r], m.RowUpper[r])
		}
	}
	for _, j := range m.rowIndex {
		if j < 0 || int(j) >= n {
			return fmt.Errorf("highs: constraint entry names column %d of %d", j, n)
		}
	}
	return nil
}

// Options control a solve. The zero value means: no time limit, prove optimality
// (relative gap 0), HiGHS's default thread count, seed 0, no log.
type Options struct {
	TimeLimit time.Duration // when positive, bounds the solve; 0 (the zero value) or negative: none
	RelGap    float64       // stop when (primal-dual)/|primal| <= RelGap; 0 proves optimality
	// AbsGap stops when primal-dual <= AbsGap. 0 leaves HiGHS's default (1e-6). When every
	// feasible objective value is a multiple of g, AbsGap just below g still proves
	// optimality and can save much of the search.
	AbsGap  float64
	Threads int // 0: HiGHS default
	Seed    int // HiGHS's random_seed
	// Log receives HiGHS's log lines; nil turns logging off. Log and Progress are
	// called one call at a time, from HiGHS's threads, and never after Solve returned.
	Log io.Writer
	// Relax solves the LP relaxation (integrality dropped).
	Relax bool
	// Progress, when set, is called from the solver (at most about 10 times a second)
	// with the current incumbent and bound of a MIP solve.
	Progress func(Progress)
}

// Progress is a snapshot of a running MIP solve.
type Progress struct {
	Incumbent float64 // +Inf (minimizing) while no solution is known
	Bound     float64 // the dual bound so far
	Gap       float64 // HiGHS's relative gap between Incumbent and Bound
	Nodes     int64   // branch-and-bound nodes explored
	Seconds   float64 // since the solve started
}

// Status is the outcome of a solve.
type Status string

// Statuses. Optimal means proven within the requested gaps.
const (
	StatusOptimal     Status = "optimal"
	StatusTimeLimit   Status = "time_limit"
	StatusInterrupted Status = "interrupted" // the context was cancelled
	StatusInfeasible  Status = "infeasible"
	StatusUnbounded   Status = "unbounded"
	StatusOther       Status = "unknown"
)

// Result is what a solve returns. X is nil when HiGHS has no feasible solution.
type Result struct {
	Status      Status    // the outcome, mapped from ModelStatus
	ModelStatus string    // HiGHS's own model status name
	Objective   float64   // of X, Offset included; meaningless when X is nil
	DualBound   float64   // for MIPs: mip_dual_bound; for LPs: the optimal objective
	Gap         float64   // mip_gap as HiGHS reports it
	X           []float64 // the best solution's column values; nil without one
	Nodes       int64     // branch-and-bound nodes explored (MIPs)
	Seconds     float64   // wall-clock time of the solve
}

// ErrNotAvailable is returned by Solve in builds without HiGHS.
var ErrNotAvailable = errors.New("HiGHS is not compiled in: build with -tags highs after `make highs` (installs HiGHS 1.10 via scripts/install-highs.sh)")
