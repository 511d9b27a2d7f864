//go:build highs

package ilp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
)

func TestTry(t *testing.T) {
	if os.Getenv("ILPTRY") == "" {
		t.Skip()
	}
	for _, spec := range strings.Split(os.Getenv("ILPTRY"), ",") {
		for _, K := range []int{3} {
			for _, ring := range []bool{false, true} {
				for _, f := range []string{os.Getenv("FORM")} {
					w := curves.Weights{1, 0.5, 0.25}[:K]
					t0 := time.Now()
					res, err := SolveOrdering(context.Background(), mustSpec(spec), w, OrderOptions{Ring: ring, Options: Options{Formulation: f, TimeLimit: 60 * time.Second}})
					if err != nil {
						t.Fatal(err)
					}
					fmt.Printf("%s K=%d ring=%v %s: F=%g bound=%g status=%s src=%s start=%g(%s) cols=%d %v nodes=%d\n", spec, K, ring, f, res.Objective, res.Bound, res.Status, res.BoundSource, res.StartObjective, res.StartSource, res.MIPColumns, time.Since(t0).Round(time.Millisecond), res.Nodes)
				}
			}
		}
	}
}
