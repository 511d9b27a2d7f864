package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/plan"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register(&command{
		name:    "curve",
		inPlace: []string{"slurm-conf", "flux-graph"}, // --format slurm-weight and jgf rewrite them
		summary: "order a machine's nodes along a curve and write the ranking file",
		usage:   "curve (--machine SPEC | --graph FILE) --curve NAME [--format F] [--hosts FILE | --hostlist EXPR] [-o FILE] [--svg FILE] | curve --list [--machine SPEC]",
		details: `Generates a 1D ordering of all nodes of a machine (Leung et al. 2002 §2.2) and
writes it as a ranking file. --curve takes a built-in curve name (--list shows them,
with the machines they apply to) or the path of an existing ranking file ('-': standard
input), which is then validated and converted to --format; its format comes from
--ranking-format, else its extension, else its content.

Curves: hilbert is the published xy2d indexing on power-of-two squares (rank 0 at (0,0),
last at (n-1,0)); snake is row by row, even rows with x increasing; gilbert is continuous
on every rectangle; hilbert-trunc cuts the enclosing power-of-two curve (with jumps).
See docs/curves.md for every curve's definition and continuity guarantees.

Machine specs:
` + curveIndent(specHelp) + `

Graph files (--graph):
` + curveIndent(graphFormatHelp) + `

Ranking formats (--format, default pairs):
` + curveIndent(formatsHelp) + `

--format hosts writes host names in curve order; the names come from --hosts FILE (one
name or hostlist expression per line, in node-index order), from --hostlist EXPR (one
Slurm hostlist expression, e.g. node[0001-1024], expanded as scontrol does) or, with
--graph, from the graph's node names.
--format slurm-weight writes "NodeName=HOST Weight=RANK+1" lines, for a NEW slurm.conf
only: a slurm.conf that already defines its nodes stops with "Duplicated NodeName". With
--slurm-conf FILE it writes FILE with Weight= merged into its NodeName lines instead
(every other line and attribute kept; a hostlist line split only where its weights
differ); an ordered host FILE does not define, or defines twice, is an error naming the
host and line, and nothing is written. Slurm then takes the lowest free weights: a
sorted free list along the curve (replay it with freelist:FILE), not Best Fit.
--format jgf writes a Flux resource graph of the nodes alone, each node's id its curve
rank: fluxion's low, lonode and lonodex match policies take the lowest free ids (its
default, first, takes the highest uniq_ids). With --flux-graph FILE (the instance's
graph as JGF, or its R with the graph under "scheduling", as flux ion-R encode writes
it) it writes FILE with each node's id set to its host's curve rank and all else kept
(cores, GPUs, broker ranks); a node of FILE that is no host of the ordering, or a host
without a node, is an error, and nothing is written.
--format slurm-topology writes a topology.conf whose leaf switches follow the curve
(use it with TopologyPlugin=topology/tree and TopologyParam=SwitchAsNodeRank, Slurm
23.02 and later); warnings on stderr say what Slurm ignores (node order inside a leaf;
SwitchAsNodeRank before 23.02). Every machine gets one tree: a dragonfly's routers go
under virtual group switches under a virtual root, a mesh or torus gets a virtual tree
along the curve (docs/fabric.md); a warning says so.
--format slurm-block writes a topology.conf for TopologyPlugin=topology/block: blocks of
--block-size nodes cut along the curve, in curve order, and BlockSizes doubling from it
(--slurm-version 23.11: BlockLevels= of the same sizes, the key 23.11 reads)
(default size: the leaf switch size of a --graph whose leaves are all one size).
--format slurm-torus3d writes a topology.yaml for a torus (Slurm 26.05 and later; names
from --hosts or --hostlist) with placements: Slurm starts only jobs whose size matches one. By default
one per job size the torus holds as a box (the most compact box); --placements LIST
gives sizes or shapes (e.g. 2,4,8 or 2x2x1,2x2x2).
--svg FILE also draws the curve on a 1D, 2D or 3D grid (3D: one panel per z layer; jumps
dashed red; a legend under it). A grid whose drawing would exceed 4096 pixels a side
(20 a node) is drawn in blocks of nodes coloured by their mean rank instead.

` + graphHelp + `
--machine also takes SST merlin's fattree:D0,U0:...:DL and dragonfly:... specs.`,
		example: `procalloc curve --machine mesh:16x16 --curve hilbert --format pairs
procalloc curve --machine mesh:16x22 --curve gilbert --format order -o gilbert.order
procalloc curve --machine mesh:8x8x5 --curve hilbert3d-trunc --svg cplant.svg -o cplant.pairs
procalloc curve --graph order/testdata/cplant-dev.txt --curve rcm --format hosts
procalloc curve --graph topo/testdata/fattree.ibnetdiscover --node-name-map topo/testdata/fattree.node-name-map --curve rcm --format slurm-weight
procalloc curve --graph topo/testdata/topology.conf --curve opt.pairs --format slurm-topology -o topology.conf.new
procalloc curve --machine mesh:16x16 --curve hilbert --format order | procalloc curve --machine mesh:16x16 --curve - --ranking-format order --format hostlist --hostlist 'node[001-256]'
procalloc curve --machine mesh:4x4 --curve hilbert --format slurm-weight --hosts nodes.txt --slurm-conf /etc/slurm/slurm.conf -o slurm.conf.new
procalloc curve --machine mesh:3 --curve snake --format jgf --hostlist 'hetchy[1001-1002,1]' --flux-graph curves/testdata/jgf/flux-ion-r.json -o R.json
procalloc curve --machine torus:4x2x2 --curve snake --format slurm-torus3d --hosts nodes.txt --placements 2,4,8,16
procalloc curve --machine mesh:32x32 --curve hilbert --format slurm-weight --hostlist 'node[0001-1024]' -o weights.conf
procalloc curve --machine mesh:4x4 --curve hilbert --format rankfile --hostlist 'cn[01-16]' --ranks-per-host 4 -o job.rankfile
procalloc curve --list --machine torus:8x8
procalloc curve --list --json
procalloc curve --machine mesh:16x16 --curve hilbert --json -o hilbert.json
procalloc curve --graph topo/testdata/topology.yaml --topology fabric --curve rcm --format slurm-block --block-size 4 -o topology.conf.new
procalloc curve --machine mesh:8x8 --curve hilbert --format slurm-block --block-size 4 --slurm-version 23.11 -o topology.conf.new
procalloc curve --graph topo/testdata/fattree.ibnetdiscover --graph-format ibnetdiscover --curve rcm
procalloc curve --graph topo/testdata/fattree.subnet-lst --node-name-map topo/testdata/fattree.node-name-map --curve rcm --format hosts
procalloc curve --graph topo/testdata/fattree.opareport.xml --graph-format opareport --curve rcm`,
		yourFiles: []yourFile{yourOptPairs, yourNodes, {"/etc/slurm/slurm.conf", "your site's slurm.conf (its NodeName lines get the weights)"}},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:16x16, torus:8x8x8, mesh:8x8x5:wrap=yz")
			gf := declareGraphFlags(fs)
			curve := fs.String("curve", "", "curve `NAME` (see --list) or a ranking file to convert ('-' for stdin)")
			rankingFormat := fs.String("ranking-format", "", rankingFormatUsage())
			format := fs.String("format", "pairs", "output `FORMAT`: pairs, ranks, order, json, hosts (hostfile), slurm-weight, hostlist, rankfile, mpich-rank-order, jgf, or a Slurm topology file: slurm-topology (topology.conf, leaf switches in curve order), slurm-block (topology.conf, blocks along the curve), slurm-torus3d (topology.yaml)")
			hs := declareHostFlags(fs, "for the formats that name hosts, written or read by --curve FILE")
			slurmConf := fs.String("slurm-conf", "", "with --format slurm-weight: merge the weights into the NodeName lines of this slurm.conf `FILE` and write the whole file")
			fluxGraph := fs.String("flux-graph", "", "with --format jgf: set the node ids of this Flux resource graph `FILE` (JGF, or R with it under scheduling, as flux ion-R encode writes it) to the curve ranks and write the whole graph")
			placements := fs.String("placements", "", "with --format slurm-torus3d: the placements, job sizes or shapes `LIST` (e.g. 2,4,8 or 2x2x1,2x2x2; default: every size the torus holds as a box)")
			blockSize := fs.Int("block-size", 0, "with --format slurm-block: nodes per block `N` (default: the leaf switch size of a --graph)")
			slurmVersion := fs.String("slurm-version", "", "with --format slurm-block: the Slurm `VERSION` that reads the file; 23.11 gets BlockLevels=, 24.05 on BlockSizes= (each refuses the other's key; default: 24.05 on)")
			ranksPerHost := declareRanksPerHost(fs)
			out := fs.String("o", "", "write the ranking to `FILE` instead of stdout")
			svg := fs.String("svg", "", "also draw the curve as an SVG image into `FILE`")
			list := fs.Bool("list", false, "list the curves (with --machine/--graph: whether each applies; with --json as JSON)")
			asJSON := fs.Bool("json", false, "write the ranking as JSON (the same as --format json)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected arguments %q", args)
				}
				if *asJSON {
					explicit := false
					fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "format" })
					if explicit && *format != "json" {
						return usagef("--json writes JSON; it contradicts --format %s", *format)
					}
					*format = "json"
				}
				if *list {
					// The flags of an ordering would be ignored without a word.
					for _, name := range []string{"curve", "ranking-format", "svg", "slurm-conf", "flux-graph", "placements", "block-size", "slurm-version", "hosts", "hostlist", "ranks-per-host"} {
						if isFlagGiven(fs, name) {
							return usagef("--list lists the curves and exits: it takes no --%s", name)
						}
					}
					if isFlagGiven(fs, "format") {
						return usagef("--list lists the curves and exits: it takes no --format (--json for JSON)")
					}
					var m topo.Machine
					if *machine != "" || gf.file != "" {
						var err error
						if m, err = loadMachine(ctx, e, *machine, gf); err != nil {
							return err
						}
					}
					return writeFileAtomic(e, *out, func(w io.Writer) error {
						if *asJSON {
							return curveListJSON(w, m)
						}
						return curveList(w, m)
					})
				}
				if err := hs.check(); err != nil {
					return err
				}
				if err := refuseEmptyFlags(fs, "hosts", "hostlist"); err != nil {
					return err
				}
				m, err := loadMachine(ctx, e, *machine, gf)
				if err != nil {
					return err
				}
				if g, ok := m.(*topo.Graph); ok {
					// Ordered anyway (a curve visits the parts one after another), but
					// evaluate and order refuse such a network: say it.
					if err := g.CheckConnected(); err != nil {
						e.warnf("--graph %s: %v: the ordering takes the parts one after another, and no hop distance joins them (evaluate and order refuse it)", gf.file, err)
					}
				}
				rf, err := parseRankingFormat(*rankingFormat)
				if err != nil {
					return err
				}
				nf := curves.Format(*format)
				if *slurmConf != "" && nf != slurm.FormatWeight {
					return usagef("--slurm-conf goes with --format slurm-weight")
				}
				if *fluxGraph != "" && nf != curves.FormatJGF {
					return usagef("--flux-graph goes with --format jgf")
				}
				if *placements != "" && nf != slurm.FormatTorus3D {
					return usagef("--placements goes with --format slurm-torus3d")
				}
				pf, perr := curves.ParseFormat(*format)
				if err := ranksPerHost.check(pf, perr == nil); err != nil {
					return err
				}
				if *blockSize != 0 && nf != slurm.FormatBlock {
					return usagef("--block-size goes with --format slurm-block")
				}
				blockLevels := false // Slurm 23.11's BlockLevels= in place of BlockSizes=
				if isFlagGiven(fs, "slurm-version") {
					if nf != slurm.FormatBlock {
						return usagef("--slurm-version goes with --format slurm-block")
					}
					v, err := plan.ParseVersion(*slurmVersion)
					if err != nil {
						return usagef("--slurm-version: %v", err)
					}
					if !v.AtLeast(plan.V2311) {
						return usagef("--slurm-version %s: topology/block needs Slurm 23.11 or later", v)
					}
					blockLevels = !v.AtLeast(plan.V2405)
				}
				// The names of --hosts/--hostlist, read once: they name the hosts of a
				// ranking file read (--curve FILE in hosts or a scheduler format) as
				// well as those written.
				var hostNames []string
				if hs.given() {
					if hostNames, err = hs.read(ctx, e, m.N()); err != nil {
						return err
					}
				}
				if slices.Contains(slurm.NetworkFormats(), nf) {
					return curveWriteNetwork(ctx, e, nf, m, gf.file != "", *curve, rf, *hs, hostNames, *out, *svg, *placements, *blockSize, blockLevels)
				}
				f, err := curves.ParseFormat(*format)
				if err != nil {
					// The ranking formats' near miss is in err; a network format's here.
					network := strings.Split(formatList(slurm.NetworkFormats()), ", ")
					hint := textin.DidYouMean(*format, append(strings.Split(formatList(curves.Formats()), ", "), network...), func(near string) string {
						if slices.Contains(network, near) {
							return near
						}
						return ""
					})
					return usagef("--format: %v (or a network format: %s)%s", err, formatList(slurm.NetworkFormats()), hint)
				}
				if *curve == "" {
					return usagef("--curve is required (valid: %s)", strings.Join(curves.Names(), ", "))
				}
				stop := newProgress(e, "curve "+*curve, 0).ticking("ordering")
				o, err := curveResolve(ctx, e, *curve, rf, m, hostNames)
				stop()
				if err != nil {
					return err
				}
				var names []string
				named := f == curves.FormatHosts || slices.Contains(curves.SchedulerFormats(), f)
				if named {
					switch {
					case hs.given():
						names = hostNames
					case curves.NodeNames(m) != nil:
						names = curves.NodeNames(m)
					default:
						// A resource manager would take node indices for host names.
						return usagef("--format %s names hosts: it needs --hosts FILE or --hostlist EXPR (host names in node-index order); %s has no names of its own", *format, m.Spec())
					}
				} else if hs.given() && curves.Summary(*curve) != "" {
					return usagef("%s is only used with formats that name hosts (hosts, %s) and to read a ranking file that does", hs.flag(), formatList(curves.SchedulerFormats()))
				}
				// The drawing and the ranking (or slurm.conf) all or none.
				drawing, err := curveDrawing(m, *svg, o)
				if err != nil {
					return err
				}
				if *slurmConf != "" {
					return curveMergeWeights(ctx, e, *slurmConf, o, names, *out, drawing)
				}
				if *fluxGraph != "" {
					return curveMergeFluxGraph(e, *fluxGraph, o, names, *out, drawing)
				}
				meta := curves.RankingMeta{Machine: m.Spec(), Curve: *curve}
				warnLaunchers(e, "curve", f, names)
				if *out != "" && *out != "-" { // a bar beside a ranking written to the terminal would garble it
					defer newProgress(e, "curve "+*curve, 0).ticking("writing " + *out)()
				}
				return writeOutputs(e, drawing, namedOutput{"-o", *out, ranksPerHost.writer(f, o, meta, names)})
			}
		},
	})
}

