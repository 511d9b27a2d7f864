package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/plot"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/topo"
)

// batchPoint is one configuration of "procalloc batch": an allocator and a number of
// communications per I/O phase, with its summary over the runs.
type batchPoint struct {
	Alloc     string `json:"alloc"`
	CommPerIO int    `json:"comm_per_io"`
	*sim.BatchResult
}

// batchOutput is the JSON of "procalloc batch" with several configurations.
type batchOutput struct {
	Machine  string  `json:"machine"`
	Pattern  string  `json:"pattern"`
	Tasks    int     `json:"tasks"`
	MeanSize float64 `json:"mean_size"`
	Seed     uint64  `json:"seed"`
	// Engine is "flit" with the flit engine, whose configuration Flit gives (both
	// absent with the message engine).
	Engine  string          `json:"engine,omitempty"`
	Flit    *netsimFlitJSON `json:"flit,omitempty"`
	Results []batchPoint    `json:"results"`
}

func init() {
	register(&command{
		name:    "batch",
		summary: "Liu et al.'s I/O experiment: a batch of tasks that communicate, then write to I/O nodes; mean time until all finish",
		usage:   "batch --machine mesh:XxY:io=SIDE --alloc SPEC[,SPEC...] [--comm-per-io N[,N...]] [--pattern P] [--runs R] [--engine message|flit] [--vcs V] [--vc-buffer B] [--json] [--svg FILE] [--svg-relative FILE]",
		details: `Runs the experiment of Liu, Hsu and Wu, "I/O Processor Allocation for Mesh
Cluster Computers", §5 (docs/io.md): --tasks tasks (default 16) arrive together on a
mesh with I/O nodes along one side; their sizes are exponential with mean
--mean-size (default 16), rounded to the nearest integer, at least 1 and at most the
machine. Whenever processors are released, waiting tasks are offered to the
allocator in order and start when they get processors (bt, sbt and dbt may refuse
for external fragmentation). A task communicates --comm-per-io times (one period of
--pattern among its processors each), then does one I/O phase: each of its
processors sends a personalised message to every I/O node, and the I/O nodes write
them to disk at --disk-mbps, queueing what arrives faster. The task ends when its
last message is on disk. The result of a run is the time until all tasks have
finished, in seconds; the output is its mean over --runs seeded runs with the
half-width of a 95% confidence interval (Student's t), plus the mean number D of
free squares after each allocation (Definition 1) and the fraction of allocations
after which the free set was spatially compact (Lemma 1); these two are defined on
2^m x 2^n meshes only and left out elsewhere (JSON mean_squares, spatially_compact).
Every output (-o, --svg, --svg-relative) is checked for writability before the runs.

The network is procalloc's wormhole model (docs/comm.md): --msg-flits flits of
--flit-bytes bytes per message, links of --link-mbps (one flit per cycle), x-y
routing, the I/O nodes one extra link each off the mesh side. --engine message (the
default) is the message-level model, --router-delay cycles a hop; --engine flit is
the flit-level model of BookSim2's input-queued router that "procalloc netsim" and
"sim --engine flit" use (docs/comm.md, docs/io.md "On the flit engine"), each
message one packet of --msg-flits flits, each I/O node a router of its own linked
to its attachment node's router by a link as fast as the mesh's. Its flags, as on
"procalloc sim": --vcs virtual channels per port (default 1), --vc-buffer flits per
virtual channel (default 8), the stage delays --routing-delay, --vc-alloc-delay,
--sw-alloc-delay, --st-delay and --link-delay (1 cycle each by default); they, and
--hop-classes, need --engine flit, and --router-delay is refused with it. The flit
engine is about 200 times slower (about a second of CPU per run of 16 tasks on
16x16 with up to 8 communications). Runs
spread over all cores and each is deterministic in (--seed, run number), whatever
the engine. Ctrl-C stops and prints the runs finished so far (marked interrupted,
exit status 130).

Several allocators (comma-separated) and communication counts give one line per
count in --svg, in the form of the paper's figures: the x axis is the tolerance
when all allocators are one family with numeric arguments (sbt:4,sbt:16,... as in
Figs. 3-5), else the allocators in the order given (Fig. 6). --json gives
mean_completion and ci95 (seconds) at the top level for one configuration, a list
"results" for several. The chart's y axis spans the values only; --svg-relative
draws each line divided by its first point, which shows the trend along the x axis
of lines of very different heights.`,
		example: `procalloc batch --machine mesh:16x16:io=left --alloc dbt:1/4 --comm-per-io 16 --runs 1000 --json
procalloc batch --machine mesh:16x16:io=left --alloc sbt:4,sbt:16,sbt:64,sbt:256 --comm-per-io 0,4,16 --runs 200 --svg fig3.svg
procalloc batch --machine mesh:16x16:io=left --alloc dbt:1/2,d-dbt:1/16,mbs,plas --comm-per-io 0,8,16 --runs 200 -o fig6.txt
procalloc batch --machine mesh:16x16:io=left --alloc bt,sbt:64,dbt:1/4,d-dbt:1/4,mbs --comm-per-io 0,2,8 --runs 20 --seed 2 --engine flit --vcs 2 --vc-buffer 16
procalloc batch --machine mesh:16x16:io=left --alloc dbt:1/4,mbs --comm-per-io 0,8 --pattern n-body --tasks 32 --mean-size 8 --disk-mbps 9.09 --link-mbps 200 --runs 100 --workers 2 --svg-relative rel.svg
procalloc batch --machine mesh:16x16:io=left --alloc bt --msg-flits 16 --flit-bytes 8 --router-delay 2
procalloc batch --machine mesh:16x16:io=left --alloc bt --engine flit --vcs 4 --hop-classes --routing-delay 1 --vc-alloc-delay 1 --sw-alloc-delay 1 --st-delay 1 --link-delay 1`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "mesh with I/O nodes, `SPEC` such as mesh:16x16:io=left (sides left, right, top, bottom; :COUNT for fewer I/O nodes)")
			allocs := fs.String("alloc", "", "allocator `SPECS`, comma-separated, e.g. dbt:1/4 or sbt:4,sbt:16,mbs,plas (see 'procalloc help sim')")
			comms := fs.String("comm-per-io", "0", "communications per I/O phase: `N` or a list N1,N2,... (0 = pure I/O)")
			pattern := fs.String("pattern", "all-to-all", "communication `PATTERN`: all-to-all, n-body, random, halo2d, tree")
			tasks := fs.Int("tasks", 16, "tasks per run (Liu: 16)")
			mean := fs.Float64("mean-size", 16, "mean of the exponential task size (Liu: 16)")
			runs := fs.Int("runs", 1000, "independent runs per configuration (Liu: 1000)")
			seed := fs.Uint64("seed", 1, "random seed")
			d := netsim.DefaultParams()
			flits := fs.Int64("msg-flits", d.MessageFlits, "message length in flits")
			flitBytes := fs.Int64("flit-bytes", d.FlitBytes, "bytes per flit")
			delay := fs.Int64("router-delay", d.RouterDelay, "message engine: cycles a message header takes per hop")
			var ef engineFlags
			ef.declare(fs, "network model: message (message-level wormhole, the default) or flit (BookSim2's virtual-channel router, docs/comm.md)")
			q := netsim.LiuIOParams()
			link := fs.Float64("link-mbps", q.LinkBytesPerSecond/1e6, "link bandwidth in MB/s (10^6 bytes; Liu: 11.65; 1e-6..1e9)")
			disk := fs.Float64("disk-mbps", q.DiskBytesPerSecond/1e6, "disk write speed of an I/O node in MB/s (Liu: 4.545; up to 1e9, and slow enough disks are refused: a message may take at most 2^20 cycles to write, --msg-flits x --link-mbps / 2^20 MB/s)")
			workers := fs.Int("workers", 0, "goroutines, shared by the runs of every allocator and --comm-per-io value (0: one per core)")
			asJSON := fs.Bool("json", false, "print JSON")
			out := fs.String("o", "", "write the result to `FILE` instead of stdout")
			svg := fs.String("svg", "", "write a chart in the paper's form to `FILE`")
			svgRel := fs.String("svg-relative", "", "write the chart with each line divided by its first point to `FILE` (trends of lines of different heights)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *machine == "" {
					return usagef("--machine is required, e.g. --machine mesh:16x16:io=left")
				}
				if *allocs == "" {
					return usagef("--alloc is required, e.g. --alloc dbt:1/4")
				}
				g, err := topo.ParseSpec(*machine)
				if err != nil {
					return usagef("--machine: %v", err)
				}
				if g.IO() == nil {
					return usagef("--machine %s has no I/O nodes: add :io=SIDE, e.g. %s:io=left", *machine, g.Spec())
				}
				specs, err := allocList(*allocs)
				if err != nil {
					return err
				}
				counts, err := parseList("--comm-per-io", *comms, parseInt, "an integer")
				if err != nil {
					return usageError{err.Error()}
				}
				if err := refuseRepeats("--comm-per-io", *comms, "values", counts); err != nil {
					return err
				}
				pat, err := netsim.ParsePattern(*pattern)
				if err != nil {
					return usageError{err.Error()}
				}
				engine, flit, err := ef.parse() // a wrong engine name: Batch.Validate says so
				if err != nil {
					return err
				}
				p := netsim.Params{MessageFlits: *flits, RouterDelay: *delay, FlitBytes: *flitBytes}
				if err := p.Validate(); err != nil {
					return usageError{err.Error()}
				}
				iop := netsim.IOParams{LinkBytesPerSecond: *link * 1e6, DiskBytesPerSecond: *disk * 1e6}
				lo, hi := netsim.MinBytesPerSecond/1e6, netsim.MaxBytesPerSecond/1e6
				if !(*link >= lo && *link <= hi) {
					return usagef("--link-mbps %v: must be between %g and %g MB/s", *link, lo, hi)
				}
				if minDisk := iop.MinDiskBytesPerSecond(p) / 1e6; !(*disk >= minDisk && *disk <= hi) {
					return usagef("--disk-mbps %v: must be between %.4g and %g MB/s here (a %d-flit message may take at most %d cycles to write at --link-mbps %v)",
						*disk, minDisk, hi, p.MessageFlits, netsim.MaxDiskCycles, *link)
				}
				if err := iop.ValidateFor(p); err != nil {
					return usageError{"--link-mbps/--disk-mbps: " + err.Error()}
				}
				if *workers < 0 {
					return usagef("--workers %d: must be 0 (one per core) or more", *workers)
				}
				// Every configuration's limits, checked by the library (Batch.Validate).
				newBatch := func(spec string, comm int) *sim.Batch {
					return &sim.Batch{Machine: g, Alloc: spec, Tasks: *tasks, MeanSize: *mean, CommPerIO: comm, Pattern: pat,
						Params: p, IO: iop, Engine: engine, Flit: flit, Runs: *runs, Seed: *seed}
				}
				for _, s := range specs {
					for _, c := range counts {
						if err := newBatch(s, c).Validate(); err != nil {
							return fieldErrors(err, batchFlag)
						}
					}
				}
				total := int64(len(specs) * len(counts) * *runs)
				prog := newProgress(e, "batch", total)
				o := batchOutput{Machine: g.Spec(), Pattern: pat.Name(), Tasks: *tasks, MeanSize: *mean, Seed: *seed}
				if engine == sim.EngineFlit {
					o.Engine = string(sim.EngineFlit)
					o.Flit = flitJSON(flit.Config(g, p, *seed))
				}
				var interrupted error
				// Every configuration's runs on one pool of --workers goroutines.
				var bs []*sim.Batch
				finished := int64(0) // runs finished; Progress calls come one at a time
				for _, s := range specs {
					for _, c := range counts {
						b := newBatch(s, c)
						b.Progress = func(int, int) {
							finished++
							prog.Update(finished, fmt.Sprintf("%s, %d comm", s, c))
						}
						bs = append(bs, b)
					}
				}
				results, err := sim.RunBatches(ctx, bs, *workers)
				if err != nil {
					prog.Done()
					var fe *sim.FieldError
					if errors.As(err, &fe) { // an engine option the machine refuses (--vc-buffer too small, say)
						return fieldErrors(err, batchFlag)
					}
					return err
				}
				for k, res := range results {
					if res == nil {
						interrupted = context.Cause(ctx)
						continue
					}
					o.Results = append(o.Results, batchPoint{Alloc: bs[k].Alloc, CommPerIO: bs[k].CommPerIO, BatchResult: res})
					if res.Interrupted {
						interrupted = context.Cause(ctx)
					}
				}
				prog.Done()
				// The charts and the table all or none.
				err = writeOutputs(e,
					namedOutput{"--svg", *svg, func(w io.Writer) error { return writeBatchChart(w, o, false) }},
					namedOutput{"--svg-relative", *svgRel, func(w io.Writer) error { return writeBatchChart(w, o, true) }},
					namedOutput{"-o", *out, func(w io.Writer) error {
						if *asJSON {
							if len(o.Results) == 1 && len(specs) == 1 && len(counts) == 1 {
								return writeJSON(w, struct {
									batchPoint
									Machine string          `json:"machine"`
									Pattern string          `json:"pattern"`
									Engine  string          `json:"engine,omitempty"`
									Flit    *netsimFlitJSON `json:"flit,omitempty"`
								}{o.Results[0], o.Machine, o.Pattern, o.Engine, o.Flit})
							}
							return writeJSON(w, o)
						}
						fmt.Fprintf(w, "%s, %d tasks of mean size %g, %s communication, %d runs per line, seed %d\n",
							o.Machine, o.Tasks, o.MeanSize, o.Pattern, *runs, o.Seed)
						if f := o.Flit; f != nil {
							fmt.Fprintf(w, "flit engine: %d VCs x %d flits, stages %d/%d/%d/%d, links %d\n",
								f.VCs, f.VCBuffer, f.RoutingDelay, f.VCAllocDelay, f.SwitchAllocDelay, f.SwitchDelay, f.LinkDelay)
						}
						// D and Lemma 1 are defined on 2^m x 2^n meshes only: their columns
						// are left out elsewhere.
						compact := false
						for _, r := range o.Results {
							compact = compact || r.MeanSquares != nil
						}
						head := []string{"alloc", "comm/io", "runs", "mean completion (s)", "ci95 (s)"}
						if compact {
							head = append(head, "D", "spatially compact")
						}
						t := newTable(w, append(head, "waiting at 0")...)
						for _, r := range o.Results {
							mark := ""
							if r.Interrupted {
								mark = " (interrupted)"
							}
							row := []string{r.Alloc, strconv.Itoa(r.CommPerIO), strconv.Itoa(r.Runs) + mark, fmt.Sprintf("%.6f", r.MeanCompletion),
								fmt.Sprintf("%.6f", r.CI95)}
							if compact {
								d, c := "-", "-"
								if r.MeanSquares != nil {
									d, c = fmt.Sprintf("%.2f", *r.MeanSquares), fmt.Sprintf("%.2f", *r.SpatiallyCompact)
								}
								row = append(row, d, c)
							}
							t.row(append(row, fmt.Sprintf("%.2f", r.MeanWaitingTasks))...)
						}
						return t.flush()
					}})
				if err != nil {
					return err
				}
				if interrupted != nil {
					return fmt.Errorf("the runs finished so far were written; stopped: %w", interrupted)
				}
				return nil
			}
		},
	})
}

