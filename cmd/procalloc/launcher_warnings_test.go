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