// warnLaunchers warns of what the MPI launchers would do to the host names of a
// hosts file or rankfile that is written all the same (curves.LauncherWarnings).
func warnLaunchers(e *env, cmd string, f curves.Format, names []string) {
	for _, w := range curves.LauncherWarnings(f, names) {
		fmt.Fprintf(e.stderr, "procalloc %s: warning: --format %s: %s\n", cmd, f, w)
	}
}

// curveMergeFluxGraph writes the Flux resource graph at path with its node ids set
// to the curve ranks of o (curves.MergeJGFIDs), and the drawing of o (--svg) with
// it; on any error neither is written.
func curveMergeFluxGraph(e *env, path string, o curves.Order, names []string, out string, drawing namedOutput) error {
	r, err := openInput(e, path)
	if err != nil {
		return err
	}
	graph, err := textin.ReadAll(r, curves.MaxJGFBytes(len(o)), fmt.Sprintf("a Flux resource graph of %d nodes", len(o)))
	r.Close()
	if err != nil {
		return fmt.Errorf("--flux-graph %s: %w", path, err)
	}
	merged, err := curves.MergeJGFIDs(graph, o, names)
	if err != nil {
		return fmt.Errorf("--flux-graph %s: %w", path, err)
	}
	return writeOutputs(e, drawing, namedOutput{"-o", out, func(w io.Writer) error { _, err := w.Write(merged); return err }})
}

