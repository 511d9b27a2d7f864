package alloc

import (
	"bytes"
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

	"github.com/procalloc/procalloc/curves"
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
	dir := os.Getenv("PROCALLOC_SLURM_DIR")
	if dir == "" {
		t.Skip("PROCALLOC_SLURM_DIR is not set: `make test-slurm` starts a 16-node Slurm on loopback and runs this test on it")
	}
	conf, err := os.ReadFile(filepath.Join(dir, "slurm.conf"))
	if err != nil {
		t.Skipf("no Slurm cluster in %s: %v", dir, err)
	}
	portBase, nodes := 0, 0
	for _, line := range strings.Split(string(conf), "\n") {
		if v, ok := strings.CutPrefix(line, "SlurmctldPort="); ok {
			portBase, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if strings.HasPrefix(line, "NodeName=") {
			nodes++
		}
	}
	if portBase == 0 || nodes < 4 {
		t.Fatalf("%s/slurm.conf: no SlurmctldPort= or fewer than 4 NodeName= lines", dir)
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "slurm-cluster.sh"))
	if err != nil {
		t.Fatal(err)
	}
	envSteps := func(name string, def int) int {
		s := os.Getenv(name)
		if s == "" {
			return def
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			t.Fatalf("%s=%q: want a non-negative integer", name, s)
		}
		return v
	}
	steps := envSteps("PROCALLOC_SLURM_STEPS", 150)
	sbatchSteps := envSteps("PROCALLOC_SLURM_SBATCH_STEPS", 30)

	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node%02d", i+1)
	}
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
	}
	configs := []config{
		{"weights-distinct", distinct, "", "salloc", steps},
		{"weights-grouped", grouped, "", "salloc", steps},
		{"no-topology", nil, "", "salloc", steps},
		{"tree", nil, slurmRealTopology, "salloc", steps},
		{"tree-unbalanced", nil, slurmRealUnbalanced, "salloc", steps},
		{"weights+tree", grouped, slurmRealTopology, "salloc", steps},
	}
	// Random trees, seeds 1, 2, ...: odd seeds without weights, even ones with.
	for seed := uint64(1); seed <= uint64(envSteps("PROCALLOC_SLURM_RANDOM_TREES", 2)); seed++ {
		c := config{fmt.Sprintf("tree-random%d", seed), nil, randomSlurmTree(seed, nodes), "salloc", steps}
		if seed%2 == 0 {
			c.name, c.weights = fmt.Sprintf("weights+tree-random%d", seed), grouped
		}
		configs = append(configs, c)
	}
	configs = append(configs, config{"sbatch:weights+tree", grouped, slurmRealTopology, "sbatch", sbatchSteps})
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
			if out, err := exec.Command("bash", append([]string{script}, args...)...).CombinedOutput(); err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ExitCode() == 3 {
					t.Skipf("no Slurm: %s", out)
				}
				t.Fatalf("starting the cluster (%s): %v\n%s", strings.Join(args, " "), err, out)
			}
			cfg := SlurmConfig{Names: names, Weights: c.weights}
			if c.tree != "" {
				if cfg.Tree, err = slurm.ParseTree(strings.NewReader(c.tree)); err != nil {
					t.Fatal(err)
				}
			}
			a, err := NewSlurm(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rc := &realCluster{t: t, conf: filepath.Join(dir, "slurm.conf"), cwd: work, submit: c.submit, names: names}
			n, d := rc.run(a, uint64(100+ci), c.steps)
			total += n
			differ += d
			t.Logf("%s: %d placements compared, %d differ", c.name, n, d)
		})
	}
	t.Logf("%d configurations in %.1f s", len(configs), time.Since(start).Seconds())
	// The line `make test-slurm` ends with.
	fmt.Printf("slurm: %d placements compared, %d differ\n", total, differ)
}

type realCluster struct {
	t      *testing.T
	conf   string
	cwd    string
	submit string
	names  []string
}

func (rc *realCluster) cmd(name string, args ...string) (string, string, error) {
	c := exec.Command(name, args...)
	c.Dir = rc.cwd
	c.Env = append(os.Environ(), "SLURM_CONF="+rc.conf)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	return out.String(), errb.String(), err
}

var grantedRE = regexp.MustCompile(`Granted job allocation (\d+)`)

