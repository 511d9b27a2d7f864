package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// Files reads the files that allocator specs name where a curve or a topology
// stands: a ranking file (bf:FILE, curve:FILE, a span curve), the topology.conf or
// topology.yaml of slurm:tree:FILE, slurm:block:FILE and slurm:ring:FILE
// (slurm.ReadTopologyFile, the parser --graph uses). It is what a replay gives alloc.Parse (Options); what Slurm
// accepts in a topology file but logs is kept in Warnings, once per file, for the
// caller to show. Safe for concurrent use; the zero value reads with node names
// from the machine.
type Files struct {
	// Hosts are the machine's host names in node-index order, which a host ranking
	// file's names are matched against (nil: curves.NodeNames of the machine).
	Hosts []string
	// Dir is the directory relative file names are read from (Spec.Dir; empty:
	// the working directory).
	Dir string

	mu       sync.Mutex
	seen     map[string]bool
	warnings []Warning
}

// Options returns o with Files' readers of ranking and topology files, which read
// under o.Context (nil: context.Background()).
func (f *Files) Options(o alloc.Options) alloc.Options {
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	o.Ranking = func(path string, m topo.Machine) (curves.Order, error) { return f.Ranking(ctx, path, m) }
	o.SlurmTree = func(path, name string) (*slurm.Tree, error) { return f.SlurmTree(ctx, path, name) }
	o.SlurmBlocks = func(path, name string) (*slurm.Blocks, error) { return f.SlurmBlocks(ctx, path, name) }
	o.SlurmRings = func(path, name string) (*slurm.Rings, error) { return f.SlurmRings(ctx, path, name) }
	return o
}

// Ranking reads the ranking file path of machine m (alloc.Options.Ranking,
// curves.RankingFileFor) under ctx, host names matched against Hosts.
func (f *Files) Ranking(ctx context.Context, path string, m topo.Machine) (curves.Order, error) {
	path = inDir(f.Dir, path)
	o, err := curves.RankingFileFor(ctx, path, m, f.Hosts)
	if uc := (*curves.UnknownCurveError)(nil); err != nil && !errors.As(err, &uc) {
		return nil, &alloc.FileError{Path: path, Err: err} // a file, read and refused
	}
	return o, err
}

// SlurmTree reads the topology/tree configuration of a slurm:tree:FILE spec
// (alloc.Options.SlurmTree) under ctx: a topology.conf, or the topology name
// of a topology.yaml ("": its cluster_default one).
func (f *Files) SlurmTree(ctx context.Context, path, name string) (*slurm.Tree, error) {
	return topologyPart(f, ctx, "tree", path, name, (*slurm.Topology).TreeOf)
}

// SlurmBlocks reads the topology/block configuration of a slurm:block:FILE spec
// (alloc.Options.SlurmBlocks) under ctx, as SlurmTree reads a tree.
func (f *Files) SlurmBlocks(ctx context.Context, path, name string) (*slurm.Blocks, error) {
	return topologyPart(f, ctx, "block", path, name, (*slurm.Topology).BlocksOf)
}

// SlurmRings reads the topology/ring configuration of a slurm:ring:FILE spec
// (alloc.Options.SlurmRings) under ctx: a topology.conf of RingName= lines, or
// the topology name of a topology.yaml ("": its cluster_default one).
func (f *Files) SlurmRings(ctx context.Context, path, name string) (*slurm.Rings, error) {
	return topologyPart(f, ctx, "ring", path, name, (*slurm.Topology).RingsOf)
}

// topologyPart reads a slurm:MODE:FILE spec's topology (Files.topology) and
// takes its plugin's part (of: Topology.TreeOf, BlocksOf, RingsOf).
func topologyPart[T any](f *Files, ctx context.Context, mode, path, name string, of func(*slurm.Topology) (T, error)) (T, error) {
	var zero T
	t, err := f.topology(ctx, path, name)
	if err != nil {
		return zero, err
	}
	part, err := of(t)
	if err != nil {
		return zero, fmt.Errorf("slurm:%s:%s: %w", mode, specFile(path, name), err)
	}
	return part, nil
}

// specFile is a spec's FILE[:NAME] in messages.
func specFile(path, name string) string {
	if name == "" {
		return path
	}
	return path + ":" + name
}

// topology reads a topology file anew (each allocator gets its own) under ctx
// (slurm.ReadTopologyFileNamed, name selecting a topology.yaml's topology) and
// keeps its warnings the first time it is read.
func (f *Files) topology(ctx context.Context, path, name string) (*slurm.Topology, error) {
	path = inDir(f.Dir, path)
	t, err := slurm.ReadTopologyFileNamed(ctx, path, name)
	if err != nil {
		return nil, &alloc.FileError{Path: path, Err: err}
	}
	ws := make([]Warning, len(t.Warnings))
	for i, w := range t.Warnings {
		ws[i] = Warning{Field: "Alloc", File: path, Text: w}
	}
	f.keep(specFile(path, name), ws)
	return t, nil
}

// keep keeps the warnings ws of the file key unless that file's were kept before.
func (f *Files) keep(key string, ws []Warning) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[key] {
		return
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[key] = true
	f.warnings = append(f.warnings, ws...)
}

// Warnings returns what Slurm would log about the files read so far, in the order
// read.
func (f *Files) Warnings() []Warning {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.warnings)
}
