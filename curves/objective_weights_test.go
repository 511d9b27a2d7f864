package curves

import (
	"math"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestObjectiveRefusesInvalidWeights: weights Weights.Validate refuses are an error
// of Objective, not a NaN, negative or zero F reported as a score.
func TestObjectiveRefusesInvalidWeights(t *testing.T) {
	m := topo.Mesh(4, 4)
	o, err := Generate("snake", m)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []Weights{nil, {math.NaN()}, {1, math.Inf(1)}, {1, -1}, {0, 1}} {
		if f, err := Objective(m, o, w, false); err == nil {
			t.Errorf("weights %v: F = %v, no error", w, f)
		}
	}
	if f, err := Objective(m, o, Weights{1}, false); err != nil || f != 15 {
		t.Errorf("snake of mesh:4x4 with w = (1): F = %v, %v; want 15 (15 unit steps)", f, err)
	}
}
