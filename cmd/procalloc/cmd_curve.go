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
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register(&command{
		name:    "curve",
		summary: "order a machine's nodes along a curve and write the ranking file",
		usage:   "curve (--machine SPEC | --graph FILE) --curve NAME [--format F] [--hosts FILE] [-o FILE] [--svg FILE] | curve --list [--machine SPEC]",
		details: `Generates a 1D ordering of all nodes of a machine (Leung et al. 2002 §2.2) and
writes it as a ranking file. --curve takes a built-in curve name (--list shows them,
with the machines they apply to) or the path of an existing ranking file, which is then
validated and converted to --format.

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
name or hostlist expression per line, in node-index order) or, with --graph, from the
graph's node names.
--format slurm-topology writes a topology.conf whose leaf switches follow the curve
(use it with TopologyPlugin=topology/tree and TopologyParam=SwitchAsNodeRank);
--format slurm-torus3d writes a topology.yaml for a torus (names from --hosts).
--svg FILE also draws the curve on a 1D, 2D or 3D grid (3D: one panel per z layer; jumps
dashed red).

` + graphHelp + `
--machine also takes SST merlin's fattree:D0,U0:...:DL and dragonfly:... specs.`,
		example: `procalloc curve --machine mesh:16x16 --curve hilbert --format pairs
procalloc curve --machine mesh:16x22 --curve gilbert --format order -o gilbert.order
procalloc curve --machine mesh:8x8x5 --curve hilbert3d-trunc --svg cplant.svg -o cplant.pairs
procalloc curve --graph net.txt --curve rcm --format hosts
procalloc curve --graph ibnetdiscover.out --node-name-map names.map --curve rcm --format slurm-weight
procalloc curve --graph topology.conf --curve opt.pairs --format slurm-topology -o topology.conf.new
procalloc curve --list --machine torus:8x8`,
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			machine := fs.String("machine", "", "machine `SPEC`, e.g. mesh:16x16, torus:8x8x8, mesh:8x8x5:wrap=yz")
			graphFile := fs.String("graph", "", "network `FILE` ('-' for stdin): edge list, ibnetdiscover, topology.conf or topology.yaml")
			gf := declareGraphFlags(fs)
			curve := fs.String("curve", "", "curve `NAME` (see --list) or a ranking file to convert")
			format := fs.String("format", "pairs", "output `FORMAT`: pairs, ranks, order, json, hosts (hostfile), slurm-weight, hostlist, rankfile, mpich-rank-order, jgf, or a Slurm topology file: slurm-topology (topology.conf, leaf switches in curve order), slurm-torus3d (topology.yaml)")
			hosts := fs.String("hosts", "", "host names `FILE`, one per line in node-index order (for the formats that name hosts)")
			out := fs.String("o", "", "write the ranking to `FILE` instead of stdout")
			svg := fs.String("svg", "", "also draw the curve as an SVG image into `FILE`")
			list := fs.Bool("list", false, "list the curves (with --machine/--graph: whether each applies)")
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
					var m topo.Machine
					if *machine != "" || *graphFile != "" {
						var err error
						if m, err = loadMachine(e, *machine, *graphFile, gf); err != nil {
							return err
						}
					}
					return writeFileAtomic(e, *out, func(w io.Writer) error { return curveList(w, m) })
				}
				m, err := loadMachine(e, *machine, *graphFile, gf)
				if err != nil {
					return err
				}
				if nf := curves.Format(*format); slices.Contains(curves.NetworkFormats, nf) {
					return curveWriteNetwork(ctx, e, nf, m, *curve, *hosts, *out)
				}
				f, err := curves.ParseFormat(*format)
				if err != nil {
					return usagef("--format: %v (or a network format: %s)", err, formatList(curves.NetworkFormats))
				}
				if *curve == "" {
					return usagef("--curve is required (valid: %s)", strings.Join(curves.Names(), ", "))
				}
				if err := checkOutputs(e, outputFlag{"--svg", *svg}, outputFlag{"-o", *out}); err != nil {
					return err
				}
				o, err := curveResolveCtx(ctx, *curve, m)
				if err != nil {
					return err
				}
				var names []string
				named := f == curves.FormatHosts || slices.Contains(curves.SchedulerFormats, f)
				if named {
					switch {
					case *hosts != "":
						if names, err = curveReadHosts(e, *hosts, m.N()); err != nil {
							return err
						}
					case curves.NodeNames(m) != nil:
						names = curves.NodeNames(m)
					case f == curves.FormatHosts:
						return usagef("--format hosts needs --hosts FILE (host names in node-index order)")
					}
					// The scheduler formats name nodes by index when no names are given.
				} else if *hosts != "" {
					return usagef("--hosts is only used with formats that name hosts (hosts, %s)", formatList(curves.SchedulerFormats))
				}
				if *svg != "" {
					g, ok := m.(*topo.Grid)
					if !ok {
						return usagef("--svg draws grids only, not %s", m.Spec())
					}
					if err := writeOutput(e, "--svg", *svg, func(w io.Writer) error { return curves.WriteSVG(w, g, o) }); err != nil {
						return err
					}
				}
				meta := curves.RankingMeta{Machine: m.Spec(), Curve: *curve}
				return writeFileAtomic(e, *out, func(w io.Writer) error { return curves.WriteRanking(w, f, o, meta, names) })
			}
		},
	})
}

