package plan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// The block deployment writes the topology.conf the site's Slurm reads: 23.11 knows
// BlockLevels= and refuses BlockSizes=, 24.05 on the other way round. The two files
// hold the same blocks and the same allowed aggregations (level l is 2^l base
// blocks), and each reads back as its release's.
func TestBlockDeploymentKeyForVersion(t *testing.T) {
	conf := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n"
	read := func(ver Version) *slurm.Blocks {
		t.Helper()
		p, err := Make(t.Context(), versionedOptions(t, ver, 20, conf))
		if err != nil {
			t.Fatal(err)
		}
		d := p.Deployment(KindBlock)
		if !d.Supported {
			t.Fatalf("%s: block not supported: %s", ver, d.Why)
		}
		text := string(d.Topology)
		levels, sizes := strings.Contains(text, "\nBlockLevels="), strings.Contains(text, "\nBlockSizes=")
		if want := !ver.AtLeast(V2405); levels != want || sizes == want {
			t.Errorf("Slurm %s: BlockLevels= written %v, BlockSizes= written %v; want BlockLevels= only on 23.11\n%s", ver, levels, sizes, text)
		}
		b, err := slurm.ParseBlocks(bytes.NewReader(d.Topology))
		if err != nil {
			t.Fatalf("Slurm %s: the written topology.conf does not read back: %v", ver, err)
		}
		if (b.LevelsLine != 0) != !ver.AtLeast(V2405) {
			t.Errorf("Slurm %s: read back with LevelsLine %d", ver, b.LevelsLine)
		}
		return b
	}
	old, cur := read(V2311), read(Version{Major: 24, Minor: 5})
	if old.Base != cur.Base || old.Levels != cur.Levels || len(old.Blocks) != len(cur.Blocks) {
		t.Fatalf("23.11's blocks (base %d, levels %b, %d blocks) differ from 24.05's (base %d, levels %b, %d blocks)",
			old.Base, old.Levels, len(old.Blocks), cur.Base, cur.Levels, len(cur.Blocks))
	}
	for i := range old.Blocks {
		if strings.Join(old.Blocks[i].Nodes, ",") != strings.Join(cur.Blocks[i].Nodes, ",") {
			t.Errorf("block %d: %v on 23.11, %v on 24.05", i, old.Blocks[i].Nodes, cur.Blocks[i].Nodes)
		}
	}
	if old.Levels == 0 || old.Levels&1 == 0 {
		t.Errorf("levels %b: want level 0 and up", old.Levels)
	}
}
