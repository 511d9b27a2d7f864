package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A history's NodeList host the machine lacks is refused at its record by sim
// --alloc as-run and by plan given --hostlist (the job and line named; sim's
// --skip-bad skips it), not after the whole history is read.
func TestHostsCheckedAtRecord(t *testing.T) {
	dir := t.TempDir()
	write := writeTemp
	conf := write(t, "slurm.conf", "NodeName=n[1-16] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n")
	trace := write(t, "h.sacct", "JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n"+
		"1|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T10:01:00|4|COMPLETED|n[1-4]\n"+
		"2|2024-01-01T10:00:01|2024-01-01T10:00:10|2024-01-01T10:01:00|2|COMPLETED|n[16-17]\n"+
		"3|2024-01-01T10:00:10|2024-01-01T10:00:20|2024-01-01T10:01:00|2|COMPLETED|n[5-6]\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--alloc", "as-run", "--sched", "as-run", "--tz", "UTC"}, 1, trace + `: line 3: job 2: recorded node "n17" is not a host of mesh:4x4`},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--alloc", "as-run", "--sched", "as-run", "--tz", "UTC", "--skip-bad"}, 0, ""},
		{[]string{"plan", "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--trace", trace, "-o", filepath.Join(dir, "p")}, 1, `line 3: job 2: recorded node "n17" is not a host of the network mesh:4x4`},
		// A window: its records checked at their record, the others not.
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--alloc", "mc1x1", "--tz", "UTC", "--from", "0"}, 1, trace + `: line 3: job 2: recorded node "n17" is not a host of mesh:4x4`},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--alloc", "mc1x1", "--tz", "UTC", "--from", "0", "--skip-bad"}, 0, "(1 malformed lines skipped)"},
		{[]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--alloc", "mc1x1", "--tz", "UTC", "--from", "5"}, 0, ""},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}
