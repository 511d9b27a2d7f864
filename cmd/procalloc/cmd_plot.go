package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/sim"
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
		usage:   "plot RESULTS.jsonl...|- [--x contract] [--y mean_response] [--where KEY=VALUE,...] [--svg FILE] [--json]",
		details: `Reads results of "procalloc sweep" or "procalloc merge" (or the --json output of
"procalloc compare") and draws --y (a metric key of
"sim --json", e.g. mean_response, mean_wait, mean_total_pairwise_l1,
mean_message_distance, utilization) against --x (contract, the load factor, or seed),
one line per allocator: the form of Bunde et al. 2004 Figs. 7-8. --where keeps the
items whose parameters match (trace, machine, sched, pattern, alloc, contract, seed,
engine: message or flit; contract and seed compare as numbers, so contract=0.50
matches 0.5), e.g.
--where machine=mesh:16x16,pattern=n-body; the other parameters must then leave one
value per allocator and x, else the plot says which parameter still varies. Prints a
table (rows x, one column per allocator), or JSON; --svg also writes the chart.
A file - is standard input (once). Results files are read as by merge (lines of at
most 16 MiB, files of at most 8 GiB, damaged lines skipped with a warning), a
compare --json file is at most 8 GiB. A --y metric the items lack, or a --where that
matches no item, is a usage error (exit 2). --svg needs values that are 0 or between
1e-300 and 1e300 in magnitude, else it is an error naming the value (without --svg
the table shows any value).`,
		example: `procalloc plot bunde.jsonl --where machine=mesh:16x16,pattern=n-body --y mean_response --svg fig8b.svg
procalloc merge bunde.shard-*.jsonl | procalloc plot - --where pattern=n-body,contract=1 --x seed
procalloc plot bunde.jsonl --where pattern=n-body --title 'Bunde 2004, n-body' --svg nbody.svg -o nbody.txt
procalloc plot bunde.jsonl --where pattern=n-body --json`,
		yourFiles: []yourFile{{"bunde.jsonl", "the merged results of a sweep (procalloc merge bunde.shard-*.jsonl -o bunde.jsonl)"}, yourShards},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			x := fs.String("x", "contract", "parameter on the x axis: contract (load factor) or seed")
			y := fs.String("y", sim.MetricMeanResponse, "metric `KEY` on the y axis (a key of sim --json)")
			where := fs.String("where", "", "keep items whose parameters match: `KEY=VALUE,...` (trace, machine, sched, pattern, alloc, contract, seed, engine)")
			svg := fs.String("svg", "", "write the chart to `FILE` (SVG)")
			title := fs.String("title", "", "chart `TITLE` (default: the metric, the parameter and --where)")
			asJSON := fs.Bool("json", false, "print JSON: one series per allocator")
			out := fs.String("o", "", "write the table to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("want results files (from sweep or merge), or - for standard input")
				}
				if n := countStdin(args); n > 1 {
					return usagef("standard input (-) given %d times: it can be read once", n)
				}
				if _, ok := plotParam(sweep.Params{}, *x); !ok {
					return usagef("--x %q: want contract or seed", *x)
				}
				match, err := parseWhere(*where)
				if err != nil {
					return err
				}
				rep, err := readPlotInput(e, args)
				if err != nil {
					return err
				}
				warnDamaged(e.stderr, "plot", rep.Damaged)
				matched := 0
				for _, l := range rep.Lines {
					if match(l.Params) {
						matched++
					}
				}
				if matched == 0 && len(rep.Lines) > 0 {
					return usagef("--where %q matches none of the %d items", *where, len(rep.Lines))
				}
				var series []plot.Series
				seen := map[string]sweep.Params{}
				for _, l := range rep.Lines {
					if l.Status != "ok" || !match(l.Params) {
						continue
					}
					xv, _ := plotParam(l.Params, *x)
					yv, ok := resultMetrics(l)[*y]
					if !ok {
						return plotNoMetric(*y, l)
					}
					id := l.Params.Alloc + "@" + strconv.FormatFloat(xv, 'g', -1, 64)
					if prev, dup := seen[id]; dup {
						return fmt.Errorf("two items for %s at %s = %g differ in %s: narrow them with --where", l.Params.Alloc, *x, xv, differingParam(prev, l.Params))
					}
					seen[id] = l.Params
					k := slices.IndexFunc(series, func(s plot.Series) bool { return s.Name == l.Params.Alloc })
					if k < 0 {
						series = append(series, plot.Series{Name: l.Params.Alloc})
						k = len(series) - 1
					}
					series[k].X = append(series[k].X, xv)
					series[k].Y = append(series[k].Y, yv)
				}
				switch {
				case len(series) > 0:
				case len(rep.Lines) == 0:
					return fmt.Errorf("no results lines in %s: nothing to plot", strings.Join(args, ", "))
				case *where == "":
					return fmt.Errorf("none of the %d items in %s succeeded: nothing to plot", len(rep.Lines), strings.Join(args, ", "))
				default:
					return fmt.Errorf("no successful item matches --where %q", *where)
				}
				var chart bytes.Buffer
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
					if err := drawablePlot(*x, *y, series); err != nil {
						return err
					}
					if err := (plot.LineChart{Title: t, XLabel: xlabel, YLabel: metricLabel(*y), Series: series, FromZero: true}).WriteSVG(&chart); err != nil {
						return err
					}
					if badCoordinate.Match(chart.Bytes()) {
						return fmt.Errorf("--svg: the values of %s against %s cannot be drawn (their range gives coordinates that are not finite numbers); the table has them", *y, *x)
					}
				}
				// The chart and the table all or none.
				return writeOutputs(e,
					namedOutput{"--svg", *svg, func(w io.Writer) error { _, err := w.Write(chart.Bytes()); return err }},
					namedOutput{"-o", *out, func(w io.Writer) error {
						if *asJSON {
							type js struct {
								Alloc string    `json:"alloc"`
								X     []float64 `json:"x"`
								Y     []float64 `json:"y"`
							}
							var o []js
							for _, s := range series {
								o = append(o, js{s.Name, s.X, s.Y})
							}
							return writeJSON(w, map[string]any{"x": *x, "y": *y, "series": o})
						}
						var xs []float64
						for _, s := range series {
							for _, v := range s.X {
								if !slices.Contains(xs, v) {
									xs = append(xs, v)
								}
							}
						}
						slices.Sort(xs)
						slices.Reverse(xs)
						header := []string{*x}
						for _, s := range series {
							header = append(header, s.Name)
						}
						t := newTable(w, header...)
						for _, xv := range xs {
							row := []string{strconv.FormatFloat(xv, 'g', -1, 64)}
							for _, s := range series {
								cell := "-"
								if i := slices.Index(s.X, xv); i >= 0 {
									cell = strconv.FormatFloat(s.Y[i], 'f', 1, 64)
								}
								row = append(row, cell)
							}
							t.row(row...)
						}
						return t.flush()
					}})
			}
		},
	})
}

