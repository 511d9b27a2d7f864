package plan_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/fabrictest"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
	"github.com/procalloc/procalloc/plan"
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
				d := p.Deployment(kind)
				if d == nil || !d.Supported {
					t.Fatalf("deployment %s not supported on %s: %+v", kind, s.version, d)
				}
				work := t.TempDir()
				confPath := filepath.Join(work, "slurm.conf")
				if err := os.WriteFile(confPath, d.SlurmConf, 0o644); err != nil {
					t.Fatal(err)
				}
				// The topology file beside slurm.conf, where Slurm looks for it.
				for _, name := range []string{"topology.conf", "topology.yaml"} {
					os.Remove(filepath.Join(s.dir, name))
				}
				if d.TopologyName != "" {
					if err := os.WriteFile(filepath.Join(s.dir, d.TopologyName), d.Topology, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := ports.RunScript(nil, script, append([]string{"restart", "--dir", s.dir, "--conf", confPath}, prefixArgs...)...); errors.Is(err, ports.ErrNoSlurm) {
					t.Skip(err)
				} else if err != nil {
					t.Fatalf("starting the cluster with the %s deployment: %v\n%s", kind, err, d.SlurmConf)
				}
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
