//go:build highs

package highs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// counted counts the calls HiGHS makes of a solve's Log and Progress, without a
// lock of its own: a call made after Solve returned is a data race with the
// caller's read (go test -race), and a call the caller sees.
type counted struct{ calls int }

func (c *counted) Write(p []byte) (int, error) { c.calls++; return len(p), nil }
func (c *counted) progress(Progress)           { c.calls++ }

// A run abandoned at its time limit (HiGHS still in its setup) goes on on its own
// thread until HiGHS returns. It must not call Log or Progress after Solve
// returned: the caller owns them again (order's progress bar, a log it reads),
// and the run's thread ends once HiGHS returns. (A run abandoned on cancellation
// takes the same path, abandon, after abandonGrace.)
func TestAbandonedRunCallsNothingAfterSolveReturns(t *testing.T) {
	m := marketSplit(40, 4000) // about 70 ms in HiGHS, most of it before its search
	before := ctxtest.Goroutines()
	var c counted
	res, err := Solve(context.Background(), m, nil, Options{TimeLimit: time.Millisecond, Log: &c, Progress: c.progress})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.ModelStatus, "abandoned") {
		t.Fatalf("the run was not abandoned (%s, %.3fs): the model is too small for this machine", res.ModelStatus, res.Seconds)
	}
	atReturn := c.calls
	if left := ctxtest.Leaked(before, time.Minute); len(left) > 0 {
		t.Fatalf("the abandoned run still runs a minute later:\n%s", strings.Join(left, "\n\n"))
	}
	if c.calls != atReturn {
		t.Errorf("%d calls of Log or Progress after Solve returned (%d before)", c.calls-atReturn, atReturn)
	}
}
