package order

import (
	"context"
	"testing"
	"time"
)

// The tests' cross-checks need switches the public Options do not offer.

// ForceMIP returns o set to run the MIP even when a bound already proves the local
// search result optimal, so that the formulations themselves are checked.
func ForceMIP(o Options) Options { o.forceMIP = true; return o }

// NoSymmetry returns o set to leave out the symmetry-breaking constraints.
func NoSymmetry(o Options) Options { o.noSymmetry = true; return o }

// minuteCtx is a context with a one-minute deadline, released when the test ends: a
// solve that should take well under a second cannot hang the run.
func minuteCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