// curveWriteNetwork writes the Slurm topology formats, which describe the network
// rather than rank its nodes.
func curveWriteNetwork(ctx context.Context, e *env, f curves.Format, m topo.Machine, curve, hostsFile, out string) error {
	if curve == "" {
		return usagef("--curve is required (valid: %s)", strings.Join(curves.Names(), ", "))
	}
	o, err := curveResolveCtx(ctx, curve, m)
	if err != nil {
		return err
	}
	switch f {
	case curves.FormatSlurmTopology:
		g, ok := m.(*topo.Graph)
		if !ok || g.Vertices() == g.N() {
			return usagef("--format slurm-topology needs a switched network (--graph from ibnetdiscover, topology.conf, ...; or fattree:), not %s", m.Spec())
		}
		if hostsFile != "" {
			return usagef("--hosts: a network read with --graph names its own hosts")
		}
		return writeFileAtomic(e, out, func(w io.Writer) error { return curves.WriteSlurmTopology(w, g, o) })
	default:
		g, ok := m.(*topo.Grid)
		if !ok {
			return usagef("--format slurm-torus3d needs a torus (--machine torus:XxYxZ), not %s", m.Spec())
		}
		if hostsFile == "" {
			return usagef("--format slurm-torus3d needs --hosts FILE: the Slurm node names, in node-index order (x fastest)")
		}
		names, err := curveReadHosts(e, hostsFile, m.N())
		if err != nil {
			return err
		}
		if err := curves.WriteSlurmTorus3D(io.Discard, g, names); err != nil {
			return usagef("--format slurm-torus3d: %v", err)
		}
		return writeFileAtomic(e, out, func(w io.Writer) error { return curves.WriteSlurmTorus3D(w, g, names) })
	}
}

func curveIndent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// curveMaxNodes bounds the machines curve and evaluate accept: an ordering takes 8
// bytes per node, plus the output.
const curveMaxNodes = 1 << 26

// curveResolve resolves a curve name or ranking file; an unknown name or a curve that
// does not apply to the machine is a usage error, a bad ranking file a failure.
func curveResolve(spec string, m topo.Machine) (curves.Order, error) {
	return curveResolveCtx(context.Background(), spec, m)
}

// curveResolveCtx is curveResolve stopped by ctx (Ctrl-C): a slow curve (spectral)
// returns the context's error at once (curves.GenerateContext).
func curveResolveCtx(ctx context.Context, spec string, m topo.Machine) (curves.Order, error) {
	if curves.Summary(spec) != "" {
		if err := curves.Why(spec, m); err != nil {
			return nil, usagef("%v", err)
		}
		return curves.GenerateContext(ctx, spec, m)
	}
	if _, err := os.Stat(spec); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usagef("unknown curve %q (and no such ranking file); valid curves: %s", spec, strings.Join(curves.Names(), ", "))
		}
		return nil, err
	}
	return curves.ReadMachineRanking(spec, m)
}

// allocRanking is alloc.Options.Ranking for the CLI: a CURVE argument of an allocator
// spec (bf:FILE, paging:FILE:s) that is not a built-in curve names a ranking file.
func allocRanking(path string, m topo.Machine) (curves.Order, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%q is neither a curve (valid: %s) nor an existing ranking file", path, strings.Join(curves.Names(), ", "))
		}
		return nil, err
	}
	return curves.ReadMachineRanking(path, m)
}

func curveReadHosts(e *env, path string, n int) ([]string, error) {
	r, err := openInput(e, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	names, err := curves.ReadHostNames(r)
	if err != nil {
		return nil, fmt.Errorf("--hosts %s: %w", path, err)
	}
	if len(names) != n {
		return nil, fmt.Errorf("--hosts %s: %d host names for a machine of %d nodes", path, len(names), n)
	}
	return names, nil
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

func formatList(fs []curves.Format) string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f))
	}
	return strings.Join(out, ", ")
}