// curveMergeWeights writes the slurm.conf confPath with the weights of o merged in
// (slurm.MergeWeights), and the drawing of o (--svg) with it; on any error neither
// is written.
func curveMergeWeights(ctx context.Context, e *env, confPath string, o curves.Order, names []string, out string, drawing namedOutput) error {
	r, err := openInput(e, confPath)
	if err != nil {
		return err
	}
	conf, err := io.ReadAll(textin.ContextReader(ctx, r))
	r.Close()
	if err != nil {
		return fmt.Errorf("--slurm-conf %s: %w", confPath, err)
	}
	merged, warnings, err := slurm.MergeWeights(ctx, conf, o, names)
	if err != nil {
		return fmt.Errorf("--slurm-conf %s: %w", confPath, err)
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "procalloc curve: warning: %s\n", w)
	}
	return writeOutputs(e, drawing, namedOutput{"-o", out, func(w io.Writer) error { _, err := w.Write(merged); return err }})
}

// curveDrawing is the --svg output of o (skipped for an empty path): grids only.
func curveDrawing(m topo.Machine, path string, o curves.Order) (namedOutput, error) {
	drawing := namedOutput{flag: "--svg", path: path}
	if path == "" {
		return drawing, nil
	}
	g, ok := m.(*topo.Grid)
	if !ok {
		return drawing, usagef("--svg draws grids only, not %s", m.Spec())
	}
	drawing.write = func(w io.Writer) error { return curves.WriteSVG(w, g, o) }
	return drawing, nil
}

