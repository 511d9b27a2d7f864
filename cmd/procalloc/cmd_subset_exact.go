package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
)

// The exact solvers of package exact as subset algorithms: k3 (Theorem 3 of Bender et
// al. 2005), line and ring (one coordinate per point), and exact (branch and bound for
// any k, honouring --time-limit).
func init() {
	registerSubsetAlgo(&subsetAlgo{name: "k3",
		summary: "exact k = 3 in the plane via the L1 order-3 Voronoi sets (Theorem 3); integer coordinates",
		run:     runSubsetK3, certifies: true})
	registerSubsetAlgo(&subsetAlgo{name: "line",
		summary: "exact on a line (one coordinate per point): best window of k consecutive points, O(n) after sorting",
		run:     runSubsetLine, certifies: true})
	registerSubsetAlgo(&subsetAlgo{name: "ring",
		summary: "exact on a ring of circumference C (--circumference), distance min(|a-b|, C-|a-b|)",
		run:     runSubsetRing, certifies: true})
	registerSubsetAlgo(&subsetAlgo{name: "exact",
		summary: "exact for any k and dimension: branch and bound from MM+Inc; --time-limit reports bound and gap",
		run:     runSubsetExact, certifies: true})
}

// exactHelp is part of "procalloc help subset" (cmd_subset.go).
const exactHelp = `

Exact algorithms (package exact; optimal, bound and gap in the output):
  k3      k = 3 in the plane, integer coordinates: scans the L1 order-3 Voronoi
          sets (package voronoi); O(n log n) on inputs of bounded local density.
  line    points file with one coordinate per line: k consecutive sorted points.
  ring    one coordinate per line, each in [0, C), with --circumference C; exact
          dynamic program over the half-ring sweep, O(n k^3); distance "ring".
  exact   branch and bound (star and lattice bounds), incumbent MM+Inc; at
          --time-limit (default 60s, as procalloc order and plan; 0: none) it
          stops and reports the best subset, the proven lower bound and the gap
          (optimal false) instead of running on.`

func boolPtr(b bool) *bool        { return &b }
func floatPtr(f float64) *float64 { return &f }

func markOptimal(res *subsetResult, total float64) {
	res.Optimal, res.Bound, res.Gap = boolPtr(true), floatPtr(total), floatPtr(0)
	res.Guarantee = 1
}

func runSubsetK3(ctx context.Context, in *subsetInput, p subsetParams) (*subsetResult, error) {
	if p.K != 3 {
		return nil, usagef("--algo k3 needs --k 3 (got %d)", p.K)
	}
	if in.Ints == nil {
		return nil, fmt.Errorf("k3: %s: %s", in.Source, nonIntegerPoint(in.Points))
	}
	if d := len(in.Ints[0]); d != 2 {
		return nil, fmt.Errorf("k3: %s: points have dimension %d; k3 is for the plane (2)", in.Source, d)
	}
	r, err := exact.Triple(ctx, in.Ints)
	if err != nil {
		return nil, fmt.Errorf("k3: %w", err)
	}
	res := &subsetResult{Indices: r.Indices,
		Extra: map[string]any{"center": []float64{float64(r.Center2[0]) / 2, float64(r.Center2[1]) / 2}}}
	markOptimal(res, float64(r.Total))
	return res, nil
}

func oneDim(in *subsetInput, algo string) error {
	if d := len(in.Points[0]); d != 1 {
		return fmt.Errorf("%s: %s: points have %d coordinates; %s reads one coordinate per line", algo, in.Source, d, algo)
	}
	return nil
}

func runSubsetLine(_ context.Context, in *subsetInput, p subsetParams) (*subsetResult, error) {
	if err := oneDim(in, "line"); err != nil {
		return nil, err
	}
	var idx []int
	var total float64
	if in.Ints != nil {
		c := make([]int64, len(in.Ints))
		for i, q := range in.Ints {
			c[i] = int64(q[0])
		}
		s, err := exact.Line(c, p.K)
		if err != nil {
			return nil, fmt.Errorf("line: %w", err)
		}
		idx, total = s.Indices, float64(s.Total)
	} else {
		c := make([]float64, len(in.Points))
		for i, q := range in.Points {
			c[i] = q[0]
		}
		s, err := exact.Line(c, p.K)
		if err != nil {
			return nil, fmt.Errorf("line: %w", err)
		}
		idx, total = s.Indices, s.Total
	}
	res := &subsetResult{Indices: idx}
	markOptimal(res, total)
	return res, nil
}

func runSubsetRing(ctx context.Context, in *subsetInput, p subsetParams) (*subsetResult, error) {
	if err := oneDim(in, "ring"); err != nil {
		return nil, err
	}
	C := p.Circumference
	if !(C > 0) || math.IsInf(C, 0) {
		return nil, usagef("--algo ring needs --circumference C, a finite number > 0 (got %v)", C)
	}
	for i, q := range in.Points {
		if q[0] < 0 || q[0] >= C {
			return nil, fmt.Errorf("ring: %s: point %d (0-based, as in indices) has coordinate %g, outside [0, %g) (--circumference)", in.Source, i, q[0], C)
		}
	}
	var idx []int
	var total float64
	var optimal bool
	if in.Ints != nil && C == math.Trunc(C) && C < 1<<40 {
		c := make([]int64, len(in.Ints))
		for i, q := range in.Ints {
			c[i] = int64(q[0])
		}
		s, opt, err := exact.Ring(ctx, c, int64(C), p.K)
		if err != nil {
			return nil, fmt.Errorf("ring: %w", err)
		}
		idx, total, optimal = s.Indices, float64(s.Total), opt
	} else {
		c := make([]float64, len(in.Points))
		for i, q := range in.Points {
			c[i] = q[0]
		}
		s, opt, err := exact.Ring(ctx, c, C, p.K)
		if err != nil {
			return nil, fmt.Errorf("ring: %w", err)
		}
		idx, total, optimal = s.Indices, s.Total, opt
	}
	res := &subsetResult{Indices: idx, Distance: "ring", Total: total}
	if optimal {
		markOptimal(res, total)
	} else {
		res.Optimal = boolPtr(false)
		res.Notes = append(res.Notes, "time limit reached: best arc of consecutive points, not proven optimal")
	}
	return res, nil
}

func runSubsetExact(ctx context.Context, in *subsetInput, p subsetParams) (*subsetResult, error) {
	r, err := exact.SubsetSeeded(ctx, in.Points, p.K, exact.SubsetOptions{})
	if err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	res := &subsetResult{Indices: r.Indices, Extra: map[string]any{"nodes": r.Nodes}}
	if r.Optimal {
		markOptimal(res, r.Total)
	} else {
		res.Optimal, res.Bound, res.Gap = boolPtr(false), floatPtr(r.Bound), floatPtr(r.Gap)
		if r.Bound > 0 {
			res.Guarantee = r.Total / r.Bound
		}
		res.Notes = append(res.Notes, "stopped before proving optimality; bound is a proven lower bound")
	}
	return res, nil
}

// nonIntegerPoint names the first point an integer-only solver refuses, counted from
// 1 in the order the points were read (comment and blank lines not counted).
func nonIntegerPoint(pts []geom.PointF) string {
	i := geom.FirstNonInteger(pts)
	if i < 0 {
		return "coordinates must be integers"
	}
	c := make([]string, len(pts[i]))
	for j, v := range pts[i] {
		c[j] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprintf("point %d (%s): coordinates must be integers of magnitude at most 2^53", i+1, strings.Join(c, " "))
}
