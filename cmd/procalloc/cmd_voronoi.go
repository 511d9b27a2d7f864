package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/voronoi"
)

func init() {
	register(&command{
		name:    "voronoi",
		summary: "list the L1 order-k Voronoi sets: every k-nearest set of some center, with a witness",
		usage:   "voronoi --k K --points FILE [--limit N] [--time-limit D] [--json] [--svg FILE] [-o FILE]",
		details: `Lists every set of k input points that is the set of k nearest points (L1) of some
center of the plane — the generator sets of the cells of the order-k L1 Voronoi
diagram — with a witness center and radius. Tie rule: S is a k-nearest set of c when
max over S of d(c, s) <= min over the other points of d(c, t); with ties (equal
distances, coincident points) one center can have several sets, and all are listed.
Points: planar, integer coordinates (see "procalloc help subset" for the file format).
indices are 0-based positions among the data lines; total is the set's total pairwise
L1 distance. Heavy ties can make the list exponential: --limit bounds it.
JSON (--json): k, n (points read), count (sets listed) and sets, each with indices,
center (the witness), radius (its L1 distance to the set's farthest point) and total.
Cost: O(n log n) for fixed k on points of bounded local density, plus up to
O(n log n) for each point near the hull, whose squares grow to the whole input
(10^5 random points on a 1000x1000 grid: about 7 s of CPU). --time-limit and
Ctrl-C stop it within a fraction of a second; an incomplete list is not written.`,
		example: `procalloc voronoi --k 3 --points pts.txt
procalloc voronoi --k 2 --points pts.txt --json --svg cells.svg
procalloc voronoi --k 4 --points grid.txt --limit 5000 --time-limit 1m -o sets.txt`,
		yourFiles: []yourFile{yourPoints, {"grid.txt", "your points, here a grid: tie-heavy"}},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			k := fs.Int("k", 0, "size of the nearest sets")
			points := fs.String("points", "", "points `FILE` ('-' for stdin), two integer coordinates per line")
			limit := fs.Int("limit", 1000000, "fail when there are more than `N` sets")
			asJSON := fs.Bool("json", false, "print JSON")
			svg := fs.String("svg", "", "also draw the points and witness centers to `FILE` (SVG)")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			timeLimit := fs.Duration("time-limit", 0, "fail, writing nothing, when the list is not complete after this long (counted once the points are read; reading them and writing the output are outside) (0: no limit)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *timeLimit < 0 {
					return usagef("--time-limit %v: must not be negative (0: no limit)", *timeLimit)
				}
				if *points == "" {
					return usagef("--points FILE is required ('-' for standard input)")
				}
				if !isFlagGiven(fs, "k") {
					return usagef("--k is required: the size of the nearest sets, e.g. --k 3")
				}
				in, err := readSubsetInput(e, *points, "", "")
				if err != nil {
					return err
				}
				if *k < 1 || *k > len(in.Points) {
					return usagef("--k %d: must be between 1 and the number of points (%d)", *k, len(in.Points))
				}
				if in.Ints == nil {
					return fmt.Errorf("%s: %s", *points, nonIntegerPoint(in.Points))
				}
				if *limit < 1 {
					return usagef("--limit %d: must be at least 1 (heavy ties can make the list exponential, so it is always bounded)", *limit)
				}
				if *timeLimit > 0 {
					var cancel context.CancelFunc
					ctx, cancel = timelimit.WithTimeout(ctx, *timeLimit, "--time-limit")
					defer cancel()
				}
				stop := newProgress(e, fmt.Sprintf("voronoi k=%d", *k), 0).ticking("listing sets")
				sets, err := voronoi.KNearestSetsContext(ctx, in.Ints, *k, *limit)
				stop()
				if err != nil {
					return err
				}
				type jsonSet struct {
					Indices []int      `json:"indices"`
					Center  [2]float64 `json:"center"`
					Radius  float64    `json:"radius"`
					Total   int        `json:"total"`
				}
				js := make([]jsonSet, len(sets))
				for i, s := range sets {
					js[i] = jsonSet{s.Indices, s.Center(), float64(s.Radius2) / 2, geom.PairwiseL1Subset(in.Ints, s.Indices)}
				}
				// The drawing and the table all or none.
				return writeOutputs(e,
					namedOutput{"--svg", *svg, func(w io.Writer) error { return voronoiSVG(w, in.Ints, sets, *k) }},
					namedOutput{"-o", *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, map[string]any{"k": *k, "n": len(in.Ints), "count": len(sets), "sets": js})
						}
						t := newTable(w, "indices", "center", "radius", "total")
						for _, s := range js {
							t.row(joinInts(s.Indices), fmt.Sprintf("%g,%g", s.Center[0], s.Center[1]), fmtNum(s.Radius), fmt.Sprint(s.Total))
						}
						if err := t.flush(); err != nil {
							return err
						}
						_, err := fmt.Fprintf(w, "%d sets\n", len(js))
						return err
					}})
			}
		},
	})
}

