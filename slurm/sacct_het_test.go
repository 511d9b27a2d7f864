package slurm

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// testdata/sacct-22.05/het-completion.txt is what the real sacct 22.05.8 printed
// (sacct -c -X -P -o JobIDRaw,JobID,..., the loopback cluster with
// JobCompType=jobcomp/filetxt) for `sbatch -N1 -t 2 : -N2 -t 3 s.sh` (het job 1:
// components 1 and 2), `sbatch -N2 -t 2 s.sh` (3) and `sbatch -N1 -t 5 : -N1 -t 5 :
// -N1 -t 5 s.sh` (het job 4: 4, 5, 6). The jobcomp file records HetJobId and
// HetJobOffset, but sacct -c ignores them ("Unknown type HetJobId") and prints each
// component as a job of its own id. het-slurmdbd.txt is the same jobs as sacct
// prints them from slurmdbd, built from the formats (no slurmdbd here): JobID
// het_job_id+het_job_offset, JobIDRaw the component's own id (src/sacct/print.c,
// slurmdb_get_job_id_str), Submit the real submit time of the jobcomp file.

// TestSacctHetJobComponentsAreOneJob: the components of a heterogeneous job are one
// job, of the summed size and node lists, started together, with the het job's id
// and the longest limit; an ordinary job between them is left alone. Without
// JobID's N+k (sacct --completion) they stay separate jobs.
func TestSacctHetJobComponentsAreOneJob(t *testing.T) {
	s, err := readSacctFile(t, "het-slurmdbd.txt")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		id, size, comps int
		limit, run      int64
		nodes           []string
	}
	var got []want
	for _, j := range s.Jobs {
		got = append(got, want{j.ID, j.Size, j.Components, j.Limit, j.Runtime, j.NodeList.Names()})
	}
	exp := []want{
		{1, 3, 2, 180, 2, []string{"node01", "node02", "node03"}},
		{3, 2, 1, 120, 2, []string{"node01", "node02"}},
		{4, 3, 3, 300, 2, []string{"node01", "node02", "node03"}},
	}
	if len(got) != len(exp) || s.HetJobs != 2 || s.Joined != 3 {
		t.Fatalf("%d jobs %+v, %d het jobs of %d joined records; want %+v, 2 and 3", len(got), got, s.HetJobs, s.Joined, exp)
	}
	for i := range exp {
		g, e := got[i], exp[i]
		if g.id != e.id || g.size != e.size || g.comps != e.comps || g.limit != e.limit || g.run != e.run || !slices.Equal(g.nodes, e.nodes) {
			t.Errorf("job %d: %+v, want %+v", i, g, e)
		}
	}
	if s.Jobs[0].Start != s.Jobs[1].Start-2 || s.Jobs[0].Line != 2 || s.Jobs[2].Line != 5 {
		t.Errorf("het job 1 starts at %d (line %d), job 3 at %d; het job 4 at line %d", s.Jobs[0].Start, s.Jobs[0].Line, s.Jobs[1].Start, s.Jobs[2].Line)
	}

	c, err := readSacctFile(t, "het-completion.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Jobs) != 6 || c.HetJobs != 0 {
		t.Fatalf("sacct -c: %d jobs, %d het jobs; want the 6 components as jobs (no JobID N+k to join them by)", len(c.Jobs), c.HetJobs)
	}
	for i, j := range c.Jobs {
		if j.ID != i+1 || j.Components != 1 {
			t.Errorf("sacct -c job %d: id %d, %d components", i, j.ID, j.Components)
		}
	}
}

// TestSacctHetJobLimitsAndRequeue: a component of unknown limit makes the joined
// limit unknown; components that end apart hold the job to the last end; a
// requeued component keeps its last run only.
func TestSacctHetJobLimitsAndRequeue(t *testing.T) {
	in := "JobIDRaw|JobID|Submit|Start|End|TimelimitRaw|NNodes|State|NodeList\n" +
		"7|7+0|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:10|5|1|COMPLETED|a1\n" +
		"8|7+1|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:02:10|UNLIMITED|2|COMPLETED|a[2-3]\n" +
		"9|9+0|2026-01-01T00:00:00|2026-01-01T00:00:20|2026-01-01T00:00:30|5|1|NODE_FAIL|b1\n" +
		"10|9+1|2026-01-01T00:00:00|2026-01-01T00:00:20|2026-01-01T00:00:30|5|1|NODE_FAIL|b2\n" +
		"9|9+0|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:02:00|5|1|COMPLETED|b3\n" +
		"10|9+1|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:02:00|5|1|COMPLETED|b4\n"
	s, err := ReadSacct(strings.NewReader(in), SacctOptions{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Jobs) != 2 {
		t.Fatalf("%d jobs %+v, want 2", len(s.Jobs), s.Jobs)
	}
	a, b := s.Jobs[0], s.Jobs[1]
	if a.ID != 7 || a.Size != 3 || a.Limit != -1 || a.Runtime != 120 || a.Components != 2 {
		t.Errorf("het job 7: %+v; want 3 nodes, unknown limit, 120 s (to the last end), 2 components", a)
	}
	if b.ID != 9 || b.Size != 2 || b.Runtime != 60 || !slices.Equal(b.NodeList.Names(), []string{"b3", "b4"}) || s.Skipped["earlier runs of requeued jobs"] != 2 {
		t.Errorf("requeued het job 9: %+v, nodes %v, skipped %v; want its last run on b3, b4", b, b.NodeList.Names(), s.Skipped)
	}
}
