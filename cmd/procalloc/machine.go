package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// graphFlags are --graph FILE and the flags that say how to read it.
type graphFlags struct {
	file, format, nameMap, topology string
}

// declareGraphFlags declares --graph and its options, with sim's help texts (every
// command that reads a network reads it as sim does: slurm.GraphFile).
func declareGraphFlags(fs *flag.FlagSet) *graphFlags {
	g := &graphFlags{}
	u := sweep.Usage // the help texts of sim's --graph options, which these are
	fs.StringVar(&g.file, "graph", "", u("graph"))
	fs.StringVar(&g.format, "graph-format", "", u("graph-format"))
	fs.StringVar(&g.nameMap, "node-name-map", "", u("node-name-map"))
	fs.StringVar(&g.topology, "topology", "", u("topology"))
	return g
}

// graphHelp is the part of a command's help that describes --graph.
const graphHelp = `--graph FILE reads a network: an edge list (see README), ibnetdiscover output
(default or -p form), OpenSM's opensm-subnet.lst or ibdiagnet's .lst (subnet-lst),
Omni-Path's opareport -o topology XML or -o links text (opareport), a Slurm topology.conf (tree or
block) or topology.yaml (tree, block, torus3d; --topology NAME picks one);
--node-name-map names the GUIDs of the ibnetdiscover, subnet-lst and opareport
files. The format is detected unless --graph-format says it. Switches route but get
no rank: only hosts are ordered and allocated. Node indices are the hosts', then the
switches': an edge list's as it says, a topology file's hosts in order of first
appearance and its switches in file order, a fabric dump's by name (below).
Reading ` + ibnetdiscoverHelp + "\n" + fabricDumpsHelp

// loadMachine returns the machine of --machine SPEC (a grid, fattree:..., dragonfly:...)
// or --graph FILE (gf, exactly one). A --machine of more than curveMaxNodes nodes is
// a usage error. A --graph file is read until ctx ends (its cause is returned).
func loadMachine(ctx context.Context, e *env, spec string, gf *graphFlags) (topo.Machine, error) {
	return loadMachineLimit(ctx, e, spec, gf, curveMaxNodes, "curve, evaluate and order handle")
}

// loadMachineLimit is loadMachine with the command's own node limit, named by what.
func loadMachineLimit(ctx context.Context, e *env, spec string, gf *graphFlags, limit int, what string) (topo.Machine, error) {
	m, warnings, err := loadMachineWarnings(ctx, e, spec, gf, limit, what)
	for _, w := range warnings {
		printWarnings(e, []sim.Warning{{Field: "GraphFile", File: gf.file, Text: w}})
	}
	return m, err
}

// loadMachineWarnings is loadMachineLimit returning what reading --graph warned of
// (a topology file's accepted oddities, ibnetdiscover's dual-rail hosts and
// aggregation nodes) instead of printing it.
func loadMachineWarnings(ctx context.Context, e *env, spec string, gf *graphFlags, limit int, what string) (topo.Machine, []string, error) {
	graphFile := gf.file
	switch {
	case spec != "" && graphFile != "":
		return nil, nil, usagef("give either --machine or --graph, not both")
	case spec != "":
		for _, f := range []struct{ name, value string }{{"--graph-format", gf.format}, {"--node-name-map", gf.nameMap}, {"--topology", gf.topology}} {
			if f.value != "" {
				return nil, nil, usagef("%s goes with --graph, not --machine", f.name)
			}
		}
		m, err := topo.ParseMachineContext(ctx, spec, limit)
		if err != nil && ctx.Err() != nil {
			return nil, nil, context.Cause(ctx) // "procalloc CMD: interrupted"
		}
		if tl := (*topo.TooLargeError)(nil); errors.As(err, &tl) {
			return nil, nil, usagef("--machine %s has %d nodes; %s at most %d", spec, tl.Nodes, what, limit)
		}
		if err != nil {
			return nil, nil, usagef("--machine: %v", err)
		}
		return m, nil, nil
	case graphFile != "":
		f := slurm.GraphFile{Path: graphFile, Stdin: e.stdin, Format: gf.format, NodeNameMap: gf.nameMap, Topology: gf.topology}
		if f.Format != "" && !slices.Contains(slurm.GraphFormats(), f.Format) {
			return nil, nil, usagef("--graph-format %q: want one of %s", f.Format, strings.Join(slurm.GraphFormats(), ", "))
		}
		g, warnings, err := f.ReadContext(ctx)
		if ge := (*slurm.GraphFileError)(nil); errors.As(err, &ge) {
			if ge.NameMap {
				return nil, nil, fmt.Errorf("--node-name-map %s: %w", ge.Path, ge.Err)
			}
			return nil, nil, fmt.Errorf("--graph %s: %w", ge.Path, ge.Err)
		}
		if err != nil {
			return nil, nil, err
		}
		return g, warnings, nil
	}
	return nil, nil, usagef("a machine is required: --machine SPEC or --graph FILE")
}
