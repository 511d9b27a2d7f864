package main

import (
	"strings"
	"testing"
)

// TestCurveLauncherNames: a host name Open MPI's mpirun refuses is an error in a
// rankfile (exit 1, naming the host, nothing on stdout) and a warning in a hosts file,
// which Slurm and MPICH read as well; hosts of one first label are a warning in both
// (mpirun shortens them to one host). What mpirun does with such names:
// TestOpenMPIHostNamesAsLaunched (make test-mpi).
func TestCurveLauncherNames(t *testing.T) {
	base := []string{"curve", "--machine", "mesh:2x2", "--curve", "snake"}
	code, out, stderr := runCLI(t, "", append(base, "--format", "rankfile", "--hostlist", "n_[1-4]")...)
	if code != 1 || out != "" || !strings.Contains(stderr, `rankfile: host "n_1": Open MPI's mpirun takes host names of ASCII letters, digits, '.' and '-' only, not '_'`) {
		t.Errorf("rankfile of n_1..n_4: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", append(base, "--format", "hosts", "--hostlist", "n_[1-4]")...)
	if code != 0 || out != "n_1\nn_2\nn_4\nn_3\n" || !strings.Contains(stderr, `procalloc curve: warning: --format hosts: 4 host name(s) that Open MPI's mpirun --hostfile refuses`) {
		t.Errorf("hosts of n_1..n_4: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "", append(base, "--format", "rankfile", "--hostlist", "n1.a,n2.a,n1.b,n2.b")...)
	if code != 0 || !strings.Contains(out, "rank 0=n1.a slot=S*") || !strings.Contains(stderr, `shortens both to "n1"`) {
		t.Errorf("rankfile of n1.a, n2.a, n1.b, n2.b: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, _, stderr = runCLI(t, "", append(base, "--format", "rankfile", "--hostlist", "n[1-4]")...); code != 0 || stderr != "" {
		t.Errorf("rankfile of n1..n4: exit %d, stderr %q", code, stderr)
	}
}

// TestCurveRanksPerHost: --ranks-per-host K writes each host's line K times in curve
// order (hosts, hostfile, rankfile; the launchers read them in TestMPILaunchersSeveralRanksPerHost)
// and is a usage error with other formats, with K < 1 and with --list.
func TestCurveRanksPerHost(t *testing.T) {
	base := []string{"curve", "--machine", "mesh:2x2", "--curve", "snake", "--hostlist", "n[1-4]"}
	_, one, _ := runCLI(t, "", append(base, "--format", "hosts")...)
	for _, f := range []string{"hosts", "hostfile"} {
		code, out, stderr := runCLI(t, "", append(base, "--format", f, "--ranks-per-host", "2")...)
		var want strings.Builder
		for _, h := range strings.Fields(one) {
			want.WriteString(h + "\n" + h + "\n")
		}
		if code != 0 || out != want.String() || len(strings.Fields(one)) != 4 {
			t.Errorf("--format %s --ranks-per-host 2: exit %d, stdout %q (want %q), stderr %q", f, code, out, want.String(), stderr)
		}
	}
	if code, out, stderr := runCLI(t, "", append(base, "--format", "rankfile", "--ranks-per-host", "2")...); code != 0 ||
		!strings.HasPrefix(out, "rank 0=n1 slot=S*\nrank 1=n1 slot=S*\nrank 2=n2 slot=S*\n") || strings.Count(out, "\n") != 8 {
		t.Errorf("rankfile --ranks-per-host 2: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	for _, bad := range [][]string{
		{"--format", "pairs", "--ranks-per-host", "2"},
		{"--format", "hostlist", "--ranks-per-host", "2"},
		{"--format", "hosts", "--ranks-per-host", "0"},
		{"--list"},
	} {
		args := append(base, bad...)
		if bad[0] == "--list" {
			args = []string{"curve", "--list", "--ranks-per-host", "2"}
		}
		if code, _, stderr := runCLI(t, "", args...); code != 2 || !strings.Contains(stderr, "ranks-per-host") {
			t.Errorf("%q: exit %d, stderr %q", bad, code, stderr)
		}
	}
}
