package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepOnRealSlurm runs scripts/slurm-local.sh: a single-node Slurm (Debian's
// slurm-wlm and munge) started for the test, the demo sweep submitted as an array of
// 4 tasks, merged, and compared with a single-process run. It skips, saying why, when
// Slurm is not installed or the test is not root: it does not install Slurm itself
// (apt-get needs the network and root, too slow and fragile for make test); running
// scripts/slurm-local.sh once as root installs the packages.
func TestSweepOnRealSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts Slurm daemons")
	}
	for _, c := range []string{"sbatch", "slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not on PATH: run scripts/slurm-local.sh once as root (it installs Debian's slurm-wlm, slurm-client and munge) to run this test", c)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("the Slurm daemons of this test run as root")
	}
	bin := filepath.Join(t.TempDir(), "procalloc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", "../../scripts/slurm-local.sh", bin, "../../examples/demo-sweep.yaml", "4")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("slurm-local.sh: %v", err)
	}
	if !strings.Contains(string(out), "OK: the merged 4 shards equal the single-process run") {
		t.Fatal("no OK line")
	}
}
