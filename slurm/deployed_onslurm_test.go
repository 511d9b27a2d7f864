package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/slurmtest"
	"github.com/procalloc/procalloc/internal/slurmtest/ports"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// try runs a Slurm client command with extra environment and returns its combined
// output and error (for the commands Slurm is expected to refuse).
func (c *cluster) try(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(slices.Clone(c.env), env...)
	cmd.Dir = c.t.TempDir()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// taskHostsRE is a line "RANK NODENAME" printed by each task of taskCmd.
var taskHostsRE = regexp.MustCompile(`(?m)^(\d+) (\S+)$`)

// taskCmd prints, from every task of a step, its rank and the node it runs on
// (SLURMD_NODENAME: the multiple-slurmd node, not the loopback host name).
var taskCmd = []string{"bash", "-c", `echo "$SLURM_PROCID $SLURMD_NODENAME"`}

// taskHosts reads taskCmd's lines: the node of task 0, 1, ... (an error when a rank
// is missing or given twice).
func taskHosts(out string) ([]string, error) {
	got := map[int]string{}
	for _, m := range taskHostsRE.FindAllStringSubmatch(out, -1) {
		r, _ := strconv.Atoi(m[1])
		if _, dup := got[r]; dup {
			return nil, fmt.Errorf("task %d twice in %q", r, out)
		}
		got[r] = m[2]
	}
	hosts := make([]string, len(got))
	for r, h := range got {
		if r >= len(hosts) {
			return nil, fmt.Errorf("tasks %v are not 0..%d: %q", got, len(got)-1, out)
		}
		hosts[r] = h
	}
	return hosts, nil
}

// The hosts (hostfile) format as SLURM_HOSTFILE with --distribution=arbitrary, and the
// hostlist format as a --nodelist, on Debian's Slurm 22.05 (16 nodes, CPUs=1), with
// the files procalloc writes for a 4x4 mesh along Hilbert (node01 node02 node06
// node05 node09 ...). What the docs say (README "From an ordering to a running
// Slurm", help formats) is what this test checks:
//
//   - srun -n K takes the first K lines, task r on line r, for K = 16, 5 and 1; without
//     -n it starts one task per line (16);
//   - sbatch -n K with the file gets the first K lines' nodes, and srun -n
//     $SLURM_NTASKS inside lays task r on line r; a plain srun inside counts the
//     file's 16 lines and is refused (SLURM_JOB_NUM_NODES conflicts);
//   - inside an allocation Slurm chose (salloc -N 5, nodes taken from the first
//     allocation: not the ordering's first five), the allocation's hosts in the
//     file's order (grep -Fxf) as SLURM_HOSTFILE put task r on the r-th of them;
//   - a host twice needs two CPUs: refused with CPUs=1, tasks on their lines with
//     --overcommit;
//   - a job waits for the file's first K hosts even when others are free;
//   - the hostlist expression keeps the ordering for scontrol show hostnames, but
//     srun -w lays tasks in name order and cuts the list in name order (-n 4), and
//     sbatch -w with more nodes than -N is refused: Slurm sorts a nodelist.
func TestHostsFilesOnSlurm(t *testing.T) {
	c := newCluster(t, "hostfile")
	c.start(16, withPorts(16))
	m, _ := topo.ParseSpec("mesh:4x4")
	o, err := curves.Generate("hilbert", m)
	if err != nil {
		t.Fatal(err)
	}
	names := slurmtest.NodeNames(16)
	var hostsFile, listFile bytes.Buffer
	if err := curves.WriteRanking(&hostsFile, curves.FormatHosts, o, curves.RankingMeta{}, names); err != nil {
		t.Fatal(err)
	}
	if err := curves.WriteRanking(&listFile, curves.FormatHostlist, o, curves.RankingMeta{}, names); err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(hostsFile.String())
	dir := t.TempDir()
	hf := filepath.Join(dir, "ordering.hosts")
	if err := os.WriteFile(hf, hostsFile.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	withFile := []string{"SLURM_HOSTFILE=" + hf}
	sortedNames := func(hs []string) []string {
		s := slices.Clone(hs)
		slices.SortFunc(s, hostlist.NaturalCompare)
		return s
	}
	layouts := 0 // task layouts and refusals compared with Slurm's
	defer func() {
		// The line `make test-slurm` prints.
		fmt.Printf("hosts files: %d task layouts and refusals as documented, failed: %v\n", layouts, t.Failed())
	}()
	steps := func(env []string, args ...string) []string {
		t.Helper()
		layouts++
		out, err := c.try(env, "srun", append(args, taskCmd...)...)
		if err != nil {
			t.Fatalf("srun %v: %v\n%s", args, err, out)
		}
		got, err := taskHosts(out)
		if err != nil {
			t.Fatalf("srun %v: %v", args, err)
		}
		return got
	}

	t.Run("hostfile", func(t *testing.T) {
		for _, k := range []int{16, 5, 1} {
			got := steps(withFile, "-n", strconv.Itoa(k), "--distribution=arbitrary")
			if !slices.Equal(got, lines[:k]) {
				t.Fatalf("SLURM_HOSTFILE srun -n %d --distribution=arbitrary: tasks on %v, the file's first %d lines %v", k, got, k, lines[:k])
			}
		}
		if got := steps(withFile, "--distribution=arbitrary"); !slices.Equal(got, lines) {
			t.Fatalf("SLURM_HOSTFILE srun --distribution=arbitrary (no -n): tasks on %v, want one per line %v", got, lines)
		}
		t.Logf("srun -n 5 --distribution=arbitrary: task r on line r: %v", lines[:5])

		// sbatch -n 5: the first five lines' nodes; srun -n inside follows the file.
		script := filepath.Join(dir, "job.sh")
		os.WriteFile(script, []byte("#!/bin/bash\necho \"nodes $SLURM_JOB_NODELIST\"\nsrun -n $SLURM_NTASKS "+strings.Join(taskCmd[:2], " ")+" '"+taskCmd[2]+"'\necho plain; srun true\nexit 0\n"), 0o755)
		outFile := filepath.Join(dir, "job.out")
		if out, err := c.try(withFile, "sbatch", "--wait", "-n", "5", "--distribution=arbitrary", "-o", outFile, script); err != nil {
			t.Fatalf("sbatch --wait -n 5: %v\n%s", err, out)
		}
		jobOut, _ := os.ReadFile(outFile)
		nl := regexp.MustCompile(`(?m)^nodes (\S+)$`).FindStringSubmatch(string(jobOut))
		if nl == nil {
			t.Fatalf("job output without its nodes:\n%s", jobOut)
		}
		jobNodes, err := hostlist.Expand(nl[1])
		if err != nil || !slices.Equal(jobNodes, sortedNames(lines[:5])) {
			t.Fatalf("sbatch -n 5 with SLURM_HOSTFILE: job nodes %s, want the file's first five %v", nl[1], lines[:5])
		}
		layouts++
		before, after, _ := strings.Cut(string(jobOut), "plain")
		got, err := taskHosts(before)
		if err != nil || !slices.Equal(got, lines[:5]) {
			t.Fatalf("srun -n $SLURM_NTASKS in the batch job: tasks on %v (%v), want %v\n%s", got, err, lines[:5], jobOut)
		}
		layouts++
		const conflict = "SLURM_JOB_NUM_NODES environment variable conflicts with allocated node count (16 != 5)"
		if !strings.Contains(after, conflict) {
			t.Fatalf("a plain srun in the batch job: want %q (it counts the file's lines), got:\n%s", conflict, after)
		}
		t.Logf("sbatch -n 5: nodes %s, tasks %v; a plain srun inside: %q", nl[1], got, conflict)

		// An allocation Slurm chose: the first salloc takes node[01-03] (Best Fit on
		// name order), the second five nodes after them.
		firstID, first := c.alloc(3)
		out, err := c.try(nil, "salloc", "-N", "5", "bash", "-c",
			`scontrol show hostnames "$SLURM_JOB_NODELIST" | grep -Fxf - `+hf+` >"$SLURM_JOB_ID.hosts" && `+
				`SLURM_HOSTFILE=$PWD/$SLURM_JOB_ID.hosts srun --distribution=arbitrary -n "$SLURM_NNODES" `+strings.Join(taskCmd[:2], " ")+` '`+taskCmd[2]+`'`)
		if err != nil {
			t.Fatalf("salloc -N 5 with the allocation's hosts in the file's order: %v\n%s", err, out)
		}
		layouts++
		got, err = taskHosts(out)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, h := range lines {
			if slices.Contains(got, h) {
				want = append(want, h)
			}
		}
		if len(got) != 5 || !slices.Equal(got, want) || slices.Equal(got, lines[:5]) || slices.ContainsFunc(got, func(h string) bool { return slices.Contains(first, h) }) {
			t.Fatalf("salloc -N 5 (after %v): tasks on %v, want 5 hosts in the file's order %v, not the file's first five", first, got, want)
		}
		t.Logf("salloc -N 5 beside %v: tasks on %v (the allocation in the file's order)", first, got)
		c.cancel(firstID)

		// A host twice: two tasks on one node.
		twice := filepath.Join(dir, "twice.hosts")
		rep := []string{lines[3], lines[1], lines[3], lines[0]}
		os.WriteFile(twice, []byte(strings.Join(rep, "\n")+"\n"), 0o644)
		env := []string{"SLURM_HOSTFILE=" + twice}
		layouts++
		const refused = "Requested node configuration is not available"
		if out, err := c.try(env, "srun", append([]string{"-n", "4", "--distribution=arbitrary"}, taskCmd...)...); err == nil || !strings.Contains(out, refused) {
			t.Fatalf("a host twice on CPUs=1 nodes: want %q, got %v\n%s", refused, err, out)
		}
		if got := steps(env, "-n", "4", "--distribution=arbitrary", "--overcommit"); !slices.Equal(got, rep) {
			t.Fatalf("a host twice, --overcommit: tasks on %v, want %v", got, rep)
		}

		// The first K hosts busy: the job waits although other nodes are free.
		out, err = c.try(nil, "salloc", "--no-shell", "-N", "1", "-w", lines[2])
		idm := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(out)
		if err != nil || idm == nil {
			t.Fatalf("salloc -w %s: %v\n%s", lines[2], err, out)
		}
		busyID, busy := idm[1], lines[2:3]
		layouts++
		out, err = c.try(withFile, "salloc", "--no-shell", "--immediate=2", "-n", "5", "--distribution=arbitrary")
		if err == nil || !strings.Contains(out, "Unable to allocate resources") {
			t.Fatalf("salloc -n 5 with SLURM_HOSTFILE while %v is busy: want it not started, got %v\n%s", busy, err, out)
		}
		c.cancel(busyID)
		t.Logf("with %s busy, salloc -n 5 with the file: %s", busy[0], strings.TrimSpace(out))
	})

	t.Run("hostlist", func(t *testing.T) {
		expr := strings.TrimSpace(listFile.String())
		layouts++
		if shown := strings.Fields(c.run("scontrol", "show", "hostnames", expr)); !slices.Equal(shown, lines) {
			t.Fatalf("scontrol show hostnames %s: %v, want the ordering %v", expr, shown, lines)
		}
		sorted := sortedNames(lines)
		if got := steps(nil, "-w", expr, "-n", "16"); !slices.Equal(got, sorted) {
			t.Fatalf("srun -w %s -n 16: tasks on %v, want name order %v", expr, got, sorted)
		}
		if got := steps(nil, "-w", expr, "-n", "4"); !slices.Equal(got, sorted[:4]) {
			t.Fatalf("srun -w %s -n 4: tasks on %v, want the first four in name order %v", expr, got, sorted[:4])
		}
		layouts++
		out, err := c.try(nil, "sbatch", "-w", expr, "-N", "4", "-o", "/dev/null", "--wrap", "true")
		if err == nil || !strings.Contains(out, "invalid number of nodes (-N 16-4)") {
			t.Fatalf("sbatch -w (16 hosts) -N 4: want refused with \"invalid number of nodes (-N 16-4)\", got %v\n%s", err, out)
		}
		layouts++
		// The expression is no SLURM_HOSTFILE: srun splits the file at commas.
		lf := filepath.Join(dir, "ordering.hostlist")
		os.WriteFile(lf, listFile.Bytes(), 0o644)
		out, err = c.try([]string{"SLURM_HOSTFILE=" + lf}, "srun", append([]string{"-n", "16", "--distribution=arbitrary"}, taskCmd...)...)
		if err == nil || !strings.Contains(out, "Failure getting NodeNames from hostfile") {
			t.Fatalf("the hostlist as SLURM_HOSTFILE: want \"Failure getting NodeNames from hostfile\", got %v\n%s", err, out)
		}
		t.Logf("hostlist %s: srun -w -n 16 tasks in name order %v; sbatch -w -N 4 refused; as SLURM_HOSTFILE refused", expr, sorted)
	})
}

// ctldComplaints returns the lines of slurmctld's log from line from on that report a
// problem (error, warning, a line ignored), but for those of every fresh start of
// the test cluster (no saved state yet, no MailProg installed).
func ctldComplaints(t *testing.T, dir string, from int, allowed ...*regexp.Regexp) (lines []string, total int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "log", "slurmctld.log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	problem := regexp.MustCompile(`(?i)error|warn|ignor|invalid|fatal`)
	// Benign: a fresh state directory, and (at debug2, which the tests turn on)
	// slurmctld pinging a slurmd that a restart has not brought back yet, which a
	// loaded machine makes likely (20:00 UTC, 2026-12-06, load 6 on 2 cores); and
	// Slurm's note that a step took longer than its timer's limit ("Note very
	// large processing time from topology_g_build_config: usec=57480", 12:09 UTC,
	// 2026-12-07, load 10), which times the machine, not the file.
	fresh := regexp.MustCompile(`Configured MailProg is invalid|Could not open .* state file|NOTE: Trying backup state save file|debug2: Error connecting slurm stream socket at 127\.0\.0\.1:[0-9]+: Connection refused|Warning: Note very large processing time from `)
	for _, l := range all[min(from, len(all)):] {
		if problem.MatchString(l) && !fresh.MatchString(l) && !slices.ContainsFunc(allowed, func(re *regexp.Regexp) bool { return re.MatchString(l) }) {
			lines = append(lines, l)
		}
	}
	return lines, len(all)
}

// topoLine is a SwitchName line: its switches and node names, expanded.
type topoLine struct{ nodes, switches []string }

// switchLines reads the SwitchName lines of a topology.conf or of scontrol show
// topology (Level= and LinkSpeed= skipped; an upper switch's Nodes= that scontrol adds
// is kept only when keepUpperNodes).
func switchLines(t *testing.T, text string, keepUpperNodes bool) map[string]topoLine {
	t.Helper()
	out := map[string]topoLine{}
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' {
			continue
		}
		var name string
		var tl topoLine
		for _, kv := range strings.Fields(l) {
			k, v, _ := strings.Cut(kv, "=")
			var err error
			switch k {
			case "SwitchName":
				name = v
			case "Nodes":
				tl.nodes, err = hostlist.Expand(v)
			case "Switches":
				tl.switches, err = hostlist.Expand(v)
			}
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
		}
		if name == "" {
			t.Fatalf("not a SwitchName line: %q", l)
		}
		if tl.switches != nil && !keepUpperNodes {
			tl.nodes = nil
		}
		slices.Sort(tl.nodes)
		slices.Sort(tl.switches)
		out[name] = tl
	}
	return out
}