// curveWriteNetwork writes the Slurm topology formats, which describe the network
// rather than rank its nodes, and the drawing of the ordering (--svg) with them.
// warnIndexNames warns that a Slurm topology file for m names its nodes by index: a
// grid without --hosts/--hostlist has no names of its own. procalloc's replays on
// the same --machine read such a file (nodes named 0, 1, ...), so it is not refused,
// but no Slurm cluster has those names.
func warnIndexNames(e *env, f curves.Format, m topo.Machine, names []string) {
	if names == nil && curves.NodeNames(m) == nil {
		fmt.Fprintf(e.stderr, "procalloc curve: warning: %s has no host names: --format %s names its nodes by index (0, 1, ...), as procalloc's replays on --machine %s read them; no Slurm cluster has those names: give --hosts FILE or --hostlist EXPR for a file to deploy\n", m.Spec(), f, m.Spec())
	}
}

// curveWriteNetwork writes the Slurm topology formats; fromGraph: m was read with
// --graph, whose file names its hosts (a --machine network's h0, h1, ... are
// replaced by --hosts/--hostlist, as for every other format).
func curveWriteNetwork(ctx context.Context, e *env, f curves.Format, m topo.Machine, fromGraph bool, curve string, rf curves.Format, hs hostSource, hostNames []string, out, svg, placements string, blockSize int, blockLevels bool) error {
	if curve == "" {
		return usagef("--curve is required (valid: %s)", strings.Join(curves.Names(), ", "))
	}
	o, err := curveResolve(ctx, e, curve, rf, m, hostNames)
	if err != nil {
		return err
	}
	drawing, err := curveDrawing(m, svg, o)
	if err != nil {
		return err
	}
	switch f {
	case slurm.FormatTopology:
		var names []string
		if fromGraph && hs.given() {
			return usagef("%s: a network read with --graph names its own hosts (%s)", hs.flag(), m.Spec())
		} else if hs.given() {
			names = hostNames
		}
		warnIndexNames(e, f, m, names)
		var warnings []string
		err := writeOutputs(e, drawing, namedOutput{"-o", out, func(w io.Writer) error {
			var err error
			warnings, err = slurm.WriteTopology(w, m, o, names)
			return err
		}})
		if err == nil {
			for _, w := range warnings {
				fmt.Fprintf(e.stderr, "procalloc curve: warning: %s\n", w)
			}
		}
		return err
	case slurm.FormatBlock:
		var names []string
		switch {
		case hs.given():
			names = hostNames
		default:
			names = curves.NodeNames(m)
		}
		warnIndexNames(e, f, m, names)
		if blockSize == 0 {
			g, ok := m.(*topo.Graph)
			var groups []topo.Group
			if ok {
				groups = g.Groups()
			}
			for _, gr := range groups {
				if blockSize == 0 {
					blockSize = len(gr.Nodes)
				} else if len(gr.Nodes) != blockSize {
					blockSize = -1
				}
			}
			if blockSize <= 0 {
				return usagef("--format slurm-block needs --block-size N (the machine has no leaf switches of one size)")
			}
		}
		write := slurm.WriteBlockContext
		if blockLevels {
			write = slurm.WriteBlockLevelsContext
		}
		if err := write(ctx, io.Discard, o, names, blockSize); err != nil && ctx.Err() != nil {
			return context.Cause(ctx) // "procalloc curve: interrupted"
		} else if err != nil {
			return usagef("--format slurm-block: %v", err)
		}
		return writeOutputs(e, drawing, namedOutput{"-o", out, func(w io.Writer) error { return write(ctx, w, o, names, blockSize) }})
	default:
		g, ok := m.(*topo.Grid)
		if !ok {
			return usagef("--format slurm-torus3d needs a torus (--machine torus:XxYxZ), not %s", m.Spec())
		}
		if !hs.given() {
			return usagef("--format slurm-torus3d needs --hosts FILE or --hostlist EXPR: the Slurm node names, in node-index order (x fastest)")
		}
		dims, err := slurm.TorusDims(g)
		if err != nil {
			return usagef("--format slurm-torus3d: %v", err)
		}
		var boxes []slurm.Box
		if placements != "" {
			if boxes, err = slurm.ParsePlacements(placements, dims); err != nil {
				return usagef("--placements: %v", err)
			}
		}
		names := hostNames
		if err := slurm.WriteTorus3D(io.Discard, g, names, boxes); err != nil {
			return usagef("--format slurm-torus3d: %v", err)
		}
		return writeOutputs(e, drawing, namedOutput{"-o", out, func(w io.Writer) error { return slurm.WriteTorus3D(w, g, names, boxes) }})
	}
}

