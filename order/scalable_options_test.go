package order

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/ilp/highs"
	"github.com/procalloc/procalloc/topo"
)

// TestScalableUsesStarts: a start given above ScalableMinNodes (order --start) is a
// candidate scored exactly, and the result is never worse than it; methods mip and
// bb, which need the dense model, say in a note that the scalable path ran instead.
func TestScalableUsesStarts(t *testing.T) {
	m := topo.Mesh(20, 20)
	w := curves.Weights{1, 0.5, 0.25}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	first, err := SolveOrdering(ctx, m, w, OrderOptions{Options: Options{Method: MethodLocal}})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	// A start of its own: the first solve's ordering reversed (same F).
	start := slices.Clone([]int(first.Order))
	slices.Reverse(start)
	for _, method := range []Method{MethodMIP, MethodBB, MethodLocal} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		res, err := SolveOrdering(ctx, m, w, OrderOptions{Options: Options{Method: method}, Starts: []Start{{"mine", start}}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		checkScalable(t, m, w, false, res)
		if f, ok := res.Candidates["start:mine"]; !ok || f != first.Objective {
			t.Errorf("%s: candidate start:mine %g %v, want F %g", method, f, ok, first.Objective)
		}
		if res.Objective > first.Objective {
			t.Errorf("%s: F %g worse than the start's %g", method, res.Objective, first.Objective)
		}
		dense := slices.ContainsFunc(res.Notes, func(n string) bool {
			return strings.Contains(n, "method "+string(method)+" needs the dense n x n model")
		})
		if dense != (method != MethodLocal) {
			t.Errorf("%s: note of the dense model %v: %q", method, dense, res.Notes)
		}
	}
}

// TestStartsScoredPastTheLimit: the user's starts are scored even when the time
// limit has passed (or Ctrl-C came) before the built-in candidates were done, so
// the result is never worse than a start given. On a loaded host the 300 ms of
// TestScalableUsesStarts ran out in the curves and the result was node-index
// order, F 1992.5 on mesh:20x20 against the start's 978.5. The contexts here have
// ended before the solve begins, so nothing depends on the host's speed. The
// 8,192-host fat tree is there for the grace itself: the line search's scoring asks
// its context every 4,096 pairs, so on it a start scored under the ended context
// (no grace) is stopped and left out; on the smaller machines it never asks.
func TestStartsScoredPastTheLimit(t *testing.T) {
	var machines []topo.Machine
	machines = append(machines, topo.Mesh(20, 20))
	for _, spec := range []string{"fattree:4,4:4,4:32", "fattree:8,8:8,8:128"} {
		ft, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		machines = append(machines, ft)
	}
	w := curves.Weights{1, 0.5, 0.25}
	for _, m := range machines {
		start, err := curves.Generate("gilbert", m)
		if err != nil {
			start = curves.RowMajor(m.N())
			slices.Reverse(start)
		}
		f0, err := curves.Objective(m, start, w, false)
		if err != nil {
			t.Fatal(err)
		}
		past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		interrupted, interrupt := context.WithCancel(context.Background())
		interrupt()
		for _, ctx := range []context.Context{past, interrupted} {
			res, err := SolveOrdering(ctx, m, w, OrderOptions{Options: Options{Method: MethodLocal}, Starts: []Start{{"mine", start}}})
			if err != nil {
				t.Fatalf("%s: %v", m.Spec(), err)
			}
			if !res.Scalable {
				t.Fatalf("%s: not the scalable path", m.Spec())
			}
			if f, ok := res.Candidates["start:mine"]; !ok || f != f0 {
				t.Errorf("%s (%v): candidate start:mine %g %v, want F %g", m.Spec(), context.Cause(ctx), f, ok, f0)
			}
			if res.Objective > f0 {
				t.Errorf("%s (%v): F %g worse than the start's %g", m.Spec(), context.Cause(ctx), res.Objective, f0)
			}
		}
		cancelPast()
	}
}

// TestScalableProgressOnGraph: on a graph above ScalableMinNodes the
// progress callback (the CLI's progress line) sees the best F so far: never
// increasing, never below the final F nor below the bound it reports.
func TestScalableProgressOnGraph(t *testing.T) {
	// A 20x15 mesh given as a graph (no coordinates, no exact bound to stop at):
	// every candidate is scored by the line search.
	var edges [][2]int
	for x := range 20 {
		for y := range 15 {
			if x+1 < 20 {
				edges = append(edges, [2]int{x*15 + y, (x+1)*15 + y})
			}
			if y+1 < 15 {
				edges = append(edges, [2]int{x*15 + y, x*15 + y + 1})
			}
		}
	}
	m, err := topo.NewGraphFromEdges(300, edges)
	if err != nil {
		t.Fatal(err)
	}
	w := curves.Weights{1, 0.5, 0.25}
	var mu sync.Mutex
	var seen []highs.Progress
	// The search is stopped after its third report, not by a clock: a loaded
	// machine made a one-second limit see fewer than two reports. The long
	// timeout only keeps a broken search from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	opt := OrderOptions{Options: Options{Method: MethodLocal, Progress: func(p highs.Progress) {
		mu.Lock()
		seen = append(seen, p)
		if len(seen) >= 3 {
			cancel()
		}
		mu.Unlock()
	}}}
	res, err := SolveOrdering(ctx, m, w, opt)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	checkScalable(t, m, w, false, res)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 {
		t.Fatalf("%d progress reports", len(seen))
	}
	for i, p := range seen {
		if p.Incumbent < res.Objective || p.Bound > p.Incumbent || i > 0 && p.Incumbent > seen[i-1].Incumbent {
			t.Fatalf("report %d: incumbent %g bound %g (previous %g), final F %g", i, p.Incumbent, p.Bound, seen[max(i-1, 0)].Incumbent, res.Objective)
		}
	}
}

