package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/plot"
)

func init() {
	register(&command{
		name:    "cluster",
		summary: "optimal unconstrained cluster: k points of Z^2 or Z^3 with minimum total pairwise L1",
		usage:   "cluster --k K [--dim 2|3] [--time-limit D] [--json] [--svg FILE] [-o FILE]",
		details: `Computes the k points of the integer lattice (no occupied nodes) with minimum total
pairwise L1 distance, the shapes of Bender et al. (2005), Fig. 2. The search runs over
plane counts, not point sets (package exact, marginal.go): the total depends only on the
number of points in each row and column (and layer), some optimum is a down-set (a
Ferrers diagram in 2D, a plane partition in 3D) with its rows and columns reordered,
and the optimum is proven over those: in 2D (k <= 220) by a dynamic program along the
diagram's boundary that carries both axes' costs, beyond by a branch and bound; in 3D
by a branch and bound over layers whose majorization bound couples the axes. The
points are translated so that the lexicographically smallest one is the origin.
Measured as CPU time: every 2D k <= 200 in 9 s in all (one k = 200 in 0.2 s); every
3D k <= 45 in 1.7 s, <= 60 in about 50 s; larger k take longer (see docs/exact.md).
k is at most 200000 (larger k is a usage error): building the incumbent, arranging
the result and printing it are not interrupted and take a few seconds at that size.
--time-limit (default 60s, as procalloc order and plan and subset --algo exact; 0:
none) stops the search and reports the best cluster found for k with its proven bound
(optimal false unless they meet, and a note); a limit that stops it makes the result
depend on the machine. The documented sizes are proven well within the default (2D
k <= 220 in under a second; 3D k = 60 in 16 s of CPU, 30 s at load 9), while 2D k = 300
and 400 were not proven in 4 minutes (the branch and bound's bound stays 18-29% below
the cluster found; docs/reliability.md, "Small gaps after the 200,000-node walk"), so
without the default such a k ran on without a word.
JSON: k, dim, total, average, points, optimal, bound, seconds, time_limit (seconds,
absent without one). --svg draws the shape (3D: one panel per layer).`,
		example: `procalloc cluster --k 21
procalloc cluster --k 12 --dim 3 --json
procalloc cluster --k 16 --svg cluster16.svg
procalloc cluster --k 300 --time-limit 10s --json
procalloc cluster --k 30 --dim 3 -o cluster30.txt`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			k := fs.Int("k", 0, "number of points (1..200000)")
			dim := fs.Int("dim", 2, "lattice dimension: 2 or 3")
			limit := fs.Duration("time-limit", defaultSolveLimit, "stop the search after this long and report the best cluster with its bound (the command reads no input; writing the output is outside) (0: no limit)")
			asJSON := fs.Bool("json", false, "print JSON")
			svg := fs.String("svg", "", "also draw the cluster to `FILE` (SVG)")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if !isFlagGiven(fs, "k") {
					return usagef("--k is required: the number of points (1..%d), e.g. --k 21", exact.MaxClusterK)
				}
				if *k < 1 {
					return usagef("--k %d: must be in 1..%d", *k, exact.MaxClusterK)
				}
				if *k > exact.MaxClusterK {
					return usagef("--k %d: must be in 1..%d (the largest machines); this k would need about %.3g GB before any search",
						*k, exact.MaxClusterK, exact.ClusterBytes(*k)/1e9)
				}
				if *dim != 2 && *dim != 3 {
					return usagef("--dim %d: must be 2 or 3", *dim)
				}
				if *limit < 0 {
					return usagef("--time-limit %v: must not be negative (0: no limit)", *limit)
				}
				if *limit > 0 {
					var cancel context.CancelFunc
					ctx, cancel = timelimit.WithTimeout(ctx, *limit, "--time-limit")
					defer cancel()
				}
				start := time.Now()
				stop := newProgress(e, fmt.Sprintf("cluster k=%d", *k), 0).ticking("searching")
				c, err := exact.Cluster(ctx, *dim, *k)
				stop()
				if err != nil {
					return err
				}
				var note string
				if !c.Optimal {
					note = fmt.Sprintf("stopped before the proof: best cluster found for k = %d, gap %d to the proven bound", *k, c.Total-c.Bound)
				}
				avg := 0.0
				if c.K > 1 {
					avg = float64(c.Total) / float64(c.K*(c.K-1)/2)
				}
				res := map[string]any{"k": c.K, "dim": c.Dim, "total": c.Total, "average": avg,
					"points": c.Points, "optimal": c.Optimal, "bound": c.Bound, "seconds": time.Since(start).Seconds()}
				if note != "" {
					res["note"] = note
				}
				if *limit > 0 {
					res["time_limit"] = limit.Seconds()
				}
				// The drawing and the table all or none.
				return writeOutputs(e,
					namedOutput{"--svg", *svg, func(w io.Writer) error { return clusterSVG(w, c.Points, clusterCaption(c)) }},
					namedOutput{"-o", *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, res)
						}
						fmt.Fprintf(w, "k           %d\ndim         %d\ntotal       %d\naverage     %.4f\noptimal     %v\nbound       %d\n",
							c.K, c.Dim, c.Total, avg, c.Optimal, c.Bound)
						if *limit > 0 {
							fmt.Fprintf(w, "time limit  %s\n", *limit)
						}
						if note != "" {
							fmt.Fprintf(w, "note        %s\n", note)
						}
						return drawCluster(w, c.Points)
					}})
			}
		},
	})
}

