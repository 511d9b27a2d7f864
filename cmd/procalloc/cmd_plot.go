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
mean_message_distance, utilization; with a pattern the network's figures, the keys
of its comm object after comm_: comm_messages, comm_mean_latency_cycles,
comm_max_link_messages, comm_max_link_load, comm_run_time_fraction, which items of
pattern none lack: --where pattern=... keeps those that have them)
against --x (contract, the load factor, or seed),
one line per allocator: the form of Bunde et al. 2004 Figs. 7-8. --where keeps the
items whose parameters match (trace, machine, sched, pattern, alloc, contract, seed,
engine: message or flit; contract and seed compare as numbers, so contract=0.50
matches 0.5), e.g.
--where machine=mesh:16x16,pattern=n-body; values are matched as the sweep file
wrote them (a trace by the path listed under traces:, not its base name) and may
hold commas (machine=fattree:4,2:4; an empty item, alloc=mm, is refused). The other parameters must then leave one
value per allocator and x, else plot names each parameter that still varies, with
its values, and a --where that keeps one value of each (exit 1). Prints a
table under a line naming it (the --y metric with its unit, against --x, and the
--where), rows x, one column per allocator, values to 3 significant digits, at least
one decimal; or JSON (every digit); --svg also writes the chart.
A file - is standard input (once). Results files are read as by merge (lines of at
most 16 MiB, files of at most 8 GiB, damaged lines skipped with a warning), a
compare --json file is at most 8 GiB. A --y metric the items lack, or a --where that
matches no item, is a usage error (exit 2). --svg needs values that are 0 or between
1e-300 and 1e300 in magnitude, else it is an error naming the value (without --svg
the table shows any value).`,
		example: `procalloc plot bunde.jsonl --where machine=mesh:16x16,pattern=n-body --y mean_response --svg fig8b.svg
