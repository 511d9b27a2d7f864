package ptas

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// A context ended with a cause (the command's "interrupted", a named time limit)
// stops MM, MM+Inc and the PTAS with that cause, not a plain context.Canceled.
func TestStoppedReturnsCause(t *testing.T) {
	var pts [][]float64
	for i := range 3000 {
		pts = append(pts, []float64{float64(i % 61), float64(i / 61)})
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := MMContext(ctx, pts, 50, Options{}); !errors.Is(err, stop) {
		t.Errorf("MM: err = %v, want the context's cause", err)
	}
	if _, err := MMIncContext(ctx, pts, 50, Options{}); !errors.Is(err, stop) {
		t.Errorf("MM+Inc: err = %v, want the context's cause", err)
	}
	if _, err := PTASWithM(ctx, pts[:40], 5, 2); !errors.Is(err, stop) {
		t.Errorf("PTAS: err = %v, want the context's cause", err)
	}
}

// MC1x1 and Gen-Alg as subset selectors stop between centers (each O(n)): on 10^5
// points MC1x1 took 40 s with Ctrl-C unseen. Not stopped, they give what MC1x1 and
// GenAlg give; the float path of Gen-Alg and MC1x1 is the generic loop of centers.
func TestPointCenteredStopBetweenCenters(t *testing.T) {
	var pts [][]float64
	for i := range 500 {
		pts = append(pts, []float64{float64(i%23) + 0.5, float64(i / 23)})
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	for name, f := range map[string]func(context.Context, [][]float64, int, Options) (Result, error){
		"mc1x1": MC1x1Context[[]float64, float64], "genalg": GenAlgContext[[]float64, float64],
	} {
		if _, err := f(ctx, pts, 20, Options{}); !errors.Is(err, stop) {
			t.Errorf("%s cancelled: err = %v, want the context's cause", name, err)
		}
		if _, err := f(ctxtest.StopAfter(10), pts, 20, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s stopped after 10 centers: err = %v", name, err)
		}
	}
	want, err := MC1x1(pts, 20, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := MC1x1Context(context.Background(), pts, 20, Options{}); err != nil || got.Total != want.Total || !slices.Equal(got.Indices, want.Indices) {
		t.Errorf("MC1x1Context %v %v, MC1x1 %v", got, err, want)
	}
}