// voronoiSVG draws the points (blue dots, their index in a tooltip) and the
// centers of the sets (small orange dots, the set in a tooltip), y upwards, on a
// white ground with a legend under them. A unit is 20 pixels, less when the
// points spread over more than voronoiMaxPx (a picture of 10^6 by 10^6 units was
// 20 million pixels wide, which no viewer opens); the legend then says the scale.
// Above voronoiTooltipMax dots the tooltips are left out, and the legend says so:
// 20,000 points with 68,805 sets did not render in Chromium in 400 s with them,
// and in 13 s without.
func voronoiSVG(w io.Writer, pts []geom.Point, sets []voronoi.Set, k int) error {
	b := geom.BoundingBox(pts)
	const pad, font, line = 20.0, 11, 16
	spanX, spanY := float64(b.Max[0]-b.Min[0]), float64(b.Max[1]-b.Min[1])
	scale := min(20, voronoiMaxPx/max(spanX, spanY, 1))
	sx := func(x float64) float64 { return pad + (x-float64(b.Min[0]))*scale }
	sy := func(y float64) float64 { return pad + (float64(b.Max[1])-y)*scale }
	tooltips := len(pts)+len(sets) <= voronoiTooltipMax
	legend := []string{
		fmt.Sprintf("L1 order-%d Voronoi sets of %d points: %d sets", k, len(pts), len(sets)),
		"point (its index in the tooltip)",
		"center of a set (the set in the tooltip)",
	}
	if !tooltips {
		legend[1], legend[2] = "point", "center of a set"
		legend = append(legend, fmt.Sprintf("no tooltips: more than %d dots (the sets are in the table and --json)", voronoiTooltipMax))
	}
	if scale < 20 {
		legend = append(legend, fmt.Sprintf("scale: 1 unit = %.3g px", scale))
	}
	plotH := 2*pad + spanY*scale
	width := 2*pad + spanX*scale
	for _, l := range legend {
		width = max(width, 2*pad+30+plot.TextWidth(l, font))
	}
	height := plotH + float64(len(legend)*line) + pad/2
	// Dots of 4 and 2 pixels, smaller when the points lie denser than one per
	// 20 pixels on average (about one per unit then).
	rPoint, rCenter := 4.0, 2.0
	if spacing := math.Sqrt(max(spanX, 1)*max(spanY, 1)/float64(len(pts))) * scale; spacing < 20 {
		rPoint, rCenter = max(1, spacing/5), max(0.5, spacing/10)
	}
	d := plot.Begin(w, plot.Header{Width: int(math.Ceil(width)), Height: int(math.Ceil(height)), Numbers: plot.Shortest, Background: "white"})
	for _, s := range sets {
		c := s.Center()
		if !tooltips {
			d.Elem("circle", "cx", sx(c[0]), "cy", sy(c[1]), "r", rCenter, "fill", "#d9822b")
			d.Newline()
			continue
		}
		d.OpenElem("circle", "cx", sx(c[0]), "cy", sy(c[1]), "r", rCenter, "fill", "#d9822b")
		d.TextElem("title", joinInts(s.Indices))
		d.CloseElem("circle")
		d.Newline()
	}
	for i, p := range pts {
		if !tooltips {
			d.Elem("circle", "cx", sx(float64(p[0])), "cy", sy(float64(p[1])), "r", rPoint, "fill", "#3b6ea5")
			d.Newline()
			continue
		}
		d.OpenElem("circle", "cx", sx(float64(p[0])), "cy", sy(float64(p[1])), "r", rPoint, "fill", "#3b6ea5")
		d.TextElem("title", strconv.Itoa(i))
		d.CloseElem("circle")
		d.Newline()
	}
	for i, l := range legend {
		y := plotH + float64(i*line)
		attrs := []any{"x", pad + 30, "y", y + 4, "font-size", font, "font-family", "sans-serif"}
		switch i {
		case 0:
			attrs = []any{"x", pad, "y", y + 4, "font-size", font, "font-family", "sans-serif", "font-weight", "bold"}
		case 1:
			d.Elem("circle", "cx", pad+12, "cy", y, "r", 4.0, "fill", "#3b6ea5")
		case 2:
			d.Elem("circle", "cx", pad+12, "cy", y, "r", 2.0, "fill", "#d9822b")
		}
		d.TextElem("text", l, attrs...)
		d.Newline()
	}
	return d.End()
}

// voronoiMaxPx is the largest extent of voronoi --svg's drawing of the points,
// voronoiTooltipMax the most dots that get a tooltip.
const voronoiMaxPx, voronoiTooltipMax = 1000, 10000