// Every Slurm file `procalloc curve` writes for the synthetic machine kinds loads
// into Debian's slurmctld 22.05 without an error or warning in its log (debug3):
// slurm-topology (TopologyPlugin=topology/tree, TopologyParam=SwitchAsNodeRank) with
// slurm-weight merged into the cluster's slurm.conf (MergeWeights, curve
// --slurm-conf), and the plain slurm-weight lines as a new slurm.conf's NodeName lines
// (after a NodeName=DEFAULT line, each line with the loopback's NodeHostname,
// NodeAddr and Port appended: what the loopback adds, and not allowed on DEFAULT). scontrol show topology lists
// exactly the switches written, each with the nodes and switches written, and
// scontrol show node every weight. Machines: mesh:4x4 (Hilbert; one virtual leaf),
// torus:8x4 (gilbert, 32 nodes: two virtual leaves and a root), fattree:4,2:4 (rcm;
// two roots over four leaves), two 16-host dragonflies (rcm; virtual group switches
// and root: 2 groups of 4 routers, and 4 groups of 2, one group switch each); the
// grids named node01.., the networks by their own names h0..h15.
func TestWrittenFilesLoadOnSlurm(t *testing.T) {
	c := newCluster(t, "writers")
	pb, err := ports.Base(33) // the largest machine's 32 nodes and slurmctld
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(pb)
	cases := []struct{ spec, curve string }{
		{"mesh:4x4", "hilbert"},
		{"torus:8x4", "gilbert"},
		{"fattree:4,2:4", "rcm"},
		{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=2", "rcm"},
		{"dragonfly:hosts_per_router=2,routers_per_group=2,intergroup_links=1,num_groups=4", "rcm"},
	}
	started, loads, switches := false, 0, 0
	defer func() {
		fmt.Printf("slurm files: %d slurm.conf and topology.conf loads (%d machines, merged and plain weights), %d switches shown as written, failed: %v\n", loads, len(cases), switches, t.Failed())
	}()
	for _, tc := range cases {
		m, o, hosts, namesArg := writerCase(t, tc.spec, tc.curve)
		n := m.N()
		var topoConf bytes.Buffer
		if _, err := WriteTopology(&topoConf, m, o, hosts); err != nil {
			t.Fatal(err)
		}
		if g, ok := m.(*topo.Graph); ok && strings.HasPrefix(tc.spec, "dragonfly:") {
			checkGroupSwitches(t, tc.spec, g, topoConf.Bytes()) // one dragonfly group a group switch
		}
		work := t.TempDir()
		topoPath, extra := filepath.Join(work, "topology.conf"), filepath.Join(work, "extra.conf")
		os.WriteFile(topoPath, topoConf.Bytes(), 0o644)
		os.WriteFile(extra, []byte("TopologyParam=SwitchAsNodeRank\n"), 0o644)
		confPath := c.script1("conf", "--nodes", strconv.Itoa(n), "--names", namesArg, "--dir", c.dir, "--port-base", port,
			"--topology", topoPath, "--conf-extra", extra)
		base, err := os.ReadFile(confPath)
		if err != nil {
			t.Fatal(err)
		}
		// debug3: the topology plugin's messages too.
		base = bytes.Replace(base, []byte("SlurmctldDebug=info\n"), []byte("SlurmctldDebug=debug3\n"), 1)
		merged, warnings, err := MergeWeights(context.Background(), base, o, hosts)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("%s: MergeWeights: %v %v", tc.spec, err, warnings)
		}
		var plain bytes.Buffer
		if err := curves.WriteRanking(&plain, FormatWeight, o, curves.RankingMeta{}, hosts); err != nil {
			t.Fatal(err)
		}
		// A new slurm.conf of the plain lines: the cluster's lines but its NodeName
		// lines, a DEFAULT line, procalloc's lines each with the node's Port.
		var fresh strings.Builder
		p, _ := strconv.Atoi(port)
		for _, l := range strings.SplitAfter(string(base), "\n") {
			if strings.HasPrefix(l, "NodeName=") {
				continue
			}
			if strings.HasPrefix(l, "PartitionName=") {
				fresh.WriteString("NodeName=DEFAULT CPUs=1 RealMemory=100 State=UNKNOWN\n")
				for _, wl := range strings.Split(strings.TrimSpace(plain.String()), "\n") {
					if strings.HasPrefix(wl, "#") {
						fresh.WriteString(wl + "\n")
						continue
					}
					h := strings.TrimPrefix(strings.Fields(wl)[0], "NodeName=")
					fmt.Fprintf(&fresh, "%s NodeHostname=localhost NodeAddr=127.0.0.1 Port=%d\n", wl, p+1+slices.Index(hosts, h))
				}
			}
			fresh.WriteString(l)
		}
		for _, variant := range []struct {
			name string
			conf []byte
		}{{"merged", merged}, {"plain", []byte(fresh.String())}} {
			path := filepath.Join(work, variant.name+".conf")
			os.WriteFile(path, variant.conf, 0o644)
			_, from := ctldComplaints(t, c.dir, 0)
			if !started {
				c.t.Cleanup(func() { exec.Command("bash", c.script, "stop", "--dir", c.dir).Run() })
				c.script1("start", "--dir", c.dir, "--conf", path)
				started = true
			} else {
				c.script1("restart", "--dir", c.dir, "--conf", path)
			}
			if bad, _ := ctldComplaints(t, c.dir, from); len(bad) > 0 {
				t.Errorf("%s, %s weights: slurmctld's log:\n%s", tc.spec, variant.name, strings.Join(bad, "\n"))
			}
			shown := c.run("scontrol", "-o", "show", "node")
			ranks := o.Ranks()
			for v, h := range hosts {
				if want := fmt.Sprintf("NodeName=%s .*Weight=%d ", h, ranks[v]+1); !regexp.MustCompile(want).MatchString(shown) {
					t.Fatalf("%s, %s weights: scontrol show node has no %q", tc.spec, variant.name, want)
				}
			}
			written := switchLines(t, topoConf.String(), false)
			got := switchLines(t, c.run("scontrol", "show", "topology"), false)
			if len(got) != len(written) {
				t.Fatalf("%s: scontrol show topology has %d switches, %d written", tc.spec, len(got), len(written))
			}
			for name, w := range written {
				g, ok := got[name]
				if !ok || !slices.Equal(g.nodes, w.nodes) || !slices.Equal(g.switches, w.switches) {
					t.Fatalf("%s: switch %s written with nodes %v switches %v, scontrol shows %v (%v)", tc.spec, name, w.nodes, w.switches, g, ok)
				}
			}
			loads++
			if variant.name == "merged" {
				switches += len(written)
				t.Logf("%s along %s: %d switches loaded as written, %d weights, no error in slurmctld's log", tc.spec, tc.curve, len(written), n)
			}
		}
	}
}

