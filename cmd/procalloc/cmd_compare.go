package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/sim"
)

// splitAllocSpecs splits a comma-separated list of allocator specs. Commas also
// separate the numbers of "mc1x1:tb=3,9,3,2", so a piece that starts like a number
// continues the previous spec (alloc.ContinuesSpec).
func splitAllocSpecs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil // no --alloc at all: the caller says one is needed
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			out = append(out, "") // refused by the caller: an empty spec is a typo
			continue
		}
		if len(out) > 0 && alloc.ContinuesSpec(p) {
			out[len(out)-1] += "," + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// allocList parses an --alloc list (splitAllocSpecs) and refuses an empty list, an
// empty entry (two commas) and an allocator listed twice: two rows or columns of one
// measurement, which compare, batch and bench would print side by side as if they
// differed.
func allocList(flagValue string) ([]string, error) {
	specs := splitAllocSpecs(flagValue)
	if len(specs) == 0 {
		return nil, usagef("--alloc needs at least one allocator spec")
	}
	for i, s := range specs {
		if s == "" {
			return nil, usagef("--alloc %q: allocator %d of the list is empty (two commas?)", flagValue, i+1)
		}
	}
	if err := refuseRepeats("--alloc", flagValue, "allocators", specs); err != nil {
		return nil, err
	}
	return specs, nil
}

// compareOutput is the JSON of "procalloc compare".
type compareOutput struct {
	Trace    string `json:"trace"`
	BadLines int    `json:"bad_lines"`
	// DroppedLarger counts the jobs --drop-larger removed.
	DroppedLarger int `json:"dropped_larger"`
	// DroppedUnknownHosts counts the jobs --drop-unknown-hosts removed.
	DroppedUnknownHosts int           `json:"dropped_unknown_hosts"`
	Runs                []sim.Summary `json:"runs"`
	// Best names, for each metric that has a better way (sim.Metric.Better) and
	// differs between the runs, the runs holding its best value (the columns of
	// the table, which marks them with '*': compareBest).
	Best map[string][]string `json:"best,omitempty"`
}

func init() {
	register(&command{
		name:    "compare",
		summary: "replay one trace with several allocators (in parallel) and compare them side by side",
		usage:   "compare --trace FILE (--machine SPEC | --graph FILE) [--hosts FILE | --hostlist EXPR] --alloc SPEC1,SPEC2,... [--sched S] [--compat C] [--csv FILE] [--svg FILE] [--json]",
		details: `Runs "procalloc sim" once per allocator over the same trace, machine, scheduler and
load scaling, several at a time (--parallel), and prints the metrics side by side in
the order the allocators were given. Commas inside a tie-breaking vector are
understood: --alloc mc1x1,mc1x1:tb=3,9,3,2,bf:hilbert names three allocators.
The best value of each row is marked '*' (the lowest; the highest for
% contiguous; none where all agree or a metric has no better way, as utilization),
at the precision shown and among the replays of one load factor.
With --comm the table has sim's rows of the network's figures (docs/comm.md, "What
a replay reports"): messages delivered, mean message latency, the busiest link's
messages and load, run time / trace's, the seed, and on a dragonfly or graph whose
routes could wait in a cycle "distance classes per link" (the message engine gave
its links classes, so it cannot deadlock; absent on meshes, tori and fat trees).
--csv writes the table (with --comm the network's figures as comm_messages,
comm_mean_latency_cycles, comm_max_link_messages, comm_max_link_load,
comm_run_time_fraction, and comm_pattern, comm_seed, comm_distance_classes), --svg a bar chart of one
metric (--metric, which does nothing else: given without --svg it is warned of
and ignored; a comm_ metric needs --comm, with or without --svg), --json every
summary (the same keys as sim --json) and "best": each metric's best columns.
Machines, networks (--graph) and traces (sacct too), and host names (--hosts,
--hostlist) as for "procalloc sim"; the trace is read once for every allocator, and
with as-run among them, wherever listed, as as-run reads it: a recorded host the
machine lacks refused, or with --drop-unknown-hosts its jobs dropped for all; see
'procalloc help sim'; --baseline exact (and --baseline-time-limit) as for sim, in every
replay, with sim's baseline rows. Ctrl-C writes the
replays finished so far (every output) and exits with status 130. Every output
(-o, --csv, --svg) is checked for writability before the first replay starts.`,
		example: `procalloc compare --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --compat premas \
    --alloc mc1x1:tb=3,9,3,2,bf:hilbert,mc1x1,mm,genalg,bf:snake --svg fig18.svg
procalloc compare --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:10x10 --sched easy --alloc mc1x1,bf:gilbert --csv kth.csv
procalloc compare --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --alloc bf:name-order,bf:rcm,bf:opt.pairs,genalg
procalloc compare --trace sim/testdata/sacct-fattree.txt --graph topo/testdata/topology.conf --alloc as-run,slurm:tree:topo/testdata/topology.conf,bf:rcm --sched as-run
procalloc compare --trace sim/testdata/sacct-fattree.txt --graph blocks.conf --alloc as-run,slurm:block:blocks.conf,slurm:block:blocks.conf:rcm --sched as-run
procalloc compare --trace sim/testdata/sacct-fattree.txt --machine mesh:4x4 --hosts nodes.txt --alloc as-run,slurm:tree:topo/testdata/topology.conf,slurm:tree:topo/testdata/topology.conf:hilbert --sched as-run
procalloc compare --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --compat premas --alloc mc1x1,bf:hilbert --to 200000 --baseline exact --baseline-time-limit 100ms
procalloc compare --trace sim/testdata/LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --alloc mm,mc1x1,bf:hilbert --loads 1,0.8,0.6 --metric mean_response --svg loads.svg --parallel 4 --json -o loads.json
procalloc compare --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:16x16 --alloc mm,mc1x1 --comm n-body --engine flit --vcs 2 --from 1996-10-01 --to 1996-10-08
procalloc compare --trace ../shared/traces/KTH-SP2-1996-2.1-cln.swf.gz --machine dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13 --alloc bf:rcm,genalg --to 1996-10-08 --comm all-to-all --metric comm_mean_latency_cycles --svg latency.svg`,
		yourFiles: []yourFile{yourOptPairs, yourBlocks, yourNodes},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			var sf simFlags
			sf.declare(fs, "alloc", "by-size", "json")
			allocs := fs.String("alloc", "", "comma-separated allocator `SPECS`: "+strings.Join(alloc.Names(), ", "))
			csvOut := fs.String("csv", "", "also write the table as CSV to `FILE`")
			svgOut := fs.String("svg", "", "also write a bar chart of --metric to `FILE` (SVG)")
			metric := fs.String("metric", "mean_total_pairwise_l1", "metric of the --svg chart (a key of --csv's columns; comm_... with --comm)")
			par := fs.Int("parallel", runtime.GOMAXPROCS(0), "replays run at the same time")
			loads := fs.String("loads", "", "comma-separated load factors `L1,L2,...` (arrival contractions, as --contract): every allocator runs at each; --svg then plots --metric against the load factor, one line per allocator (Bunde et al. 2004 Figs. 7-8)")
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				specs, err := allocList(*allocs)
				if err != nil {
					return err
				}
				chart, ok := sim.MetricByKey(*metric)
				if !ok {
					keys := make([]string, len(sim.Metrics()))
					for i, m := range sim.Metrics() {
						keys[i] = m.Key
					}
					return usagef("--metric %q: not a metric key%s; valid: %s", *metric, textin.DidYouMean(*metric, keys), strings.Join(keys, ", "))
				}
				if *par < 1 {
					return usagef("--parallel %d: must be at least 1", *par)
				}
				contract, _ := strconv.ParseFloat(sf.value("contract"), 64)
				loadList := []float64{contract}
				if *loads != "" {
					if contract != 1 {
						return usagef("--loads replaces --contract; give one of them")
					}
					if loadList, err = parseLoads(*loads); err != nil {
						return usageError{err.Error()}
					}
				}
				// The trace is read and prepared once for every allocator: as the
				// as-run replay needs it when one of them is as-run (recorded hosts
				// looked up, --drop-unknown-hosts dropping), whatever its place in
				// the list (after another, the flag was ignored and the as-run
				// replay failed at the first retired host).
				first := specs[0]
				if i := slices.IndexFunc(specs, alloc.IsAsRun); i >= 0 {
					first = specs[i]
				}
				base, err := sf.spec(ctx, e, first)
				if err != nil {
					return err
				}
				if w := tiesCostWarning(base.Machine, base.Metrics, specs, ""); w != "" {
					e.warnf("%s", w)
				}
				// Refused with or without --svg: without it --metric names a
				// figure no replay will have as surely (it was let through then).
				if chart.Group == sim.MetricsComm && base.Comm == "" {
					return usagef("--metric %s: a figure of the network, which a replay without --comm has not (a chart of it would draw nothing): add --comm PATTERN, or name another metric", chart.Key)
				}
				// --metric only chooses the chart's metric: given alone it did
				// nothing, without a word.
				if *svgOut == "" && isFlagGiven(fs, "metric") {
					e.warnf("--metric %s is ignored: it chooses the metric of the --svg chart (the table, --csv and --json have every metric)", chart.Key)
				}
				if err := readTrace(ctx, e, &base); err != nil {
					return err
				}
				// The load factors' replays share the machine and its router.
				base.Networks = &sim.Networks{}
				// One replay per load factor and allocator, load-major: the trace is
				// read once and prepared once per load factor. Each load factor
				// contracts the arrivals after the flags' scaling.
				var rps []*sim.Replay
				var runs []compareRun
				for li, l := range loadList {
					s := base
					if *loads != "" {
						// Without --loads the one load factor is --contract, which the
						// flags' scaling already applied: contracting again would apply it
						// twice (compare once did: KTH at --contract 0.8 waited 18 times
						// longer under compare than under sim).
						s.LoadFactor = l
					}
					rp, err := s.Prepare()
					if err != nil {
						return specError(err)
					}
					if d := rp.DroppedUnknownHosts; d.Jobs > 0 && li == 0 {
						e.notef("%s", d.Note())
					}
					for si, a := range specs {
						r := *rp
						r.Spec.Alloc = a
						_, err := r.Config(ctx)
						printWarnings(e, r.Warnings())
						if err != nil {
							return specError(err)
						}
						rps = append(rps, &r)
						runs = append(runs, compareRun{si, li})
					}
				}
				finished := make([]bool, len(runs))
				var total int64
				for _, r := range rps {
					total += int64(r.NumJobs())
				}
				var (
					mu   sync.Mutex
					done = make([]int, len(runs))
					p    = newProgress(e, "compare", total)
				)
				// The replays report every finished job (cheap: a slot under the
				// lock); the bar is drawn from the slots on its own clock, so it
				// moves while a decision takes long.
				for i, r := range rps {
					r.Spec.Progress = func(d, _ int) {
						mu.Lock()
						done[i] = d
						mu.Unlock()
					}
				}
				stopBar := p.live(func() (int64, string) {
					mu.Lock()
					defer mu.Unlock()
					return int64(sumInts(done)), compareStatus(runs, done, finished, func(k int) int { return rps[k].NumJobs() })
				})
				// Results land in their own slots, so the output order is the order
				// given (load factors, then allocators); the first failure stops the rest.
				results := make([]sim.GridResult, len(rps))
				t0 := make([]time.Time, len(rps))
				seconds := make([]float64, len(rps))
				grid := sim.Grid{Workers: *par,
					Task: func(i int) (sim.Runner, error) { t0[i] = nowFunc(); return rps[i], nil },
					Done: func(i int, r sim.GridResult) error {
						seconds[i] = nowFunc().Sub(t0[i]).Seconds()
						results[i] = r
						mu.Lock()
						finished[i] = true
						mu.Unlock()
						return r.Err
					}}
				grid.Run(ctx, len(rps))
				stopBar()
				for i, r := range results {
					if r.Err != nil {
						err := r.Err
						if hinted := dropHint(err); hinted != nil {
							err = hinted
						}
						return fmt.Errorf("%s at load factor %g: %w", specs[runs[i].spec], loadList[runs[i].load], err)
					}
				}
				// Interrupted (Ctrl-C): the replays that finished are written, the
				// others dropped, and the command ends with status 130.
				var sums []sim.Summary
				for i, r := range results {
					if r.Report == nil {
						continue
					}
					sum := r.Report.Summary
					sum.LoadFactor = loadList[runs[i].load]
					sum.Seconds = seconds[i]
					sums = append(sums, sum)
				}
				interrupted := context.Cause(ctx)
				if len(sums) == len(runs) {
					interrupted = nil
				}
				if interrupted != nil && len(sums) == 0 {
					// A replay of 2 x 10^5 nodes takes minutes: say what is left.
					return fmt.Errorf("none of the %d replays had finished: nothing written; stopped: %w", len(runs), interrupted)
				}
				draw := func(w io.Writer) error { return writeBarChart(w, sums, chart) }
				if len(loadList) > 1 {
					draw = func(w io.Writer) error { return writeLoadChart(w, sums, chart) }
				}
				// The table, CSV and chart all or none: a failure in one leaves the
				// files of the others as they were.
				err = writeOutputs(e,
					namedOutput{"--csv", *csvOut, func(w io.Writer) error { return writeCompareCSV(w, sums) }},
					namedOutput{"--svg", *svgOut, draw},
					namedOutput{"-o", *out, func(w io.Writer) error {
						if *asJSON {
							return writeJSON(w, compareOutput{Trace: base.Trace, BadLines: base.TraceData.Bad, DroppedLarger: rps[0].DroppedLarger, DroppedUnknownHosts: rps[0].DroppedUnknownHosts.Jobs, Runs: sums, Best: compareBestJSON(sums)})
						}
						return printCompare(w, sums)
					}})
				if err == nil && interrupted != nil {
					if len(sums) == 1 {
						return fmt.Errorf("the 1 replay finished of %d was written; stopped: %w", len(runs), interrupted)
					}
					return fmt.Errorf("the %d replays finished of %d were written; stopped: %w", len(sums), len(runs), interrupted)
				}
				return err
			}
		},
	})
}

