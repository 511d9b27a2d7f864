package plan_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
	"github.com/procalloc/procalloc/plan"
	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// planOnSlurm is one Slurm the plan's deployments are deployed on: a cluster
// directory, its port, the Slurm version plan is told, and the deployments checked.
type planOnSlurm struct {
	dir, prefix string
	port        int
	version     string
	kinds       []plan.Kind
}

// TestPlanOnSlurm deploys procalloc plan's files on a real 16-node Slurm and checks
// that Slurm places jobs where the plan predicts (issue 29, item 6): the plan of
// the repository's sample fabric (topo/testdata/fattree.ibnetdiscover, hosts
// node01..node16) with the cluster's own slurm.conf (scripts/slurm-cluster.sh conf),
// then, per deployment, the cluster restarted with the deployment's slurm.conf and
// topology file, and a seeded sequence of submissions and cancellations played on
// Slurm and on the deployment's emulation (Deployment.Allocator): every placement
// compared. On Debian's 22.05 (PROCALLOC_SLURM_DIR: the cluster `make test-slurm`
// started) the weights, names and tree deployments; on a Slurm built from source
// (PROCALLOC_SLURM_NEW, scripts/slurm-build.sh) the block deployment too, on a
// cluster of its own (on free ports: internal/slurmtest/ports), and
// the tree deployment there as well (SwitchAsNodeRank, 26.05's one-node rule).
// PROCALLOC_SLURM_STEPS sets the placements per deployment (default 150). It ends
// with the line "plan: N placements predicted, D differ".
func TestPlanOnSlurm(t *testing.T) {
	dir, port, _ := slurmtest.Running(t)
	steps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_STEPS", 150)
	slurms := []planOnSlurm{{dir: dir, port: port, version: "22.05", kinds: []plan.Kind{plan.KindWeights, plan.KindNames, plan.KindTree}}}
	if prefix := os.Getenv("PROCALLOC_SLURM_NEW"); prefix != "" {
		// The tree deployment on 26.05: SwitchAsNodeRank, NodeName lines in
		// ordering order, one-node jobs on the first free node (_get_one_res).
		newKinds := []plan.Kind{plan.KindBlock, plan.KindTree}
		slurms = append(slurms, planOnSlurm{dir: filepath.Join(t.TempDir(), "new"), prefix: prefix, version: "26.05", kinds: newKinds})
	} else {
		t.Log("PROCALLOC_SLURM_NEW is not set: the block deployment is not checked (scripts/slurm-build.sh builds a Slurm that has it)")
	}
	script := slurmtest.Script(t)
	fabric := fabrictest.SampleFabric(t, "../topo/testdata")
	total, differ := 0, 0
	for si, s := range slurms {
		prefixArgs := []string{}
		if s.prefix != "" {
			prefixArgs = []string{"--prefix", s.prefix}
			t.Cleanup(func() { exec.Command("bash", append([]string{script, "stop", "--dir", s.dir}, prefixArgs...)...).Run() })
		}
		if s.port == 0 {
			// A cluster of its own, started on free ports (another base when a
			// port was taken since the check), which the restarts below keep.
			var err error
			s.port, err = ports.Start(17, func(base int) error {
				_, err := ports.RunScript(nil, script, append([]string{"start", "--nodes", "16", "--dir", s.dir, "--port-base", strconv.Itoa(base)}, prefixArgs...)...)
				return err
			})
			if errors.Is(err, ports.ErrNoSlurm) {
				t.Logf("Slurm %s not checked: %v", s.version, err)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		// The cluster's own slurm.conf (16 nodes on loopback), as the site's.
		if _, err := ports.RunScript(nil, script, "conf", "--nodes", "16", "--dir", s.dir, "--port-base", strconv.Itoa(s.port)); err != nil {
			t.Fatal(err)
		}
		base, err := os.ReadFile(filepath.Join(s.dir, "slurm.conf"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := plan.ParseVersion(s.version)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		p, err := plan.Make(ctx, plan.Options{Machine: fabric, MachineSource: "fattree.ibnetdiscover", SlurmConf: base, SlurmConfPath: "slurm.conf",
			Version: v, VersionSource: "test", TimeLimit: 10 * time.Second, Seed: 1})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for ki, kind := range s.kinds {
			t.Run(s.version+"/"+string(kind), func(t *testing.T) {
				d, work := deployOn(t, p, kind, s.version, s.dir, script, prefixArgs)
				a, err := d.Allocator()
				if err != nil {
					t.Fatal(err)
				}
				c := &slurmtest.Cluster{Conf: filepath.Join(s.dir, "slurm.conf"), Dir: work, Submit: "salloc", Names: d.NodeNames(), Prefix: s.prefix}
				r := slurmtest.Compare(t, c, a, slurmtest.Run{Seed: uint64(500 + 10*si + ki), Steps: steps, Pending: alloc.ErrFragmented, Probes: 10})
				total += r.Compared
				differ += r.Differ
				t.Logf("%s on Slurm %s: %d placements predicted, %d differ; %d jobs both wait", kind, s.version, r.Compared, r.Differ, r.Waits)
			})
		}
	}
	// The line `make test-slurm` prints beside "slurm: ...".
	fmt.Printf("plan: %d placements predicted, %d differ\n", total, differ)
}

// deployOn restarts the cluster in dir (scripts/slurm-cluster.sh restart) with
// deployment kind of p: its slurm.conf from a work directory it returns, its
// topology file beside the cluster's slurm.conf, where Slurm looks for it. The
// test skips when Slurm cannot be started at all (ports.ErrNoSlurm).
func deployOn(t *testing.T, p *plan.Plan, kind plan.Kind, version, dir, script string, prefixArgs []string) (*plan.Deployment, string) {
	t.Helper()
	return deployWith(t, p, kind, version, dir, script, prefixArgs, "", nil)
}

// deployWith is deployOn with a topology file the site keeps beside the
// deployment's (keepName, keep: a topology.yaml the weights deployment leaves
// in place; "" for none).
func deployWith(t *testing.T, p *plan.Plan, kind plan.Kind, version, dir, script string, prefixArgs []string, keepName string, keep []byte) (*plan.Deployment, string) {
	t.Helper()
	d := p.Deployment(kind)
	if d == nil || !d.Supported {
		t.Fatalf("deployment %s not supported on %s: %+v", kind, version, d)
	}
	work := t.TempDir()
	confPath := filepath.Join(work, "slurm.conf")
	if err := os.WriteFile(confPath, d.SlurmConf, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"topology.conf", "topology.yaml"} {
		os.Remove(filepath.Join(dir, name))
	}
	if d.TopologyName != "" {
		if err := os.WriteFile(filepath.Join(dir, d.TopologyName), d.Topology, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if keepName != "" && d.TopologyName == "" {
		if err := os.WriteFile(filepath.Join(dir, keepName), keep, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ports.RunScript(nil, script, append([]string{"restart", "--dir", dir, "--conf", confPath}, prefixArgs...)...); errors.Is(err, ports.ErrNoSlurm) {
		t.Skip(err)
	} else if err != nil {
		t.Fatalf("starting the cluster with the %s deployment: %v\n%s", kind, err, d.SlurmConf)
	}
	return d, work
}

// TestPlanPartitionsOnSlurm: a site of two overlapping partitions, all (every
// node, the default) and debug (node[13-16]), with a history whose jobs ran in
// both: the plan's deployments are deployed on a real Slurm (weights, names and
// tree on Debian's 22.05; block and tree on the Slurm built from source,
// PROCALLOC_SLURM_NEW or /opt/slurm-new, when there is one), each on a cluster of
// its own on free ports, and a seeded sequence of jobs, each submitted to one
// partition (salloc -p), is placed by Slurm and by the deployment's emulation kept
// to the partition's nodes (alloc.AllocateWithout, as the replays keep each job):
// every placement compared. It ends with the line "plan partitions: N placements
// predicted, D differ".
func TestPlanPartitionsOnSlurm(t *testing.T) {
	slurmtest.NeedDaemons(t, "slurmctld", "slurmd", "scontrol", "salloc", "squeue", "munged")
	script := slurmtest.Script(t)
	steps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_STEPS", 150)
	slurms := []planOnSlurm{{version: "22.05", kinds: []plan.Kind{plan.KindWeights, plan.KindNames, plan.KindTree}}}
	if prefix := slurmtest.NewPrefix(); exec.Command(filepath.Join(prefix, "sbin", "slurmctld"), "-V").Run() == nil {
		slurms = append(slurms, planOnSlurm{prefix: prefix, version: "26.05", kinds: []plan.Kind{plan.KindBlock, plan.KindTree}})
	} else {
		t.Logf("no Slurm built from source in %s: the block deployment is not checked (scripts/slurm-build.sh builds one)", prefix)
	}
	// A history in both partitions: debug jobs on debug's nodes, the others anywhere.
	var hist strings.Builder
	hist.WriteString("JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|NCPUS|State|Partition|NodeList\n")
	for i, j := range []struct{ part, nodes string }{{"debug", "node[13-14]"}, {"all", "node[01-04]"}, {"debug", "node[15-16]"}, {"all", "node[05-12]"}, {"debug", "node13"}, {"all", "node[01-16]"}} {
		n, _ := hostlist.Count(j.nodes)
		fmt.Fprintf(&hist, "%d|2026-11-02T08:%02d:00|2026-11-02T08:%02d:00|2026-11-02T08:%02d:30|30|10|%d|%d|COMPLETED|%s|%s\n", 100+i, i, i, i, n, n, j.part, j.nodes)
	}
	tr, err := sim.ReadTrace(strings.NewReader(hist.String()), sim.ReadOptions{Format: "sacct", Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	total, differ := 0, 0
	for si, s := range slurms {
		var prefixArgs []string
		if s.prefix != "" {
			prefixArgs = []string{"--prefix", s.prefix}
		}
		dir := filepath.Join(t.TempDir(), "parts")
		base, err := startCluster16(t, script, dir, prefixArgs)
		if errors.Is(err, ports.ErrNoSlurm) {
			t.Logf("Slurm %s not checked: %v", s.version, err)
			continue
		}
		conf := append(base, "PartitionName=debug Nodes=node[13-16] MaxTime=INFINITE State=UP\n"...)
		v, err := plan.ParseVersion(s.version)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		p, err := plan.Make(ctx, plan.Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree.ibnetdiscover", SlurmConf: conf, SlurmConfPath: "slurm.conf",
			Trace: tr, TracePath: "sacct.txt", Version: v, VersionSource: "test", TimeLimit: 10 * time.Second, Seed: 1})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Slurm %s: partitions replayed: %+v", s.version, p.Report.Workload.Partitions)
		for ki, kind := range s.kinds {
			t.Run(s.version+"/"+string(kind), func(t *testing.T) {
				d, work := deployOn(t, p, kind, s.version, dir, script, prefixArgs)
				a, err := d.Allocator()
				if err != nil {
					t.Fatal(err)
				}
				names := d.NodeNames()
				// The partitions under the deployment's node names: all, and
				// debug's hosts (node13..node16 of the network) wherever the
				// names put them.
				var all, debug []int
				for v := range names {
					all = append(all, v)
					if h := p.Names[v]; h >= "node13" && h <= "node16" {
						debug = append(debug, v)
					}
				}
				parts := []slurmtest.Partition{{Name: "all", Nodes: all}, {Name: "debug", Nodes: debug}}
				allocIn := allocateIn(a, len(names))
				c := &slurmtest.Cluster{Conf: filepath.Join(dir, "slurm.conf"), Dir: work, Submit: "salloc", Names: names, Prefix: s.prefix}
				r := slurmtest.Compare(t, c, a, slurmtest.Run{Seed: uint64(700 + 10*si + ki), Steps: steps, Pending: alloc.ErrFragmented, Probes: 10, Partitions: parts, AllocateIn: allocIn})
				total += r.Compared
				differ += r.Differ
				t.Logf("%s on Slurm %s with partitions all and debug: %d placements predicted, %d differ; %d jobs both wait", kind, s.version, r.Compared, r.Differ, r.Waits)
			})
		}
	}
	fmt.Printf("plan partitions: %d placements predicted, %d differ\n", total, differ)
}

// TestCurrentTopologyYAMLOnSlurm: a site on Slurm 26.05 (PROCALLOC_SLURM_NEW or
// /opt/slurm-new; skipped without one) with a topology.yaml of three
// topologies, a flat "none", the sample's tree "fabric" (cluster_default) and
// blocks "racks", and partitions all (every node, the default, no Topology=:
// fabric), tp (node[01-08], Topology=none) and bp (node[09-16],
// Topology=racks): the current deployment's files (the site's slurm.conf and
// topology.yaml, as read) are started on a real slurmctld and a seeded
// sequence of jobs, each submitted to one partition at random, is placed by
// Slurm and by the current configuration's emulation told the partition
// (alloc.PartitionRuled) and kept to its nodes. Every placement compared.
// Then the default as plan reads it from the source: without cluster_default
// the first listed (none, so all is flat), and of two cluster_default: true
// the first (fabric; racks the second); then the weights, tree and block
// deployments of the site installed as apply.txt says (weights beside the
// site's topology.yaml; tree and block with their topology.conf, the yaml
// removed, Topology= dropped). It ends with "plan topology.yaml: N placements
// predicted, D differ".
func TestCurrentTopologyYAMLOnSlurm(t *testing.T) {
	slurmtest.NeedDaemons(t, "munged")
	prefix, version := slurmtest.NewSlurm(t)
	script := slurmtest.Script(t)
	steps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_STEPS", 150)
	prefixArgs := []string{"--prefix", prefix}
	dir := filepath.Join(t.TempDir(), "yaml")
	base, err := startCluster16(t, script, dir, prefixArgs)
	if err != nil {
		t.Skipf("Slurm %s not started: %v", version, err)
	}
	conf := append(base, "PartitionName=tp Nodes=node[01-08] MaxTime=INFINITE State=UP Topology=none\nPartitionName=bp Nodes=node[09-16] MaxTime=INFINITE State=UP Topology=racks\n"...)
	yaml := `- topology: none
  flat: true
- topology: fabric
  cluster_default: true
  tree:
    switches:
      - switch: leaf01
        nodes: node[01,05,09,13]
      - switch: leaf02
        nodes: node[02,06,10,14]
      - switch: leaf03
        nodes: node[03,07,11,15]
      - switch: leaf04
        nodes: node[04,08,12,16]
      - switch: spine01
        children: leaf[01-04]
- topology: racks
  block:
    block_sizes: [2, 4]
    blocks:
      - block: r1
        nodes: node[01-02]
      - block: r2
        nodes: node[03-04]
      - block: r3
        nodes: node[05-06]
      - block: r4
        nodes: node[07-08]
      - block: r5
        nodes: node[09-10]
      - block: r6
        nodes: node[11-12]
      - block: r7
        nodes: node[13-14]
      - block: r8
        nodes: node[15-16]
`
	v, err := plan.ParseVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	total, differ := 0, 0
	for i, c := range []struct {
		name, yaml, wantNote string
		kind                 plan.Kind
	}{
		{"fabric default", yaml, "topology fabric (tree, line 3; cluster_default: true) for the partitions without Topology=", plan.KindCurrent},
		{"no cluster_default", strings.Replace(yaml, "  cluster_default: true\n", "", 1), "topology none (flat, line 1; no topology has cluster_default: true, Slurm takes the first listed)", plan.KindCurrent},
		{"two cluster_default", strings.Replace(yaml, "  block:\n", "  cluster_default: true\n  block:\n", 1), "topology fabric (tree, line 3; cluster_default: true)", plan.KindCurrent},
		// The deployments on such a site: weights keeps the topology.yaml
		// (each partition its topology, the weights first); tree and block
		// replace it with their topology.conf and drop Topology=.
		{"weights", yaml, "topology fabric", plan.KindWeights},
		{"tree", yaml, "topology fabric", plan.KindTree},
		{"block", yaml, "topology fabric", plan.KindBlock},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			p, err := plan.Make(ctx, plan.Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree.ibnetdiscover", SlurmConf: conf, SlurmConfPath: "slurm.conf",
				TopologyConf: []byte(c.yaml), TopologyConfPath: "topology.yaml", Version: v, VersionSource: "test", TimeLimit: 10 * time.Second, Seed: 1})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(p.Report.Notes, func(n string) bool { return strings.Contains(n, c.wantNote) }) {
				t.Errorf("notes %q, want %q", p.Report.Notes, c.wantNote)
			}
			n := steps
			if i > 0 {
				n = max(1, steps/2)
			}
			ruled := c.kind == plan.KindCurrent || c.kind == plan.KindWeights
			r := compareInParts(t, p, c.kind, version, prefix, dir, script, prefixArgs, []byte(c.yaml), &ruled, uint64(901+i), n)
			total += r.Compared
			differ += r.Differ
			t.Logf("%s (%s) on Slurm %s: %d placements predicted, %d differ; %d jobs both wait", c.kind, c.name, v, r.Compared, r.Differ, r.Waits)
		})
	}
	fmt.Printf("plan topology.yaml: %d placements predicted, %d differ\n", total, differ)
}

// compareInParts installs p's deployment kind on the 16-node cluster in dir
// (deployWith; the site's topology.yaml yaml kept when the deployment writes no
// topology file) and plays a seeded sequence of steps jobs on it, each
// submitted to one of the partitions all (every node), tp (the site's
// node01-node08) and bp (node09-node16) and predicted by the deployment's
// emulation kept to the partition's nodes and told the partition
// (alloc.PartitionRuled) when it takes one; ruled, when not nil, says whether
// it must.
func compareInParts(t *testing.T, p *plan.Plan, kind plan.Kind, version, prefix, dir, script string, prefixArgs []string, yaml []byte, ruled *bool, seed uint64, steps int) slurmtest.Result {
	t.Helper()
	return compareInPartsKeeping(t, p, kind, version, prefix, dir, script, prefixArgs, "topology.yaml", yaml, ruled, seed, steps)
}

// compareInPartsKeeping is compareInParts with the site's topology file named
// keepName (topology.yaml, topology.conf), kept where the deployment writes none.
func compareInPartsKeeping(t *testing.T, p *plan.Plan, kind plan.Kind, version, prefix, dir, script string, prefixArgs []string, keepName string, keep []byte, ruled *bool, seed uint64, steps int) slurmtest.Result {
	t.Helper()
	d, work := deployWith(t, p, kind, version, dir, script, prefixArgs, keepName, keep)
	a, err := d.Allocator()
	if err != nil {
		t.Fatal(err)
	}
	pr, ok := a.(alloc.PartitionRuled)
	if ruled != nil && ok != *ruled {
		t.Fatalf("%s: the emulation is %T, told partitions: %v", kind, a, ok)
	}
	names := d.NodeNames()
	var all, tp, bp []int
	for v := range names {
		all = append(all, v)
		if p.Names[v] <= "node08" { // the site's names (names renames them)
			tp = append(tp, v)
		} else {
			bp = append(bp, v)
		}
	}
	parts := []slurmtest.Partition{{Name: "all", Nodes: all}, {Name: "tp", Nodes: tp}, {Name: "bp", Nodes: bp}}
	kept := allocateIn(a, len(names))
	allocIn := func(k int, part slurmtest.Partition) ([]int, error) {
		if pr != nil {
			if err := pr.UsePartition(part.Name); err != nil {
				return nil, err
			}
		}
		return kept(k, part)
	}
	cl := &slurmtest.Cluster{Conf: filepath.Join(dir, "slurm.conf"), Dir: work, Submit: "salloc", Names: names, Prefix: prefix}
	return slurmtest.Compare(t, cl, a, slurmtest.Run{Seed: seed, Steps: steps, Pending: alloc.ErrFragmented, Probes: 10, Partitions: parts, AllocateIn: allocIn})
}

// startCluster16 starts a 16-node cluster in dir on free ports (stopped when
// t ends) and returns its slurm.conf (scripts/slurm-cluster.sh conf); an
// error wrapping ports.ErrNoSlurm when Slurm cannot be started at all.
func startCluster16(t *testing.T, script, dir string, prefixArgs []string) ([]byte, error) {
	t.Helper()
	t.Cleanup(func() { exec.Command("bash", append([]string{script, "stop", "--dir", dir}, prefixArgs...)...).Run() })
	port, err := ports.Start(17, func(base int) error {
		_, err := ports.RunScript(nil, script, append([]string{"start", "--nodes", "16", "--dir", dir, "--port-base", strconv.Itoa(base)}, prefixArgs...)...)
		return err
	})
	if errors.Is(err, ports.ErrNoSlurm) {
		return nil, err
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ports.RunScript(nil, script, "conf", "--nodes", "16", "--dir", dir, "--port-base", strconv.Itoa(port)); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join(dir, "slurm.conf"))
	if err != nil {
		t.Fatal(err)
	}
	return base, nil
}

// allocateIn predicts a job of a partition as the replays keep it: a's
// decision with the nodes outside the partition kept away
// (alloc.AllocateWithout), on a machine of n nodes.
func allocateIn(a alloc.Allocator, n int) func(k int, part slurmtest.Partition) ([]int, error) {
	return func(k int, part slurmtest.Partition) ([]int, error) {
		var away []int
		for v := range n {
			if !slices.Contains(part.Nodes, v) {
				away = append(away, v)
			}
		}
		nodes, _, err := alloc.AllocateWithout(context.Background(), a, k, away, nil)
		return nodes, err
	}
}
