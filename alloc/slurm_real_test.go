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

// TestSlurmRealPlacements drives a running multi-node Slurm (scripts/slurm-cluster.sh;
// `make test-slurm` starts one and sets PROCALLOC_SLURM_DIR) through a seeded sequence
// of submissions and cancellations per configuration and compares every placement
// Slurm makes (squeue %N) with the emulation's (SlurmAllocator). Only sizes that fit
// the free count are submitted, and every cancellation is waited out (no job
// COMPLETING), so that each placement is Slurm's selection alone. The cluster is
// restarted with each configuration's slurm.conf. PROCALLOC_SLURM_STEPS sets the
// submissions per configuration (default 210); PROCALLOC_SLURM_SUBMIT=sbatch submits
// batch jobs (placed by the main scheduler, up to a second later) instead of
// `salloc --no-shell` allocations (placed at submission).
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
	steps := 210
	if s := os.Getenv("PROCALLOC_SLURM_STEPS"); s != "" {
		if steps, err = strconv.Atoi(s); err != nil || steps < 1 {
			t.Fatalf("PROCALLOC_SLURM_STEPS=%q: want a positive integer", s)
		}
	}
	submit := os.Getenv("PROCALLOC_SLURM_SUBMIT")
	if submit == "" {
		submit = "salloc"
	}
	if submit != "salloc" && submit != "sbatch" {
		t.Fatalf("PROCALLOC_SLURM_SUBMIT=%q: want salloc or sbatch", submit)
	}

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
	var tree *slurm.Tree
	if nodes == 16 {
		if tree, err = slurm.ParseTree(strings.NewReader(slurmRealTopology)); err != nil {
			t.Fatal(err)
		}
	}
	type config struct {
		name    string
		weights []uint32
		tree    bool
	}
	configs := []config{
		{"weights-distinct", distinct, false},
		{"weights-grouped", grouped, false},
		{"no-topology", nil, false},
		{"tree", nil, true},
		{"weights+tree", grouped, true},
	}
	work := t.TempDir()
	total, differ := 0, 0
	start := time.Now()
	for ci, c := range configs {
		if c.tree && tree == nil {
			t.Logf("%s: skipped (the test topology is for 16 nodes, the cluster has %d)", c.name, nodes)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			args := []string{"start", "--nodes", strconv.Itoa(nodes), "--dir", dir, "--port-base", strconv.Itoa(portBase)}
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
			if c.tree {
				tf := filepath.Join(work, "topology.conf")
				if err := os.WriteFile(tf, []byte(slurmRealTopology), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--topology", tf)
			}
			if out, err := exec.Command("bash", script, "stop", "--dir", dir).CombinedOutput(); err != nil {
				t.Fatalf("stopping the cluster: %v\n%s", err, out)
			}
			if out, err := exec.Command("bash", append([]string{script}, args...)...).CombinedOutput(); err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ExitCode() == 3 {
					t.Skipf("no Slurm: %s", out)
				}
				t.Fatalf("starting the cluster (%s): %v\n%s", strings.Join(args, " "), err, out)
			}
			cfg := SlurmConfig{Names: names, Weights: c.weights}
			if c.tree {
				cfg.Tree = tree
			}
			a, err := NewSlurm(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rc := &realCluster{t: t, conf: filepath.Join(dir, "slurm.conf"), cwd: work, submit: submit, names: names}
			n, d := rc.run(a, uint64(100+ci), steps)
			total += n
			differ += d
			t.Logf("%s: %d placements compared, %d differ", c.name, n, d)
		})
	}
	t.Logf("%d configurations in %.1f s (%s)", len(configs), time.Since(start).Seconds(), submit)
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
		out, errs, err := rc.cmd("sbatch", "--parsable", "-N", strconv.Itoa(k), "-o", "/dev/null", "--wrap", "sleep 1000")
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
