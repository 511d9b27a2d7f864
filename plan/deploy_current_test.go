package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// TestCurrentTopologyPlugins: the current deployment models each TopologyPlugin a
// site may run. topology/tree and topology/block without their topology.conf, or
// with the other plugin's file, are errors naming the file and the flag;
// topology/block with its file places jobs as the emulation built from the files;
// a plugin that is not emulated is said so in a note; topology/tree with
// SwitchAsNodeRank before 23.02 (which ignores it) is the plain tree.
func TestCurrentTopologyPlugins(t *testing.T) {
	tree, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	// A block file of the sample: four blocks of four along the leaves.
	var blocks bytes.Buffer
	for b := range 4 {
		fmt.Fprintf(&blocks, "BlockName=b%d Nodes=node[%02d,%02d,%02d,%02d]\n", b+1, b+1, b+5, b+9, b+13)
	}
	blocks.WriteString("BlockSizes=4\n")
	// The same blocks as Slurm reads them too: BlockSizes= first, keys in
	// lower case (plan took a file for a tree file unless its first word began
	// with "blockname=").
	blocksSizesFirst := []byte("blocksizes=4\n" + strings.ReplaceAll(strings.TrimSuffix(blocks.String(), "BlockSizes=4\n"), "BlockName=", "blockname="))
	base := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n"
	for _, c := range []struct {
		name     string
		ver      Version
		conf     string
		topology []byte
		wantErr  []string // the error names all of these
		wantNote string   // a note of the current deployment
	}{
		{name: "tree without its file", ver: Version{Major: 22, Minor: 5}, conf: "TopologyPlugin=topology/tree\n", wantErr: []string{"slurm.conf", "topology/tree", "--topology-conf"}},
		{name: "tree with a block file", ver: Version{Major: 23, Minor: 11}, conf: "TopologyPlugin=topology/tree\n", topology: blocks.Bytes(), wantErr: []string{"topology.conf", "topology/block file", "topology/tree"}},
		{name: "block without its file", ver: Version{Major: 23, Minor: 11}, conf: "TopologyPlugin=topology/block\n", wantErr: []string{"slurm.conf", "topology/block", "--topology-conf"}},
		{name: "block", ver: Version{Major: 23, Minor: 11}, conf: "TopologyPlugin=topology/block\n", topology: blocks.Bytes()},
		{name: "block, BlockSizes first", ver: Version{Major: 23, Minor: 11}, conf: "TopologyPlugin=topology/block\n", topology: blocksSizesFirst},
		{name: "tree with a block file, BlockSizes first", ver: Version{Major: 23, Minor: 11}, conf: "TopologyPlugin=topology/tree\n", topology: blocksSizesFirst, wantErr: []string{"topology.conf", "topology/block file", "topology/tree"}},
		{name: "none with a bad block file", ver: Version{Major: 23, Minor: 11}, conf: "", topology: []byte("BlockName=b1 Nodes=node[01-04]\nBlockName=b1 Nodes=node[05-08]\n"), wantErr: []string{"topology.conf", "b1"}},
		{name: "tree, SwitchAsNodeRank before 23.02", ver: Version{Major: 22, Minor: 5}, conf: "TopologyPlugin=Topology/Tree\nTopologyParam=SwitchAsNodeRank\n", topology: tree},
		{name: "not emulated", ver: Version{Major: 22, Minor: 5}, conf: "TopologyPlugin=topology/3d_torus\n", wantNote: "TopologyPlugin=topology/3d_torus is not emulated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := sampleOptions(t, false)
			opt.Version, opt.VersionSource = c.ver, "test"
			opt.SyntheticJobs = 20
			opt.SlurmConf, opt.SlurmConfPath = []byte(base+c.conf), "slurm.conf"
			if c.topology != nil {
				opt.TopologyConf, opt.TopologyConfPath = c.topology, "topology.conf"
			}
			p, err := Make(context.Background(), opt)
			if c.wantErr != nil {
				wantInputError(t, err, c.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cur := p.Deployment(KindCurrent)
			if !cur.Supported || !bytes.Equal(cur.SlurmConf, opt.SlurmConf) || !bytes.Equal(cur.Topology, c.topology) {
				t.Fatalf("current: supported %v, files changed", cur.Supported)
			}
			if c.wantNote != "" && !slices.ContainsFunc(cur.Notes, func(n string) bool { return strings.Contains(n, c.wantNote) }) {
				t.Errorf("notes %q, want %q", cur.Notes, c.wantNote)
			}
			mine, err := cur.Allocator()
			if err != nil {
				t.Fatal(err)
			}
			// slurmFromFiles emulates tree and block and no other plugin (as the
			// note says the current deployment does).
			samePlacements(t, "current, "+c.name, mine, slurmFromFiles(t, p, cur, c.ver), 7)
		})
	}
}

// TestDeploymentAPI: deployment names read back (ParseKind of every Kind is that
// Kind; an unknown name is an error listing them all); an unsupported deployment
// gives no allocator and says why; NodeName and NodeNames are the names the
// deployment's slurm.conf gives each host (renamed under names).
func TestDeploymentAPI(t *testing.T) {
	for _, k := range kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	_, err := ParseKind("Tree")
	if err == nil {
		t.Fatal("ParseKind(Tree) accepted")
	}
	for _, k := range kinds {
		if !strings.Contains(err.Error(), string(k)) {
			t.Errorf("%q does not list %s", err, k)
		}
	}
	opt := sampleOptions(t, false)
	opt.Version, opt.VersionSource = Version{Major: 22, Minor: 5}, "test"
	opt.SyntheticJobs = 20
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	b := p.Deployment(KindBlock)
	if a, err := b.Allocator(); err == nil || a != nil || !strings.Contains(err.Error(), "block") || !strings.Contains(err.Error(), b.Why) {
		t.Errorf("block on 22.05: allocator %v, error %v", a, err)
	}
	if p.Deployment(Kind("nosuch")) != nil {
		t.Error("a deployment of an unknown kind")
	}
	for _, d := range p.Deployments {
		if !d.Supported || d.SlurmConf == nil {
			continue
		}
		if d.Machine() != p.Machine {
			t.Errorf("%s: another machine", d.Kind)
		}
		c, err := slurm.ReadConf(d.SlurmConf)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := c.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		nameOf := map[string]string{}
		for _, n := range nodes {
			nameOf[n.Hostname] = n.Name
		}
		names := d.NodeNames()
		for v, h := range p.Names {
			if d.NodeName(v) != nameOf[h] || names[v] != nameOf[h] {
				t.Errorf("%s: node %d (host %s) named %s / %s, slurm.conf says %s", d.Kind, v, h, d.NodeName(v), names[v], nameOf[h])
			}
		}
		names[0] = "changed"
		if d.NodeName(0) == "changed" {
			t.Errorf("%s: NodeNames shares its slice", d.Kind)
		}
	}
}

// wantInputError fails t unless err is an *InputError whose text names every
// string of want.
func wantInputError(t *testing.T, err error, want []string) {
	t.Helper()
	var ie *InputError
	if err == nil || !errors.As(err, &ie) {
		t.Fatalf("got %v, want an InputError", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %q", err, w)
		}
	}
}
