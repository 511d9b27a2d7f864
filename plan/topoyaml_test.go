package plan

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// yamlTopology writes topology t (read from a topology.conf) as one topology of
// a topology.yaml named name: the same switches, blocks or rings in the same
// order.
func yamlTopology(t *testing.T, top *slurm.Topology, name string, clusterDefault bool) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "- topology: %s\n", name)
	if clusterDefault {
		b.WriteString("  cluster_default: true\n")
	}
	hl := func(ns []string) string {
		h, err := hostlist.Compress(ns)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	switch {
	case top.Tree != nil:
		b.WriteString("  tree:\n    switches:\n")
		for _, s := range top.Tree.Switches {
			fmt.Fprintf(&b, "      - switch: %s\n", s.Name)
			if s.Level == 0 {
				fmt.Fprintf(&b, "        nodes: %q\n", hl(s.Nodes))
				continue
			}
			var cs []string
			for _, c := range s.Children {
				cs = append(cs, top.Tree.Switches[c].Name)
			}
			fmt.Fprintf(&b, "        children: %q\n", hl(cs))
		}
	case top.Blocks != nil:
		b.WriteString("  block:\n")
		if top.Blocks.Sizes != nil {
			fmt.Fprintf(&b, "    block_sizes: %s\n", strings.Join(strings.Fields(fmt.Sprint(top.Blocks.Sizes)), ", "))
		}
		b.WriteString("    blocks:\n")
		for _, bl := range top.Blocks.Blocks {
			fmt.Fprintf(&b, "      - block: %s\n        nodes: %q\n", bl.Name, hl(bl.Nodes))
		}
	case top.Rings != nil:
		b.WriteString("  ring:\n    rings:\n")
		for _, r := range top.Rings.Rings {
			fmt.Fprintf(&b, "      - ring: %s\n        nodes: %q\n", r.Name, hl(r.Nodes))
		}
	default:
		t.Fatal("yamlTopology: a tree, blocks or rings")
	}
	return b.String()
}

const flatYAML = "- topology: none\n  flat: true\n"

// sampleBlocks is a block topology.conf of the sample: four blocks of four.
func sampleBlocks() []byte {
	var blocks bytes.Buffer
	for b := range 4 {
		fmt.Fprintf(&blocks, "BlockName=b%d Nodes=node[%02d,%02d,%02d,%02d]\n", b+1, b+1, b+5, b+9, b+13)
	}
	blocks.WriteString("BlockSizes=4\n")
	return blocks.Bytes()
}