// parseWhere reads --where into a filter on items: KEY=VALUE pairs, all of which
// must hold; contract and seed compare as numbers.
func parseWhere(where string) (func(sweep.Params) bool, error) {
	var tests []func(sweep.Params) bool
	if where != "" {
		for _, kv := range strings.Split(where, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, usagef("--where %q: want KEY=VALUE with KEY one of %s", kv, strings.Join(whereKeys, ", "))
			}
			switch k {
			case "trace", "machine", "sched", "pattern", "alloc":
				tests = append(tests, func(p sweep.Params) bool {
					return map[string]string{"trace": p.Trace, "machine": p.Machine, "sched": string(p.Sched), "pattern": p.Pattern, "alloc": p.Alloc}[k] == v
				})
			case "contract", "load_factor":
				c, ok := parseFinite(v)
				if !ok {
					return nil, usagef("--where %q: %q is not a load factor (a number)", kv, v)
				}
				tests = append(tests, func(p sweep.Params) bool { return p.Contract == c })
			case "seed":
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return nil, usagef("--where %q: %q is not a seed (an integer from 0 to %d)", kv, v, uint64(math.MaxUint64))
				}
				tests = append(tests, func(p sweep.Params) bool { return p.Seed == n })
			case "engine":
				eng, err := sim.ParseEngine(v)
				if err != nil || v == "" {
					return nil, usagef("--where %q: %q is not an engine (want %s)", kv, v, sim.Choices(sim.Engines()))
				}
				tests = append(tests, func(p sweep.Params) bool { return p.Engine == eng })
			default:
				return nil, usagef("--where %q: want KEY=VALUE with KEY one of %s", kv, strings.Join(whereKeys, ", "))
			}
		}
	}
	return func(p sweep.Params) bool {
		for _, t := range tests {
			if !t(p) {
				return false
			}
		}
		return true
	}, nil
}

var whereKeys = []string{"trace", "machine", "sched", "pattern", "alloc", "contract", "seed", "engine"}

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
	case a.Contract != b.Contract:
		return "contract"
	case a.Seed != b.Seed:
		return "seed"
	case a.Engine != b.Engine:
		return "engine"
	case !slices.Equal(a.Flags, b.Flags):
		b1, _ := json.Marshal(a.Flags)
		b2, _ := json.Marshal(b.Flags)
		return "flags (" + string(b1) + " and " + string(b2) + ")"
	}
	return "nothing: the same item is given twice (compare outputs of one replay?)"
}

// The chart's axes are worked out in float64: values beyond 1e300 in magnitude
// overflow its spans, and positive values below 1e-300 its logarithmic axis.
const chartMax, chartMin = 1e300, 1e-300

// drawablePlot refuses values the chart cannot place, naming the first.
func drawablePlot(x, y string, series []plot.Series) error {
	for _, s := range series {
		for i := range s.X {
			for _, v := range []struct {
				name string
				v    float64
			}{{x, s.X[i]}, {y, s.Y[i]}} {
				if a := math.Abs(v.v); math.IsNaN(v.v) || a > chartMax || (a != 0 && a < chartMin) {
					return fmt.Errorf("--svg: %s has %s = %g, which the chart cannot draw (values must be 0 or between %g and %g in magnitude); the table has it", s.Name, v.name, v.v, chartMin, chartMax)
				}
			}
		}
	}
	return nil
}