// TestScalableAllOrderingsOverflow: weights so large that every ordering's F
// overflows float64 are refused at once with curves.ErrOverflow and the advice to
// scale them down, on a grid and on a switched network, as the dense path refuses
// them (it said "could be scored within the time limit ... allow more time").
func TestScalableAllOrderingsOverflow(t *testing.T) {
	ft, err := topo.ParseMachine("fattree:4,4:4,4:20")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []topo.Machine{topo.Mesh(20, 20), ft} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		t0 := time.Now()
		_, err := SolveOrdering(ctx, m, curves.Weights{1e308}, OrderOptions{Options: Options{Method: MethodAuto}})
		cancel()
		if !errors.Is(err, curves.ErrOverflow) || !strings.Contains(err.Error(), "scale the weights down") || strings.Contains(err.Error(), "time") {
			t.Errorf("%s: %v", m.Spec(), err)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("%s: refused after %v", m.Spec(), d)
		}
	}
}

// TestPairBoundBruteForce: the pairs bound is at most the least F of all orderings
// (brute force over the 5,040 orderings of 7 hosts) on switched networks with and
// without direct host-to-host links (its shortest distance 1 or 2), line and ring;
// without them every pair of hosts is 2 apart at least.
func TestPairBoundBruteForce(t *testing.T) {
	build := func(hostLink bool) topo.Machine {
		f := topo.NewFabric()
		for i := range 7 {
			if err := f.AddHost(fmt.Sprintf("h%d", i)); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range []string{"s1", "s2"} {
			if err := f.AddSwitch(s); err != nil {
				t.Fatal(err)
			}
		}
		links := [][2]string{{"s1", "s2"}}
		for i := range 7 {
			links = append(links, [2]string{fmt.Sprintf("h%d", i), map[bool]string{true: "s1", false: "s2"}[i < 4]})
		}
		if hostLink {
			links = append(links, [2]string{"h0", "h1"}, [2]string{"h4", "h5"})
		}
		for _, l := range links {
			if err := f.Link(l[0], l[1]); err != nil {
				t.Fatal(err)
			}
		}
		g, err := f.Graph()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, hostLink := range []bool{false, true} {
		m := build(hostLink)
		for _, ring := range []bool{false, true} {
			for _, w := range []curves.Weights{{1}, {1, 0.5, 0.25}} {
				b := pairBound(m, w, ring)
				least := math.Inf(1)
				o := []int{0, 1, 2, 3, 4, 5, 6}
				for {
					f, err := curves.Objective(m, o, w, ring)
					if err != nil {
						t.Fatal(err)
					}
					least = min(least, f)
					if !nextPermutation(o) {
						break
					}
				}
				if !b.Exact || b.Value > least {
					t.Errorf("host link %v ring %v w %v: bound %g (exact %v) above the least F %g", hostLink, ring, w, b.Value, b.Exact, least)
				}
				if !hostLink && len(w) == 1 && !ring && b.Value != 12 {
					// Every two hosts are 2 apart at least: 6 pairs x 2.
					t.Errorf("no host link: bound %g, want 12", b.Value)
				}
			}
		}
	}
}

// nextPermutation steps p to the next permutation in lexicographic order; false
// after the last.
func nextPermutation(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}
