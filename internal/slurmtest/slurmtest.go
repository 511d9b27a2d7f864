package slurmtest

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

	"github.com/procalloc/procalloc/internal/shared"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Cluster is a running Slurm: its slurm.conf, the directory commands run in, how
// jobs are submitted, and the node names in the predicting allocator's node order.
type Cluster struct {
	// Conf is the cluster's slurm.conf (SLURM_CONF of every command).
	Conf string
	// Dir is the working directory of the commands.
	Dir string
	// Submit is "salloc" (salloc --no-shell, placed at submission) or "sbatch"
	// (placed by the main scheduler's next pass, up to a second later).
	Submit string
	// Names are the Slurm node names of the allocator's nodes 0, 1, ...
	Names []string
	// Prefix, when set, is a Slurm installation whose bin comes first on PATH
	// (scripts/slurm-build.sh's /opt/slurm-new).
	Prefix string
}

// Cmd runs a Slurm client command against the cluster.
func (c *Cluster) Cmd(name string, args ...string) (stdout, stderr string, err error) {
	path := name
	if c.Prefix != "" {
		// The prefix's own command, also when no Slurm is on PATH
		// (exec.Command would fail its look-up of a bare name).
		path = filepath.Join(c.Prefix, "bin", name)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	if c.Prefix != "" {
		cmd.Env = append(cmd.Env, "PATH="+filepath.Join(c.Prefix, "bin")+":"+os.Getenv("PATH"))
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

var grantedRE = regexp.MustCompile(`Granted job allocation (\d+)`)

// ErrNotStarted is wrapped by Place when Slurm did not start the job within the
// wait (salloc --immediate): it left it pending.
var ErrNotStarted = errors.New("the job was not started by Slurm")

// Place submits a k-node job and returns its id and Slurm's nodes, as node indices
// of Names, sorted. With salloc, a job Slurm does not start within wait seconds is
// refused (an error wrapping ErrNotStarted).
func (c *Cluster) Place(k, wait int) (string, []int, error) { return c.PlaceIn(k, wait, "") }

// PlaceIn is Place for a job submitted to partition part (-p; "" for none: the
// default partition).
func (c *Cluster) PlaceIn(k, wait int, part string) (string, []int, error) {
	var id string
	var p []string
	if part != "" {
		p = []string{"-p", part}
	}
	if c.Submit == "sbatch" {
		out, errs, err := c.Cmd("sbatch", append(p, "--parsable", "-N", strconv.Itoa(k), "-o", "/dev/null", "--wrap", "exec sleep 1000")...)
		if err != nil {
			return "", nil, fmt.Errorf("sbatch: %v: %s", err, errs)
		}
		id = strings.TrimSpace(strings.Split(out, ";")[0])
	} else {
		_, errs, err := c.Cmd("salloc", append(p, "--no-shell", "--immediate="+strconv.Itoa(wait), "-N", strconv.Itoa(k), "-J", "procalloc-test")...)
		m := grantedRE.FindStringSubmatch(errs)
		if err != nil || m == nil {
			if strings.Contains(errs, "Unable to allocate resources") || strings.Contains(errs, "Job submit/allocate failed") {
				return "", nil, fmt.Errorf("salloc -N %d: %w: %s", k, ErrNotStarted, strings.TrimSpace(errs))
			}
			return "", nil, fmt.Errorf("salloc -N %d: %v: %s", k, err, errs)
		}
		id = m[1]
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, errs, err := c.Cmd("squeue", "-h", "-j", id, "-o", "%t %N")
		if err != nil {
			return id, nil, fmt.Errorf("squeue -j %s: %v: %s", id, err, errs)
		}
		f := strings.Fields(out)
		if len(f) == 2 && f[0] == "R" {
			nodes, err := c.Nodes(f[1])
			return id, nodes, err
		}
		if time.Now().After(deadline) {
			return id, nil, fmt.Errorf("job %s not running after 20 s: %q", id, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Nodes returns the node indices of a hostlist Slurm printed, sorted.
func (c *Cluster) Nodes(expr string) ([]int, error) {
	hosts, err := hostlist.Expand(expr)
	if err != nil {
		return nil, err
	}
	var nodes []int
	for _, h := range hosts {
		i := slices.Index(c.Names, h)
		if i < 0 {
			return nil, fmt.Errorf("unknown node %q", h)
		}
		nodes = append(nodes, i)
	}
	slices.Sort(nodes)
	return nodes, nil
}

// Cancel cancels job id and waits until no job is COMPLETING (Slurm skips the
// nodes of completing jobs).
func (c *Cluster) Cancel(id string) error {
	if _, errs, err := c.Cmd("scancel", id); err != nil {
		return fmt.Errorf("scancel %s: %v: %s", id, err, errs)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, errs, err := c.Cmd("squeue", "-h", "-t", "CG", "-o", "%i")
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

// Hosts returns nodes as a hostlist of their names, in natural name order.
func (c *Cluster) Hosts(nodes []int) string {
	h := make([]string, len(nodes))
	for i, v := range nodes {
		h[i] = c.Names[v]
	}
	slices.SortFunc(h, hostlist.NaturalCompare)
	s, err := hostlist.Compress(h)
	if err != nil {
		return strings.Join(h, ",")
	}
	return s
}

// Run is a seeded sequence of submissions and cancellations (Compare).
type Run struct {
	// Seed seeds the job sizes and the cancellations; Steps is how many
	// placements are compared.
	Seed  uint64
	Steps int // placements compared
	// Pending is the error the allocator's Allocate wraps when it says a job
	// must wait (alloc.ErrFragmented: no block or switch holds it although
	// enough nodes are free); such a job is not submitted, but for Probes of
	// them. Any other error of Allocate fails the test.
	Pending error
	// Probes is how many jobs the allocator says must wait are submitted anyway
	// with salloc --immediate, to check that Slurm does not start them either.
	Probes int
	// Retried, when set, says after each placement whether the allocator had to
	// retry its selection (counted in Result.Retried).
	Retried func() bool
	// Partitions, when set, are partitions of the cluster's slurm.conf: each job
	// is submitted to one of them drawn at random (-p), its size drawn from the
	// partition's free nodes, and predicted by AllocateIn (the allocator kept to
	// the partition's nodes: alloc.AllocateWithout with the nodes outside it).
	Partitions []Partition
	// AllocateIn predicts a job of partition part (with Partitions).
	AllocateIn func(k int, part Partition) ([]int, error)
}

// Partition is a partition of the cluster.
type Partition struct {
	Name  string // its PartitionName, what -p is given
	Nodes []int  // its nodes, indices of Cluster.Names
}

// Result counts what Compare compared.
type Result struct {
	Compared, Differ int // placements compared, and how many of them differed
	// Waits are the jobs that both Slurm and the allocator left waiting (probes);
	// Retried the placements Run.Retried reported.
	Waits, Retried int
}

// Predictor is the allocator Compare checks against Slurm: an alloc.Allocator
// (alloc.SlurmAllocator, a plan deployment's emulation). The package does not
// import alloc, so that the slurm package's own tests can use it.
type Predictor interface {
	// Machine is the machine predicted: as many nodes as the cluster's Names.
	Machine() topo.Machine
	// Allocate predicts Slurm's k nodes for the next job and marks them busy.
	Allocate(k int) ([]int, error)
	// Release marks a cancelled job's nodes free.
	Release(nodes []int) error
	// NumFree is the number of free nodes.
	NumFree() int
}

// occupier is an allocator that can be told which nodes a job took (to follow
// Slurm's placement after a difference): alloc.SlurmAllocator.
type occupier interface{ Occupy(nodes []int) error }

// Compare plays run on the cluster and on a, which predicts Slurm's placements on
// the nodes c.Names name: every job size fits the free count (1-3 nodes half the
// time, 1-8 three times in ten, else up to all free), and running jobs are
// cancelled at random in between (each cancellation waited out, so that each
// placement is Slurm's selection alone). A placement that differs is reported with
// t.Errorf, and a follows Slurm's from then on when it can (an Occupy method); the
// jobs left running are the next configuration's to clear (restart).
func Compare(t testing.TB, c *Cluster, a Predictor, run Run) Result {
	t.Helper()
	if a.Machine().N() != len(c.Names) {
		t.Fatalf("the allocator has %d nodes, the cluster %d names", a.Machine().N(), len(c.Names))
	}
	rng := rand.New(rand.NewPCG(run.Seed, 7))
	type job struct {
		id    string
		nodes []int
	}
	var live []job
	var r Result
	probes := run.Probes
	// follow makes a take Slurm's nodes got in place of its own, want (none when
	// it said the job waits).
	follow := func(step int, want, got []int) {
		o, ok := a.(occupier)
		if !ok {
			t.Fatalf("step %d: %T cannot follow Slurm's placement (no Occupy method)", step, a)
		}
		if want != nil {
			if err := a.Release(want); err != nil {
				t.Fatal(err)
			}
		}
		if err := o.Occupy(got); err != nil {
			t.Fatalf("step %d: Slurm used a node the emulation has busy: %v", step, err)
		}
	}
	for step := 0; r.Compared < run.Steps; step++ {
		free := a.NumFree()
		var part *Partition
		if len(run.Partitions) > 0 {
			// A partition at random, and its free nodes (those of no live job).
			part = &run.Partitions[rng.IntN(len(run.Partitions))]
			free = 0
			for _, v := range part.Nodes {
				if !slices.ContainsFunc(live, func(j job) bool { return slices.Contains(j.nodes, v) }) {
					free++
				}
			}
		}
		if free == 0 || (len(live) > 0 && rng.Float64() < 0.45) {
			if len(live) == 0 {
				continue // the partition is busy with nothing running: cannot be
			}
			i := rng.IntN(len(live))
			if err := c.Cancel(live[i].id); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if err := a.Release(live[i].nodes); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			live = slices.Delete(live, i, i+1)
			continue
		}
		var k int
		switch p := rng.Float64(); {
		case p < 0.5:
			k = 1 + rng.IntN(min(3, free))
		case p < 0.8:
			k = 1 + rng.IntN(min(8, free))
		default:
			k = 1 + rng.IntN(free)
		}
		var want []int
		var err error
		partName, what := "", ""
		if part != nil {
			want, err = run.AllocateIn(k, *part)
			partName, what = part.Name, " in "+part.Name
		} else {
			want, err = a.Allocate(k)
		}
		if run.Pending != nil && errors.Is(err, run.Pending) {
			// The job would wait: check that Slurm does not start it either.
			if probes <= 0 {
				continue
			}
			probes--
			r.Waits++
			id, got, err := c.PlaceIn(k, 2, partName)
			switch {
			case err == nil:
				r.Compared++
				r.Differ++
				t.Errorf("step %d: job %s, %d nodes of %d free%s: Slurm %s, emulation: waits", step, id, k, free, what, c.Hosts(got))
				follow(step, nil, got)
				live = append(live, job{id, got})
			case !errors.Is(err, ErrNotStarted):
				t.Fatalf("step %d: %v", step, err)
			case r.Waits == 1:
				t.Logf("step %d: %d nodes of %d free, both wait: %v", step, k, free, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: emulation: %v", step, err)
		}
		if run.Retried != nil && run.Retried() {
			r.Retried++
		}
		want = slices.Sorted(slices.Values(want)) // a set: got is sorted
		id, got, err := c.PlaceIn(k, 10, partName)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		r.Compared++
		if !slices.Equal(got, want) {
			r.Differ++
			t.Errorf("step %d: job %s, %d nodes of %d free%s: Slurm %s, emulation %s", step, id, k, free, what, c.Hosts(got), c.Hosts(want))
			follow(step, want, got)
		}
		live = append(live, job{id, got})
	}
	return r
}

// What every test that starts or drives a real Slurm asks first: where the
// cluster script is, whether daemons may be started here, where a Slurm built
// from source is, which running cluster to use, and the node names the script
// gives. Each skips the test with a message saying what is missing.

// Script returns the absolute path of scripts/slurm-cluster.sh, found from the
// test's directory up to the module's root (go.mod); SLURM_CLUSTER_SCRIPT
// overrides it. It skips t when there is no such file.
func Script(t testing.TB) string {
	t.Helper()
	script := os.Getenv("SLURM_CLUSTER_SCRIPT")
	if script == "" {
		dir, err := shared.ModuleRoot()
		if err != nil {
			t.Skipf("%v: scripts/slurm-cluster.sh is not found", err)
		}
		script = filepath.Join(dir, "scripts", "slurm-cluster.sh")
	}
	abs, err := filepath.Abs(script) // the tests run commands in other directories
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Skipf("no %s: the multi-node Slurm script is needed to start Slurm", abs)
	}
	return abs
}

// NeedDaemons skips t unless it may start Slurm daemons: not with -short, each of
// cmds on PATH (Debian's Slurm and munge, which the script installs when run once
// by hand as root), and as root.
func NeedDaemons(t testing.TB, cmds ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts Slurm daemons")
	}
	for _, c := range cmds {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not on PATH: run scripts/slurm-cluster.sh start once as root (it installs Debian's slurm-wlm, slurm-client and munge)", c)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the Slurm daemons of this test run as root")
	}
}

// NewPrefix is the prefix of a Slurm built from source (scripts/slurm-build.sh):
// PROCALLOC_SLURM_NEW, else /opt/slurm-new.
func NewPrefix() string {
	if p := os.Getenv("PROCALLOC_SLURM_NEW"); p != "" {
		return p
	}
	return "/opt/slurm-new"
}

// NewSlurm returns NewPrefix and its slurmctld's version (slurmctld -V: "slurm
// 26.05.3"), or skips t when it has no slurmctld that runs.
func NewSlurm(t testing.TB) (prefix, version string) {
	t.Helper()
	prefix = NewPrefix()
	out, err := exec.Command(filepath.Join(prefix, "sbin", "slurmctld"), "-V").Output()
	if err != nil {
		t.Skipf("no Slurm built from source in %s (PROCALLOC_SLURM_NEW): %v; scripts/slurm-build.sh builds one (25 min on 2 shared cores)", prefix, err)
	}
	return prefix, strings.TrimSpace(string(out))
}

// Running returns the cluster `make test-slurm` started (PROCALLOC_SLURM_DIR): its
// directory, its slurmctld's port (the base of its ports) and its number of nodes
// (NodeName= lines), from its slurm.conf. It skips t when there is none, and fails
// it when that slurm.conf has no port or fewer than 4 nodes.
func Running(t testing.TB) (dir string, port, nodes int) {
	t.Helper()
	dir = os.Getenv("PROCALLOC_SLURM_DIR")
	if dir == "" {
		t.Skip("PROCALLOC_SLURM_DIR is not set: `make test-slurm` starts a 16-node Slurm on loopback and runs this test on it")
	}
	conf, err := os.ReadFile(filepath.Join(dir, "slurm.conf"))
	if err != nil {
		t.Skipf("no Slurm cluster in %s: %v", dir, err)
	}
	for _, line := range strings.Split(string(conf), "\n") {
		if v, ok := strings.CutPrefix(line, "SlurmctldPort="); ok {
			port, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if strings.HasPrefix(line, "NodeName=") {
			nodes++
		}
	}
	if port == 0 || nodes < 4 {
		t.Fatalf("%s/slurm.conf: no SlurmctldPort= or fewer than 4 NodeName= lines", dir)
	}
	return dir, port, nodes
}

// EnvCount is the count the environment variable name sets (PROCALLOC_SLURM_STEPS,
// say), def when it is unset; a value that is no count of 0 or more fails t.
func EnvCount(t testing.TB, name string, def int) int {
	t.Helper()
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

// NodeNames are the names scripts/slurm-cluster.sh gives a cluster's n nodes:
// node01, node02, ...
func NodeNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("node%02d", i+1)
	}
	return names
}