func curveIndent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// refuseEmptyFlags is a usage error for a flag of names given an empty value
// (--hostlist ""), which would otherwise read as the flag left out.
func refuseEmptyFlags(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && slices.Contains(names, f.Name) && strings.TrimSpace(f.Value.String()) == "" {
			err = usagef("--%s is empty: give a value or leave the flag out", f.Name)
		}
	})
	return err
}

// curveMaxNodes bounds the machines curve and evaluate accept: an ordering takes 8
// bytes per node, plus the output.
const curveMaxNodes = 1 << 26

// curveResolve resolves a curve name or ranking file; an unknown name or a curve that
// does not apply to the machine is a usage error, a bad ranking file a failure. A slow
// curve (spectral) stops with ctx (Ctrl-C) and returns its cause (curves.GenerateContext).
//
// A ranking file, or standard input for "-", is read in format rf ("": from the
// file's extension, else its content); rf with a built-in curve is a usage error.
//
// hosts name m's nodes for a ranking file that names hosts (nil: m's own names).
func curveResolve(ctx context.Context, e *env, spec string, rf curves.Format, m topo.Machine, hosts []string) (curves.Order, error) {
	if curves.Summary(spec) != "" {
		if rf != "" {
			return nil, usagef("--ranking-format goes with a ranking file (--curve FILE or -), not the curve %s", spec)
		}
	} else if _, err := os.Stat(spec); spec == "-" || err == nil {
		return readRankingInput(e, spec, rf, m, hosts)
	}
	o, err := curves.Resolve(ctx, spec, m, nil)
	if ue := (*curves.UnknownCurveError)(nil); errors.As(err, &ue) {
		return nil, usageError{err.Error()}
	}
	return o, err
}

