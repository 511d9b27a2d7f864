package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
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
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// cluster is a 16-node Slurm on loopback started by scripts/slurm-cluster.sh for one
// test (its own directory and ports).
type cluster struct {
	t      *testing.T
	script string
	dir    string
	env    []string
}

// newCluster returns a cluster handle, or skips the test saying why
// (slurmtest.NeedDaemons, slurmtest.Script): -short, not root, Slurm not installed
// (the script installs it when run by hand as root), or no script.
func newCluster(t *testing.T, name string) *cluster {
	slurmtest.NeedDaemons(t, "slurmctld", "slurmd", "scontrol", "salloc", "squeue", "munged")
	script := slurmtest.Script(t)
	dir := filepath.Join(t.TempDir(), name)
	return &cluster{t: t, script: script, dir: dir, env: append(os.Environ(), "SLURM_CONF="+filepath.Join(dir, "slurm.conf"))}
}

func (c *cluster) run(name string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (c *cluster) script1(args ...string) string {
	c.t.Helper()
	return c.run("bash", append([]string{c.script}, args...)...)
}

// start starts the cluster of nodes nodes on free ports (internal/slurmtest/ports):
// args(base) returns slurm-cluster.sh start's arguments for a port base (it may
// write a slurm.conf for that base first, with conf --port-base); when a daemon meets
// a port taken since the check, start tries another base. It returns the base the
// cluster runs on (slurmctld on it, node i on base + i).
func (c *cluster) start(nodes int, args func(base int) []string) int {
	c.t.Helper()
	c.t.Cleanup(func() { exec.Command("bash", c.script, "stop", "--dir", c.dir).Run() })
	base, err := ports.Start(nodes+1, func(base int) error {
		_, err := ports.RunScript(c.env, c.script, append([]string{"start", "--dir", c.dir}, args(base)...)...)
		return err
	})
	if errors.Is(err, ports.ErrNoSlurm) {
		c.t.Skip(err)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return base
}

// withPorts is start's args for a cluster the script writes itself: --nodes,
// --port-base and extra.
func withPorts(nodes int, extra ...string) func(base int) []string {
	return func(base int) []string {
		return append([]string{"--nodes", strconv.Itoa(nodes), "--port-base", strconv.Itoa(base)}, extra...)
	}
}

// alloc submits a k-node allocation and returns its job id and nodes.
func (c *cluster) alloc(k int) (string, []string) {
	c.t.Helper()
	out := c.run("salloc", "--no-shell", "-N", strconv.Itoa(k), "-t", "5")
	m := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(out)
	if m == nil {
		c.t.Fatalf("salloc -N %d: %s", k, out)
	}
	nl := c.run("squeue", "-h", "-j", m[1], "-o", "%N")
	nodes, err := hostlist.Expand(nl)
	if err != nil {
		c.t.Fatalf("squeue -o %%N: %q: %v", nl, err)
	}
	return m[1], nodes
}

// cancel cancels a job and waits until no job is completing (Slurm skips
// completing nodes).
func (c *cluster) cancel(id string) {
	c.t.Helper()
	c.run("scancel", id)
	for range 100 {
		if c.run("squeue", "-h", "-t", "CG", "-o", "%i") == "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatal("job still completing after 10 s")
}

// slurm-weight merged into a slurm.conf whose 16 nodes are one hostlist line: Slurm
// starts with it, shows every node's weight, and allocates the lowest free weights
// (a sorted free list along the ordering, checked against freelist's prediction
// through a sequence with a hole).
func TestMergedWeightsOnSlurm(t *testing.T) {
	c := newCluster(t, "weights")
	m, _ := topo.ParseSpec("mesh:4x4")
	o, _ := curves.Generate("hilbert", m)
	hosts := slurmtest.NodeNames(16)
	mergedPath := filepath.Join(t.TempDir(), "merged.conf")
	p := c.start(16, func(p int) []string {
		conf := c.script1("conf", "--nodes", "16", "--dir", c.dir, "--port-base", strconv.Itoa(p))
		data, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		// One hostlist line for the 16 per-node lines the script writes.
		var b strings.Builder
		for _, l := range strings.SplitAfter(string(data), "\n") {
			switch {
			case strings.HasPrefix(l, "NodeName=node01 "):
				fmt.Fprintf(&b, "NodeName=node[01-16] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[%d-%d] CPUs=1 RealMemory=100 State=UNKNOWN\n", p+1, p+16)
			case strings.HasPrefix(l, "NodeName="):
			default:
				b.WriteString(l)
			}
		}
		merged, warnings, err := MergeWeights(context.Background(), []byte(b.String()), o, hosts)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("%v %v", err, warnings)
		}
		if err := os.WriteFile(mergedPath, merged, 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--conf", mergedPath}
	})
	ranks := o.Ranks()
	shown := c.run("scontrol", "-o", "show", "node")
	for i, h := range hosts {
		want := fmt.Sprintf("NodeName=%s .*Port=%d .*Weight=%d ", h, p+1+i, ranks[i]+1)
		if !regexp.MustCompile(want).MatchString(shown) {
			t.Fatalf("scontrol show node: no %q in\n%s", want, shown)
		}
	}
	// Predicted by a sorted free list: the k free nodes of lowest rank.
	free := slices.Repeat([]bool{true}, 16)
	predict := func(k int) []string {
		var out []string
		for _, v := range o {
			if free[v] && len(out) < k {
				out = append(out, hosts[v])
			}
		}
		slices.SortFunc(out, hostlist.NaturalCompare)
		return out
	}
	ids := map[int]string{}
	compared := 0
	for step, k := range []int{3, 2, 4, -2, 1, 3, -0, 2} {
		if k <= 0 {
			id := ids[-k]
			nodes := c.run("squeue", "-h", "-j", id, "-o", "%N")
			names, _ := hostlist.Expand(nodes)
			c.cancel(id)
			for _, h := range names {
				free[slices.Index(hosts, h)] = true
			}
			continue
		}
		want := predict(k)
		id, got := c.alloc(k)
		ids[step] = id
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: %d nodes: Slurm gave %v, the sorted free list predicts %v", step, k, got, want)
		}
		for _, h := range got {
			free[slices.Index(hosts, h)] = false
		}
		compared++
	}
	t.Logf("Slurm %s started with the merged slurm.conf; scontrol shows all 16 weights; %d allocations equal the sorted free list's", c.run("sinfo", "-V"), compared)
}

// slurm-topology (rcm on the sample fat tree, leaves out of name order) loads with
// topology/tree: scontrol show topology lists the leaves in the written order, an
// allocation of a whole leaf takes the first leaf line (ties go to the earlier leaf),
// and inside a leaf Slurm takes nodes in name order, not as written (the warning).
func TestTopologyOnSlurm(t *testing.T) {
	c := newCluster(t, "tree")
	g := sampleTreeGraph(t)
	o, topoPath, extra := rcmTopologyFiles(t, g)
	c.start(16, withPorts(16, "--topology", topoPath, "--conf-extra", extra))
	shown := c.run("scontrol", "show", "topology")
	leaves, hosts := topo.LeafOrder(g, o)
	var order []string
	for _, l := range strings.Split(shown, "\n") {
		if strings.Contains(l, "Level=0") {
			order = append(order, strings.TrimPrefix(strings.Fields(l)[0], "SwitchName="))
		}
	}
	var want []string
	for _, l := range leaves {
		want = append(want, g.Name(l))
	}
	if !slices.Equal(order, want) {
		t.Fatalf("scontrol show topology leaves %v, written %v\n%s", order, want, shown)
	}
	_, got := c.alloc(4)
	first := make([]string, len(hosts[0]))
	for i, v := range hosts[0] {
		first[i] = g.Name(v)
	}
	slices.SortFunc(first, hostlist.NaturalCompare)
	if !slices.Equal(got, first) {
		t.Fatalf("4 nodes: %v, want the first leaf %s's %v", got, want[0], first)
	}
	_, got2 := c.alloc(2)
	second := []string{}
	for _, v := range hosts[1] {
		second = append(second, g.Name(v))
	}
	slices.SortFunc(second, hostlist.NaturalCompare)
	if !slices.Equal(got2, second[:2]) {
		t.Fatalf("2 nodes: %v, want the second leaf's first two in name order %v (written %v)", got2, second[:2], hosts[1])
	}
	t.Logf("topology.conf loaded; leaves %v; a 4-node job took %v, a 2-node job %v (name order inside the leaf)", order, got, got2)
}

// clusterProcs returns the live processes (not zombies) of the cluster in dir: those
// whose environment has SLURM_CONF=dir/slurm.conf (the daemons, slurmstepd, batch
// scripts and tasks all inherit it) or whose command line names dir.
func clusterProcs(dir string) map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	want := []byte("SLURM_CONF=" + filepath.Join(dir, "slurm.conf") + "\x00")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(append(env, 0), want) || bytes.Contains(cmdline, []byte(dir)) {
			out[pid] = strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// slurm-cluster.sh stop ends every job of the cluster whatever its partition is
// called: batch jobs (slurmstepd, the batch script), a job step started by srun in a
// batch script, a batch script that ignores SIGTERM, and an allocation. Before the
// fix, stop cancelled only partition "all" and left slurmstepd and the scripts of
// the other partitions running (issue 29).
func TestStopEndsEveryJobOnSlurm(t *testing.T) {
	c := newCluster(t, "stop")
	confPath := filepath.Join(t.TempDir(), "slurm.conf")
	c.start(4, func(base int) []string {
		conf := c.script1("conf", "--nodes", "4", "--dir", c.dir, "--port-base", strconv.Itoa(base))
		data, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		renamed := strings.Replace(string(data), "PartitionName=all ", "PartitionName=batch ", 1)
		if renamed == string(data) {
			t.Fatalf("%s: no PartitionName=all line to rename", conf)
		}
		renamed += "PartitionName=hidden Nodes=node04 Hidden=YES MaxTime=INFINITE State=UP\n"
		if err := os.WriteFile(confPath, []byte(renamed), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--conf", confPath}
	})
	work := t.TempDir()
	sbatch := func(args ...string) string {
		cmd := exec.Command("sbatch", append([]string{"--parsable", "-o", "/dev/null"}, args...)...)
		cmd.Env, cmd.Dir = c.env, work
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	ids := []string{
		sbatch("-N", "1", "--wrap", "sleep 1000"),
		sbatch("-N", "1", "--wrap", "trap '' TERM; sleep 1001; sleep 1001"),
		sbatch("-N", "1", "--wrap", "srun sleep 1002"),
		sbatch("-N", "1", "-p", "hidden", "--wrap", "sleep 1003"),
	}
	// Every job running, with its batch script's processes.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := c.run("squeue", "-h", "--all", "-t", "R", "-o", "%A")
		procs := clusterProcs(c.dir)
		steps := 0
		for _, cmd := range procs {
			if strings.HasPrefix(strings.TrimPrefix(cmd, "/usr/bin/"), "sleep 100") {
				steps++
			}
		}
		if len(strings.Fields(out)) == len(ids) && steps == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: running jobs %q of %v; processes %v", out, ids, procs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	before := clusterProcs(c.dir)
	t.Logf("%d processes of the cluster before stop, e.g. the steps: %v", len(before), slices.Collect(func(yield func(string) bool) {
		for _, cmd := range before {
			if strings.HasPrefix(cmd, "slurmstepd") && !yield(cmd) {
				return
			}
		}
	}))
	c.script1("stop", "--dir", c.dir)
	if left := clusterProcs(c.dir); len(left) > 0 {
		for pid := range left {
			exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
		}
		t.Fatalf("slurm-cluster.sh stop left %d processes of the cluster running: %v", len(left), left)
	}
}

// Shared nodes are not modelled (README, "From an ordering to a running Slurm"): with
// CPUs=2 per node and a partition that does not give whole nodes, Slurm places two
// one-node jobs (one CPU each) on the same node, where procalloc's emulation, whose
// model is whole nodes, takes a second node; OverSubscribe=EXCLUSIVE on the
// partition gives whole nodes again, as modelled.
func TestSharedNodesOnSlurm(t *testing.T) {
	c := newCluster(t, "shared")
	// The configuration with CPUs=2, for a base, and its partition line.
	var shared string
	sharedConf := func(base int, partition string) string {
		if base != 0 {
			conf := c.script1("conf", "--nodes", "4", "--dir", c.dir, "--port-base", strconv.Itoa(base))
			data, err := os.ReadFile(conf)
			if err != nil {
				t.Fatal(err)
			}
			if shared = strings.ReplaceAll(string(data), " CPUs=1 ", " CPUs=2 "); shared == string(data) {
				t.Fatalf("%s: no CPUs=1 to change", conf)
			}
		}
		confPath := filepath.Join(t.TempDir(), "slurm.conf")
		text := strings.Replace(shared, "PartitionName=all Nodes=ALL", "PartitionName=all Nodes=ALL"+partition, 1)
		if err := os.WriteFile(confPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return confPath
	}
	for _, p := range []struct {
		partition string
		same      bool
	}{
		{"", true},
		{" OverSubscribe=EXCLUSIVE", false},
	} {
		if p.partition == "" {
			c.start(4, func(base int) []string { return []string{"--conf", sharedConf(base, p.partition)} })
		} else {
			c.script1("restart", "--dir", c.dir, "--conf", sharedConf(0, p.partition))
		}
		_, first := c.alloc(1)
		_, second := c.alloc(1)
		if got := slices.Equal(first, second); got != p.same {
			t.Fatalf("CPUs=2, partition%s: two 1-node jobs on %v and %v", p.partition, first, second)
		}
		t.Logf("CPUs=2, partition%s: two 1-node jobs on %v and %v", p.partition, first, second)
	}
}

// Slurm's node order is natural name order as slurmctld's strnatcmp has it, whatever
// the NodeName lines' order: with names that mix zero padding (x1..x9 and
// x010..x016) x010 comes before x1 (its leading zeros are skipped), which
// hostlist.NaturalCompare, the order of procalloc's Slurm emulators and of the
// name-order curve, must match (issue 29). The lines are written shuffled; the
// order is read from scontrol show nodes, and a first allocation of three nodes
// (Best Fit on that order, all nodes free) takes its first three.
func TestNodeOrderOnSlurm(t *testing.T) {
	c := newCluster(t, "natural")
	names, err := hostlist.Expand("x[1-9],x[010-016]")
	if err != nil {
		t.Fatal(err)
	}
	shuffled := slices.Clone(names)
	for i := range shuffled { // a fixed permutation
		j := (i*7 + 3) % len(shuffled)
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	}
	c.start(len(names), withPorts(len(names), "--names", strings.Join(shuffled, ",")))
	var shown []string
	for _, l := range strings.Split(c.run("scontrol", "-o", "show", "nodes"), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "NodeName=") {
			shown = append(shown, strings.TrimPrefix(f[0], "NodeName="))
		}
	}
	want := slices.Clone(names)
	slices.SortFunc(want, hostlist.NaturalCompare)
	if !slices.Equal(shown, want) {
		t.Fatalf("NodeName lines %v:\nscontrol show nodes %v\nhostlist.NaturalCompare %v", shuffled, shown, want)
	}
	_, got := c.alloc(3)
	first := slices.Clone(want[:3])
	slices.SortFunc(first, hostlist.NaturalCompare)
	if !slices.Equal(got, first) {
		t.Fatalf("3 nodes of 16 free: Slurm %v, the first three in natural order %v", got, first)
	}
	t.Logf("scontrol show nodes: %v; a 3-node job took %v", shown, got)
}

// A port taken between the port check and the daemons' bind (another cluster
// starting at the same moment) makes slurm-cluster.sh start exit 4 naming it, read
// from the daemon's log, after stopping what it started; ports.Start then starts the
// cluster on another base. The first attempt meets a listener on node02's port, the
// second one on slurmctld's; the third starts.
func TestTakenPortRetriedOnSlurm(t *testing.T) {
	c := newCluster(t, "taken")
	t.Cleanup(func() { exec.Command("bash", c.script, "stop", "--dir", c.dir).Run() })
	var bases []int
	var errs []error
	base, err := ports.Start(5, func(base int) error {
		bases = append(bases, base)
		if held := map[int]int{1: base + 2, 2: base}[len(bases)]; held != 0 {
			l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(held)))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
		}
		_, err := ports.RunScript(c.env, c.script, "start", "--dir", c.dir, "--nodes", "4", "--port-base", strconv.Itoa(base))
		errs = append(errs, err)
		return err
	})
	if err != nil || len(bases) != 3 || base != bases[2] {
		t.Fatalf("started on %d after bases %v: %v (attempts: %v)", base, bases, err, errs)
	}
	for i, want := range []string{fmt.Sprintf("port %d (slurmd of node02) already in use", bases[0]+2), fmt.Sprintf("port %d (slurmctld) already in use", bases[1])} {
		if !errors.Is(errs[i], ports.ErrInUse) || !strings.Contains(errs[i].Error(), want) {
			t.Fatalf("attempt %d: %v, want ErrInUse and %q", i+1, errs[i], want)
		}
	}
	if got := c.run("scontrol", "show", "config"); !regexp.MustCompile(`SlurmctldPort\s*=\s*` + strconv.Itoa(base) + `\b`).MatchString(got) {
		t.Fatalf("scontrol show config: no SlurmctldPort = %d", base)
	}
	if idle := c.run("sinfo", "-h", "-N", "-o", "%N %t"); strings.Count(idle, "idle") != 4 {
		t.Fatalf("sinfo: %s, want 4 idle nodes", idle)
	}
	inUse := regexp.MustCompile(`port \d+ \([^)]*\) already in use`)
	t.Logf("bases %v: %s, %s; started on %d", bases, inUse.FindString(errs[0].Error()), inUse.FindString(errs[1].Error()), base)
}