func parseConfTopology(t *testing.T, data []byte) *slurm.Topology {
	t.Helper()
	top, err := slurm.ParseTopologyConf(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// currentOf returns the current deployment's report row and its predictions.
func currentOf(t *testing.T, p *Plan) (DeploymentReport, []byte) {
	t.Helper()
	for _, d := range p.Report.Deployments {
		if d.Name == string(KindCurrent) {
			return d, file(p, "predictions/current.csv")
		}
	}
	t.Fatal("no current deployment")
	return DeploymentReport{}, nil
}

// TestCurrentFromTopologyYAML: a site on Slurm 26.05 with a topology.yaml is
// modelled as the same site with the equivalent TopologyPlugin and
// topology.conf: a tree (also with SwitchAsNodeRank), a block topology, a flat
// one (no topology), each as the yaml's only topology, as its cluster_default
// one among others, or as the first listed when none is cluster_default. The
// current row (metrics, by size) and every predicted placement are the
// topology.conf site's; a note names the topology that modelled it.
func TestCurrentFromTopologyYAML(t *testing.T) {
	tree, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	blocks := sampleBlocks()
	treeY := yamlTopology(t, parseConfTopology(t, tree), "fabric", false)
	blocksY := yamlTopology(t, parseConfTopology(t, blocks), "racks", false)
	// Slurm 26.05's topology/ring from topology.conf's RingName= lines: rings
	// out of name order, a node on two rings, one ring of every node (the
	// sample's history has jobs of up to 16 nodes).
	rings := []byte("RingName=r0 Nodes=node[01-07]\nRingName=r1 Nodes=node[14,12,10,08,09,11,13]\nRingName=r2 Nodes=node[15,07,01]\nRingName=all Nodes=node[16,01-15]\n")
	ringsY := yamlTopology(t, parseConfTopology(t, rings), "rings", false)
	base := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE Default=YES\n"
	asDefault := func(y string) string { return strings.Replace(y, "\n", "\n  cluster_default: true\n", 1) }
	for _, c := range []struct {
		name       string
		conf       string // the topology.conf site's settings
		topology   []byte // its topology.conf
		yamlConf   string // the topology.yaml site's settings
		yaml       string
		wantNote   string
		wantPlugin string // a note that TopologyPlugin is not used
	}{
		{name: "tree", conf: "TopologyPlugin=topology/tree\n", topology: tree, yaml: treeY, wantNote: "topology fabric (tree"},
		{name: "tree, SwitchAsNodeRank", conf: "TopologyPlugin=topology/tree\nTopologyParam=SwitchAsNodeRank\n", topology: tree,
			yamlConf: "TopologyParam=SwitchAsNodeRank\n", yaml: flatYAML + asDefault(treeY) + blocksY, wantNote: "cluster_default: true"},
		{name: "block", conf: "TopologyPlugin=topology/block\n", topology: blocks, yamlConf: "TopologyPlugin=topology/tree\n", yaml: blocksY + flatYAML + treeY,
			wantNote: "Slurm takes the first listed", wantPlugin: "TopologyPlugin=topology/tree is not used"},
		{name: "block, cluster_default", conf: "TopologyPlugin=topology/block\n", topology: blocks, yaml: treeY + asDefault(blocksY), wantNote: "topology racks (block"},
		{name: "ring", conf: "TopologyPlugin=topology/ring\n", topology: rings, yaml: ringsY, wantNote: "topology rings (ring"},
		{name: "ring, cluster_default", conf: "TopologyPlugin=topology/ring\n", topology: rings, yamlConf: "TopologyPlugin=topology/tree\n", yaml: treeY + asDefault(ringsY) + blocksY,
			wantNote: "topology rings (ring", wantPlugin: "TopologyPlugin=topology/tree is not used"},
		{name: "flat", conf: "", yaml: flatYAML + treeY, wantNote: "topology none (flat"},
		{name: "flat, the only one", conf: "", yaml: flatYAML, wantNote: "topology none (flat"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(conf string, topology []byte, path string) *Plan {
				opt := sampleOptions(t, true)
				opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
				opt.SlurmConf, opt.SlurmConfPath = []byte(base+conf), "slurm.conf"
				if topology != nil {
					opt.TopologyConf, opt.TopologyConfPath = topology, path
				}
				p, err := Make(context.Background(), opt)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			want := run(c.conf, c.topology, "topology.conf")
			got := run(c.yamlConf, []byte(c.yaml), "topology.yaml")
			wr, wp := currentOf(t, want)
			gr, gp := currentOf(t, got)
			if !reflect.DeepEqual(wr.Metrics, gr.Metrics) || !reflect.DeepEqual(wr.BySize, gr.BySize) {
				t.Errorf("current row from topology.yaml %+v, from topology.conf %+v", gr.Metrics, wr.Metrics)
			}
			if len(wp) == 0 || !bytes.Equal(wp, gp) {
				t.Errorf("predictions differ:\ntopology.conf:\n%s\ntopology.yaml:\n%s", wp, gp)
			}
			cur := got.Deployment(KindCurrent)
			if cur.TopologyName != "topology.yaml" || !bytes.Equal(cur.Topology, []byte(c.yaml)) {
				t.Errorf("current topology file %q", cur.TopologyName)
			}
			hasNote := func(notes []string, w string) bool {
				return slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "topology.yaml") && strings.Contains(n, w) })
			}
			if !hasNote(got.Report.Notes, c.wantNote) || !hasNote(gr.Notes, c.wantNote) {
				t.Errorf("no note naming %q: report %q, current %q", c.wantNote, got.Report.Notes, gr.Notes)
			}
			if c.wantPlugin != "" && !slices.ContainsFunc(gr.Notes, func(n string) bool { return strings.Contains(n, c.wantPlugin) }) {
				t.Errorf("no note %q: %q", c.wantPlugin, gr.Notes)
			}
		})
	}
}