procalloc merge bunde.shard-*.jsonl | procalloc plot - --where pattern=n-body,contract=1 --x seed
procalloc plot bunde.jsonl --where pattern=n-body --title 'Bunde 2004, n-body' --svg nbody.svg -o nbody.txt
procalloc plot bunde.jsonl --where pattern=n-body --json
procalloc plot bunde.jsonl --where pattern=all-to-all --y comm_mean_latency_cycles --svg latency.svg`,
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
					return usagef("--x %q: want contract or seed%s", *x, textin.DidYouMean(*x, []string{"contract", "seed"}))
				}
				terms, err := parseWhereTerms(*where)
				if err != nil {
					return err
				}
				match := allOf(terms)
				rep, err := readPlotInput(e, args)
				if err != nil {
					return err
				}
				warnDamaged(e.stderr, "plot", rep.Damaged)
				warnBuilds(e.stderr, "plot", rep.Builds)
				matched := 0
				for _, l := range rep.Lines {
					if match(l.Params) {
						matched++
					}
				}
				if matched == 0 && len(rep.Lines) > 0 {
					return usagef("--where %q matches none of the %d items%s", *where, len(rep.Lines), whereMisses(terms, rep.Lines))
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
						return plotNoMetric(*y, l, rep.Lines)
					}
					id := l.Params.Alloc + "@" + strconv.FormatFloat(xv, 'g', -1, 64)
					if prev, dup := seen[id]; dup {
						return fmt.Errorf("two items for %s at %s = %g differ in %s: narrow them with --where%s", l.Params.Alloc, *x, xv, differingParam(prev, l.Params), stillVarying(*where, *x, rep.Lines, match))
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
						// The metric shown, as the SVG's title and axis name it: the
						// table's columns are the allocators.
						caption := metricLabel(*y) + " against " + *x
						if *where != "" {
							caption += " — " + *where
						}
						fmt.Fprintln(w, caption)
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
									cell = plotCell(s.Y[i])
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

// plotCell writes a table's value with at least 3 significant digits and at
// least one decimal: 13820.1, 10.0, 3.29, 0.614. One decimal for all showed
// utilization 0.61 and 0.64 alike as 0.6, and pairwise distances of 3.29 and
// 3.33 as 3.3 (the JSON has every digit).
func plotCell(v float64) string {
	decimals := 1
	if a := math.Abs(v); a > 0 && !math.IsInf(a, 0) {
		decimals = max(1, 2-int(math.Floor(math.Log10(a))))
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// whereTerm is one KEY=VALUE of --where: the text, its key and its test.
type whereTerm struct {
	text, key string
	test      func(sweep.Params) bool
}

// parseWhereTerms reads --where: KEY=VALUE pairs, all of which must hold (allOf);
// contract and seed compare as numbers, and a value may hold commas (not two in a
// row, nor one at the end: an empty item is refused).
func parseWhereTerms(where string) ([]whereTerm, error) {
	var terms []whereTerm
	if where != "" {
		// A piece that does not start with KEY= continues the value before it:
		// machine=fattree:4,2:4 and alloc=mc1x1:tb=3,9,3,2 keep their commas.
		var pieces []string
		for _, piece := range strings.Split(where, ",") {
			if piece == "" {
				// No parameter value ends in a comma or holds two: a comma too many
				// (alloc=mm, was a test of the allocator "mm,", matching nothing).
				return nil, usagef("--where %q: an empty item (a comma too many?); want KEY=VALUE,... with KEY one of %s", where, strings.Join(whereKeys, ", "))
			}
			k, _, ok := strings.Cut(piece, "=")
			if len(pieces) > 0 && (!ok || !slices.Contains(whereKeys, k) && k != "load_factor") {
				pieces[len(pieces)-1] += "," + piece
				continue
			}
			pieces = append(pieces, piece)
		}
		for _, kv := range pieces {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, usagef("--where %q: want KEY=VALUE with KEY one of %s", kv, strings.Join(whereKeys, ", "))
			}
			var test func(sweep.Params) bool
			switch k {
			case "trace", "machine", "sched", "pattern", "alloc":
				test = func(p sweep.Params) bool { return paramText(p, k) == v }
			case "contract", "load_factor":
				c, ok := parseFinite(v)
				if !ok {
					return nil, usagef("--where %q: %q is not a load factor (a number)", kv, v)
				}
				test = func(p sweep.Params) bool { return p.Contract == c }
			case "seed":
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return nil, usagef("--where %q: %q is not a seed (an integer from 0 to %d)", kv, v, uint64(math.MaxUint64))
				}
				test = func(p sweep.Params) bool { return p.Seed == n }
			case "engine":
				eng, err := sim.ParseEngine(v)
				if err != nil || v == "" {
					return nil, usagef("--where %q: %q is not an engine (want %s)", kv, v, sim.Choices(sim.Engines()))
				}
				test = func(p sweep.Params) bool { return p.Engine == eng }
			default:
				return nil, usagef("--where %q: unknown key %q%s; want KEY=VALUE with KEY one of %s", kv, k, textin.DidYouMean(k, whereKeys), strings.Join(whereKeys, ", "))
			}
			terms = append(terms, whereTerm{kv, k, test})
		}
	}
	return terms, nil
}

// parseWhere reads --where into a filter on items (parseWhereTerms, allOf).
func parseWhere(where string) (func(sweep.Params) bool, error) {
	terms, err := parseWhereTerms(where)
	if err != nil {
		return nil, err
	}
	return allOf(terms), nil
}

// allOf is the filter of all terms.
func allOf(terms []whereTerm) func(sweep.Params) bool {
	return func(p sweep.Params) bool {
		for _, t := range terms {
			if !t.test(p) {
				return false
			}
		}
		return true
	}
}

// paramText is parameter key of p as --where writes it (load_factor: contract).
func paramText(p sweep.Params, key string) string {
	switch key {
	case "trace":
		return p.Trace
	case "machine":
		return p.Machine
	case "sched":
		return string(p.Sched)
	case "pattern":
		return p.Pattern
	case "alloc":
		return p.Alloc
	case "contract", "load_factor":
		return strconv.FormatFloat(p.Contract, 'g', -1, 64)
	case "seed":
		return strconv.FormatUint(p.Seed, 10)
	case "engine":
		if p.Engine == "" {
			return sim.EngineMessage.String()
		}
		return p.Engine.String()
	}
	return ""
}

// distinctValues lists the values of key among the lines that keep passes, in
// the order met.
func distinctValues(lines []sweep.Line, key string, keep func(sweep.Params) bool) []string {
	var vs []string
	for _, l := range lines {
		if keep(l.Params) {
			if v := paramText(l.Params, key); !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// listValues quotes at most 6 values, counting the rest.
func listValues(vs []string) string {
	clipped := make([]string, len(vs))
	for i, v := range vs {
		clipped[i] = textin.Clip(v)
	}
	return textin.FirstFew(clipped, 6, ", ")
}

// whereMisses says, for the --where terms that match no item on their own, which
// values the items have (a trace is matched as the sweep file wrote it, a path,
// not its base name); "" when each term matches some item and only their
// combination matches none.
func whereMisses(terms []whereTerm, lines []sweep.Line) string {
	var parts []string
	for _, t := range terms {
		if slices.ContainsFunc(lines, func(l sweep.Line) bool { return t.test(l.Params) }) {
			continue
		}
		all := func(sweep.Params) bool { return true }
		vs := distinctValues(lines, t.key, all)
		hint := "" // a near value (n-body for nbody); numbers are not spelt
		if _, value, _ := strings.Cut(t.text, "="); t.key != "contract" && t.key != "seed" {
			hint = textin.DidYouMean(value, vs)
		}
		values := fmt.Sprintf("the items' %s values: %s%s", t.key, listValues(vs), hint)
		if len(terms) == 1 { // the message has just quoted the one term
			return ": " + values
		}
		parts = append(parts, fmt.Sprintf("%s matches no item; %s", t.text, values))
	}
	if len(parts) == 0 {
		return " (each KEY=VALUE matches some items, not all of them together)"
	}
	return ": " + strings.Join(parts, "; ")
}

// stillVarying names every parameter but alloc and the x axis that has more
// than one value among the successful items --where keeps, with the values, and
// a --where that keeps one value of each: the next command to try.
func stillVarying(where, x string, lines []sweep.Line, match func(sweep.Params) bool) string {
	keep := func(p sweep.Params) bool { return match(p) }
	ok := make([]sweep.Line, 0, len(lines))
	for _, l := range lines {
		if l.Status == sweep.StatusOK {
			ok = append(ok, l)
		}
	}
	var parts, more []string
	for _, k := range whereKeys {
		if k == "alloc" || k == x || (k == "contract" && x == "load_factor") {
			continue
		}
		vs := distinctValues(ok, k, keep)
		if len(vs) < 2 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", k, listValues(vs)))
		more = append(more, k+"="+vs[0])
	}
	if len(parts) == 0 {
		return ""
	}
	w := strings.Join(more, ",")
	if where != "" {
		w = where + "," + w
	}
	return fmt.Sprintf("; the items it keeps still vary in %s: e.g. --where '%s'", strings.Join(parts, ", "), w)
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
		br := bufio.NewReaderSize(textin.Decompress(f), 64<<10)
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
		rep.Damaged, rep.Builds = m.Damaged, m.Builds
	}
	return rep, nil
}

// looksLikeResults peeks at the first bytes after white space: a results line
// begins {"sweep", an empty file is results with no lines.
func looksLikeResults(br *bufio.Reader) (bool, error) {
	if start, _ := br.Peek(textin.StartLen); bytes.HasPrefix(start, []byte(textin.BOM)) {
		br.Discard(len(textin.BOM)) // Windows Notepad's "UTF-8 with BOM"
	} else if err := textin.CheckStart(string(start)); err != nil {
		return false, err
	}
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

// plotNoMetric is the usage error of --y naming no numeric metric of line l: a
// metric of the network (comm_...) on an item without a pattern says that it was
// replayed without communication and which items have it (of lines); a key whose
// value is not a number (a string, null, an object) says so; else the numeric
// metrics are listed ("it has )" when there were none).
func plotNoMetric(y string, l sweep.Line, lines []sweep.Line) error {
	if m, ok := sim.MetricByKey(y); ok && m.Group == sim.MetricsComm && l.Params.Pattern == "none" {
		pats := distinctValues(lines, "pattern", func(p sweep.Params) bool { return p.Pattern != "none" })
		hint := "no item here has one (a sweep file's patterns: key, compare --comm)"
		if len(pats) > 0 {
			hint = fmt.Sprintf("the items of pattern %s have it: e.g. --where pattern=%s", listValues(pats), pats[0])
		}
		return usagef("--y %s: item #%d has pattern none, a replay without communication, which has no network figures (the comm_ metrics are a pattern's); %s", y, l.Index, hint)
	}
	var raw map[string]json.RawMessage
	json.Unmarshal(l.Result, &raw)
	if v, ok := raw[y]; ok {
		return usagef("--y %q: item #%d's %s is %s, not a number: plot draws numeric metrics", y, l.Index, y, textin.Clip(string(v)))
	}
	have := slices.Sorted(maps.Keys(resultMetrics(l)))
	if len(have) == 0 {
		return usagef("--y %q: item #%d has no such metric, and no numeric metric at all", y, l.Index)
	}
	return usagef("--y %q: item #%d has no such metric%s (it has %s)", y, l.Index, textin.DidYouMean(y, have), strings.Join(have, ", "))
}
