//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/procalloc/procalloc/curves"
)

// The tests of this file run the real MPI launchers (make test-mpi): Open MPI's mpirun
// and MPICH's hydra mpiexec read procalloc's hosts files and rankfiles and start one
// process per rank, and each process says its rank and host. The hosts are names
// only: the launchers' ssh is a stand-in script (fakeSSH) that runs the command on
// this machine and tells it the host it was asked for, so the placements are the
// launchers' own (their parsers, mappers and ssh calls), without remote machines.

// openMPIRun returns Open MPI's mpirun, or skips the test saying how to get it.
func openMPIRun(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts Open MPI's mpirun")
	}
	if p, err := exec.LookPath("mpirun.openmpi"); err == nil {
		return p
	}
	if p, err := exec.LookPath("mpirun"); err == nil {
		if out, _ := exec.Command(p, "--version").CombinedOutput(); bytes.Contains(out, []byte("Open MPI")) {
			return p
		}
	}
	t.Skip("no Open MPI mpirun on PATH: install Debian's openmpi-bin (make test-mpi does) to check procalloc's files against it")
	return ""
}

// hydraRun returns MPICH's hydra mpiexec, or skips the test saying how to get it.
func hydraRun(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts MPICH's mpiexec")
	}
	for _, name := range []string{"mpiexec.hydra", "mpiexec.mpich"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no MPICH mpiexec.hydra on PATH: install Debian's mpich (make test-mpi does) to check procalloc's files against it")
	return ""
}

// fakeSSH writes the launchers' ssh stand-in into dir: "ssh [-opts] HOST COMMAND"
// runs COMMAND here with PROCALLOC_FAKE_HOST=HOST and a TMPDIR of HOST's own (Open
// MPI's daemons of one machine would share, and remove, one session directory).
func fakeSSH(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fake-ssh")
	script := `#!/bin/sh
while [ $# -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done
PROCALLOC_FAKE_HOST=$1; export PROCALLOC_FAKE_HOST
TMPDIR='` + dir + `'/hosts/$1; mkdir -p "$TMPDIR"; export TMPDIR
shift
exec sh -c "$*"
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// launchedHere is what a process started on the launching machine itself (not
// through ssh) reports as its host.
const launchedHere = "(launching-host)"

// The launchers' time limits: a job of up to 20 fake hosts took up to 25 s on 2 cores
// at load average 16; a probe of one host name takes about 1 s, or hangs.
const (
	jobTimeout   = 3 * time.Minute
	probeTimeout = 30 * time.Second
)

// Each process prints "procalloc-rank RANK HOST CPUS", CPUS the CPUs it may run on
// (Linux's Cpus_allowed_list; "-" where /proc has no such line).
var rankLineRE = regexp.MustCompile(`(?m)^procalloc-rank (\d+) (\S+) (\S+)$`)

// launch runs the launcher command argv on a program that prints its rank and host,
// and returns the host of each rank (nil and the output when the launcher fails, or
// runs past timeout, or a rank is missing or repeated). Open MPI 4.1.4's mpirun
// reports some refused host names and then waits for ever (node_01 in a hostfile):
// past the timeout the launcher's whole process group is killed.
func launch(t *testing.T, dir string, timeout time.Duration, argv ...string) (hosts []string, output string) {
	t.Helper()
	ranks, output := launchRanks(t, dir, timeout, argv...)
	if ranks == nil {
		return nil, output
	}
	hosts = make([]string, len(ranks))
	for r, p := range ranks {
		hosts[r] = p.host
	}
	return hosts, output
}

// launchedRank is where a launched process ran: its host and the CPUs it was allowed.
type launchedRank struct{ host, cpus string }

// launchRanks is launch, with each rank's allowed CPUs too.
func launchRanks(t *testing.T, dir string, timeout time.Duration, argv ...string) (ranks []launchedRank, output string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	prog := `echo "procalloc-rank ${OMPI_COMM_WORLD_RANK:-$PMI_RANK} ${PROCALLOC_FAKE_HOST:-` + launchedHere +
		`} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null | grep . || echo -)"`
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], "sh", "-c", prog)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	tmp := filepath.Join(dir, "launcher")
	os.MkdirAll(tmp, 0o755)
	// PMIX_MCA_gds=hash: the processes of all fake hosts share one machine, and PMIx's
	// shared-memory store complains of it.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PMIX_MCA_gds=hash")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	output = fmt.Sprintf("%s\nstdout:\n%s\nstderr:\n%.3000s", strings.Join(argv, " "), out.String(), errb.String())
	if err != nil {
		return nil, output + "\n" + err.Error()
	}
	got := map[int]launchedRank{}
	for _, m := range rankLineRE.FindAllStringSubmatch(out.String(), -1) {
		r, _ := strconv.Atoi(m[1])
		if _, dup := got[r]; dup {
			return nil, output
		}
		got[r] = launchedRank{m[2], m[3]}
	}
	ranks = make([]launchedRank, len(got))
	for r, p := range got {
		if r >= len(ranks) {
			return nil, output
		}
		ranks[r] = p
	}
	return ranks, output
}