func printCompare(w io.Writer, sums []sim.Summary) error {
	if len(sums) > 0 {
		s := sums[0]
		comm := ""
		if s.Comm != nil {
			comm = ", " + s.Comm.Pattern + " communication"
		}
		fmt.Fprintf(w, "%s, %s scheduling, compat %s, %d jobs%s\n", s.Machine, s.Sched, s.Compat, s.Jobs, comm)
	}
	t := newTable(w, append([]string{"metric"}, compareColumns(sums)...)...)
	marked := false
	// mark is the row of metric m's cells with its best ones marked.
	mark := func(m sim.Metric, row []string) []string {
		for _, i := range compareBest(sums, m) {
			row[1+i] += "*"
			marked = true
		}
		return row
	}
	for _, m := range sim.Metrics() {
		if m.Group == sim.MetricsComm {
			continue // the network's rows come below, with --comm
		}
		row := []string{m.Name}
		for _, s := range sums {
			row = append(row, formatMetric(m, &s))
		}
		t.row(mark(m, row)...)
	}
	// The network's figures explain a difference in response times under --comm
	// (compare showed none of them).
	if slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.Comm != nil }) {
		for _, r := range commRows {
			if !slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.Comm != nil && r.isShown(&s) }) {
				continue // a row no run has (distance classes on a mesh): sim leaves it out too
			}
			row := []string{r.name}
			for _, s := range sums {
				if s.Comm != nil && r.isShown(&s) {
					row = append(row, r.value(&s))
				} else {
					row = append(row, "-")
				}
			}
			if r.metric != nil {
				row = mark(*r.metric, row)
			}
			t.row(row...)
		}
	}
	row := []string{"% tied decisions"}
	for _, s := range sums {
		if s.Ties != nil {
			row = append(row, fmt.Sprintf("%.1f", s.Ties.PctTied))
		} else {
			row = append(row, "-")
		}
	}
	t.row(row...)
	// With --baseline, its rows as sim prints them, one column per replay.
	if len(sums) > 0 {
		if base := baselineRows(&sums[0]); base != nil {
			for i, r := range base {
				row = []string{r[0]}
				for _, s := range sums {
					row = append(row, baselineRows(&s)[i][1])
				}
				t.row(row...)
			}
		}
	}
	// An exact allocator (opt) that ran out of budget is not optimal on those
	// decisions: say how many, as sim's summary does.
	if slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.Fallbacks != nil }) {
		row = []string{"exact decisions unproven"}
		for _, s := range sums {
			if f := s.Fallbacks; f != nil {
				row = append(row, fmt.Sprintf("%d of %d", f.Fallbacks, f.Decisions))
			} else {
				row = append(row, "-")
			}
		}
		t.row(row...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if marked {
		_, err := fmt.Fprintln(w, compareLegend(slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.Comm != nil })))
		return err
	}
	return nil
}

