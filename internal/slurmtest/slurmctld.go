package slurmtest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo/hostlist"
)

// Ctld is an installed slurmctld with its scontrol.
type Ctld struct {
	// Name is "22.05" (Debian's, on PATH) or "new" (the one built from source);
	// Slurmctld and Scontrol are the paths of its two programs.
	Name, Slurmctld, Scontrol string
	V2311                     bool // 23.11 or later
}

// NeedCtlds returns the installed Slurms (Ctlds) for a test that starts
// slurmctld, and skips it, saying why, under -short, without root (SlurmUser=root
// here) or without any slurmctld; checked names what the test checks against
// Slurm when it is installed.
func NeedCtlds(t testing.TB, checked string) []Ctld {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts slurmctld")
	}
	if os.Getuid() != 0 {
		t.Skip("slurmctld runs as root here (SlurmUser=root)")
	}
	ctlds := Ctlds()
	if len(ctlds) == 0 {
		t.Skipf("no slurmctld (Debian: apt-get install slurm-wlm): %s checked against Slurm when it is installed", checked)
	}
	return ctlds
}

// Ctlds are the installed Slurms: Debian's 22.05 on PATH, and 26.05 in
// $PROCALLOC_SLURM_NEW (default /opt/slurm-new) when built.
func Ctlds() []Ctld {
	var slurms []Ctld
	if ctld, err := exec.LookPath("slurmctld"); err == nil {
		if sc, err := exec.LookPath("scontrol"); err == nil {
			slurms = append(slurms, Ctld{"22.05", ctld, sc, false})
		}
	}
	newDir := os.Getenv("PROCALLOC_SLURM_NEW")
	if newDir == "" {
		newDir = "/opt/slurm-new"
	}
	if _, err := os.Stat(filepath.Join(newDir, "sbin", "slurmctld")); err == nil {
		slurms = append(slurms, Ctld{"new", filepath.Join(newDir, "sbin", "slurmctld"), filepath.Join(newDir, "bin", "scontrol"), true})
	}
	return slurms
}

// StartSlurmctld starts ctld in the foreground on the slurm.conf at conf (-D -i,
// then args), until ctx ends or stop is called; sc reads its standard error, where
// it logs what it reads and its fatal line.
func StartSlurmctld(t testing.TB, ctx context.Context, ctld, conf string, args ...string) (sc *bufio.Scanner, stop func()) {
	t.Helper()
	cmd := exec.CommandContext(ctx, ctld, append(append([]string{"-D", "-i"}, args...), "-f", conf)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return bufio.NewScanner(stderr), func() {
		_ = cmd.Process.Kill() // the slurmctld this test started
		_ = cmd.Wait()
	}
}

// SlurmctldPartitions starts slurmctld on conf, written to dir/slurm.conf (its
// NodeName lines at NodeAddr=127.0.0.1 (LocalNodeAddr), with the settings a
// local slurmctld needs appended: ClusterName=t, ports, state directory,
// auth/none), and returns the partitions as `scontrol show partition` lists
// them ("NAME=HOSTLIST ...", each list sorted by name), or its fatal line. Files
// conf includes must be in place (relative names in dir).
func SlurmctldPartitions(t testing.TB, ctld, scontrol, dir, conf string) (parts, fatal string) {
	t.Helper()
	out, fatal := SlurmctldShow(t, ctld, scontrol, dir, conf, "partition")
	if fatal != "" {
		return "", fatal
	}
	var ps []string
	for _, l := range strings.Split(strings.TrimSpace(out[0]), "\n") {
		var name, nodes string
		for _, f := range strings.Fields(l) {
			if v, ok := strings.CutPrefix(f, "PartitionName="); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(f, "Nodes="); ok {
				nodes = v
			}
		}
		hs, err := hostlist.Expand(nodes)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		slices.SortFunc(hs, hostlist.NaturalCompare)
		h, _ := hostlist.Compress(hs)
		ps = append(ps, name+"="+h)
	}
	return strings.Join(ps, " "), ""
}

// SlurmctldShow starts slurmctld on conf as SlurmctldPartitions does and
// returns what `scontrol -o show ENTITY` prints for each entity of show
// ("partition", "topology", "node"), or slurmctld's fatal line.
func SlurmctldShow(t testing.TB, ctld, scontrol, dir, conf string, show ...string) (outs []string, fatal string) {
	t.Helper()
	path := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(path, []byte(LocalNodeAddr(conf)+LocalCtldSettings(t, dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sc, stop := StartSlurmctld(t, ctx, ctld, path)
	defer stop()
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "fatal:") {
			return nil, l
		}
		if strings.Contains(l, "Running as primary controller") {
			break
		}
	}
	for _, what := range show {
		var out []byte
		var err error
		for range 50 { // it answers once it listens
			c := exec.CommandContext(ctx, scontrol, "-o", "show", what)
			c.Env = append(os.Environ(), "SLURM_CONF="+path)
			if out, err = c.Output(); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("scontrol show %s: %v", what, err)
		}
		outs = append(outs, string(out))
	}
	return outs, ""
}

// LocalCtldSettings are the slurm.conf lines a slurmctld of a test needs to run
// alone on this machine: ClusterName=t, this host at 127.0.0.1, a free port (and
// the next for slurmd), state and pid file in dir, root, auth/none. They go after
// the site's lines (Slurm takes the last of a repeated key).
func LocalCtldSettings(t testing.TB, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	return fmt.Sprintf("ClusterName=t\nSlurmctldHost=%s(127.0.0.1)\nSlurmctldPort=%d\nSlurmdPort=%d\n"+
		"StateSaveLocation=%s\nSlurmctldPidFile=%s\nSlurmUser=root\nAuthType=auth/none\nCredType=cred/none\nMailProg=/bin/true\n",
		host, port, port+1, dir, filepath.Join(dir, "slurmctld.pid"))
}

// LocalNodeAddr puts every node of a slurm.conf's (or an included file's)
// NodeName lines at NodeAddr=127.0.0.1 (before a comment that ends the line):
// slurmctld resolves node addresses at startup.
func LocalNodeAddr(conf string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(conf, "\n") {
		if strings.HasPrefix(l, "NodeName=") && !strings.HasPrefix(l, "NodeName=DEFAULT") {
			body, comment, hasComment := strings.Cut(strings.TrimSuffix(l, "\n"), "#")
			l = strings.TrimRight(body, " ") + " NodeAddr=127.0.0.1"
			if hasComment {
				l += " #" + comment
			}
			l += "\n"
		}
		b.WriteString(l)
	}
	return b.String()
}