func openMPIArgs(mpirun, ssh string, np int, extra ...string) []string {
	// No tree spawn: every daemon is started by mpirun through the stand-in.
	return append([]string{mpirun, "--allow-run-as-root", "--mca", "plm_rsh_agent", ssh,
		"--mca", "plm_rsh_no_tree_spawn", "1", "-np", strconv.Itoa(np)}, extra...)
}

func hydraArgs(mpiexec, ssh string, np int, extra ...string) []string {
	return append([]string{mpiexec, "-launcher", "ssh", "-launcher-exec", ssh, "-n", strconv.Itoa(np)}, extra...)
}

// curveFile runs procalloc curve with args and --format f into dir/name.
func curveFile(t *testing.T, dir, name, f string, args ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	a := append([]string{"curve"}, args...)
	if code, _, stderr := runCLI(t, "", append(a, "--format", f, "-o", p)...); code != 0 {
		t.Fatalf("procalloc %s --format %s: exit %d: %s", strings.Join(a, " "), f, code, stderr)
	}
	return p
}

func fileFields(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// expectedHosts is the host of each rank along procalloc's ordering: the ordering
// (--format order, node indices) and the nodes' names (the node-index order,
// rowmajor), read apart from the hosts file and rankfile the launchers get.
func expectedHosts(t *testing.T, dir string, machine []string, curve string) []string {
	t.Helper()
	names := fileFields(t, curveFile(t, dir, "names", "hosts", append(machine, "--curve", "rowmajor")...))
	var unnamed []string // --format order takes no host names
	for i := 0; i < len(machine); i++ {
		if machine[i] == "--hostlist" || machine[i] == "--hosts" {
			i++
			continue
		}
		unnamed = append(unnamed, machine[i])
	}
	var want []string
	for _, s := range fileFields(t, curveFile(t, dir, "order", "order", append(unnamed, "--curve", curve)...)) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v >= len(names) {
			t.Fatalf("order file: %q", s)
		}
		want = append(want, names[v])
	}
	return want
}

// checkPlacement compares the launcher's placement with want, rank by rank.
func checkPlacement(t *testing.T, what string, got []string, output string, want []string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: the launcher failed or lost ranks:\n%s", what, output)
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d ranks started, want %d:\n%s", what, len(got), len(want), output)
		return
	}
	differ := 0
	for r := range want {
		if got[r] != want[r] {
			if differ < 5 {
				t.Errorf("%s: rank %d on %s, procalloc's order says %s", what, r, got[r], want[r])
			}
			differ++
		}
	}
	if differ == 0 {
		t.Logf("%s: %d ranks on the hosts expected", what, len(want))
	}
}