// torusSite4x2x2 is a torus:4x2x2 site of node01..node16 (one partition, all)
// with a history of 60 jobs (seeded by seed): run plans it with a topology.yaml
// (nil: none) and the network's hosts named names.
func torusSite4x2x2(t *testing.T, seed uint64) (hosts []string, run func(names []string, yaml []byte) *Plan) {
	g, err := topo.ParseSpec("torus:4x2x2")
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string][]int{"all": nil}
	for v := 1; v <= 16; v++ {
		parts["all"] = append(parts["all"], v)
	}
	jobs := partHistory(rand.New(rand.NewPCG(seed, 9)), 60, parts, []string{"all"})
	conf := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL OverSubscribe=EXCLUSIVE Default=YES\n"
	return hostsOf(parts["all"]), func(names []string, yaml []byte) *Plan {
		opt := Options{Machine: g, Hosts: names, MachineSource: "torus:4x2x2", SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
			TimeLimit: 10 * time.Second, Seed: 1, Version: Version{Major: 26, Minor: 5}, VersionSource: "test"}
		opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
		if yaml != nil {
			opt.TopologyConf, opt.TopologyConfPath = yaml, "topology.yaml"
		}
		p, err := Make(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestCurrentTorus3DFromTopologyYAML: a torus site's topology.yaml (the one the
// torus3d deployment writes) modelled as the current configuration predicts
// what the torus3d deployment predicts, placement for placement; and with the
// network's hosts named in another order than the torus lists them (the
// emulation then maps torus positions to nodes), the predicted node names are
// the same again, since Slurm places by the torus's positions.
func TestCurrentTorus3DFromTopologyYAML(t *testing.T) {
	hosts, run := torusSite4x2x2(t, 3)
	rng := rand.New(rand.NewPCG(3, 10)) // the lockstep's steps
	first := run(hosts, nil)
	tor := first.Deployment(KindTorus3D)
	if !tor.Supported || tor.TopologyName != "topology.yaml" {
		t.Fatalf("torus3d: %v %s", tor.Supported, tor.Why)
	}
	want := file(first, "predictions/torus3d.csv")
	got := run(hosts, tor.Topology)
	gr, gp := currentOf(t, got)
	if len(want) == 0 || !bytes.Equal(gp, want) {
		t.Errorf("current from the torus3d topology.yaml predicts\n%s\nthe torus3d deployment\n%s", gp, want)
	}
	for _, d := range first.Report.Deployments {
		if d.Name == string(KindTorus3D) && !reflect.DeepEqual(d.Metrics, gr.Metrics) {
			t.Errorf("current row %+v, torus3d's %+v", gr.Metrics, d.Metrics)
		}
	}
	if got.Deployment(KindCurrent).torus == nil || got.Deployment(KindCurrent).torus.nodeAt != nil {
		t.Fatal("not the torus3d emulation on the identity")
	}
	// The same site, its network's nodes named in reverse order.
	rev := slices.Clone(hosts)
	slices.Reverse(rev)
	revPlan := run(rev, tor.Topology)
	if revPlan.Deployment(KindCurrent).torus.nodeAt == nil {
		t.Fatal("reversed names: no position map")
	}
	// Lockstep on random starts and ends, by name: a job refused or left
	// pending is so in both, else placed on the same names. (The replays'
	// fallback for such jobs takes the lowest node indices, which the two
	// networks number differently, so their predictions are not compared.)
	a1, err := got.Deployment(KindCurrent).Allocator()
	if err != nil {
		t.Fatal(err)
	}
	a2, err := revPlan.Deployment(KindCurrent).Allocator()
	if err != nil {
		t.Fatal(err)
	}
	nameOf := func(p *Plan, nodes []int) []string {
		var out []string
		for _, v := range nodes {
			out = append(out, p.Names[v])
		}
		slices.Sort(out)
		return out
	}
	idx := map[string]int{}
	for v, n := range revPlan.Names {
		idx[n] = v
	}
	var running [][]int
	placed := 0
	for range 300 {
		if len(running) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(running))
			var other []int
			for _, n := range nameOf(got, running[i]) {
				other = append(other, idx[n])
			}
			if err := a1.Release(running[i]); err != nil {
				t.Fatal(err)
			}
			if err := a2.Release(other); err != nil {
				t.Fatal(err)
			}
			running = slices.Delete(running, i, i+1)
			continue
		}
		k := 1 + rng.IntN(8)
		n1, e1 := a1.Allocate(k)
		n2, e2 := a2.Allocate(k)
		if (e1 == nil) != (e2 == nil) || !slices.Equal(nameOf(got, n1), nameOf(revPlan, n2)) {
			t.Fatalf("%d nodes: %v %v; hosts reversed: %v %v", k, nameOf(got, n1), e1, nameOf(revPlan, n2), e2)
		}
		if e1 == nil {
			running = append(running, n1)
			placed++
		}
	}
	if placed < 20 {
		t.Fatalf("only %d jobs placed", placed)
	}
}