// The same on the Slurm built from source (scripts/slurm-build.sh, 26.05): the
// slurm-topology file with TopologyParam=SwitchAsNodeRank (which 26.05 reads), the
// slurm-block file (--block-size 4 for the grids, a leaf's hosts for the networks) with
// topology/block, and the slurm-torus3d topology.yaml of the tori that have one
// (torus:4x2x2 and torus:8x4, every default placement) load without an error or
// warning in slurmctld's log, and scontrol show topology lists the switches, the
// base blocks and the torus as written.
func TestWrittenFilesLoadOnSlurmNew(t *testing.T) {
	c := newSlurmCluster(t, "writers-new")
	pb, err := ports.Base(33) // the largest machine's 32 nodes and slurmctld
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(pb)
	type file struct {
		kind, name string
		data       []byte
		extra      string
	}
	cases := []struct {
		spec, curve string
		block       int
	}{
		{"mesh:4x4", "hilbert", 4},
		{"torus:8x4", "gilbert", 4},
		{"torus:4x2x2", "snake", 4},
		{"fattree:4,2:4", "rcm", 4},
		{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=2", "rcm", 2},
		{"dragonfly:hosts_per_router=2,routers_per_group=2,intergroup_links=1,num_groups=4", "rcm", 2},
	}
	// What the build logs whatever the files: no HTTP parser library (slurmctld's
	// HTTP listener is off), a loaded machine's clock check; and at debug level the
	// data parser's note on every untagged integer and boolean of a topology.yaml
	// ("Expected OpenAPI type=integer ... but got OpenAPI type=string"): Slurm's
	// YAML reader keeps an untagged scalar a string (serializer_yaml.c,
	// _on_parse_scalar) and the parser converts it, as the Dims checked below show.
	allowed := []*regexp.Regexp{
		regexp.MustCompile(`cannot create http_parser context|Listening for HTTP requests disabled|High latency for 1000 calls to gettimeofday`),
		regexp.MustCompile(`(debug: .*parser=data_parser/\S+ WARNING: |debug2: _parse_check_openapi->.*->on_warn type=DATA_PARSER_\w+ why=)Expected OpenAPI type=(integer format=int32|boolean) \([^)]*\) but got OpenAPI type=string \(Slurm type=string\): "(\d+|true)"$`),
	}
	started, loads := false, 0
	defer func() {
		fmt.Printf("slurm files (Slurm 26.05): %d topology files loaded as written, failed: %v\n", loads, t.Failed())
	}()
	for _, tc := range cases {
		m, o, hosts, namesArg := writerCase(t, tc.spec, tc.curve)
		n := m.N()
		var files []file
		var tree, block bytes.Buffer
		if _, err := WriteTopology(&tree, m, o, hosts); err != nil {
			t.Fatal(err)
		}
		if g, ok := m.(*topo.Graph); ok && strings.HasPrefix(tc.spec, "dragonfly:") {
			checkGroupSwitches(t, tc.spec, g, tree.Bytes())
		}
		files = append(files, file{"tree", "topology.conf", tree.Bytes(), "TopologyParam=SwitchAsNodeRank\n"})
		if err := WriteBlock(&block, o, hosts, tc.block); err != nil {
			t.Fatal(err)
		}
		files = append(files, file{"block", "topology.conf", block.Bytes(), ""})
		if g, ok := m.(*topo.Grid); ok && strings.HasPrefix(tc.spec, "torus") {
			var y bytes.Buffer
			if err := WriteTorus3D(&y, g, hosts, nil); err != nil {
				t.Fatal(err)
			}
			files = append(files, file{"torus3d", "topology.yaml", y.Bytes(), ""})
		}
		for _, f := range files {
			work := t.TempDir()
			path, extra := filepath.Join(work, f.name), filepath.Join(work, "extra.conf")
			os.WriteFile(path, f.data, 0o644)
			os.WriteFile(extra, []byte(f.extra), 0o644)
			confPath := c.script1("conf", "--nodes", strconv.Itoa(n), "--names", namesArg, "--dir", c.dir, "--port-base", port,
				"--topology", path, "--conf-extra", extra)
			conf, _ := os.ReadFile(confPath)
			conf = bytes.Replace(conf, []byte("SlurmctldDebug=info\n"), []byte("SlurmctldDebug=debug3\n"), 1)
			os.WriteFile(filepath.Join(work, "slurm.conf"), conf, 0o644)
			_, from := ctldComplaints(t, c.dir, 0)
			if !started {
				c.t.Cleanup(func() { exec.Command("bash", c.script, "stop", "--dir", c.dir).Run() })
				c.script1("start", "--dir", c.dir, "--conf", filepath.Join(work, "slurm.conf")) // PATH has the build first
				started = true
			} else {
				c.script1("restart", "--dir", c.dir, "--conf", filepath.Join(work, "slurm.conf"))
			}
			if bad, _ := ctldComplaints(t, c.dir, from, allowed...); len(bad) > 0 {
				t.Errorf("%s, %s: slurmctld's log:\n%s", tc.spec, f.kind, strings.Join(bad, "\n"))
			}
			shown := c.run("scontrol", "show", "topology")
			switch f.kind {
			case "tree":
				written := switchLines(t, string(f.data), false)
				var lines []string
				for _, l := range strings.Split(shown, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "SwitchName=") {
						lines = append(lines, l)
					}
				}
				got := switchLines(t, strings.Join(lines, "\n"), false)
				for name, w := range written {
					if g, ok := got[name]; !ok || !slices.Equal(g.nodes, w.nodes) || !slices.Equal(g.switches, w.switches) {
						t.Errorf("%s tree on 26.05: switch %s written %v, shown %v\n%s", tc.spec, name, w, g, shown)
					}
				}
			case "block":
				want := map[string]string{}
				for _, l := range strings.Split(string(f.data), "\n") {
					if strings.HasPrefix(l, "BlockName=") {
						fs := strings.Fields(l)
						nodes, _ := hostlist.Expand(strings.TrimPrefix(fs[1], "Nodes="))
						slices.SortFunc(nodes, hostlist.NaturalCompare)
						want[strings.TrimPrefix(fs[0], "BlockName=")] = strings.Join(nodes, ",")
					}
				}
				for _, l := range strings.Split(shown, "\n") {
					fs := strings.Fields(l)
					if len(fs) == 0 || !strings.HasPrefix(fs[0], "BlockName=") {
						continue
					}
					name := strings.TrimPrefix(fs[0], "BlockName=")
					for _, kv := range fs {
						if v, ok := strings.CutPrefix(kv, "Nodes="); ok {
							nodes, _ := hostlist.Expand(v)
							slices.SortFunc(nodes, hostlist.NaturalCompare)
							if w, isBase := want[name]; isBase {
								if w != strings.Join(nodes, ",") {
									t.Errorf("%s block %s: written %s, shown %v", tc.spec, name, w, nodes)
								}
								delete(want, name)
							}
						}
					}
				}
				if len(want) > 0 {
					t.Errorf("%s: blocks %v written, not shown:\n%s", tc.spec, want, shown)
				}
			case "torus3d":
				g := m.(*topo.Grid)
				d, _ := TorusDims(g)
				if want := fmt.Sprintf("TorusName=torus Dims=%dx%dx%d ", d[0], d[1], d[2]); !strings.Contains(shown, want) {
					t.Errorf("%s torus3d: scontrol show topology:\n%s", tc.spec, shown)
				}
			}
			loads++
			t.Logf("%s along %s, %s: loaded; %s", tc.spec, tc.curve, f.kind, firstWords(shown))
		}
	}
}

func firstWords(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 100 {
		l = l[:100] + "..."
	}
	return l
}

// writerCase is a machine of the writers' tests, its ordering by the named curve,
// its host names (the machine's own, else node01..), and those names as the cluster
// script's --names argument.
func writerCase(t *testing.T, spec, curve string) (topo.Machine, curves.Order, []string, string) {
	t.Helper()
	m, err := topo.ParseMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	o, err := curves.Generate(curve, m)
	if err != nil {
		t.Fatal(err)
	}
	hosts := curves.NodeNames(m)
	namesArg := fmt.Sprintf("node[01-%02d]", m.N())
	if hosts == nil {
		hosts, _ = hostlist.Expand(namesArg)
	} else {
		namesArg = strings.Join(hosts, ",")
	}
	return m, o, hosts, namesArg
}