// padded16 is an edge-list network of 16 hosts with zero-padded names (node001 ...
// node016) under 4 leaf switches and a spine.
func padded16(t *testing.T, dir string) string {
	var b strings.Builder
	b.WriteString("%switch spine\n")
	for l := range 4 {
		fmt.Fprintf(&b, "%%switch leaf%d\nleaf%d spine\n", l, l)
		for h := range 4 {
			fmt.Fprintf(&b, "node%03d leaf%d\n", 4*l+h+1, l)
		}
	}
	p := filepath.Join(dir, "padded.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMPILaunchersPlaceRanksAlongTheOrder: for a mesh with a hostlist, the
// ibnetdiscover fat tree, a dragonfly and an edge list of zero-padded names, Open
// MPI's mpirun with procalloc's rankfile and with its hosts file (--map-by seq), and
// MPICH's mpiexec with the hosts file (-f), put rank r on the host of rank r of
// procalloc's ordering, for jobs of every host and of fewer ranks than hosts.
func TestMPILaunchersPlaceRanksAlongTheOrder(t *testing.T) {
	mpirun, mpiexec := openMPIRun(t), hydraRun(t)
	for _, c := range []struct {
		name    string
		machine func(t *testing.T, dir string) []string
		curve   string
	}{
		{"mesh", func(*testing.T, string) []string { return []string{"--machine", "mesh:4x4", "--hostlist", "cn[01-16]"} }, "hilbert"},
		{"fattree", func(*testing.T, string) []string {
			return []string{"--graph", filepath.Join("..", "..", "topo", "testdata", "fattree.ibnetdiscover")}
		}, "bfs"},
		{"dragonfly", func(*testing.T, string) []string {
			return []string{"--machine", "dragonfly:hosts_per_router=1,routers_per_group=4,intergroup_links=1,num_groups=5"}
		}, "spectral"},
		{"padded", func(t *testing.T, dir string) []string { return []string{"--graph", padded16(t, dir)} }, "rcm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ssh := fakeSSH(t, dir)
			machine := c.machine(t, dir)
			want := expectedHosts(t, dir, machine, c.curve)
			args := append(machine, "--curve", c.curve)
			hostsFile := curveFile(t, dir, "job.hosts", "hostfile", args...)
			rankfile := curveFile(t, dir, "job.rankfile", "rankfile", args...)
			n := len(want)
			for _, np := range []int{n, n/2 + 1} {
				got, out := launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, np, "--hostfile", hostsFile, "--map-by", "seq")...)
				checkPlacement(t, fmt.Sprintf("mpirun --hostfile --map-by seq -np %d", np), got, out, want[:np])
				got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, np, "--rankfile", rankfile)...)
				checkPlacement(t, fmt.Sprintf("mpirun --rankfile -np %d", np), got, out, want[:np])
				got, out = launch(t, dir, jobTimeout, hydraArgs(mpiexec, ssh, np, "-f", hostsFile)...)
				checkPlacement(t, fmt.Sprintf("mpiexec -f -n %d", np), got, out, want[:np])
			}
		})
	}
}