// TestCurrentPartitionTopologies: partitions that pick topologies of the
// topology.yaml with Topology= (Slurm 25.05+): tp (node[01-08]) the tree,
// bp (node[09-16]) the blocks, the cluster default flat. With the partitions
// disjoint and the as-run schedule, a job's placement depends on its own
// partition's jobs only, so each job of tp is predicted where the site with
// TopologyPlugin=topology/tree and its topology.conf places it, and each of bp
// where the block site does: the current row's predictions are checked job by
// job against those two replays. The weights deployment keeps each partition's
// topology too (its predictions against the two sites' weights rows).
func TestCurrentPartitionTopologies(t *testing.T) {
	tree, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	blocks := sampleBlocks()
	yaml := flatYAML + yamlTopology(t, parseConfTopology(t, tree), "fabric", false) + yamlTopology(t, parseConfTopology(t, blocks), "racks", false)
	parts := map[string][]int{"tp": {1, 2, 3, 4, 5, 6, 7, 8}, "bp": {9, 10, 11, 12, 13, 14, 15, 16}}
	names := []string{"tp", "bp"}
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		jobs := partHistory(rand.New(rand.NewPCG(uint64(seed), 11)), 60, parts, names)
		run := func(conf string, topology []byte, path string) *Plan {
			opt := sampleOptions(t, false)
			opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
			opt.SlurmConf, opt.SlurmConfPath = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\n"+conf), "slurm.conf"
			opt.TopologyConf, opt.TopologyConfPath = topology, path
			opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
			p, err := Make(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		plain := "PartitionName=tp Nodes=node[01-08] Default=YES\nPartitionName=bp Nodes=node[09-16]\n"
		treeSite := run("TopologyPlugin=topology/tree\n"+plain, tree, "topology.conf")
		blockSite := run("TopologyPlugin=topology/block\n"+plain, blocks, "topology.conf")
		yamlSite := run("PartitionName=tp Nodes=node[01-08] Default=YES Topology=fabric\nPartitionName=bp Nodes=node[09-16] Topology=racks\n", []byte(yaml), "topology.yaml")
		if yamlSite.Deployment(KindCurrent).parts == nil {
			t.Fatal("one rule for partitions of two topologies")
		}
		for _, k := range []Kind{KindCurrent, KindWeights} {
			byJob := func(p *Plan) map[string][]string {
				rows, err := csv.NewReader(bytes.NewReader(file(p, "predictions/"+string(k)+".csv"))).ReadAll()
				if err != nil || len(rows) < 2 {
					t.Fatalf("%s predictions: %v", k, err)
				}
				out := map[string][]string{}
				for _, r := range rows[1:] {
					out[r[0]] = r
				}
				return out
			}
			tr, br, yr := byJob(treeSite), byJob(blockSite), byJob(yamlSite)
			compared := map[string]int{}
			for i, j := range jobs {
				id := fmt.Sprint(1000 + i)
				want := tr[id]
				if j.part == "bp" {
					want = br[id]
				}
				if !slices.Equal(yr[id], want) {
					t.Fatalf("seed %d, %s: job %s of %s predicted %q, the %s site's %q", seed, k, id, j.part, yr[id], j.part, want)
				}
				compared[j.part]++
			}
			if compared["tp"] == 0 || compared["bp"] == 0 {
				t.Fatalf("jobs compared %v", compared)
			}
		}
		// The deployments that write their own topology drop the partitions'
		// Topology= (its names are the old file's), and apply.txt removes or
		// replaces the site's topology.yaml.
		d := yamlSite.Deployment(KindTree)
		if !d.Supported || bytes.Contains(bytes.ToLower(d.SlurmConf), []byte("topology=")) {
			t.Fatalf("tree deployment: %v, slurm.conf\n%s", d.Why, d.SlurmConf)
		}
		if apply := yamlSite.applyText(d); !strings.Contains(apply, "rm ") || !strings.Contains(apply, "topology.yaml.before-procalloc") {
			t.Errorf("tree's apply.txt keeps the site's topology.yaml:\n%s", apply)
		}
		// names renames the topology.yaml's nodes too: each partition keeps its
		// topology, and a tp job is predicted where the tree site's names
		// deployment (its topology.conf renamed) predicts it.
		n := yamlSite.Deployment(KindNames)
		if !n.Supported || n.TopologyName != "topology.yaml" || bytes.Contains(n.Topology, []byte("node0")) || bytes.Contains(n.Topology, []byte("node1")) || n.parts == nil || !bytes.Contains(n.SlurmConf, []byte("Topology=racks")) {
			t.Fatalf("names on a topology.yaml site: %v %q\n%s", n.Supported, n.Why, n.Topology)
		}
		if apply := yamlSite.applyText(n); !strings.Contains(apply, "topology.yaml.before-procalloc") || !strings.Contains(apply, "install -m 644 topology.yaml") {
			t.Errorf("names' apply.txt does not replace the site's topology.yaml:\n%s", apply)
		}
		if tn := treeSite.Deployment(KindNames); tn.Supported {
			rows := func(p *Plan) map[string]string {
				out := map[string]string{}
				for _, l := range strings.Split(string(file(p, "predictions/names.csv")), "\n")[1:] {
					id, _, _ := strings.Cut(l, ",")
					out[id] = l
				}
				return out
			}
			yr, tr := rows(yamlSite), rows(treeSite)
			tp := 0
			for i, j := range jobs {
				id := fmt.Sprint(1000 + i)
				if j.part != "tp" {
					continue
				}
				if yr[id] != tr[id] || yr[id] == "" {
					t.Fatalf("seed %d, names: job %s of tp predicted %q, the tree site's %q", seed, id, yr[id], tr[id])
				}
				tp++
			}
			if tp == 0 {
				t.Fatal("no tp job compared under names")
			}
		} else {
			t.Errorf("the tree site's names deployment: %s", tn.Why)
		}
	}
}

// TestTopologyYAMLErrors: bad combinations of slurm.conf, topology.yaml and
// version are errors naming the file, the line and what is expected; a
// topology naming some nodes slurm.conf lacks is read as slurmctld reads it,
// with a warning naming the line.
func TestTopologyYAMLErrors(t *testing.T) {
	tree, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	treeY := yamlTopology(t, parseConfTopology(t, tree), "fabric", true)
	base := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\n"
	all := "PartitionName=all Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE"
	for _, c := range []struct {
		name      string
		ver       Version
		conf      string
		topology  string
		wantErr   []string
		wantWarn  []string
		yamlError bool
	}{
		{name: "Topology= naming no topology", ver: Version{Major: 26, Minor: 5}, conf: all + "\nPartitionName=p2 Nodes=node[01-04] Topology=Fabric\n", topology: flatYAML + treeY,
			wantErr: []string{"slurm.conf", "line 4", "PartitionName=p2 Topology=Fabric", "topology.yaml has no topology \"Fabric\"", "none, fabric", "Invalid partition topology"}},
		{name: "Topology= from a DEFAULT line", ver: Version{Major: 26, Minor: 5}, conf: "PartitionName=DEFAULT Topology=nosuch\n" + all + "\n", topology: treeY,
			wantErr: []string{"slurm.conf", "line 4", "PartitionName=all Topology=nosuch"}},
		{name: "Topology= with a topology.conf", ver: Version{Major: 26, Minor: 5}, conf: "TopologyPlugin=topology/tree\n" + all + " Topology=fabric\n", topology: string(tree),
			wantErr: []string{"slurm.conf", "line 4", "topology.conf is a topology.conf", "\"default\""}},
		{name: "a topology.yaml before 25.05", ver: Version{Major: 24, Minor: 11}, conf: all + "\n", topology: "# site\n" + treeY,
			wantErr: []string{"topology.yaml", "line 2", "25.05", "24.11"}},
		{name: "torus3d before 26.05", ver: Version{Major: 25, Minor: 11}, conf: all + "\n", topology: "- topology: t\n  torus3d:\n    toruses:\n      - name: t\n        dims: {x: 4, y: 2, z: 2}\n        nodes: \"node[01-16]\"\n        placements:\n          - dims: {x: 1, y: 1, z: 1}\n",
			wantErr: []string{"topology.yaml", "line 1", "26.05", "25.11"}},
		{name: "ring before 26.05", ver: Version{Major: 25, Minor: 11}, conf: all + "\n", topology: "- topology: r\n  ring:\n    rings:\n      - ring: a\n        nodes: node[01-08]\n",
			wantErr: []string{"topology.yaml", "line 1", "topology r is ring", "26.05", "25.11"}},
		{name: "a ring of 17 of slurm.conf's nodes", ver: Version{Major: 26, Minor: 5}, conf: all + "\nNodeName=node17\n", topology: "- topology: r\n  ring:\n    rings:\n      - ring: a\n        nodes: node[01-17]\n",
			wantErr: []string{"topology.yaml", "line 4", "ring a has 17 of slurm.conf's nodes", "at most 16", "Ring (a) is bigger than 16"}},
		{name: "no node of slurm.conf", ver: Version{Major: 26, Minor: 5}, conf: all + "\n", topology: strings.ReplaceAll(treeY, "node[", "n["),
			wantErr: []string{"topology.yaml", "line 1", "topology fabric", "none of its 16 nodes", "line 5 names n01"}},
		{name: "a bad topology.yaml", ver: Version{Major: 26, Minor: 5}, conf: all + "\n", topology: treeY + "- topology: b\n  block:\n    blocks:\n      - block: b1\n        nodes: node[01-04]\n      - block: b1\n        nodes: node[05-08]\n",
			wantErr: []string{"topology.yaml", "line", "b1"}},
		{name: "some nodes slurm.conf lacks", ver: Version{Major: 26, Minor: 5}, conf: all + "\n", topology: strings.Replace(treeY, "node[01,05,09,13]", "node[01,05,09,13,17]", 1),
			wantWarn: []string{"topology.yaml line 5", "topology fabric names 1 node slurm.conf lacks", "node17"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := sampleOptions(t, false)
			opt.Version, opt.VersionSource = c.ver, "--slurm-version"
			opt.SyntheticJobs = 20
			opt.SlurmConf, opt.SlurmConfPath = []byte(base+c.conf), "slurm.conf"
			path := "topology.yaml"
			if !strings.Contains(c.topology, "- topology:") {
				path = "topology.conf"
			}
			opt.TopologyConf, opt.TopologyConfPath = []byte(c.topology), path
			p, err := Make(context.Background(), opt)
			if c.wantErr != nil {
				wantInputError(t, err, c.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.wantWarn {
				if !slices.ContainsFunc(p.Report.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("no warning naming %q: %q", w, p.Report.Warnings)
				}
			}
		})
	}
}

// TestPartSwitchMatchesItsRules: the emulator of partitions of different
// topologies, on random starts and ends in random partitions, decides each
// job as the emulator of its partition's topology given the same free nodes
// (a fresh one, the others taken), and keeps every emulator's free state
// the same.
func TestPartSwitchMatchesItsRules(t *testing.T) {
	tree, err := os.ReadFile("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	rings := "- topology: rings\n  ring:\n    rings:\n      - {ring: a, nodes: \"node[05,01,03,07,02]\"}\n      - {ring: b, nodes: \"node[09-16]\"}\n"
	yaml := flatYAML + yamlTopology(t, parseConfTopology(t, tree), "fabric", false) + yamlTopology(t, parseConfTopology(t, sampleBlocks()), "racks", false) + rings
	opt := sampleOptions(t, false)
	opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
	opt.SyntheticJobs = 20
	opt.SlurmConf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\nPartitionName=all Nodes=ALL Default=YES\nPartitionName=t Nodes=ALL Topology=fabric\nPartitionName=b Nodes=ALL Topology=racks\nPartitionName=r Nodes=ALL Topology=rings\n")
	opt.TopologyConf, opt.TopologyConfPath = []byte(yaml), "topology.yaml"
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	cur := p.Deployment(KindCurrent)
	if cur.parts == nil || len(cur.parts.rules) != 4 {
		t.Fatalf("rules %+v", cur.parts)
	}
	a, err := cur.Allocator()
	if err != nil {
		t.Fatal(err)
	}
	ps := a.(*partSwitch)
	rng := rand.New(rand.NewPCG(5, 5))
	var running [][]int
	decided := map[string]int{}
	for range 400 {
		if len(running) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(running))
			if err := ps.Release(running[i]); err != nil {
				t.Fatal(err)
			}
			running = slices.Delete(running, i, i+1)
			continue
		}
		part := []string{"all", "t", "b", "r", "other"}[rng.IntN(5)]
		k := 1 + rng.IntN(8)
		if k > ps.NumFree() {
			continue
		}
		// The rule's own emulator on the same free nodes.
		rule := cur.parts.rules[cur.parts.of[part]]
		ref, err := cur.emulatorOf(rule.cfg, rule.torus)
		if err != nil {
			t.Fatal(err)
		}
		var busy []int
		for v := range 16 {
			if !ps.IsFree(v) {
				busy = append(busy, v)
			}
		}
		if err := ref.Occupy(busy); err != nil {
			t.Fatal(err)
		}
		want, werr := ref.Allocate(k)
		if err := ps.UsePartition(part); err != nil {
			t.Fatal(err)
		}
		got, gerr := ps.Allocate(k)
		if (werr == nil) != (gerr == nil) || !slices.Equal(got, want) {
			t.Fatalf("partition %s, %d nodes: %v %v, its rule %v %v", part, k, got, gerr, want, werr)
		}
		if gerr == nil {
			running = append(running, got)
			decided[part]++
		}
		for i, em := range ps.ems {
			for v := range 16 {
				if em.IsFree(v) != ps.ems[0].IsFree(v) {
					t.Fatalf("emulator %d: node %d free %v, emulator 0 %v", i, v, em.IsFree(v), ps.ems[0].IsFree(v))
				}
			}
		}
	}
	for _, part := range []string{"all", "t", "b", "r", "other"} {
		if decided[part] == 0 {
			t.Errorf("no decision in partition %s", part)
		}
	}
}

// TestCurrentTorus3DFromRegions: a site whose topology.yaml gives its torus by
// regions (Slurm 26.05; the positions checked on Slurm 26.05.3 in
// slurm/newslurm_test.go, TestTorus3DRegionsOnSlurmNew) is modelled as the site
// whose torus lists the same nodes at the same positions: the same current row
// and predictions. Regions that leave positions empty are emulated with their
// holes; regions that hold other nodes than the compute hosts are modelled
// flat, a note saying why.
func TestCurrentTorus3DFromRegions(t *testing.T) {
	hosts, runOn := torusSite4x2x2(t, 4)
	var pl strings.Builder
	for _, b := range slurm.DefaultPlacements([3]int{4, 2, 2}) {
		fmt.Fprintf(&pl, "      - dims: {x: %d, y: %d, z: %d}\n", b.X, b.Y, b.Z)
	}
	head := "- topology: t\n  torus3d:\n    name: t1\n    dims: {x: 4, y: 2, z: 2}\n"
	regions := head + "    regions:\n      - {anchor: {z: 1}, dims: {x: 4, y: 2, z: 1}, nodes: \"node[16,03,11,07,01,14,05,09]\"}\n      - {dims: {x: 2, y: 2, z: 1}, nodes: \"node[12,02,15,06]\"}\n      - {anchor: {x: 2}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[04,13,08,10]\"}\n    placements:\n" + pl.String()
	// The same positions as a node list, x fastest: z = 0's row y = 0, y = 1, then z = 1's.
	nodes := head + "    nodes: \"node[12,02,04,13,15,06,08,10,16,03,11,07,01,14,05,09]\"\n    placements:\n" + pl.String()
	holes := head + "    regions:\n      - {anchor: {z: 1}, dims: {x: 4, y: 2, z: 1}, nodes: \"node[16,03,11,07,01,14,05,09]\"}\n    placements:\n" + pl.String()
	run := func(yaml string) *Plan { return runOn(hosts, []byte(yaml)) }
	pr, pn := run(regions), run(nodes)
	rr, rp := currentOf(t, pr)
	nr, np := currentOf(t, pn)
	if pr.Deployment(KindCurrent).torus == nil || pr.Deployment(KindCurrent).torus.nodeAt == nil {
		t.Fatal("regions: not the torus3d emulation with a position map")
	}
	if len(rp) == 0 || !bytes.Equal(rp, np) || !reflect.DeepEqual(rr.Metrics, nr.Metrics) {
		t.Errorf("regions predict\n%s\nthe node list\n%s", rp, np)
	}
	// Regions covering 8 of the 16 hosts: not the compute hosts, flat.
	ph := run(holes)
	hr, _ := currentOf(t, ph)
	if ph.Deployment(KindCurrent).torus != nil || !slices.ContainsFunc(hr.Notes, func(n string) bool {
		return strings.Contains(n, "its 8 nodes are not the 16 compute hosts") && strings.Contains(n, "modelled as flat")
	}) {
		t.Errorf("regions of half the hosts: notes %q", hr.Notes)
	}
	// A 4x2x3 torus of 24 positions holding the 16 hosts, 8 positions empty
	// (TestTorus3DHolesOnSlurmNew's shape): emulated with its holes, boxes
	// that hold one skipped (TestTorus3DHolesAgainstBruteForce checks the
	// decisions).
	var pl3 strings.Builder
	for _, b := range slurm.DefaultPlacements([3]int{4, 2, 3}) {
		fmt.Fprintf(&pl3, "      - dims: {x: %d, y: %d, z: %d}\n", b.X, b.Y, b.Z)
	}
	holes3 := "- topology: t\n  torus3d:\n    name: t1\n    dims: {x: 4, y: 2, z: 3}\n    regions:\n" +
		"      - {dims: {x: 4, y: 2, z: 1}, nodes: \"node[05,13,02,09,16,01,12,07]\"}\n" +
		"      - {anchor: {z: 1}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[03,14,06,10]\"}\n" +
		"      - {anchor: {x: 2, z: 2}, dims: {x: 2, y: 2, z: 1}, nodes: \"node[11,04,15,08]\"}\n    placements:\n" + pl3.String()
	p3 := run(holes3)
	h3, hp := currentOf(t, p3)
	tc := p3.Deployment(KindCurrent).torus
	if tc == nil || len(tc.nodeAt) != 24 || slices.Index(tc.nodeAt, -1) != 10 || len(hp) == 0 || slices.ContainsFunc(h3.Notes, func(n string) bool { return strings.Contains(n, "modelled as flat") }) {
		t.Errorf("regions leaving 8 positions empty: torus %+v, notes %q", tc, h3.Notes)
	}
}
