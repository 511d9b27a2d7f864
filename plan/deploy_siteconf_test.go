package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// siteConf is a slurm.conf as sites write them around the sample's 16 hosts
// (node01-16): comments and blank lines, an Include line, a NodeName=DEFAULT
// weight, lower-case keys, a continued NodeName line, a line that mixes compute
// nodes with node17 (not in the network) and gives one NodeAddr per node, a login
// node, the topology settings in lower case with a comment, and a TopologyParam
// with another flag.
const siteConf = `# site configuration
ClusterName=x

Include /etc/slurm/nodes-extra.conf
SelectType=select/cons_tres
NodeName=DEFAULT CPUs=1 Weight=5
nodename=node[01-04] weight=3 # fast ones
NodeName=node[05-08] \
  RealMemory=10 # continued
NodeName=node[09-17] Weight=7 NodeAddr=10.0.1.[9-17]
NodeName=login1 Weight=100 NodeAddr=10.0.0.1
topologyplugin=topology/flat # none yet
TopologyParam=Dragonfly,SwitchAsNodeRank
PartitionName=all Nodes=node[01-17] Default=YES OverSubscribe=EXCLUSIVE
PartitionName=login Nodes=login1
`

// TestDeploymentSlurmConfKeepsSite: every deployment's slurm.conf, read back by
// ReadConf, gives what the deployment means and keeps the rest of the site's
// file: the nodes the network lacks (node17, login1) with their own values, the
// partitions, the lines it does not change byte for byte (Include, comments,
// DEFAULT lines) in their order; one TopologyPlugin and TopologyParam line, with
// the plugin of the deployment and the site's other TopologyParam flags; the
// compute nodes' weights one value (tree, block) or the ranks (weights); and the
// emulator places jobs as the emulation built from the written files does. The
// site's Include line is named in the report's warnings.
func TestDeploymentSlurmConfKeepsSite(t *testing.T) {
	orig, err := slurm.ReadConf([]byte(siteConf))
	if err != nil {
		t.Fatal(err)
	}
	origNodes, err := orig.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	origByName := map[string]slurm.ConfNode{}
	for _, n := range origNodes {
		origByName[n.Name] = n
	}
	origParts, err := orig.Partitions(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The physical lines of logical lines no deployment changes (every line but
	// the compute nodes' NodeName lines and the topology settings), and lines
	// that hold no pair (comments, blank lines).
	phys := strings.SplitAfter(siteConf, "\n")
	changed := map[int]bool{}
	for _, l := range orig.Lines {
		k := l.Kind()
		if k == "topologyplugin" || k == "topologyparam" || k == "nodename" && strings.HasPrefix(strings.ToLower(l.Pairs[0].Value), "node") {
			for i := l.First; i <= l.Last; i++ {
				changed[i-1] = true
			}
		}
	}
	var kept []string
	for i, s := range phys {
		if s != "" && !changed[i] {
			kept = append(kept, s)
		}
	}

	for _, ver := range []Version{{Major: 22, Minor: 5}, {Major: 23, Minor: 11}} {
		opt := versionedOptions(t, ver, 20, siteConf)
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(p.Report.Warnings, func(w string) bool {
			return strings.Contains(w, "Include") && strings.Contains(w, "/etc/slurm/nodes-extra.conf")
		}) {
			t.Errorf("Slurm %s: no warning names the Include line: %q", ver, p.Report.Warnings)
		}
		rank := p.Order.Ranks()
		checked := 0
		for _, d := range p.Deployments {
			if !d.Supported || d.SlurmConf == nil || d.Kind == KindCurrent || d.Kind == KindTorus3D {
				continue
			}
			checked++
			what := fmt.Sprintf("Slurm %s, %s", ver, d.Kind)
			c, err := slurm.ReadConf(d.SlurmConf)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			nodes, err := c.Nodes()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			parts, err := c.Partitions(nil)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			// Nodes the network lacks: as the site had them.
			for _, name := range []string{"node17", "login1"} {
				i := slices.IndexFunc(nodes, func(n slurm.ConfNode) bool { return n.Name == name })
				if i < 0 {
					t.Errorf("%s: %s gone", what, name)
					continue
				}
				n, o := nodes[i], origByName[name]
				if n.Weight != o.Weight || n.CPUs != o.CPUs || n.Hostname != o.Hostname || n.Addr != o.Addr || n.Port != o.Port {
					t.Errorf("%s: %s is %+v, the site's %+v", what, name, n, o)
				}
			}
			// Compute nodes: by host (names renames them), one each.
			byHost := map[string]slurm.ConfNode{}
			for _, n := range nodes {
				byHost[n.Hostname] = n
			}
			if len(nodes) != len(origNodes) {
				t.Errorf("%s: %d nodes, the site has %d", what, len(nodes), len(origNodes))
			}
			for v, h := range p.Names {
				n, ok := byHost[h]
				if !ok {
					t.Errorf("%s: host %s not in the written slurm.conf", what, h)
					continue
				}
				want := uint32(3) // the smallest of the compute nodes' weights
				if d.Kind == KindWeights {
					want = uint32(rank[v] + 1)
				}
				if n.Weight != want || n.CPUs != 1 {
					t.Errorf("%s: %s Weight=%d CPUs=%d, want Weight=%d CPUs=1", what, h, n.Weight, n.CPUs, want)
				}
				if o := origByName[h]; n.Addr != o.Addr {
					t.Errorf("%s: %s NodeAddr %s, the site's %s", what, h, n.Addr, o.Addr)
				}
			}
			if d.Kind != KindNames {
				if !slices.EqualFunc(parts, origParts, func(a, b slurm.ConfPartition) bool {
					return a.Name == b.Name && a.Nodes == b.Nodes && a.OverSubscribe == b.OverSubscribe
				}) {
					t.Errorf("%s: partitions %+v, the site's %+v", what, parts, origParts)
				}
			}
			// Topology settings: one line each, the deployment's plugin, the
			// site's other flags kept.
			lines := map[string]int{}
			for _, l := range c.Lines {
				lines[l.Kind()]++
			}
			plugin, param := "topology/flat", "Dragonfly,SwitchAsNodeRank"
			switch {
			case d.Kind == KindTree && ver.AtLeast(V2302):
				plugin = "topology/tree"
			case d.Kind == KindTree:
				plugin, param = "topology/tree", "Dragonfly"
			case d.Kind == KindBlock:
				plugin, param = "topology/block", "Dragonfly"
			}
			if got := c.Global("TopologyPlugin"); !strings.EqualFold(got, plugin) || lines["topologyplugin"] != 1 {
				t.Errorf("%s: TopologyPlugin=%s on %d lines, want %s on one", what, got, lines["topologyplugin"], plugin)
			}
			if got := c.Global("TopologyParam"); got != param || lines["topologyparam"] != 1 {
				t.Errorf("%s: TopologyParam=%s on %d lines, want %s on one", what, got, lines["topologyparam"], param)
			}
			// The lines not changed: byte for byte, in order.
			out := strings.SplitAfter(string(d.SlurmConf), "\n")
			at := 0
			for _, s := range kept {
				if d.Kind == KindNames && strings.HasPrefix(s, "PartitionName=all") {
					continue // its node list is renamed
				}
				for at < len(out) && out[at] != s {
					at++
				}
				if at == len(out) {
					t.Errorf("%s: line %q not kept (or out of order):\n%s", what, s, d.SlurmConf)
					break
				}
				at++
			}
			if d.Kind == KindAsRun {
				continue
			}
			mine, err := d.Allocator()
			if err != nil {
				t.Fatal(err)
			}
			samePlacements(t, what, mine, slurmFromFiles(t, p, d, ver), uint64(ver.Minor))
		}
		if want := map[int]int{22: 3, 23: 4}[ver.Major]; checked != want {
			t.Errorf("Slurm %s: %d deployments checked, want %d (weights, names, tree; block from 23.11)", ver, checked, want)
		}
	}
}