// TestMPILaunchersSeveralRanksPerHost: K ranks on each host in the hosts file's order
// with MPICH's -ppn K and Open MPI's --map-by ppr:K:node, and with procalloc's files of
// --ranks-per-host K (hosts file and rankfile); and the trap docs/curves.md
// warns of: Open MPI's by-node mappers take the launching host first wherever the
// file lists it, while --map-by seq keeps the file's order.
func TestMPILaunchersSeveralRanksPerHost(t *testing.T) {
	mpirun, mpiexec := openMPIRun(t), hydraRun(t)
	dir := t.TempDir()
	ssh := fakeSSH(t, dir)
	machine := []string{"--machine", "mesh:4x2", "--hostlist", "cn[1-8]"}
	want := expectedHosts(t, dir, machine, "snake")
	hostsFile := curveFile(t, dir, "job.hosts", "hosts", append(machine, "--curve", "snake")...)
	var want2 []string
	for _, h := range want {
		want2 = append(want2, h, h)
	}
	got, out := launch(t, dir, jobTimeout, hydraArgs(mpiexec, ssh, 2*len(want), "-f", hostsFile, "-ppn", "2")...)
	checkPlacement(t, "mpiexec -f -ppn 2", got, out, want2)
	got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, 2*len(want), "--hostfile", hostsFile, "--map-by", "ppr:2:node")...)
	checkPlacement(t, "mpirun --hostfile --map-by ppr:2:node", got, out, want2)

	// procalloc's files of 3 ranks a host (--ranks-per-host 3), whole and a job of
	// fewer ranks (the first 2 hosts and one rank of the third).
	var want3 []string
	for _, h := range want {
		want3 = append(want3, h, h, h)
	}
	args3 := append(machine, "--curve", "snake", "--ranks-per-host", "3")
	hosts3 := curveFile(t, dir, "job3.hosts", "hosts", args3...)
	rankfile3 := curveFile(t, dir, "job3.rankfile", "rankfile", args3...)
	for _, np := range []int{len(want3), 7} {
		got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, np, "--hostfile", hosts3, "--map-by", "seq")...)
		checkPlacement(t, fmt.Sprintf("mpirun --hostfile (--ranks-per-host 3) --map-by seq -np %d", np), got, out, want3[:np])
		got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, np, "--rankfile", rankfile3)...)
		checkPlacement(t, fmt.Sprintf("mpirun --rankfile (--ranks-per-host 3) -np %d", np), got, out, want3[:np])
		got, out = launch(t, dir, jobTimeout, hydraArgs(mpiexec, ssh, np, "-f", hosts3)...)
		checkPlacement(t, fmt.Sprintf("mpiexec -f (--ranks-per-host 3) -n %d", np), got, out, want3[:np])
	}

	// This machine's own name third in the file.
	here, err := os.Hostname()
	if err != nil {
		t.Skip("no host name:", err)
	}
	withHere := []string{want[0], want[1], here, want[2]}
	f := filepath.Join(dir, "here.hosts")
	os.WriteFile(f, []byte(strings.Join(withHere, "\n")+"\n"), 0o644)
	seq := []string{want[0], want[1], launchedHere, want[2]}
	got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, 4, "--hostfile", f, "--map-by", "seq")...)
	checkPlacement(t, "mpirun --map-by seq, launching host third", got, out, seq)
	got, out = launch(t, dir, jobTimeout, hydraArgs(mpiexec, ssh, 4, "-f", f)...)
	checkPlacement(t, "mpiexec -f, launching host third", got, out, seq)
	got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, 4, "--hostfile", f, "--map-by", "ppr:1:node")...)
	checkPlacement(t, "mpirun --map-by ppr:1:node, launching host third (taken first)", got, out,
		[]string{launchedHere, want[0], want[1], want[2]})
}

