package alloc_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// slurmRealTopology is the topology/tree of the real-cluster test: leaves of unequal
// sizes whose Nodes= are out of name order (Slurm takes a leaf's nodes in node-index
// order), two spines, the root last in the file (so that its parent field is switch
// 0, as Slurm leaves it).
const slurmRealTopology = `# procalloc's real-Slurm test (alloc/slurm_real_test.go)
SwitchName=leafA Nodes=node[05-08]
SwitchName=leafB Nodes=node16,node[01-03]
SwitchName=leafC Nodes=node[09-13]
SwitchName=leafD Nodes=node[14-15],node04
SwitchName=spine1 Switches=leafA,leafB
SwitchName=spine2 Switches=leafC,leafD
SwitchName=core Switches=spine[1-2]
`

// slurmRealUnbalanced is a tree whose leaves sit at two depths, root first: leaves
// under the root next to leaves under a spine (Slurm's level is one more than the
// highest child's).
const slurmRealUnbalanced = `# procalloc's real-Slurm test (alloc/slurm_real_test.go)
SwitchName=core Switches=spineA,leafX,leafY
SwitchName=spineA Switches=leaf[1-3]
SwitchName=leaf1 Nodes=node[01-03]
SwitchName=leaf2 Nodes=node[04-07]
SwitchName=leaf3 Nodes=node[08-09]
SwitchName=leafX Nodes=node16,node[10-12]
SwitchName=leafY Nodes=node[13-15]
`

// randomSlurmTree returns a seeded random topology.conf over nodes node01..nodeNN:
// leaves of 1 to 5 nodes in random name order, switches over 1 to 3 children, some
// leaves carried up a level (leaves at several depths), one root, the lines shuffled
// (Slurm's switch table is the file's order; children may come after their parents).
func randomSlurmTree(seed uint64, nodes int) string {
	rng := rand.New(rand.NewPCG(seed, 11))
	perm := rng.Perm(nodes)
	var lines, level []string
	for pos := 0; pos < nodes; {
		size := min(1+rng.IntN(5), nodes-pos)
		var names []string
		for _, v := range perm[pos : pos+size] {
			names = append(names, fmt.Sprintf("node%02d", v+1))
		}
		pos += size
		name := fmt.Sprintf("leaf%d", len(level))
		lines = append(lines, fmt.Sprintf("SwitchName=%s Nodes=%s", name, strings.Join(names, ",")))
		level = append(level, name)
	}
	for up := 1; len(level) > 1; up++ {
		var next []string
		for len(level) > 0 {
			g := min(len(level), 1+rng.IntN(3))
			if g == 1 && len(level) > 1 && rng.IntN(2) == 0 {
				next = append(next, level[0]) // carried up: a leaf deeper than its neighbours' leaves
				level = level[1:]
				continue
			}
			name := fmt.Sprintf("sw%d_%d", up, len(next))
			lines = append(lines, fmt.Sprintf("SwitchName=%s Switches=%s", name, strings.Join(level[:g], ",")))
			next = append(next, name)
			level = level[g:]
		}
		level = next
	}
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return "# procalloc's real-Slurm test (alloc/slurm_real_test.go), random tree\n" + strings.Join(lines, "\n") + "\n"
}

