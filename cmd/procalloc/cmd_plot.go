package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/sim/sweep"
)

// plotParam reads a parameter of an item usable as the x axis.
func plotParam(p sweep.Params, name string) (float64, bool) {
	switch name {
	case "contract", "load_factor":
		return p.Contract, true
	case "seed":
		return float64(p.Seed), true
	}
	return 0, false
}

func init() {
	register(&command{
		name:    "plot",
		summary: "plot a metric of merged sweep results against a parameter, one line per allocator (SVG and table)",
		usage:   "plot RESULTS.jsonl [--x contract] [--y mean_response] [--where KEY=VALUE,...] [--svg FILE] [--json]",
		details: `Reads results of "procalloc sweep" or "procalloc merge" (or the --json output of
"procalloc compare") and draws --y (a metric key of
"sim --json", e.g. mean_response, mean_wait, mean_total_pairwise_l1,
mean_message_distance, utilization) against --x (contract, the load factor, or seed),
one line per allocator: the form of Bunde et al. 2004 Figs. 7-8. --where keeps the
items whose parameters match (trace, machine, sched, pattern, alloc), e.g.
--where machine=mesh:16x16,pattern=n-body; the other parameters must then leave one
value per allocator and x, else the plot says which parameter still varies. Prints a
table (rows x, one column per allocator), or JSON; --svg also writes the chart.`,
		example: `procalloc plot bunde.jsonl --where machine=mesh:16x16,pattern=n-body --y mean_response --svg fig8b.svg`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			x := fs.String("x", "contract", "parameter on the x axis: contract (load factor) or seed")
			y := fs.String("y", "mean_response", "metric `KEY` on the y axis (a key of sim --json)")
			where := fs.String("where", "", "keep items whose parameters match: `KEY=VALUE,...` (trace, machine, sched, pattern, alloc)")
			svg := fs.String("svg", "", "write the chart to `FILE` (SVG)")
			title := fs.String("title", "", "chart `TITLE` (default: the metric, the parameter and --where)")
			asJSON := fs.Bool("json", false, "print JSON: one series per allocator")
			out := fs.String("o", "", "write the table to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("want results files (from sweep or merge)")
				}
				if _, ok := plotParam(sweep.Params{}, *x); !ok {
					return usagef("--x %q: want contract or seed", *x)
				}
				filters := map[string]string{}
				if *where != "" {
					for _, kv := range strings.Split(*where, ",") {
						k, v, ok := strings.Cut(kv, "=")
						if !ok || !slices.Contains([]string{"trace", "machine", "sched", "pattern", "alloc"}, k) {
							return usagef("--where %q: want KEY=VALUE with KEY one of trace, machine, sched, pattern, alloc", kv)
						}
						filters[k] = v
					}
				}
				rep, err := readPlotInput(args)
				if err != nil {
					return err
				}
				match := func(p sweep.Params) bool {
					get := map[string]string{"trace": p.Trace, "machine": p.Machine, "sched": p.Sched, "pattern": p.Pattern, "alloc": p.Alloc}
					for k, v := range filters {
						if get[k] != v {
							return false
						}
					}
					return true
				}
				var series []lineSeries
				seen := map[string]sweep.Params{}
				for _, l := range rep.Lines {
					if l.Status != "ok" || !match(l.Params) {
						continue
					}
					xv, _ := plotParam(l.Params, *x)
					yv, ok := resultMetrics(l)[*y]
					if !ok {
						return fmt.Errorf("item #%d has no metric %q", l.Index, *y)
					}
					id := l.Params.Alloc + "@" + strconv.FormatFloat(xv, 'g', -1, 64)
					if prev, dup := seen[id]; dup {
						return fmt.Errorf("two items for %s at %s = %g differ in %s: narrow them with --where", l.Params.Alloc, *x, xv, differingParam(prev, l.Params))
					}
					seen[id] = l.Params
					k := slices.IndexFunc(series, func(s lineSeries) bool { return s.name == l.Params.Alloc })
					if k < 0 {
						series = append(series, lineSeries{name: l.Params.Alloc})
						k = len(series) - 1
					}
					series[k].x = append(series[k].x, xv)
					series[k].y = append(series[k].y, yv)
				}
				if len(series) == 0 {
					return fmt.Errorf("no successful item matches --where %q", *where)
				}
				if *svg != "" {
					t := *title
					if t == "" {
						t = fmt.Sprintf("%s against %s", *y, *x)
						if *where != "" {
							t += " — " + *where
						}
					}
					xlabel := *x
					if xlabel == "contract" {
						xlabel = "load factor (arrival times multiplied by it)"
					}
					if err := writeFileAtomic(e, *svg, func(w io.Writer) error { return writeLineChart(w, t, xlabel, metricLabel(*y), series) }); err != nil {
						return err
					}
				}
				return writeFileAtomic(e, *out, func(w io.Writer) error {
					if *asJSON {
						type js struct {
							Alloc string    `json:"alloc"`
							X     []float64 `json:"x"`
							Y     []float64 `json:"y"`
						}
						var o []js
						for _, s := range series {
							o = append(o, js{s.name, s.x, s.y})
						}
						return writeJSON(w, map[string]any{"x": *x, "y": *y, "series": o})
					}
					var xs []float64
					for _, s := range series {
						for _, v := range s.x {
							if !slices.Contains(xs, v) {
								xs = append(xs, v)
							}
						}
					}
					slices.Sort(xs)
					slices.Reverse(xs)
					header := []string{*x}
					for _, s := range series {
						header = append(header, s.name)
					}
					t := newTable(w, header...)
					for _, xv := range xs {
						row := []string{strconv.FormatFloat(xv, 'g', -1, 64)}
						for _, s := range series {
							cell := "-"
							if i := slices.Index(s.x, xv); i >= 0 {
								cell = strconv.FormatFloat(s.y[i], 'f', 1, 64)
							}
							row = append(row, cell)
						}
						t.row(row...)
					}
					return t.flush()
				})
			}
		},
	})
}