// badCoordinate finds a coordinate of an SVG that is not a finite number.
var badCoordinate = regexp.MustCompile(`="[^"]*(NaN|Inf)`)

// readPlotInput reads sweep results, or compare --json outputs (each run becoming an
// item with its allocator, machine, pattern and load factor); "-" is standard
// input. A file whose first bytes (after spaces) are those of a results line is
// read as results, anything else as one compare --json document.
func readPlotInput(e *env, paths []string) (*sweep.MergeReport, error) {
	var lines []sweep.Line
	var sweepFiles []sweep.Input
	for _, p := range paths {
		f, err := openInput(e, p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		name := inputName(p)
		br := bufio.NewReaderSize(f, 64<<10)
		if isResults, err := looksLikeResults(br); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		} else if isResults {
			sweepFiles = append(sweepFiles, sweep.Input{Name: name, R: br})
			continue
		}
		var c struct {
			Trace string            `json:"trace"`
			Runs  []json.RawMessage `json:"runs"`
		}
		dec := json.NewDecoder(io.LimitReader(br, sweep.MaxResultsBytes+1))
		if err := dec.Decode(&c); err != nil {
			// A number, string or list where the object or one of its two fields
			// should be: say that, not the Go type it failed to decode into.
			if ute := (*json.UnmarshalTypeError)(nil); errors.As(err, &ute) {
				switch ute.Field {
				case "":
					return nil, fmt.Errorf("%s: neither sweep results nor compare --json output: a JSON %s, not an object", name, ute.Value)
				case "trace":
					return nil, fmt.Errorf("%s: neither sweep results nor compare --json output: \"trace\" is a JSON %s, not a string", name, ute.Value)
				case "runs":
					return nil, fmt.Errorf("%s: neither sweep results nor compare --json output: \"runs\" is a JSON %s, not a list of runs", name, ute.Value)
				}
			}
			return nil, fmt.Errorf("%s: neither sweep results nor compare --json output: %w", name, err)
		}
		if dec.InputOffset() > sweep.MaxResultsBytes {
			return nil, fmt.Errorf("%s: longer than %d GiB, the most a compare output may be", name, sweep.MaxResultsBytes>>30)
		}
		if c.Runs == nil {
			return nil, fmt.Errorf("%s: neither sweep results nor compare --json output (no \"runs\")", name)
		}
		for _, raw := range c.Runs {
			var r struct {
				Alloc, Machine, Sched string
				LoadFactor            float64 `json:"load_factor"`
				Comm                  *struct{ Pattern string }
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			pat := "none"
			if r.Comm != nil {
				pat = r.Comm.Pattern
			}
			lines = append(lines, sweep.Line{Item: sweep.Item{Index: len(lines), Params: sweep.Params{Trace: c.Trace, Machine: r.Machine,
				Alloc: r.Alloc, Sched: sim.Sched(r.Sched), Contract: cmp.Or(r.LoadFactor, 1), Pattern: pat}}, Status: sweep.StatusOK, Result: raw})
		}
	}
	rep := &sweep.MergeReport{Lines: lines}
	if len(sweepFiles) > 0 {
		m, err := sweep.MergeInputs(sweepFiles, nil)
		if err != nil {
			return nil, err
		}
		rep.Lines = append(rep.Lines, m.Lines...)
		rep.Damaged = m.Damaged
	}
	return rep, nil
}

// looksLikeResults peeks at the first bytes after white space: a results line
// begins {"sweep", an empty file is results with no lines.
func looksLikeResults(br *bufio.Reader) (bool, error) {
	for skipped := 0; ; skipped++ {
		b, err := br.Peek(1)
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if !strings.ContainsRune(" \t\r\n", rune(b[0])) {
			break
		}
		if skipped == sweep.MaxLineBytes {
			return false, fmt.Errorf("more than %d MiB of white space", sweep.MaxLineBytes>>20)
		}
		br.ReadByte()
	}
	head, _ := br.Peek(len(`{"sweep"`))
	return string(head) == `{"sweep"`, nil
}

// plotNoMetric is the usage error of --y naming no numeric metric of line l: a key
// whose value is not a number (a string, null, an object) says so; else the
// numeric metrics are listed ("it has )" when there were none).
func plotNoMetric(y string, l sweep.Line) error {
	var raw map[string]json.RawMessage
	json.Unmarshal(l.Result, &raw)
	if v, ok := raw[y]; ok {
		return usagef("--y %q: item #%d's %s is %s, not a number: plot draws numeric metrics", y, l.Index, y, textin.Clip(string(v)))
	}
	have := slices.Sorted(maps.Keys(resultMetrics(l)))
	if len(have) == 0 {
		return usagef("--y %q: item #%d has no such metric, and no numeric metric at all", y, l.Index)
	}
	return usagef("--y %q: item #%d has no such metric (it has %s)", y, l.Index, strings.Join(have, ", "))
}