func curveList(w io.Writer, m topo.Machine) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	if m == nil {
		fmt.Fprintln(tw, "curve\tsummary")
	} else {
		fmt.Fprintf(tw, "curve\tapplies to %s\tsummary\n", m.Spec())
	}
	for _, n := range curves.Names() {
		if m == nil {
			fmt.Fprintf(tw, "%s\t%s\n", n, curves.Summary(n))
			continue
		}
		ok := "yes"
		if err := curves.Why(n, m); err != nil {
			ok = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", n, ok, curves.Summary(n))
	}
	return tw.Flush()
}

// curveListJSON is curveList as JSON: name, summary and, for a machine, applies
// (with why not).
func curveListJSON(w io.Writer, m topo.Machine) error {
	type entry struct {
		Name    string `json:"name"`
		Summary string `json:"summary"`
		Applies *bool  `json:"applies,omitempty"`
		WhyNot  string `json:"why_not,omitempty"`
	}
	var out []entry
	for _, n := range curves.Names() {
		en := entry{Name: n, Summary: curves.Summary(n)}
		if m != nil {
			err := curves.Why(n, m)
			ok := err == nil
			en.Applies = &ok
			if err != nil {
				en.WhyNot = err.Error()
			}
		}
		out = append(out, en)
	}
	if m == nil {
		return writeJSON(w, map[string]any{"curves": out})
	}
	return writeJSON(w, map[string]any{"machine": m.Spec(), "curves": out})
}

func formatList(fs []curves.Format) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f))
	}
	return strings.Join(out, ", ")
}