// differingParam names a parameter in which two items differ.
func differingParam(a, b sweep.Params) string {
	switch {
	case a.Trace != b.Trace:
		return "trace"
	case a.Machine != b.Machine:
		return "machine"
	case a.Sched != b.Sched:
		return "sched"
	case a.Pattern != b.Pattern:
		return "pattern"
	case a.Seed != b.Seed:
		return "seed"
	}
	b1, _ := json.Marshal(a.Flags)
	return "flags " + string(b1)
}

// readPlotInput reads sweep results, or compare --json outputs (each run becoming an
// item with its allocator, machine, pattern and load factor).
func readPlotInput(paths []string) (*sweep.MergeReport, error) {
	var lines []sweep.Line
	var sweepFiles []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var c struct {
			Trace string            `json:"trace"`
			Runs  []json.RawMessage `json:"runs"`
		}
		if json.Unmarshal(data, &c) != nil || c.Runs == nil {
			sweepFiles = append(sweepFiles, p)
			continue
		}
		for _, raw := range c.Runs {
			var r struct {
				Alloc, Machine, Sched string
				LoadFactor            float64 `json:"load_factor"`
				Comm                  *struct{ Pattern string }
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			pat := "none"
			if r.Comm != nil {
				pat = r.Comm.Pattern
			}
			lines = append(lines, sweep.Line{Item: sweep.Item{Index: len(lines), Params: sweep.Params{Trace: c.Trace, Machine: r.Machine,
				Alloc: r.Alloc, Sched: r.Sched, Contract: cmp.Or(r.LoadFactor, 1), Pattern: pat}}, Status: "ok", Result: raw})
		}
	}
	rep := &sweep.MergeReport{Lines: lines}
	if len(sweepFiles) > 0 {
		m, err := sweep.Merge(sweepFiles, nil)
		if err != nil {
			return nil, err
		}
		rep.Lines = append(rep.Lines, m.Lines...)
	}
	return rep, nil
}
