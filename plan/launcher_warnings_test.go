package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// ordering.hosts is a hosts file that mpirun or mpiexec may read: the plan warns
// of what the MPI launchers would do to its names, with the message "curve
// --format hosts" prints for the same hosts (curves.LauncherWarnings); names they
// take get no warning. The plan warned of none.
func TestPlanWarnsOfLauncherHostNames(t *testing.T) {
	m, err := topo.ParseMachine("mesh:4x4")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		hosts string
		warns int
	}{
		{"node_[01-16]", 1}, // an underscore: Open MPI refuses it
		{"n1.r1,n1.r2,n2.r1,n2.r2,n3.r1,n3.r2,n4.r1,n4.r2,n5.r1,n5.r2,n6.r1,n6.r2,n7.r1,n7.r2,n8.r1,n8.r2", 1}, // Open MPI shortens each pair to one host
		{"cn[01-16]", 0},
	} {
		names, err := hostlist.Expand(c.hosts)
		if err != nil {
			t.Fatal(err)
		}
		conf := "NodeName=" + c.hosts + " CPUs=1\nPartitionName=p Nodes=ALL\n"
		p := &Plan{opt: Options{Machine: m, Hosts: names, MachineSource: "mesh:4x4", SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
			Version: V2311, VersionSource: "test", SyntheticJobs: 10}}
		if err := p.checkInputs(context.Background()); err != nil {
			t.Fatalf("%s: %v", c.hosts, err)
		}
		var got []string
		for _, w := range p.Report.Warnings {
			if strings.HasPrefix(w, "ordering.hosts: ") {
				got = append(got, strings.TrimPrefix(w, "ordering.hosts: "))
			}
		}
		want := curves.LauncherWarnings(curves.FormatHosts, names)
		if len(got) != c.warns || len(want) != c.warns || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: warnings %q, want the %d of curve --format hosts %q", c.hosts, got, c.warns, want)
		}
	}
}