// place submits a k-node job and returns its id and Slurm's nodes (node indices).
func (rc *realCluster) place(k int) (string, []int, error) {
	var id string
	if rc.submit == "sbatch" {
		out, errs, err := rc.cmd("sbatch", "--parsable", "-N", strconv.Itoa(k), "-o", "/dev/null", "--wrap", "exec sleep 1000")
		if err != nil {
			return "", nil, fmt.Errorf("sbatch: %v: %s", err, errs)
		}
		id = strings.TrimSpace(strings.Split(out, ";")[0])
	} else {
		_, errs, err := rc.cmd("salloc", "--no-shell", "--immediate=10", "-N", strconv.Itoa(k), "-J", "procalloc-test")
		mm := grantedRE.FindStringSubmatch(errs)
		if err != nil || mm == nil {
			return "", nil, fmt.Errorf("salloc -N %d: %v: %s", k, err, errs)
		}
		id = mm[1]
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, errs, err := rc.cmd("squeue", "-h", "-j", id, "-o", "%t %N")
		if err != nil {
			return id, nil, fmt.Errorf("squeue -j %s: %v: %s", id, err, errs)
		}
		f := strings.Fields(out)
		if len(f) == 2 && f[0] == "R" {
			hosts, err := hostlist.Expand(f[1])
			if err != nil {
				return id, nil, err
			}
			var nodes []int
			for _, h := range hosts {
				i := slices.Index(rc.names, h)
				if i < 0 {
					return id, nil, fmt.Errorf("job %s on unknown node %q", id, h)
				}
				nodes = append(nodes, i)
			}
			slices.Sort(nodes)
			return id, nodes, nil
		}
		if time.Now().After(deadline) {
			return id, nil, fmt.Errorf("job %s not running after 20 s: %q", id, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cancel cancels job id and waits until no job is COMPLETING.
func (rc *realCluster) cancel(id string) error {
	if _, errs, err := rc.cmd("scancel", id); err != nil {
		return fmt.Errorf("scancel %s: %v: %s", id, err, errs)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, errs, err := rc.cmd("squeue", "-h", "-t", "CG", "-o", "%i")
		if err != nil {
			return fmt.Errorf("squeue -t CG: %v: %s", err, errs)
		}
		if strings.TrimSpace(out) == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jobs still completing 30 s after scancel %s: %s", id, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// run plays the seeded sequence: steps submissions of mixed sizes that fit, with
// cancellations of random running jobs in between. It returns the placements
// compared and how many differed; a difference is reported with its step and the
// emulation then follows Slurm's placement.
func (rc *realCluster) run(a *SlurmAllocator, seed uint64, steps int) (compared, differ int) {
	t := rc.t
	rng := rand.New(rand.NewPCG(seed, 7))
	type job struct {
		id    string
		nodes []int
	}
	var live []job // left running: the next configuration restarts the cluster
	for step := 0; compared < steps; step++ {
		free := a.NumFree()
		if free == 0 || (len(live) > 0 && rng.Float64() < 0.45) {
			i := rng.IntN(len(live))
			if err := rc.cancel(live[i].id); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if err := a.Release(live[i].nodes); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			live = slices.Delete(live, i, i+1)
			continue
		}
		var k int
		switch r := rng.Float64(); {
		case r < 0.5:
			k = 1 + rng.IntN(min(3, free))
		case r < 0.8:
			k = 1 + rng.IntN(min(8, free))
		default:
			k = 1 + rng.IntN(free)
		}
		want, err := a.Allocate(k)
		if err != nil {
			t.Fatalf("step %d: emulation: %v", step, err)
		}
		id, got, err := rc.place(k)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		compared++
		if !slices.Equal(got, want) {
			differ++
			t.Errorf("step %d: job %s, %d nodes of %d free: Slurm %s, emulation %s", step, id, k, free, rc.hosts(got), rc.hosts(want))
			if err := a.Release(want); err != nil {
				t.Fatal(err)
			}
			if err := a.Occupy(got); err != nil {
				t.Fatalf("step %d: Slurm used a node the emulation has busy: %v", step, err)
			}
		}
		live = append(live, job{id, got})
	}
	return compared, differ
}

func (rc *realCluster) hosts(nodes []int) string {
	h := make([]string, len(nodes))
	for i, v := range nodes {
		h[i] = rc.names[v]
	}
	s, err := hostlist.Compress(h)
	if err != nil {
		return strings.Join(h, ",")
	}
	return s
}
