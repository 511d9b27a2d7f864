package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/ptas"
)

// The approximation algorithms of package ptas (Bender et al. 2005) as subset
// algorithms. Integer input (all coordinates whole numbers, e.g. mesh nodes) runs on
// the exact integer path; other input on float64. Ties are broken by input index
// (ptas.TiesByIndex); with --machine/--free the input order is the free list's order.
func init() {
	center := func(name string, f func(ctx context.Context, in *subsetInput, k int) (ptas.Result, error)) func(context.Context, *subsetInput, subsetParams) (*subsetResult, error) {
		return func(ctx context.Context, in *subsetInput, p subsetParams) (*subsetResult, error) {
			stop := func() {}
			if p.Progress != nil { // seconds to minutes on 10^5 points: the elapsed time on a terminal
				stop = p.Progress.ticking("searching")
			}
			res, err := f(ctx, in, p.K)
			stop()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out := &subsetResult{Indices: res.Indices, Guarantee: res.Guarantee}
			if res.Center != nil {
				out.Extra = map[string]any{"center": res.Center}
				out.Notes = append(out.Notes, "center "+fmtCoords(res.Center))
			}
			return out, nil
		}
	}
	// The center searches run long on large inputs (O(n^d) centers for MM, n of O(n)
	// each for MC1x1 and Gen-Alg): they honour ctx.
	pickCtx := func(fi func(context.Context, [][]int, int, ptas.Options) (ptas.Result, error), ff func(context.Context, [][]float64, int, ptas.Options) (ptas.Result, error)) func(context.Context, *subsetInput, int) (ptas.Result, error) {
		return func(ctx context.Context, in *subsetInput, k int) (ptas.Result, error) {
			if in.Ints != nil && !intsTooLarge(in.Ints) {
				return fi(ctx, intRows(in), k, ptas.Options{})
			}
			return ff(ctx, floatRows(in), k, ptas.Options{})
		}
	}
	registerSubsetAlgo(&subsetAlgo{name: "mm",
		summary: "Manhattan Median: every axis-line intersection as center, its k nearest in L1; 7/4 (2D), 2-1/(2d)",
		run:     center("mm", pickCtx(ptas.MMContext[[]int, int], ptas.MMContext[[]float64, float64]))})
	registerSubsetAlgo(&subsetAlgo{name: "genalg",
		summary: "Gen-Alg (Krumke et al.): every point as center, its k nearest in L1; 2-2/k",
		run:     center("genalg", pickCtx(ptas.GenAlgContext[[]int, int], ptas.GenAlgContext[[]float64, float64]))})
	registerSubsetAlgo(&subsetAlgo{name: "mc1x1",
		summary: "MC1x1: every point as center, L-infinity shells, least sum of shell numbers; (2-2/k)d",
		run:     center("mc1x1", pickCtx(ptas.MC1x1Context[[]int, int], ptas.MC1x1Context[[]float64, float64]))})
	registerSubsetAlgo(&subsetAlgo{name: "mminc",
		summary: "MM+Inc: MM, then swaps of a chosen and an unchosen point while the total drops",
		run:     center("mminc", pickCtx(ptas.MMIncContext[[]int, int], ptas.MMIncContext[[]float64, float64]))})
	registerSubsetAlgo(&subsetAlgo{name: "ptas",
		summary: "PTAS (Bender et al. §3, §4.2): total <= (1+eps) x optimum; exponential in 1/eps",
		run:     runPTAS})
}

// ptasHelp is part of "procalloc help subset" (cmd_subset.go).
const ptasHelp = `

Approximation algorithms (package ptas; guarantee = proven worst-case ratio):
  mm      Manhattan Median: centers at all intersections of axis-parallel lines
          through the points, each takes its k nearest (L1), best total wins;
          7/4 in 2D, 2-1/(2d) in d dimensions, and 2-2/k. Ties: by input index.
  genalg  Gen-Alg: the points themselves as centers; 2-2/k.
  mc1x1   MC1x1: points as centers, L-infinity shells, least sum of shells; (2-2/k)d.
  mminc   MM+Inc: MM, then swaps while the total drops (a local minimum); MM's ratio.
  ptas    the approximation scheme: m slices per axis, the smallest m whose
          proven ratio (the paper's inequality, exact slice sizes) is <= 1+eps;
          the guarantee printed is min(that ratio, MM's) (1 when m = k: exact; in
          1D the exact optimum is returned). Starts from MM and skips cuts that
          cannot matter. Time grows like C(n-1, m-1)^d (measured: 2D, --eps 1
          within seconds up to about n = 40; --eps 0.5 or 0.25 up to about
          n = 20-30 for k <= 16; 3D up to about n = 14). Larger instances are
          refused with an error; --time-limit stops early with the best
          subset found (then with MM's ratio).`

func runPTAS(ctx context.Context, in *subsetInput, p subsetParams) (*subsetResult, error) {
	m, err := ptas.ChooseM(p.K, p.Eps)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	res, err := ptas.PTASWithM(ctx, in.Points, p.K, m)
	out := &subsetResult{Indices: res.Indices, Guarantee: res.Guarantee,
		Extra: map[string]any{"m": m, "scheme_ratio": ptas.PTASRatio(p.K, m), "paper_m": ptas.PaperM(p.Eps)}}
	out.Notes = append(out.Notes, fmt.Sprintf("m = %d slices per axis, scheme ratio %.4g (the paper's form needs m = %d)",
		m, ptas.PTASRatio(p.K, m), ptas.PaperM(p.Eps)))
	if err != nil {
		// --time-limit: report the best subset so far; an interrupt is an error.
		if res.Indices != nil && errors.Is(err, context.DeadlineExceeded) {
			out.Notes = append(out.Notes, "stopped early: best subset found so far, with MM's guarantee")
			return out, nil
		}
		return nil, err
	}
	return out, nil
}

// intsTooLarge reports integer input beyond the integer path's range (ptas refuses
// coordinates beyond 2^31 there); such input runs on float64 instead.
func intsTooLarge(pts []geom.Point) bool {
	for _, p := range pts {
		for _, v := range p {
			if v > 1<<31 || v < -(1<<31) {
				return true
			}
		}
	}
	return false
}

func intRows(in *subsetInput) [][]int {
	rows := make([][]int, len(in.Ints))
	for i, p := range in.Ints {
		rows[i] = p
	}
	return rows
}

func floatRows(in *subsetInput) [][]float64 {
	rows := make([][]float64, len(in.Points))
	for i, p := range in.Points {
		rows[i] = p
	}
	return rows
}

func fmtCoords(c []float64) string {
	s := "("
	for j, v := range c {
		if j > 0 {
			s += ", "
		}
		s += fmtNum(v)
	}
	return s + ")"
}
