//go:build highs

// Command ilpreport measures the tables of docs/ilp.md: LP bounds of the formulations,
// time to proven optimality, and certified gaps on larger machines. Run with
//
//	go run -tags highs ./ilp/internal/ilpreport [-table lp|time|large|bb|qaplib] [-limit 60s]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp"
	"github.com/procalloc/procalloc/order"
	"github.com/procalloc/procalloc/qap"
	"github.com/procalloc/procalloc/topo"
)

func main() {
	table := flag.String("table", "lp", "which table: lp, time, large, bb, qaplib")
	qaplib := flag.String("qaplib", "../shared/qaplib", "directory of the QAPLIB instances (table qaplib)")
	limit := flag.Duration("limit", 60*time.Second, "time limit per solve")
	only := flag.String("only", "", "comma-separated instance names to run (default all; tables lp, time, large, bb)")
	flag.Parse()
	var err error
	if *only != "" && *table == "qaplib" {
		err = fmt.Errorf("-only applies to the tables lp, time, large and bb, not qaplib")
	}
	switch {
	case err != nil:
	case *table == "lp":
		err = lpTable(*only)
	case *table == "time":
		err = timeTable(*limit, *only)
	case *table == "large":
		err = largeTable(*limit, *only)
	case *table == "bb":
		err = bbTable(*limit, *only)
	case *table == "qaplib":
		err = qaplibTable(*limit, *qaplib)
	default:
		err = fmt.Errorf("unknown table %q", *table)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func weights(k int) curves.Weights { return curves.Weights{1, 0.5, 0.25, 0.125}[:k] }

type instance struct {
	name string
	m    topo.Machine
}

// randomRegular returns a connected simple d-regular graph on n nodes (configuration
// model with retries), deterministic for a seed.
func randomRegular(n, d int, seed uint64) *topo.Graph {
	rng := rand.New(rand.NewPCG(seed, 99))
	for {
		stubs := make([]int, 0, n*d)
		for v := 0; v < n; v++ {
			for range d {
				stubs = append(stubs, v)
			}
		}
		rng.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
		seen := map[[2]int]bool{}
		var edges [][2]int
		ok := true
		for i := 0; i < len(stubs); i += 2 {
			a, b := stubs[i], stubs[i+1]
			if a > b {
				a, b = b, a
			}
			if a == b || seen[[2]int{a, b}] {
				ok = false
				break
			}
			seen[[2]int{a, b}] = true
			edges = append(edges, [2]int{a, b})
		}
		if !ok {
			continue
		}
		g, err := topo.NewGraphFromEdges(n, edges)
		if err == nil && g.Connected() {
			return g
		}
	}
}

func lpTable(only string) error {
	ctx := context.Background()
	insts, err := pick([]instance{{"mesh:3x3", topo.Mesh(3, 3)}, {"mesh:4x3", topo.Mesh(4, 3)}, {"torus:4x3", topo.Torus(4, 3)},
		{"rr3-10", randomRegular(10, 3, 1)}}, only)
	if err != nil {
		return err
	}
	var forms []string
	for _, f := range ilp.Formulations() {
		forms = append(forms, string(f))
	}
	fmt.Println("| instance | K | ring | optimum (DP) | GLB | window bound | " + strings.Join(forms, " | ") + " |")
	fmt.Println("|---|---|---|---|---|---|" + strings.Repeat("---|", len(ilp.Formulations())))
	for _, in := range insts {
		for _, k := range []int{2, 3} {
			for _, ring := range []bool{false, true} {
				w := weights(k)
				dp, err := order.OrderDP(ctx, in.m, w, ring)
				if err != nil {
					return err
				}
				q, _ := qap.OrderingQAP(in.m, w, ring)
				glb, _ := qap.GilmoreLawlerBound(ctx, q)
				wb, _ := qap.WindowBound(ctx, q, ring)
				row := fmt.Sprintf("| %s | %d | %v | %g | %.3f | %.3f |", in.name, k, ring, dp.Objective, glb, wb)
				for _, f := range ilp.Formulations() {
					t0 := time.Now()
					b, err := ilp.LPBound(ctx, in.m, w, ring, f)
					if err != nil {
						row += " n/a |"
						continue
					}
					row += fmt.Sprintf(" %.3f (%.1fs) |", b, time.Since(t0).Seconds())
				}
				fmt.Println(row)
			}
		}
	}
	return nil
}

// pick returns the instances of a table that only names (comma-separated; all of
// them when only is empty), in the table's order; a name that is none of the table's
// is an error listing them (before the thirty-second round the lp table ran every
// instance whatever -only said, and a misspelt name ran nothing).
func pick(insts []instance, only string) ([]instance, error) {
	if only == "" {
		return insts, nil
	}
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		want[s] = true
	}
	var out []instance
	var names []string
	for _, in := range insts {
		names = append(names, in.name)
		if want[in.name] {
			out = append(out, in)
			delete(want, in.name)
		}
	}
	if len(want) > 0 {
		var unknown []string
		for s := range want {
			unknown = append(unknown, s)
		}
		slices.Sort(unknown)
		return nil, fmt.Errorf("-only: no instance %s in this table (it has %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	return out, nil
}

func timeTable(limit time.Duration, only string) error {
	ctx := context.Background()
	insts := []instance{
		{"mesh:3x3", topo.Mesh(3, 3)}, {"mesh:4x3", topo.Mesh(4, 3)}, {"mesh:4x4", topo.Mesh(4, 4)},
		{"torus:3x3", topo.Torus(3, 3)}, {"torus:4x3", topo.Torus(4, 3)}, {"torus:4x4", topo.Torus(4, 4)},
		{"rr3-8", randomRegular(8, 3, 1)}, {"rr3-12", randomRegular(12, 3, 1)}, {"rr3-16", randomRegular(16, 3, 1)},
	}
	fmt.Println("| instance | n | K | ring | F | status | bound (source) | seconds | formulation | DP F | DP s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	return solveEach(insts, only, []int{1, 2, 3}, limit, "", func(in instance, k int, ring bool, w curves.Weights, res *order.OrderResult, _ float64) error {
		dpF, dpS := "-", "-"
		if order.OrderDPStates(in.m.N(), k, ring) <= 2e8 {
			t0 := time.Now()
			dctx, cancel := context.WithTimeout(ctx, 3*limit)
			dp, err := order.OrderDP(dctx, in.m, w, ring)
			cancel()
			if err == nil {
				dpF, dpS = fmt.Sprint(dp.Objective), fmt.Sprintf("%.1f", time.Since(t0).Seconds())
				if res.Status == qap.StatusOptimal && math.Abs(dp.Objective-res.Objective) > 1e-9 {
					return fmt.Errorf("%s K=%d ring=%v: MIP %g != DP %g", in.name, k, ring, res.Objective, dp.Objective)
				}
			} else {
				dpS = "> " + (3 * limit).String()
			}
		}
		form := res.Formulation
		if form == "" {
			form = "(no MIP needed)"
		}
		fmt.Printf("| %s | %d | %d | %v | %g | %s | %g (%s) | %.1f | %s | %s | %s |\n", in.name, in.m.N(), k, ring,
			res.Objective, res.Status, res.Bound, res.BoundSource, res.Seconds, form, dpF, dpS)
		return nil
	})
}

func largeTable(limit time.Duration, only string) error {
	insts := []instance{{"torus:8x8", topo.Torus(8, 8)}, {"mesh:8x8", topo.Mesh(8, 8)}, {"mesh:16x16", topo.Mesh(16, 16)},
		{"torus:8x8x4", topo.Torus(8, 8, 4)}, {"rr3-64", randomRegular(64, 3, 1)}}
	fmt.Println("| instance | n | K | ring | F (ours) | status | bound (source) | gap | hilbert | snake | best curve | seconds |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	return solveEach(insts, only, []int{1, 2, 3}, limit, "", func(in instance, k int, ring bool, w curves.Weights, res *order.OrderResult, _ float64) error {
		cv := func(name string) string {
			o, err := curves.Generate(name, in.m)
			if err != nil {
				return "-"
			}
			f, _ := curves.Objective(in.m, o, w, ring)
			return fmt.Sprint(f)
		}
		best, bestName := math.Inf(1), ""
		for _, name := range curves.Applicable(in.m) {
			o, _ := curves.Generate(name, in.m)
			if f, err := curves.Objective(in.m, o, w, ring); err == nil && f < best {
				best, bestName = f, name
			}
		}
		fmt.Printf("| %s | %d | %d | %v | %g | %s | %g (%s) | %.2f%% | %s | %s | %g (%s) | %.1f |\n", in.name, in.m.N(), k, ring,
			res.Objective, res.Status, res.Bound, res.BoundSource, 100*res.Gap, cv("hilbert"), cv("snake"), best, bestName, res.Seconds)
		return nil
	})
}

// cpuSeconds is the user + system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// bbTable: the orderings of the time table by --method bb, with the DP as cross-check.
func bbTable(limit time.Duration, only string) error {
	ctx := context.Background()
	insts := []instance{
		{"mesh:4x3", topo.Mesh(4, 3)}, {"mesh:4x4", topo.Mesh(4, 4)},
		{"torus:4x3", topo.Torus(4, 3)}, {"torus:4x4", topo.Torus(4, 4)},
		{"rr3-12", randomRegular(12, 3, 1)}, {"rr3-16", randomRegular(16, 3, 1)},
		{"mesh:5x4", topo.Mesh(5, 4)}, {"torus:5x4", topo.Torus(5, 4)}, {"mesh:6x4", topo.Mesh(6, 4)},
	}
	fmt.Println("| instance | n | K | ring | F | status | bound | nodes | seconds | CPU s | DP F |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	return solveEach(insts, only, []int{2, 3}, limit, order.MethodBB, func(in instance, k int, ring bool, w curves.Weights, res *order.OrderResult, cpu float64) error {
		dpF := "-"
		if order.OrderDPStates(in.m.N(), k, ring) <= 3e7 {
			dp, err := order.OrderDP(ctx, in.m, w, ring)
			if err != nil {
				return err
			}
			dpF = fmt.Sprint(dp.Objective)
			if res.Status == qap.StatusOptimal && dp.Objective != res.Objective {
				return fmt.Errorf("%s K=%d ring=%v: bb %g != DP %g", in.name, k, ring, res.Objective, dp.Objective)
			}
		}
		fmt.Printf("| %s | %d | %d | %v | %g | %s | %g (%s) | %d | %.2f | %.2f | %s |\n", in.name, in.m.N(), k, ring,
			res.Objective, res.Status, res.Bound, res.BoundSource, res.Nodes, res.Seconds, cpu, dpF)
		return nil
	})
}