// TestSlurmRealPlacements drives a running multi-node Slurm (scripts/slurm-cluster.sh;
// `make test-slurm` starts one and sets PROCALLOC_SLURM_DIR) through a seeded sequence
// of submissions and cancellations per configuration and compares every placement
// Slurm makes (squeue %N) with the emulation's (SlurmAllocator). Only sizes that fit
// the free count are submitted, and every cancellation is waited out (no job
// COMPLETING), so that each placement is Slurm's selection alone. The cluster is
// restarted with each configuration's slurm.conf. Jobs are `salloc --no-shell`
// allocations, which slurmctld places at submission; a last configuration submits
// batch jobs (sbatch --wrap 'exec sleep 1000'), which the main scheduler places on its
// next pass (up to a second later), to show that both paths select alike. (Without
// exec, the batch shell holds a cancelled job COMPLETING for 3 s.)
// PROCALLOC_SLURM_STEPS sets the submissions per configuration (default 150),
// PROCALLOC_SLURM_SBATCH_STEPS those of the sbatch configuration (default 30),
// PROCALLOC_SLURM_RANDOM_TREES the number of random trees (default 2).
func TestSlurmRealPlacements(t *testing.T) {
	dir, portBase, nodes := slurmtest.Running(t)
	script := slurmtest.Script(t)
	steps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_STEPS", 150)
	sbatchSteps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_SBATCH_STEPS", 30)

	names := slurmtest.NodeNames(nodes)
	m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", nodes))
	if err != nil {
		t.Fatal(err)
	}
	// Distinct weights along a curve (what --format slurm-weight writes), and grouped
	// weights (three values, seeded) so that Slurm's best fit among runs of equal
	// weight and its weight groups on a tree both matter.
	var distinct []uint32
	if g, err := topo.ParseSpec("mesh:4x4"); err == nil && nodes == 16 {
		o, err := curves.Generate("hilbert", g)
		if err != nil {
			t.Fatal(err)
		}
		distinct = make([]uint32, nodes)
		for r, v := range o {
			distinct[v] = uint32(r + 1)
		}
	} else {
		distinct = make([]uint32, nodes)
		for i, v := range rand.New(rand.NewPCG(3, 4)).Perm(nodes) {
			distinct[i] = uint32(v + 1)
		}
	}
	grouped := make([]uint32, nodes)
	rg := rand.New(rand.NewPCG(5, 6))
	for i := range grouped {
		grouped[i] = uint32(10 * (1 + rg.IntN(3)))
	}
	type config struct {
		name    string
		weights []uint32
		tree    string // topology.conf; "": none
		submit  string
		steps   int
		names   string // the node names (a hostlist of NodeName lines in order); "": nodeNN
	}
	configs := []config{
		{"weights-distinct", distinct, "", "salloc", steps, ""},
		{"weights-grouped", grouped, "", "salloc", steps, ""},
		{"no-topology", nil, "", "salloc", steps, ""},
		{"tree", nil, slurmRealTopology, "salloc", steps, ""},
		{"tree-unbalanced", nil, slurmRealUnbalanced, "salloc", steps, ""},
		{"weights+tree", grouped, slurmRealTopology, "salloc", steps, ""},
	}
	// Random trees, seeds 1, 2, ...: odd seeds without weights, even ones with.
	for seed := uint64(1); seed <= uint64(slurmtest.EnvCount(t, "PROCALLOC_SLURM_RANDOM_TREES", 2)); seed++ {
		c := config{fmt.Sprintf("tree-random%d", seed), nil, randomSlurmTree(seed, nodes), "salloc", steps, ""}
		if seed%2 == 0 {
			c.name, c.weights = fmt.Sprintf("weights+tree-random%d", seed), grouped
		}
		configs = append(configs, c)
	}
	// Names that mix zero padding, NodeName lines out of order: Slurm's node order
	// is strnatcmp's (x010 before x1), which the emulation's best fit runs along.
	if nodes == 16 {
		configs = append(configs, config{"names-mixed-padding", nil, "", "salloc", steps, "x[010-012],x[1-9],x[013-016]"})
	}
	configs = append(configs, config{"sbatch:weights+tree", grouped, slurmRealTopology, "sbatch", sbatchSteps, ""})
	work := t.TempDir()
	total, differ := 0, 0
	start := time.Now()
	for ci, c := range configs {
		if c.steps == 0 {
			continue
		}
		if c.tree != "" && nodes != 16 {
			t.Logf("%s: skipped (the test topologies are for 16 nodes, the cluster has %d)", c.name, nodes)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			args := []string{"restart", "--nodes", strconv.Itoa(nodes), "--dir", dir, "--port-base", strconv.Itoa(portBase)}
			names := names
			if c.names != "" {
				if names, err = hostlist.Expand(c.names); err != nil || len(names) != nodes {
					t.Fatalf("%s: %d names, %v", c.names, len(names), err)
				}
				args = append(args, "--names", c.names)
			}
			if c.weights != nil {
				var b strings.Builder
				for i, w := range c.weights {
					fmt.Fprintf(&b, "%s %d\n", names[i], w)
				}
				wf := filepath.Join(work, c.name+".weights")
				if err := os.WriteFile(wf, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--weights", wf)
			}
			if c.tree != "" {
				tf := filepath.Join(work, "topology.conf")
				if err := os.WriteFile(tf, []byte(c.tree), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--topology", tf)
			}
			if _, err := ports.RunScript(nil, script, args...); errors.Is(err, ports.ErrNoSlurm) {
				t.Skip(err)
			} else if err != nil {
				t.Fatalf("starting the cluster: %v", err)
			}
			cfg := alloc.SlurmConfig{Names: names, Weights: c.weights}
			if c.tree != "" {
				if cfg.Tree, err = slurm.ParseTree(strings.NewReader(c.tree)); err != nil {
					t.Fatal(err)
				}
			}
			a, err := alloc.NewSlurm(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rc := &slurmtest.Cluster{Conf: filepath.Join(dir, "slurm.conf"), Dir: work, Submit: c.submit, Names: names}
			r := slurmtest.Compare(t, rc, a, slurmtest.Run{Seed: uint64(100 + ci), Steps: c.steps, Pending: alloc.ErrFragmented})
			n, d := r.Compared, r.Differ
			total += n
			differ += d
			t.Logf("%s: %d placements compared, %d differ", c.name, n, d)
		})
	}
	t.Logf("%d configurations in %.1f s", len(configs), time.Since(start).Seconds())
	// The line `make test-slurm` ends with.
	fmt.Printf("slurm: %d placements compared, %d differ\n", total, differ)
}

// slurmRealBlocks are the topology/block configurations of the real-cluster test, for
// node01..node16: blocks not in name order (Slurm aggregates by line order), blocks
// listed out of order inside, BlockSizes with and without a level missing, blocks of
// unequal sizes (jobs above the top level, an odd block count), no BlockSizes.
var slurmRealBlocks = []struct{ name, conf string }{
	{"block-4", "BlockName=b1 Nodes=node[09-12]\nBlockName=b2 Nodes=node04,node[01-03]\nBlockName=b3 Nodes=node[13-16]\nBlockName=b4 Nodes=node[05-08]\nBlockSizes=4,8,16\n"},
	{"block-4-16", "BlockName=b1 Nodes=node[01-04]\nBlockName=b2 Nodes=node[09-12]\nBlockName=b3 Nodes=node[05-08]\nBlockName=b4 Nodes=node[13-16]\nBlockSizes=4,16\n"},
	{"block-uneven", "BlockName=a Nodes=node[01-02]\nBlockName=b Nodes=node[03-05]\nBlockName=c Nodes=node[06-09]\nBlockName=d Nodes=node10\nBlockName=e Nodes=node[11-12]\nBlockName=f Nodes=node[13-16]\nBlockSizes=2,4,8\n"},
	{"block-default-sizes", "BlockName=x1 Nodes=node[14-16]\nBlockName=x2 Nodes=node[01-03]\nBlockName=x3 Nodes=node[04-06]\nBlockName=x4 Nodes=node[07-09]\nBlockName=x5 Nodes=node[10-13]\n"},
	{"block-1-4-16", "BlockName=s1 Nodes=node[01-02]\nBlockName=s2 Nodes=node[03-04]\nBlockName=s3 Nodes=node[05-06]\nBlockName=s4 Nodes=node[07-08]\nBlockName=s5 Nodes=node[09-10]\nBlockName=s6 Nodes=node[11-12]\nBlockName=s7 Nodes=node[13-14]\nBlockName=s8 Nodes=node[15-16]\nBlockSizes=2,8,16\n"},
}

// Slurm's startup warning for nodes in no block (block_record.c) and the emulation's
// (SlurmAllocator.Warnings): the count and the hostlist.
var (
	blocksLackAccess = regexp.MustCompile(`Blocks lack access to ([0-9]+) nodes: (\S+)`)
	blocksInNone     = regexp.MustCompile(`^([0-9]+) of the machine's [0-9]+ nodes are in no block \(([^)]*)\)`)
)

// TestSlurmRealBlockPlacements compares slurm:block with a Slurm built from source
// that has topology/block (Slurm >= 23.11; the emulation follows 26.05.3): set
// PROCALLOC_SLURM_NEW to its prefix (scripts/slurm-build.sh installs into
// /opt/slurm-new). The test starts its own 16-node cluster (scripts/slurm-cluster.sh
// --prefix) in PROCALLOC_SLURM_NEW_DIR (default: a new /tmp/slurm-block* directory)
// on free ports (internal/slurmtest/ports, chosen at its first start), restarts it with
// TopologyPlugin=topology/block and each configuration, and stops it at the end.
// Like TestSlurmRealPlacements, every placement Slurm makes is compared with the
// emulation's; besides, up to 10 jobs per configuration that the emulation says must
// wait are submitted with salloc --immediate, and Slurm must not start them; and
// where nodes are in no block, slurmctld's startup warning must name the nodes the
// emulation's warning names (block-partial).
// PROCALLOC_SLURM_STEPS sets the submissions per configuration (default 150),
// PROCALLOC_SLURM_RANDOM_BLOCKS the number of random block files (default 2).
func TestSlurmRealBlockPlacements(t *testing.T) {
	if os.Getenv("PROCALLOC_SLURM_NEW") == "" {
		t.Skip("PROCALLOC_SLURM_NEW is not set: the prefix of a Slurm >= 23.11 built with scripts/slurm-build.sh")
	}
	prefix, version := slurmtest.NewSlurm(t)
	steps := slurmtest.EnvCount(t, "PROCALLOC_SLURM_STEPS", 150)
	port := 0 // the cluster's port base, chosen free at its first start
	dir := os.Getenv("PROCALLOC_SLURM_NEW_DIR")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "slurm-block"); err != nil {
			t.Fatal(err)
		}
	}
	script := slurmtest.Script(t)
	const nodes = 16
	names := slurmtest.NodeNames(nodes)
	m, err := topo.ParseSpec(fmt.Sprintf("mesh:%d", nodes))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := topo.ParseSpec("mesh:4x4")
	o, err := curves.Generate("hilbert", g)
	if err != nil {
		t.Fatal(err)
	}
	distinct := make([]uint32, nodes)
	for r, v := range o {
		distinct[v] = uint32(r + 1)
	}
	grouped := make([]uint32, nodes)
	rg := rand.New(rand.NewPCG(5, 6))
	for i := range grouped {
		grouped[i] = uint32(10 * (1 + rg.IntN(3)))
	}
	type config struct {
		name, conf string
		weights    []uint32
	}
	var configs []config
	for _, c := range slurmRealBlocks {
		configs = append(configs, config{c.name, c.conf, nil})
	}
	configs = append(configs,
		config{"weights-grouped+" + slurmRealBlocks[1].name, slurmRealBlocks[1].conf, grouped},
		config{"weights-distinct+" + slurmRealBlocks[2].name, slurmRealBlocks[2].conf, distinct},
		config{"weights-grouped+" + slurmRealBlocks[4].name, slurmRealBlocks[4].conf, grouped})
	rb := rand.New(rand.NewPCG(77, 78))
	for i := range slurmtest.EnvCount(t, "PROCALLOC_SLURM_RANDOM_BLOCKS", 2) {
		c := config{fmt.Sprintf("block-random%d", i+1), alloc.RandomSlurmBlocks(rb, nodes, false, false, func(v int) string { return names[v] }), nil}
		if i%2 == 1 {
			c.name, c.weights = "weights-grouped+"+c.name, grouped
		}
		configs = append(configs, c)
	}
	// Nodes in no block: Slurm starts with "Blocks lack access to 4 nodes:
	// node[13-16]" (block_record.c), which the emulation's warning must name alike.
	configs = append(configs, config{"block-partial", "BlockName=p1 Nodes=node[01-04]\nBlockName=p2 Nodes=node[05-08]\nBlockName=p3 Nodes=node[09-12]\nBlockSizes=4,8\n", nil})
	work := t.TempDir()
	t.Cleanup(func() {
		if out, err := exec.Command("bash", script, "stop", "--dir", dir, "--prefix", prefix).CombinedOutput(); err != nil {
			t.Logf("stopping the cluster: %v\n%s", err, out)
		}
	})
	total, differ, waits, retried := 0, 0, 0, 0
	start := time.Now()
	for ci, c := range configs {
		if steps == 0 {
			break
		}
		t.Run(c.name, func(t *testing.T) {
			tf := filepath.Join(work, "topology.conf")
			if err := os.WriteFile(tf, []byte(c.conf), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"restart", "--nodes", strconv.Itoa(nodes), "--dir", dir, "--port-base", "", "--prefix", prefix, "--topology", tf}
			if c.weights != nil {
				var b strings.Builder
				for i, w := range c.weights {
					fmt.Fprintf(&b, "%s %d\n", names[i], w)
				}
				wf := filepath.Join(work, c.name+".weights")
				if err := os.WriteFile(wf, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--weights", wf)
			}
			ctldLog := filepath.Join(dir, "log", "slurmctld.log")
			var logFrom int64 // the log goes on across restarts: only this start's part
			if fi, err := os.Stat(ctldLog); err == nil {
				logFrom = fi.Size()
			}
			// The first start on free ports (another base when one was taken since
			// the check); the restarts keep them.
			restart := func(base int) error {
				args[slices.Index(args, "--port-base")+1] = strconv.Itoa(base)
				_, err := ports.RunScript(nil, script, args...)
				return err
			}
			var err error
			if port == 0 {
				port, err = ports.Start(nodes+1, restart)
			} else {
				err = restart(port)
			}
			if errors.Is(err, ports.ErrNoSlurm) {
				t.Skip(err)
			}
			if err != nil {
				t.Fatalf("starting the cluster: %v", err)
			}
			blocks, err := slurm.ParseBlocks(strings.NewReader(c.conf))
			if err != nil {
				t.Fatal(err)
			}
			a, err := alloc.NewSlurm(m, alloc.SlurmConfig{Names: names, Weights: c.weights, Blocks: blocks})
			if err != nil {
				t.Fatal(err)
			}
			ctld, err := os.ReadFile(ctldLog)
			if err != nil {
				t.Fatal(err)
			}
			slurmSays := blocksLackAccess.FindStringSubmatch(string(ctld[min(logFrom, int64(len(ctld))):]))
			var emulated []string
			for _, w := range a.Warnings() {
				if got := blocksInNone.FindStringSubmatch(w); got != nil {
					emulated = got
				}
			}
			switch {
			case slurmSays == nil && emulated == nil:
			case slurmSays == nil || emulated == nil:
				t.Errorf("nodes in no block: slurmctld logged %q, the emulation warned %q", slurmSays, emulated)
			case slurmSays[1] != emulated[1] || slurmSays[2] != emulated[2]:
				t.Errorf("nodes in no block: slurmctld logged %s nodes %s, the emulation %s nodes %s", slurmSays[1], slurmSays[2], emulated[1], emulated[2])
			default:
				t.Logf("slurmctld and the emulation: %s nodes in no block, %s", slurmSays[1], slurmSays[2])
			}
			rc := &slurmtest.Cluster{Conf: filepath.Join(dir, "slurm.conf"), Dir: work, Submit: "salloc", Names: names, Prefix: prefix}
			r := slurmtest.Compare(t, rc, a, slurmtest.Run{Seed: uint64(300 + ci), Steps: steps, Pending: alloc.ErrFragmented, Probes: 10, Retried: a.BlockRetried})
			n, d := r.Compared, r.Differ
			total += n
			differ += d
			waits += r.Waits
			retried += r.Retried
			t.Logf("%s: %d placements compared, %d differ (%d after retried passes); %d jobs both wait", c.name, n, d, r.Retried, r.Waits)
		})
	}
	t.Logf("%d configurations in %.1f s", len(configs), time.Since(start).Seconds())
	fmt.Printf("slurm (topology/block, %s): %d placements compared, %d differ (%d after retried passes); %d waiting jobs compared\n", version, total, differ, retried, waits)
}