// batchX returns the x value of each allocator spec for the chart: the numeric
// argument when all specs share one family and have numeric arguments (sbt:16,
// dbt:1/4), else the position 1, 2, ...; and the axis label.
func batchX(specs []string) ([]float64, string) {
	xs := make([]float64, len(specs))
	family := ""
	numeric := true
	for i, s := range specs {
		f, arg, _ := strings.Cut(s, ":")
		if i == 0 {
			family = f
		}
		v, err := strconv.ParseFloat(arg, 64)
		if p, q, ok := strings.Cut(arg, "/"); ok {
			a, e1 := strconv.ParseFloat(p, 64)
			b, e2 := strconv.ParseFloat(q, 64)
			v, err = a/b, errors.Join(e1, e2)
		}
		if f != family || err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			numeric = false
		}
		xs[i] = v
	}
	if numeric && len(specs) > 1 {
		label := family + " tolerance"
		if strings.HasSuffix(family, "dbt") {
			label = family + " tolerance ratio"
		}
		return xs, label
	}
	var names []string
	for i, s := range specs {
		xs[i] = float64(i + 1)
		names = append(names, fmt.Sprintf("%d=%s", i+1, s))
	}
	return xs, "allocator (" + strings.Join(names, ", ") + ")"
}

// writeBatchChart draws mean completion time against the allocators, one line per
// communication count (Liu et al. Figs. 3-6).
func writeBatchChart(w io.Writer, o batchOutput, relative bool) error {
	var specs []string
	for _, r := range o.Results {
		if !slices.Contains(specs, r.Alloc) {
			specs = append(specs, r.Alloc)
		}
	}
	xs, xlabel := batchX(specs)
	var series []plot.Series
	for _, r := range o.Results {
		name := fmt.Sprintf("%d comm per I/O", r.CommPerIO)
		if r.CommPerIO == 0 {
			name = "pure I/O"
		}
		k := -1
		for i := range series {
			if series[i].Name == name {
				k = i
			}
		}
		if k < 0 {
			series = append(series, plot.Series{Name: name})
			k = len(series) - 1
		}
		for i, s := range specs {
			if s == r.Alloc {
				series[k].X = append(series[k].X, xs[i])
			}
		}
		series[k].Y = append(series[k].Y, r.MeanCompletion)
	}
	title := fmt.Sprintf("Time until all %d tasks finish — %s, %s", o.Tasks, o.Machine, o.Pattern)
	ylabel := "mean completion time (s)"
	if relative {
		// Each line divided by its first point: the trend along the x axis of lines
		// of very different heights.
		for i := range series {
			if first := series[i].Y[0]; first > 0 {
				for j := range series[i].Y {
					series[i].Y[j] /= first
				}
			}
		}
		ylabel = "mean completion time / first point of the line"
	}
	return plot.LineChart{Title: title, XLabel: xlabel, YLabel: ylabel, Series: series}.WriteSVG(w)
}

// batchFlag names the flag of a sim.Batch field, for the messages of its
// sim.FieldError values: batch's own flags, else the replay flag of the same name
// (sweep.FieldFlag: --machine, --alloc, --pattern, --engine and the flit engine's).
func batchFlag(field string) string {
	if f, ok := map[string]string{"Tasks": "--tasks", "MeanSize": "--mean-size", "CommPerIO": "--comm-per-io", "Runs": "--runs"}[field]; ok {
		return f
	}
	return sweep.FieldFlag(field)
}