// drawCluster prints the shape as text ('#' chosen), one block per z layer.
func drawCluster(w io.Writer, pts []geom.Point) error {
	if len(pts) == 0 {
		return nil
	}
	b := geom.BoundingBox(pts)
	in := map[string]bool{}
	for _, p := range pts {
		in[fmt.Sprint(p)] = true
	}
	d := len(pts[0])
	zlo, zhi := 0, 0
	if d == 3 {
		zlo, zhi = b.Min[2], b.Max[2]
	}
	for z := zlo; z <= zhi; z++ {
		if d == 3 {
			fmt.Fprintf(w, "layer z=%d\n", z)
		}
		for y := b.Max[1]; y >= b.Min[1]; y-- {
			for x := b.Min[0]; x <= b.Max[0]; x++ {
				p := geom.Point{x, y}
				if d == 3 {
					p = append(p, z)
				}
				if in[fmt.Sprint(p)] {
					fmt.Fprint(w, "# ")
				} else {
					fmt.Fprint(w, ". ")
				}
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

// clusterSVG draws the cluster's points as cells, a 3D cluster one panel per z
// layer (labelled), with the caption under them.
func clusterSVG(w io.Writer, pts []geom.Point, caption string) error {
	b := geom.BoundingBox(pts)
	const cell, font = 20, 11
	dim := len(pts[0])
	layers, top := 1, 0
	if dim == 3 {
		layers, top = b.Max[2]-b.Min[2]+1, 14
	}
	wx := b.Max[0] - b.Min[0] + 1
	wy := b.Max[1] - b.Min[1] + 1
	width := max(layers*(wx+1)*cell, cell/2+int(math.Ceil(plot.TextWidth(caption, font)))+cell/2)
	height := top + (wy+1)*cell + 16
	d := plot.Begin(w, plot.Header{Width: width, Height: height, ViewBox: true, Background: "white"})
	for l := 0; dim == 3 && l < layers; l++ {
		d.TextElem("text", fmt.Sprintf("z=%d", b.Min[2]+l), "x", l*(wx+1)*cell+cell/2, "y", top-3, "font-size", 10, "font-family", "sans-serif", "fill", "#666")
		d.Newline()
	}
	for _, p := range pts {
		layer := 0
		if dim == 3 {
			layer = p[2] - b.Min[2]
		}
		x := (layer*(wx+1)+p[0]-b.Min[0])*cell + cell/2
		y := top + (b.Max[1]-p[1])*cell + cell/2
		d.Elem("rect", "x", x, "y", y, "width", cell, "height", cell, "fill", "#3b6ea5", "stroke", "#fff")
		d.Newline()
	}
	d.TextElem("text", caption, "x", cell/2, "y", height-6, "font-size", font, "font-family", "sans-serif")
	return d.End()
}

// clusterCaption says what the drawing shows: k, the lattice, the total and
// whether it is proven optimal.
func clusterCaption(c exact.ClusterResult) string {
	proof := "optimal"
	if !c.Optimal {
		proof = fmt.Sprintf("best found, %d above the proven bound", c.Total-c.Bound)
	}
	return fmt.Sprintf("%d points of Z^%d, total pairwise L1 %d (%s)", c.K, c.Dim, c.Total, proof)
}
