//go:build !highs

package highs

import "context"

// Available reports whether HiGHS is compiled in (build tag "highs").
func Available() bool { return false }

// Version returns the HiGHS version, or "" without HiGHS.
func Version() string { return "" }

// Solve returns ErrNotAvailable: this build has no HiGHS.
func Solve(ctx context.Context, m *Model, start []float64, opt Options) (*Result, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	return nil, ErrNotAvailable
}