// solveEach solves every selected instance for each K of ks, on the line and then on
// the ring, by method (seed 1; "" is SolveOrdering's default, which the time and large
// tables use) under limit (0: none), and hands row each result with
// the CPU seconds of its solve: the loop of the time, large and bb tables.
func solveEach(insts []instance, only string, ks []int, limit time.Duration, method order.Method, row func(in instance, k int, ring bool, w curves.Weights, res *order.OrderResult, cpu float64) error) error {
	insts, err := pick(insts, only)
	if err != nil {
		return err
	}
	for _, in := range insts {
		for _, k := range ks {
			for _, ring := range []bool{false, true} {
				w := weights(k)
				c0 := cpuSeconds()
				sctx, cancel := withLimit(context.Background(), limit)
				res, err := order.SolveOrdering(sctx, in.m, w, order.OrderOptions{Ring: ring, Options: order.Options{Method: method, Seed: 1}})
				cancel()
				if err != nil {
					return err
				}
				if err := row(in, k, ring, w, res, cpuSeconds()-c0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// qaplibTable: every QAPLIB instance of dir by --method bb (Gilmore-Lawler branch and
// bound), and by the MIP for comparison.
func qaplibTable(limit time.Duration, dir string) error {
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(dir, "*.dat"))
	if err != nil {
		return err
	}
	fmt.Println("| instance | n | optimum (bb) | status | root bound (GLB) | nodes | seconds | CPU s | MIP after limit: best / bound |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		q, err := qap.ReadQAPLIB(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		c0 := cpuSeconds()
		sctx, cancel := withLimit(ctx, limit)
		res, err := order.SolveQAP(sctx, q, nil, order.Options{Method: order.MethodBB, Seed: 1})
		cancel()
		if err != nil {
			return err
		}
		cpu := cpuSeconds() - c0
		glb, _ := qap.GilmoreLawlerBound(ctx, q)
		mip := "-"
		if limit > 0 {
			mctx, cancel := context.WithTimeout(ctx, limit)
			mr, err := order.SolveQAP(mctx, q, nil, order.Options{Seed: 1})
			cancel()
			if err != nil {
				return err
			}
			mip = fmt.Sprintf("%g / %g (%s, %.0f s)", mr.Objective, mr.Bound, mr.Status, mr.Seconds)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".dat")
		fmt.Printf("| %s | %d | %g | %s | %g | %d | %.2f | %.2f | %s |\n", name, q.N, res.Objective, res.Status, glb, res.Nodes, res.Seconds, cpu, mip)
	}
	return nil
}

// withLimit is ctx with a deadline limit from now (none when limit is 0).
func withLimit(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit > 0 {
		return context.WithTimeout(ctx, limit)
	}
	return context.WithCancel(ctx)
}
