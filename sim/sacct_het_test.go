package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/topo"
)

// TestHetJobStartsTogether: a heterogeneous job's components (JobID 2+0, 2+1) are
// replayed as one job, so that every scheduler starts them at one time, as Slurm
// does. On 4 nodes, job 1 holds 2 nodes for 100 s; het job 2 (1 + 2 nodes) arrives
// at 10 s. As two jobs, fcfs and easy started component 2+0 at once and 2+1 at
// 100 s; as one job of 3 nodes it starts at 100 s, whole.
func TestHetJobStartsTogether(t *testing.T) {
	in := "JobIDRaw|JobID|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|State|NodeList\n" +
		"1|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|100|10|2|COMPLETED|n[1-2]\n" +
		"2|2+0|2026-01-01T00:00:10|2026-01-01T00:01:40|2026-01-01T00:02:30|50|10|1|COMPLETED|n1\n" +
		"3|2+1|2026-01-01T00:00:10|2026-01-01T00:01:40|2026-01-01T00:02:30|50|10|2|COMPLETED|n[3-4]\n"
	tr, err := ReadTrace(strings.NewReader(in), ReadOptions{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 2 || tr.HetJobs != 1 || tr.Jobs[1].ID != 2 || tr.Jobs[1].Procs != 3 || tr.Jobs[1].Arrival != 10 || tr.Jobs[1].Started != 100 {
		t.Fatalf("trace: %d jobs %+v, %d het jobs; want job 2 of 3 nodes arriving at 10 s, started at 100 s", len(tr.Jobs), tr.Jobs, tr.HetJobs)
	}
	m := topo.Mesh(2, 2)
	for _, sched := range []Sched{"fcfs", "easy", "cplant"} {
		a, err := alloc.Parse("ff:rowmajor", m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), tr.Jobs, Config{Machine: m, Alloc: a, Sched: sched})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.PerJob) != 2 {
			t.Fatalf("%s: %d rows, want 2", sched, len(r.PerJob))
		}
		for _, j := range r.PerJob {
			if j.ID == 2 && (j.Start != 100 || len(j.Nodes) != 3) {
				t.Errorf("%s: het job 2 starts at %d on %d nodes, want 100 s on 3", sched, j.Start, len(j.Nodes))
			}
		}
	}
}
