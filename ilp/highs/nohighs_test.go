//go:build !highs

package highs

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestSolveWithoutHiGHSSaysHowToBuild(t *testing.T) {
	m := &Model{}
	m.AddCol(1, 0, 1, true)
	_, err := Solve(context.Background(), m, nil, Options{})
	if !errors.Is(err, ErrNotAvailable) || !strings.Contains(err.Error(), "-tags highs") || Available() {
		t.Fatalf("err %v, Available %v", err, Available())
	}
}
