package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"html"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/sim"
)

// splitAllocSpecs splits a comma-separated list of allocator specs. Commas also
// separate the numbers of "mc1x1:tb=3,9,3,2", so a piece that starts like a number
// continues the previous spec.
func splitAllocSpecs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if len(out) > 0 && strings.IndexByte("0123456789-+.", p[0]) >= 0 {
			out[len(out)-1] += "," + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// compareOutput is the JSON of "procalloc compare".
type compareOutput struct {
	Trace    string `json:"trace"`
	BadLines int    `json:"bad_lines"`
	// DroppedLarger counts the jobs --drop-larger removed.
	DroppedLarger int           `json:"dropped_larger"`
	Runs          []sim.Summary `json:"runs"`
}

func init() {
	register(&command{
		name:    "compare",
		summary: "replay one trace with several allocators (in parallel) and compare them side by side",
		usage:   "compare --trace FILE --machine SPEC --alloc SPEC1,SPEC2,... [--sched S] [--compat C] [--csv FILE] [--svg FILE] [--json]",
		details: `Runs "procalloc sim" once per allocator over the same trace, machine, scheduler and
load scaling, several at a time (--parallel), and prints the metrics side by side in
the order the allocators were given. Commas inside a tie-breaking vector are
understood: --alloc mc1x1,mc1x1:tb=3,9,3,2,bf:hilbert names three allocators.
--csv writes the table, --svg a bar chart of one metric (--metric), --json every
summary (the same keys as sim --json).`,
		example: `procalloc compare --trace LLNL-T3D-1996-2.converted.txt.gz --machine mesh:16x16 --compat premas \
    --alloc mc1x1:tb=3,9,3,2,bf:hilbert,mc1x1,mm,genalg,bf:snake --svg fig18.svg
procalloc compare --trace KTH-SP2-1996-2.1-cln.swf.gz --machine mesh:10x10 --sched easy --alloc mc1x1,bf:gilbert --csv kth.csv`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			var sf simFlags
			sf.declare(fs)
			allocs := fs.String("alloc", "", "comma-separated allocator `SPECS`: "+strings.Join(alloc.Names(), ", "))
			csvOut := fs.String("csv", "", "also write the table as CSV to `FILE`")
			svgOut := fs.String("svg", "", "also write a bar chart of --metric to `FILE` (SVG)")
			metric := fs.String("metric", "mean_total_pairwise_l1", "metric of the --svg chart (a JSON key of the table)")
			par := fs.Int("parallel", runtime.GOMAXPROCS(0), "replays run at the same time")
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				specs := splitAllocSpecs(*allocs)
				if len(specs) == 0 {
					return usagef("--alloc needs at least one allocator spec")
				}
				var chart *summaryMetric
				for i := range summaryMetrics {
					if summaryMetrics[i].key == *metric {
						chart = &summaryMetrics[i]
					}
				}
				if chart == nil {
					return usagef("--metric %q: not a metric key", *metric)
				}
				if *par < 1 {
					return usagef("--parallel %d: must be at least 1", *par)
				}
				g, compat, tr, jobs, err := sf.load(e)
				if err != nil {
					return err
				}
				if _, _, _, err := sf.network(); err != nil {
					return err
				}
				allocators := make([]alloc.Allocator, len(specs))
				for i, s := range specs {
					if allocators[i], err = alloc.Parse(s, g, alloc.Options{Compat: compat}); err != nil {
						return usageError{err.Error()}
					}
				}
				// Run in parallel; results land in their own slots, so the output order
				// is the order given.
				results := make([]*sim.Result, len(specs))
				errs := make([]error, len(specs))
				var (
					mu   sync.Mutex
					done = make([]int, len(specs))
					p    = newProgress(e, "compare", int64(len(jobs)*len(specs)))
					wg   sync.WaitGroup
					sem  = make(chan struct{}, *par)
				)
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				for i := range specs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						sem <- struct{}{}
						defer func() { <-sem }()
						cfg, _ := sf.config(g, allocators[i], compat) // checked above
						cfg.Progress = func(d, _ int) {
							mu.Lock()
							done[i] = d
							sum := 0
							for _, v := range done {
								sum += v
							}
							p.Update(int64(sum), fmt.Sprintf("%d replays", len(specs)))
							mu.Unlock()
						}
						results[i], errs[i] = sim.Run(ctx, jobs, cfg)
						if errs[i] != nil {
							cancel()
						}
					}()
				}
				wg.Wait()
				p.Done()
				for i, err := range errs {
					if err != nil && err != context.Canceled {
						return fmt.Errorf("%s: %w", specs[i], err)
					}
				}
				for _, err := range errs {
					if err != nil {
						return err
					}
				}
				sums := make([]sim.Summary, len(results))
				for i, r := range results {
					sums[i] = r.Summary
				}
				if *csvOut != "" {
					if err := writeFileAtomic(e, *csvOut, func(w io.Writer) error { return writeCompareCSV(w, sums) }); err != nil {
						return err
					}
				}
				if *svgOut != "" {
					if err := writeFileAtomic(e, *svgOut, func(w io.Writer) error { return writeBarChart(w, sums, *chart) }); err != nil {
						return err
					}
				}
				return writeFileAtomic(e, *out, func(w io.Writer) error {
					if *asJSON {
						return writeJSON(w, compareOutput{Trace: sf.trace, BadLines: tr.Bad, DroppedLarger: sf.droppedLarger, Runs: sums})
					}
					return printCompare(w, sums)
				})
			}
		},
	})
}

