package main

import (
	"fmt"
	"os"

	"github.com/procalloc/procalloc/slurm"
)

// allocSlurmTree is alloc.Options.SlurmTree for the CLI: the topology.conf named in a
// slurm:tree:FILE allocator spec, read with slurm.ParseTree.
func allocSlurmTree(path string) (*slurm.Tree, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := slurm.ParseTree(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// allocSlurmBlocks is alloc.Options.SlurmBlocks for the CLI: the topology.conf named
// in a slurm:block:FILE allocator spec, read with slurm.ParseBlocks.
func allocSlurmBlocks(path string) (*slurm.Blocks, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := slurm.ParseBlocks(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
