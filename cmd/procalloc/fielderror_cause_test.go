package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/sim"
)

// TestAllocFieldErrorStaysUsageError: sim.FieldError unwraps to alloc.Parse's error
// (Err), and the CLI still reports an allocator spec alloc.Parse refuses as a usage
// error (exit 2) whose message is the FieldError's reason: fieldErrors stops its
// walk down the Unwrap chain at the FieldError (it went past it once, and such a
// mistake became a failure, exit 1, "Alloc: ...").
func TestAllocFieldErrorStaysUsageError(t *testing.T) {
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	for _, spec := range []string{"bf:no-such-curve", "ff:nosuch", "mc:9"} {
		s := sim.DefaultSpec()
		s.Trace, s.MachineSpec, s.Alloc = llnl, "mesh:16x16", spec
		rp, err := s.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		_, err = rp.Config(context.Background())
		var fe *sim.FieldError
		if !errors.As(err, &fe) || fe.Field != "Alloc" || fe.Err == nil || errors.Unwrap(err) != fe.Err {
			t.Fatalf("%s: error %v, want a *sim.FieldError of Alloc unwrapping to its cause", spec, err)
		}
		if strings.HasSuffix(spec, "curve") {
			if uc := (*curves.UnknownCurveError)(nil); !errors.As(err, &uc) || uc.Name != "no-such-curve" {
				t.Errorf("%s: %v does not reach the *curves.UnknownCurveError", spec, err)
			}
		}
		for _, cmd := range []string{"sim", "compare"} {
			code, _, stderr := runCLI(t, "", cmd, "--trace", llnl, "--machine", "mesh:16x16", "--alloc", spec)
			want := "procalloc " + cmd + ": " + fe.Reason + "\nrun 'procalloc help " + cmd + "' for usage\n"
			if code != 2 || stderr != want {
				t.Errorf("%s --alloc %s: exit %d, stderr\n%q\nwant exit 2 and\n%q", cmd, spec, code, stderr, want)
			}
		}
	}
}
