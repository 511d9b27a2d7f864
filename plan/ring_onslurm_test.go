package plan_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/plan"
)

// ringSiteYAML is a topology.yaml of a flat topology "none" and a topology/ring
// one "rings" over the 16-node test cluster: r0 node[01-07] in name order, r1
// seven nodes out of name order, r2 three nodes of r0 again (a node may be on
// two rings), node16 on no ring.
const ringSiteYAML = `- topology: none
  flat: true
- topology: rings
  cluster_default: true
  ring:
    rings:
      - ring: r0
        nodes: node[01-07]
      - ring: r1
        nodes: node[14,12,10,08,09,11,13]
      - ring: r2
        nodes: node[15,07,01]
`

// ringSiteConf is ringSiteYAML's rings as a topology.conf's RingName= lines
// (TopologyPlugin=topology/ring in slurm.conf, no topology.yaml).
const ringSiteConf = `# topology/ring (Slurm 26.05): ring_record.c reads RingName= lines
RingName=r0 Nodes=node[01-07]
RingName=r1 Nodes=node[14,12,10,08,09,11,13]
RingName=r2 Nodes=node[15,07,01]
`

// TestCurrentRingTopologyOnSlurm checks slurm:ring (a site's topology.yaml with
// a ring topology as the current configuration) against a real Slurm 26.05
// (PROCALLOC_SLURM_NEW or /opt/slurm-new; skipped without one): partitions all
// (every node, the default, no Topology=), tp (node[01-08], Topology=none) and
// bp (node[09-16], no Topology=: the cluster default); the site's files started
// on a real slurmctld, and a seeded sequence of jobs, each submitted to one
// partition at random, placed by Slurm and by the emulation told the partition
// and kept to its nodes: every placement compared, and jobs the emulation says
// wait probed with salloc --immediate. Then the rings as the topology of bp
// only (the default flat), the weights deployment (Weight=rank+1 beside the
// site's topology.yaml: segments of lower weight first) and the names
// deployment (the nodes renamed in slurm.conf and topology.yaml, each ring's
// order kept). Then the same rings as a topology.conf's RingName= lines with
// TopologyPlugin=topology/ring (every partition on them: without a
// topology.yaml Slurm's one topology is the plugin's): the current
// configuration, the weights deployment and the names deployment (the
// RingName lines renamed in place). It ends with "plan ring: N placements
// predicted, D differ".
func TestCurrentRingTopologyOnSlurm(t *testing.T) {
	slurmtest.NeedDaemons(t, "munged")
	prefix, version := slurmtest.NewSlurm(t)
	script := slurmtest.Script(t)
	steps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_STEPS", 150)
	prefixArgs := []string{"--prefix", prefix}
	dir := filepath.Join(t.TempDir(), "ring")
	base, err := startCluster16(t, script, dir, prefixArgs)
	if err != nil {
		t.Skipf("Slurm %s not started: %v", version, err)
	}
	v, err := plan.ParseVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	parts := "PartitionName=tp Nodes=node[01-08] MaxTime=INFINITE State=UP%s\nPartitionName=bp Nodes=node[09-16] MaxTime=INFINITE State=UP%s\n"
	total, differ := 0, 0
	const tpNone = " Topology=none"
	confNote := "topology/ring, 3 rings (RingName= lines)"
	for i, c := range []struct {
		name, file, topology, tpTopology, bpTopology, wantNote string
		kind                                                   plan.Kind
	}{
		{"rings default", "topology.yaml", ringSiteYAML, tpNone, "", "topology rings (ring, line 3; cluster_default: true) for the partitions without Topology=", plan.KindCurrent},
		{"rings for bp", "topology.yaml", strings.Replace(ringSiteYAML, "  cluster_default: true\n", "", 1), tpNone, " Topology=rings", "topology rings (ring, line 3) for partition bp", plan.KindCurrent},
		{"weights", "topology.yaml", ringSiteYAML, tpNone, "", "topology rings (ring, line 3; cluster_default: true)", plan.KindWeights},
		// The nodes renamed in slurm.conf and in topology.yaml (the rings'
		// order kept), bp's rings on the new names.
		{"names", "topology.yaml", ringSiteYAML, tpNone, " Topology=rings", "topology rings (ring, line 3; cluster_default: true)", plan.KindNames},
		// The same rings from topology.conf: every partition on them.
		{"topology.conf rings", "topology.conf", ringSiteConf, "", "", confNote, plan.KindCurrent},
		{"topology.conf weights", "topology.conf", ringSiteConf, "", "", confNote, plan.KindWeights},
		{"topology.conf names", "topology.conf", ringSiteConf, "", "", confNote, plan.KindNames},
	} {
		t.Run(c.name, func(t *testing.T) {
			conf := append(slices.Clone(base), fmt.Sprintf(parts, c.tpTopology, c.bpTopology)...)
			if c.file == "topology.conf" {
				conf = append(conf, "TopologyPlugin=topology/ring\n"...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			p, err := plan.Make(ctx, plan.Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree.ibnetdiscover", SlurmConf: conf, SlurmConfPath: "slurm.conf",
				TopologyConf: []byte(c.topology), TopologyConfPath: c.file, Version: v, VersionSource: "test", TimeLimit: 10 * time.Second, Seed: 1})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(p.Report.Notes, func(n string) bool { return strings.Contains(n, c.wantNote) }) {
				t.Errorf("notes %q, want %q", p.Report.Notes, c.wantNote)
			}
			n := steps
			if i > 0 && c.name != "topology.conf rings" {
				n = max(1, steps/2)
			}
			r := compareInPartsKeeping(t, p, c.kind, version, prefix, dir, script, prefixArgs, c.file, []byte(c.topology), nil, uint64(951+i), n)
			total += r.Compared
			differ += r.Differ
			t.Logf("%s (%s) on Slurm %s: %d placements predicted, %d differ; %d jobs both wait", c.kind, c.name, v, r.Compared, r.Differ, r.Waits)
		})
	}
	fmt.Printf("plan ring: %d placements predicted, %d differ\n", total, differ)
}
