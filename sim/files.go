package sim

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// The files an allocator spec names, read by the replay itself (alloc.Options' readers),
// so that a Spec runs from its fields alone.

// rankingFile reads a CURVE argument of an allocator spec (bf:FILE, paging:FILE:s) or
// of a task order (curve:FILE) that is not a built-in curve: a ranking file of m.
func rankingFile(path string, m topo.Machine) (curves.Order, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%q is neither a curve (valid: %s) nor an existing ranking file", path, strings.Join(curves.Names(), ", "))
		}
		return nil, err
	}
	return curves.ReadMachineRanking(path, m)
}

// slurmTreeFile reads the topology.conf named in a slurm:tree:FILE allocator spec.
func slurmTreeFile(path string) (*slurm.Tree, error) {
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

// slurmBlocksFile reads the topology.conf named in a slurm:block:FILE allocator spec.
func slurmBlocksFile(path string) (*slurm.Blocks, error) {
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