func printCompare(w io.Writer, sums []sim.Summary) error {
	if len(sums) > 0 {
		s := sums[0]
		fmt.Fprintf(w, "%s, %s scheduling, compat %s, %d jobs\n", s.Machine, s.Sched, s.Compat, s.Jobs)
	}
	header := []string{"metric"}
	for _, s := range sums {
		header = append(header, s.Alloc)
	}
	t := newTable(w, header...)
	for _, m := range summaryMetrics {
		row := []string{m.name}
		for _, s := range sums {
			row = append(row, m.format(s))
		}
		t.row(row...)
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
	return t.flush()
}

func writeCompareCSV(w io.Writer, sums []sim.Summary) error {
	cw := csv.NewWriter(w)
	header := []string{"alloc", "machine", "sched", "compat", "jobs"}
	for _, m := range summaryMetrics {
		header = append(header, m.key)
	}
	header = append(header, "pct_tied", "avg_num_tied")
	cw.Write(header)
	for _, s := range sums {
		row := []string{s.Alloc, s.Machine, s.Sched, s.Compat, strconv.Itoa(s.Jobs)}
		for _, m := range summaryMetrics {
			row = append(row, strconv.FormatFloat(m.value(s), 'f', -1, 64))
		}
		if s.Ties != nil {
			row = append(row, strconv.FormatFloat(s.Ties.PctTied, 'f', -1, 64), strconv.FormatFloat(s.Ties.AvgNumTied, 'f', -1, 64))
		} else {
			row = append(row, "", "")
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// writeBarChart draws one horizontal bar per allocator.
func writeBarChart(w io.Writer, sums []sim.Summary, m summaryMetric) error {
	const (
		left, barH, gap, width, top = 220, 22, 8, 420, 40
	)
	maxV := 0.0
	for _, s := range sums {
		maxV = max(maxV, m.value(s))
	}
	if maxV <= 0 {
		maxV = 1
	}
	h := top + len(sums)*(barH+gap) + 20
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="13">`+"\n", left+width+120, h)
	title := m.name
	if len(sums) > 0 {
		title = fmt.Sprintf("%s — %s, %s, %d jobs", m.name, sums[0].Machine, sums[0].Sched, sums[0].Jobs)
	}
	fmt.Fprintf(w, `<text x="10" y="22" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	for i, s := range sums {
		y := top + i*(barH+gap)
		v := m.value(s)
		bw := int(float64(width) * v / maxV)
		fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+barH-6, html.EscapeString(s.Alloc))
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="#4878a8"/>`+"\n", left, y, bw, barH)
		fmt.Fprintf(w, `<text x="%d" y="%d">%s</text>`+"\n", left+bw+6, y+barH-6, m.format(s))
	}
	_, err := fmt.Fprintln(w, "</svg>")
	return err
}