// TestOpenMPIHostNamesAsLaunched: for host names of every kind, Open MPI's mpirun
// places a rank on a host of that very name (rankfile, and hostfile with --map-by
// seq) exactly when curves.OpenMPIHostProblem finds nothing wrong with it; it
// shortens names to their first label unless --mca orte_keep_fqdn_hostnames 1, as
// curves.LauncherWarnings says; MPICH's mpiexec -f takes every name but HOST:N as
// written (a name that starts with '-' goes to ssh as an option: not tried).
func TestOpenMPIHostNamesAsLaunched(t *testing.T) {
	mpirun, mpiexec := openMPIRun(t), hydraRun(t)
	dir := t.TempDir()
	ssh := fakeSSH(t, dir)
	// n@x is left out: the launchers pass user@host to ssh, which the stand-in
	// cannot tell from a host name (curves' table has what mpirun did with it).
	names := []string{"node-01", "Node01", "9node", "10.1.2.3", "7", "1e5", "count", "cpu", "sockets",
		"max-slots", "1.2.3", "12.34", "node_01", "0007", "x:1", "a+b", "+n0", "h~1", "h=1", "h/1",
		"é1", "-n1", ".n1", "rank", "slot", "slots", "username"}
	for _, h := range names {
		rf := filepath.Join(dir, "one.rankfile")
		os.WriteFile(rf, []byte("rank 0=first slot=0\nrank 1="+h+" slot=0\n"), 0o644)
		hf := filepath.Join(dir, "one.hosts")
		os.WriteFile(hf, []byte("first\n"+h+"\n"), 0o644)
		for _, rankfile := range []bool{true, false} {
			file := []string{"--hostfile", hf, "--map-by", "seq"}
			if rankfile {
				file = []string{"--rankfile", rf}
			}
			got, out := launch(t, dir, probeTimeout, openMPIArgs(mpirun, ssh, 2, file...)...)
			took := len(got) == 2 && got[1] == h
			if p := curves.OpenMPIHostProblem(h, rankfile); (p == "") != took {
				t.Errorf("host %q (%s): mpirun took it as written: %v; OpenMPIHostProblem: %q\n%s", h, file[0], took, p, out)
			}
		}
		if strings.HasPrefix(h, "-") {
			continue // hydra hands it to ssh, which takes it for an option (the stand-in too)
		}
		got, out := launch(t, dir, probeTimeout, hydraArgs(mpiexec, ssh, 2, "-f", hf)...)
		if took, colon := len(got) == 2 && got[1] == h, strings.Contains(h, ":"); took == colon {
			t.Errorf("host %q: mpiexec -f took it as written: %v\n%s", h, took, out)
		}
	}

	// Two hosts of one first label.
	hf := filepath.Join(dir, "fqdn.hosts")
	os.WriteFile(hf, []byte("n1.rack1.example\nn1.rack2.example\n"), 0o644)
	if w := curves.LauncherWarnings(curves.FormatHosts, []string{"n1.rack1.example", "n1.rack2.example"}); len(w) != 1 || !strings.Contains(w[0], "orte_keep_fqdn_hostnames") {
		t.Errorf("LauncherWarnings: %q", w)
	}
	got, out := launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, 2, "--hostfile", hf, "--map-by", "seq")...)
	checkPlacement(t, "mpirun, two hosts of one first label", got, out, []string{"n1", "n1"})
	got, out = launch(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, 2, "--hostfile", hf, "--map-by", "seq", "--mca", "orte_keep_fqdn_hostnames", "1")...)
	checkPlacement(t, "mpirun --mca orte_keep_fqdn_hostnames 1", got, out, []string{"n1.rack1.example", "n1.rack2.example"})
}

// cpuList reads a Linux CPU list ("0-3,8"); nil for anything else.
func cpuList(s string) map[int]bool {
	set := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			return nil
		}
		for c := a; c <= b; c++ {
			set[c] = true
		}
	}
	return set
}

// checkUnpinned says whether every rank of got ran on its expected host and may run on
// every CPU an unbound rank may (free).
func checkUnpinned(t *testing.T, what string, got []launchedRank, output string, want []string, free map[int]bool) {
	t.Helper()
	if got == nil || len(got) != len(want) {
		t.Errorf("%s: the launcher failed or lost ranks:\n%s", what, output)
		return
	}
	hosts := make([]string, len(got))
	pinned := 0
	for r, p := range got {
		hosts[r] = p.host
		cpus := cpuList(p.cpus)
		for c := range free {
			if !cpus[c] {
				t.Errorf("%s: rank %d may run on CPUs %s only, an unbound rank on %d of them", what, r, p.cpus, len(free))
				pinned++
				break
			}
		}
	}
	if pinned == 0 {
		checkPlacement(t, what, hosts, output, want) // logs "ranks on the hosts expected"
	}
}