// compareLegend explains the table's marks (compareBest), naming the metrics of
// its rows (the network's with comm) that are better higher and those that have
// no better way (sim.Metric.Better).
func compareLegend(comm bool) string {
	var higher, neither []string
	for _, m := range tableMetrics(comm) {
		switch m.Better {
		case sim.Higher:
			higher = append(higher, m.Name)
		case sim.Neither:
			neither = append(neither, m.Name)
		}
	}
	l := "* best of its row at the precision shown: lower is better"
	if len(higher) > 0 {
		l += ", higher for " + strings.Join(higher, ", ")
	}
	if len(neither) > 0 {
		l += "; no better way: " + strings.Join(neither, ", ")
	}
	return l
}

// compareColumns are the headings of compare's columns, one per run: its
// allocator, and with several load factors "ALLOC @LOAD".
func compareColumns(sums []sim.Summary) []string {
	several := len(sums) > 0 && sums[0].LoadFactor != sums[len(sums)-1].LoadFactor
	var cols []string
	for _, s := range sums {
		if several {
			cols = append(cols, fmt.Sprintf("%s @%g", s.Alloc, s.LoadFactor))
		} else {
			cols = append(cols, s.Alloc)
		}
	}
	return cols
}

// compareBest returns the indices of the runs holding metric m's best value (the
// lowest or the highest: sim.Metric.Better) among the runs of their load factor
// that have it, compared at the precision the table shows (a difference it does
// not show marks nothing). None for a metric with no better way, and among runs
// whose values all agree or fewer than two of which have one.
func compareBest(sums []sim.Summary, m sim.Metric) []int {
	if m.Better == sim.Neither {
		return nil
	}
	var best []int
	done := map[float64]bool{}
	for _, s := range sums {
		if done[s.LoadFactor] {
			continue
		}
		done[s.LoadFactor] = true
		var idx []int
		var vals []float64
		for i := range sums {
			if sums[i].LoadFactor != s.LoadFactor || !m.Has(&sums[i]) {
				continue
			}
			v, _ := strconv.ParseFloat(formatMetric(m, &sums[i]), 64)
			idx, vals = append(idx, i), append(vals, v)
		}
		if len(vals) < 2 || slices.Min(vals) == slices.Max(vals) {
			continue
		}
		want := slices.Min(vals)
		if m.Better == sim.Higher {
			want = slices.Max(vals)
		}
		for k, v := range vals {
			if v == want {
				best = append(best, idx[k])
			}
		}
	}
	slices.Sort(best)
	return best
}

