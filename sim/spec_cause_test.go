package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/procalloc/procalloc/curves"
)

// TestFieldErrorKeepsCause: an allocator spec alloc.Parse refuses (Replay.Config) is a *FieldError
// of Alloc whose cause is still alloc.Parse's error: here a curve name that is neither
// a built-in curve nor a ranking file, a *curves.UnknownCurveError.
func TestFieldErrorKeepsCause(t *testing.T) {
	tr := &Trace{Format: FormatConverted, Jobs: []Job{{ID: 1, Procs: 4, Runtime: 10, Estimate: -1}}}
	s := DefaultSpec()
	s.Trace, s.TraceData, s.MachineSpec, s.Alloc = "t", tr, "mesh:4x4", "ff:no-such-curve"
	rp, err := s.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	_, err = rp.Config(context.Background())
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Alloc" {
		t.Fatalf("error %v, want a *FieldError of Alloc", err)
	}
	if uc := (*curves.UnknownCurveError)(nil); !errors.As(err, &uc) || uc.Name != "no-such-curve" {
		t.Errorf("error %v does not wrap the *curves.UnknownCurveError of no-such-curve", err)
	}
}