// TestOpenMPIRankfileDoesNotPinRanks: each rank of procalloc's rankfile may run on
// every CPU of its host, as an unbound rank may (a hybrid MPI+OpenMP rank's threads
// are not all on one core), also on a host of two sockets (a synthetic hwloc topology
// of this machine's CPUs, mpirun --mca hwloc_base_topo_file); and the check can fail:
// the "slot=0" procalloc wrote before pins each rank to one CPU, and "slot=0:*" to
// the first socket.
func TestOpenMPIRankfileDoesNotPinRanks(t *testing.T) {
	mpirun := openMPIRun(t)
	dir := t.TempDir()
	ssh := fakeSSH(t, dir)
	machine := []string{"--machine", "mesh:2x2", "--hostlist", "cn[1-4]"}
	want := expectedHosts(t, dir, machine, "snake")
	hostsFile := curveFile(t, dir, "job.hosts", "hosts", append(machine, "--curve", "snake")...)
	rankfile := curveFile(t, dir, "job.rankfile", "rankfile", append(machine, "--curve", "snake")...)
	n := len(want)

	unbound, out := launchRanks(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, n, "--hostfile", hostsFile, "--map-by", "seq", "--bind-to", "none")...)
	if unbound == nil {
		t.Fatalf("mpirun --bind-to none failed:\n%s", out)
	}
	free := cpuList(unbound[0].cpus)
	if len(free) < 2 {
		t.Skipf("an unbound rank may run on CPUs %q: one CPU, so a pinned rank cannot be told from a free one", unbound[0].cpus)
	}
	got, out := launchRanks(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, n, "--rankfile", rankfile)...)
	checkUnpinned(t, "mpirun --rankfile (procalloc's)", got, out, want, free)

	pinned := filepath.Join(dir, "pinned.rankfile")
	b, err := os.ReadFile(rankfile)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pinned, []byte(strings.ReplaceAll(string(b), "slot="+curves.RankfileWholeHost, "slot=0")), 0o644)
	got, out = launchRanks(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, n, "--rankfile", pinned, "--bind-to", "none")...)
	if got == nil || len(cpuList(got[0].cpus)) != 1 {
		t.Errorf("mpirun --bind-to none with slot=0: rank 0 not pinned to one CPU, unlike Open MPI 4.1.4:\n%s", out)
	}

	// Two sockets of this machine's CPUs, numbered 0..len(free)-1.
	lstopo, err := exec.LookPath("lstopo-no-graphics")
	contiguous := len(free)%2 == 0
	for c := range len(free) {
		contiguous = contiguous && free[c]
	}
	if err != nil || !contiguous {
		t.Logf("two-socket check skipped: lstopo-no-graphics (Debian's hwloc-nox): %v; unbound CPUs %s (want an even count from 0)", err, unbound[0].cpus)
		return
	}
	topo := filepath.Join(dir, "two-sockets.xml")
	if b, err := exec.Command(lstopo, "-i", fmt.Sprintf("pack:2 core:%d pu:1", len(free)/2), "--of", "xml", topo).CombinedOutput(); err != nil {
		t.Fatalf("lstopo: %v: %s", err, b)
	}
	twoSockets := []string{"--mca", "hwloc_base_topo_file", topo}
	got, out = launchRanks(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, n, append([]string{"--rankfile", rankfile}, twoSockets...)...)...)
	checkUnpinned(t, "mpirun --rankfile (procalloc's), two sockets", got, out, want, free)
	os.WriteFile(pinned, []byte(strings.ReplaceAll(string(b), "slot="+curves.RankfileWholeHost, "slot=0:*")), 0o644)
	got, out = launchRanks(t, dir, jobTimeout, openMPIArgs(mpirun, ssh, n, append([]string{"--rankfile", pinned}, twoSockets...)...)...)
	if got == nil || len(cpuList(got[0].cpus)) != len(free)/2 {
		t.Errorf("mpirun with slot=0:* on two sockets: rank 0 not on one socket's %d CPUs, unlike Open MPI 4.1.4:\n%s", len(free)/2, out)
	}
}
