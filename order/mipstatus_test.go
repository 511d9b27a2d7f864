package order

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/qap"
)

// TestMIPOptimalStatus: HiGHS's "optimal" is a certificate only when its bound meets
// the ordering's own objective within 1e-6 relative; a wider gap (a model or
// numerical defect) must not be reported optimal.
func TestMIPOptimalStatus(t *testing.T) {
	for _, c := range []struct {
		obj, bound float64
		want       qap.Status
	}{
		{100, 100, qap.StatusOptimal},
		{100, 100 - 5e-5, qap.StatusOptimal}, // within 1e-6 x 100
		{0.5, 0.5 - 5e-7, qap.StatusOptimal}, // small objectives: 1e-6 absolute
		{100, 99.9, qap.StatusUnproven},
		{100, 100 - 2e-4, qap.StatusUnproven},
		{1e9, 1e9 - 2000, qap.StatusUnproven},
	} {
		res := &Result{Objective: c.obj, Bound: c.bound}
		got := mipOptimalStatus(res)
		if got != c.want {
			t.Errorf("objective %g, bound %g: status %s, want %s", c.obj, c.bound, got, c.want)
			continue
		}
		switch got {
		case qap.StatusOptimal:
			if res.Bound != res.Objective || len(res.Notes) != 0 {
				t.Errorf("objective %g, bound %g: certified with bound %g, notes %q", c.obj, c.bound, res.Bound, res.Notes)
			}
		default:
			if res.Bound != c.bound || res.proven() {
				t.Errorf("objective %g, bound %g: bound changed to %g or proven", c.obj, c.bound, res.Bound)
			}
			if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not certified") {
				t.Errorf("objective %g, bound %g: notes %q, want one saying it is not certified", c.obj, c.bound, res.Notes)
			}
		}
	}
}
