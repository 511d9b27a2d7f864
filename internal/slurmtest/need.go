package slurmtest

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

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
		dir, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				t.Skip("no go.mod above the test's directory: scripts/slurm-cluster.sh is not found")
			}
			dir = up
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
func NewPrefix() string { return cmp.Or(os.Getenv("PROCALLOC_SLURM_NEW"), "/opt/slurm-new") }

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