// compareBestJSON is compare --json's best: for each metric some run is best in,
// the columns (compareColumns) of those runs.
func compareBestJSON(sums []sim.Summary) map[string][]string {
	cols := compareColumns(sums)
	out := map[string][]string{}
	for _, m := range sim.Metrics() {
		for _, i := range compareBest(sums, m) {
			out[m.Key] = append(out[m.Key], cols[i])
		}
	}
	return out
}

// distanceClassesColumn is the CSV column of the message engine's distance classes
// per router-to-router link (sim.CommSummary.DistanceClasses, the tables' row
// "distance classes per link"), a parameter of the network as the seed is:
// compare --csv and merge --csv have it when some row has classes, its cell
// (distanceClassesCell) empty on the others.
const distanceClassesColumn = "comm_distance_classes"

// distanceClassesCell is a row's cell of distanceClassesColumn, empty without
// classes.
func distanceClassesCell(classes int) string {
	if classes <= 0 {
		return ""
	}
	return strconv.Itoa(classes)
}

// writeCompareCSV writes compare's table as CSV, one row per replay: its
// parameters, the metrics under their keys (sim.Metrics; with communication the
// pattern and seed as comm_pattern and comm_seed, the distance classes as
// comm_distance_classes where some run has any, and the network's metrics), ties,
// and the baseline's figures with --baseline. A cell is empty where a replay has
// no value.
func writeCompareCSV(w io.Writer, sums []sim.Summary) error {
	cw := csv.NewWriter(w)
	header := []string{"alloc", "machine", "sched", "compat", "load_factor", "jobs"}
	comm := slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.Comm != nil })
	if comm {
		header = append(header, "comm_pattern", "comm_seed")
	}
	classes := slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.Comm != nil && s.Comm.DistanceClasses > 0 })
	if classes {
		header = append(header, distanceClassesColumn)
	}
	metrics := tableMetrics(comm)
	for _, m := range metrics {
		header = append(header, m.Key)
	}
	header = append(header, "pct_tied", "avg_num_tied")
	// With --baseline, its figures under the JSON's keys (a cell empty where a
	// replay has none).
	baseline := slices.ContainsFunc(sums, func(s sim.Summary) bool { return s.BaselineDecisions != nil })
	if baseline {
		header = append(header, "mean_ratio_to_optimal", "baseline_proven", "baseline_proven_decisions", "baseline_decisions",
			"mean_ratio_to_optimal_lower", "mean_ratio_to_optimal_upper", "baseline_bounded")
	}
	cw.Write(header)
	float := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	integer := func(v *int) string {
		if v == nil {
			return ""
		}
		return strconv.Itoa(*v)
	}
	for _, s := range sums {
		row := []string{s.Alloc, s.Machine, s.Sched, s.Compat, strconv.FormatFloat(s.LoadFactor, 'f', -1, 64), strconv.Itoa(s.Jobs)}
		if c := s.Comm; c != nil {
			row = append(row, c.Pattern, strconv.FormatUint(c.Seed, 10))
		} else if comm {
			row = append(row, "", "")
		}
		if classes {
			n := 0
			if s.Comm != nil {
				n = s.Comm.DistanceClasses
			}
			row = append(row, distanceClassesCell(n))
		}
		for _, m := range metrics {
			if !m.Has(&s) {
				row = append(row, "")
				continue
			}
			row = append(row, csvNumber(m.Value(&s)))
		}
		if s.Ties != nil {
			row = append(row, strconv.FormatFloat(s.Ties.PctTied, 'f', -1, 64), strconv.FormatFloat(s.Ties.AvgNumTied, 'f', -1, 64))
		} else {
			row = append(row, "", "")
		}
		if baseline {
			row = append(row, float(s.MeanRatioToOptimal), float(s.BaselineProven), integer(s.BaselineProvenDecisions), integer(s.BaselineDecisions),
				float(s.MeanRatioToOptimalLower), float(s.MeanRatioToOptimalUpper), float(s.BaselineBounded))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvNumber is a metric's value in a CSV cell (compare --csv, merge --csv): plain
// decimals, every digit (not 3.311031e+06, which sort -n misreads).
func csvNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// writeBarChart draws one horizontal bar per allocator, titled by the metric with
// its unit (the bars have no axis to carry it).
func writeBarChart(w io.Writer, sums []sim.Summary, m sim.Metric) error {
	c := plot.BarChart{Title: metricAxis(m)}
	if len(sums) > 0 {
		c.Title = fmt.Sprintf("%s — %s, %s, %d jobs", metricAxis(m), sums[0].Machine, sums[0].Sched, sums[0].Jobs)
	}
	for _, s := range sums {
		c.Bars = append(c.Bars, plot.Bar{Label: s.Alloc, Value: m.Value(&s), Text: formatMetric(m, &s)})
	}
	return c.WriteSVG(w)
}

// parseLoads reads the --loads list: positive finite load factors, no repeats.
func parseLoads(s string) ([]float64, error) {
	out, err := parseList("--loads", s, func(f string) (float64, bool) {
		v, ok := parseFinite(f)
		return v, ok && v > 0 && v <= 1e6
	}, "a load factor greater than 0 and at most 1e6 (as --contract)")
	if err != nil {
		return nil, err
	}
	if err := refuseRepeats("--loads", s, "loads", out); err != nil {
		return nil, err
	}
	return out, nil
}

// writeLoadChart draws the metric against the load factor, one line per allocator
// (the form of Bunde et al. 2004 Figs. 7-8).
func writeLoadChart(w io.Writer, sums []sim.Summary, m sim.Metric) error {
	var series []plot.Series
	for _, s := range sums {
		k := slices.IndexFunc(series, func(l plot.Series) bool { return l.Name == s.Alloc })
		if k < 0 {
			series = append(series, plot.Series{Name: s.Alloc})
			k = len(series) - 1
		}
		series[k].X = append(series[k].X, s.LoadFactor)
		series[k].Y = append(series[k].Y, m.Value(&s))
	}
	title := m.Name
	if len(sums) > 0 {
		title = fmt.Sprintf("%s against load factor — %s, %s, %d jobs", m.Name, sums[0].Machine, sums[0].Sched, sums[0].Jobs)
		if sums[0].Comm != nil {
			title += ", " + sums[0].Comm.Pattern + " communication"
		}
	}
	return plot.LineChart{Title: title, XLabel: "load factor (arrival times multiplied by it)", YLabel: metricAxis(m), Series: series, FromZero: true}.WriteSVG(w)
}

// metricAxis is a metric's name with its unit (metricLabel reads the unit from the
// key), unless the name already gives it: "mean total pairwise L1 (hops)", "mean
// wait (s)".
func metricAxis(m sim.Metric) string {
	l := metricLabel(m.Key)
	if l == m.Key || strings.HasSuffix(m.Name, ")") {
		return m.Name
	}
	return m.Name + l[len(m.Key):]
}

// metricLabel is a metric's name with its unit, for a chart's axis.
func metricLabel(name string) string {
	unit := ""
	switch {
	case strings.HasSuffix(name, "_wait") || strings.HasSuffix(name, "_response") || name == "makespan":
		unit = "s"
	case strings.Contains(name, "pairwise_l1") || strings.Contains(name, "message_distance"):
		unit = "hops"
	case strings.Contains(name, "hop_bytes"):
		unit = "hops x bytes"
	case name == "utilization":
		unit = "fraction of node-seconds"
	}
	if unit == "" {
		return name
	}
	return name + " (" + unit + ")"
}

// compareRun is one replay of compare: an allocator spec and a load factor (indices).
type compareRun struct{ spec, load int }

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// compareStatus is the progress line of compare: how many replays are done, and the
// share of its jobs each running one has replayed (per allocator), so that a slow
// allocator is visible as such.
func compareStatus(runs []compareRun, done []int, finished []bool, jobs func(int) int) string {
	var b strings.Builder
	nf := 0
	for _, f := range finished {
		if f {
			nf++
		}
	}
	fmt.Fprintf(&b, "%d/%d replays done", nf, len(runs))
	shown := 0
	for k := range runs {
		if finished[k] || done[k] == 0 {
			continue
		}
		if shown == 3 {
			b.WriteString(" ...")
			break
		}
		fmt.Fprintf(&b, "; #%d %d%%", k+1, 100*done[k]/max(1, jobs(k)))
		shown++
	}
	return b.String()
}
