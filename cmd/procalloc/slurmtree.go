package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/procalloc/procalloc/slurm"
)

// slurmTopologyWarned holds the topology files whose warnings were printed, so that a
// sweep naming one file in many items says them once.
var slurmTopologyWarned sync.Map

// readSlurmTopology reads the topology.conf or topology.yaml named in a slurm:tree or
// slurm:block allocator spec (slurm.ReadTopology: the same parser as --graph) and
// prints its warnings (what Slurm accepts but logs) to stderr once per file.
func readSlurmTopology(path string, stderr io.Writer) (*slurm.Topology, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := slurm.ReadTopology(f, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, done := slurmTopologyWarned.LoadOrStore(path, true); !done && stderr != nil {
		for _, w := range t.Warnings {
			fmt.Fprintf(stderr, "procalloc: warning: %s: %s\n", path, w)
		}
	}
	return t, nil
}

// allocSlurmTree is alloc.Options.SlurmTree for the CLI: the topology/tree
// configuration named in a slurm:tree:FILE allocator spec.
func allocSlurmTree(path string) (*slurm.Tree, error) {
	t, err := readSlurmTopology(path, os.Stderr)
	if err != nil {
		return nil, err
	}
	tr, err := t.TreeOf()
	if err != nil {
		return nil, fmt.Errorf("slurm:tree:%s: %w", path, err)
	}
	return tr, nil
}

// allocSlurmBlocks is alloc.Options.SlurmBlocks for the CLI: the topology/block
// configuration named in a slurm:block:FILE allocator spec.
func allocSlurmBlocks(path string) (*slurm.Blocks, error) {
	t, err := readSlurmTopology(path, os.Stderr)
	if err != nil {
		return nil, err
	}
	b, err := t.BlocksOf()
	if err != nil {
		return nil, fmt.Errorf("slurm:block:%s: %w", path, err)
	}
	return b, nil
}
