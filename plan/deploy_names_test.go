package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// TestNamesDeploymentRenamesEverywhere: the names deployment on a site whose
// slurm.conf already has nodes c01-c16 (another rack, not in the network) picks
// the next prefix (cn01-cn16) so that no name collides; the compute nodes' natural
// name order is the ordering with each host kept; DownNodes, SuspendExcNodes (an
// AWS ParallelCluster slurm.conf has one), NodeSet and partition node lists follow
// the renaming (a partition line's comment kept); the other
// nodes, among them two login nodes sharing a line with node16, keep their names
// and values; the ranked tree (23.11) keeps them too; and both place jobs as the
// emulation built from their files.
func TestNamesDeploymentRenamesEverywhere(t *testing.T) {
	conf := `NodeName=DEFAULT CPUs=1
NodeName=node[01-15]
NodeName=node16,login[1-2] NodeAddr=10.0.0.16,10.0.9.[1-2]
NodeName=c[01-16]
DownNodes=node[03-04],c05 State=DOWN Reason=fans
SuspendExcNodes=node[01-02]:1,c01
NodeSet=first Nodes=node[01-08]
PartitionName=all Nodes=node[01-16] OverSubscribe=EXCLUSIVE # the compute nodes
PartitionName=other Nodes=c[01-16],login[1-2]
`
	for _, ver := range []Version{{Major: 22, Minor: 5}, {Major: 23, Minor: 11}} {
		opt := versionedOptions(t, ver, 20, conf)
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []Kind{KindNames, KindTree} {
			d := p.Deployment(k)
			what := fmt.Sprintf("Slurm %s, %s", ver, k)
			if !d.Supported {
				t.Fatalf("%s: %s", what, d.Why)
			}
			c, err := slurm.ReadConf(d.SlurmConf)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			nodes, err := c.Nodes()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			byName := map[string]slurm.ConfNode{}
			for _, n := range nodes {
				byName[n.Name] = n
			}
			for _, n := range []struct{ name, addr string }{{"login1", "10.0.9.1"}, {"login2", "10.0.9.2"}, {"c01", "c01"}, {"c16", "c16"}} {
				if got, ok := byName[n.name]; !ok || got.Addr != n.addr || got.Hostname != n.name {
					t.Errorf("%s: %s is %+v (present %v), want address %s", what, n.name, got, ok, n.addr)
				}
			}
			if k == KindNames {
				rename := map[string]string{}
				for r, v := range p.Order {
					name := fmt.Sprintf("cn%02d", r+1)
					n, ok := byName[name]
					if !ok || n.Hostname != p.Names[v] {
						t.Fatalf("%s: rank %d is %s (%+v), want host %s", what, r, name, n, p.Names[v])
					}
					rename[p.Names[v]] = name
					if p.Names[v] == "node16" && n.Addr != "10.0.0.16" {
						t.Errorf("%s: node16 renamed %s lost its address: %s", what, name, n.Addr)
					}
				}
				renamed := func(list string) string {
					hs, err := hostlist.Expand(list)
					if err != nil {
						t.Fatal(err)
					}
					for i, h := range hs {
						if r, ok := rename[h]; ok {
							hs[i] = r
						}
					}
					slices.SortFunc(hs, hostlist.NaturalCompare)
					s, _ := hostlist.Compress(hs)
					return s
				}
				for _, l := range c.Lines {
					switch l.Kind() {
					case "downnodes":
						if got := l.Pairs[0].Value; got != renamed("node[03-04],c05") {
							t.Errorf("%s: DownNodes=%s, want %s", what, got, renamed("node[03-04],c05"))
						}
						if r, _ := l.Get("Reason"); r != "fans" {
							t.Errorf("%s: DownNodes lost its Reason: %q", what, r)
						}
					case "suspendexcnodes":
						// slurmctld ignores the whole list when a name is not a node.
						if got, want := l.Pairs[0].Value, renamed("node[01-02]")+":1,c01"; got != want {
							t.Errorf("%s: SuspendExcNodes=%s, want %s", what, got, want)
						}
					case "nodeset":
						if got, _ := l.Get("Nodes"); got != renamed("node[01-08]") {
							t.Errorf("%s: NodeSet Nodes=%s, want %s", what, got, renamed("node[01-08]"))
						}
					case "partitionname":
						got, _ := l.Get("Nodes")
						if l.Pairs[0].Value == "all" && (got != "cn[01-16]" || l.Comment != "# the compute nodes") {
							t.Errorf("%s: partition all Nodes=%s comment %q", what, got, l.Comment)
						}
						if l.Pairs[0].Value == "other" && got != "c[01-16],login[1-2]" {
							t.Errorf("%s: partition other Nodes=%s", what, got)
						}
					}
				}
				if !strings.Contains(strings.Join(d.Settings, " "), "NodeName=cn01..cn16") {
					t.Errorf("%s: settings %q", what, d.Settings)
				}
			}
			mine, err := d.Allocator()
			if err != nil {
				t.Fatal(err)
			}
			samePlacements(t, what, mine, slurmFromFiles(t, p, d, ver), 11)
		}
	}
}

// TestBlockSizeDividesHosts: topology/block wants every block to hold the base
// size, so blocks are cut to the largest size up to the most hosts on a leaf that
// divides the compute hosts: 15 hosts on leaves of 4 get blocks of 3, read back as
// five blocks of 3 holding every host once and placing jobs as the emulation; 13
// hosts (prime) get no block deployment, the reason naming the count.
func TestBlockSizeDividesHosts(t *testing.T) {
	for _, c := range []struct {
		nodes string
		size  int // 0: unsupported
	}{{"node[01-15]", 3}, {"node[01-13]", 0}} {
		opt := versionedOptions(t, Version{Major: 23, Minor: 11}, 20, "NodeName=DEFAULT CPUs=1\nNodeName="+c.nodes+"\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE\n")
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		d := p.Deployment(KindBlock)
		if c.size == 0 {
			if d.Supported || !strings.Contains(d.Why, fmt.Sprintf("the %d hosts", len(p.Names))) {
				t.Errorf("%s: block supported %v (%s)", c.nodes, d.Supported, d.Why)
			}
			continue
		}
		if !d.Supported {
			t.Fatalf("%s: %s", c.nodes, d.Why)
		}
		b, err := slurm.ParseBlocks(strings.NewReader(string(d.Topology)))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, blk := range b.Blocks {
			if len(blk.Nodes) != c.size {
				t.Errorf("%s: block %s has %d nodes, want %d", c.nodes, blk.Name, len(blk.Nodes), c.size)
			}
			for _, n := range blk.Nodes {
				seen[n]++
			}
		}
		for _, h := range p.Names {
			if seen[h] != 1 {
				t.Errorf("%s: host %s in %d blocks", c.nodes, h, seen[h])
			}
		}
		if len(seen) != len(p.Names) {
			t.Errorf("%s: blocks hold %d nodes, the compute hosts are %d", c.nodes, len(seen), len(p.Names))
		}
		mine, err := d.Allocator()
		if err != nil {
			t.Fatal(err)
		}
		samePlacements(t, "block, "+c.nodes, mine, slurmFromFiles(t, p, d, opt.Version), 13)
	}
}
