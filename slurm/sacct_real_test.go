package slurm

import (
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/sacct-22.05 holds what the real sacct 22.05.8 printed (Debian's package,
// the loopback cluster of scripts/slurm-cluster.sh with JobCompType=jobcomp/filetxt,
// read back with sacct -c -X) for eleven jobs: 1 (2 nodes), 3 (no limit), 2 (exit 3:
// FAILED), 4 (4 nodes, TIMEOUT after its 1-minute limit), 5 (cancelled while pending:
// NodeList "(null)", NNodes 0) and the array 6_[0-5%2] (jobs 6-11), with
//
//	sacct -c -X -P -o JobIDRaw,Submit,Start,End,ElapsedRaw,TimelimitRaw,NNodes,NCPUS,State,Partition,NodeList
//
// and the variants each file names (--parsable, -n, --delimiter=,, no -P,
// SLURM_TIME_FORMAT=relative and %s).

func readSacctFile(t *testing.T, name string) (*Sacct, error) {
	t.Helper()
	f, err := os.Open("testdata/sacct-22.05/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ReadSacct(f, SacctOptions{Location: time.UTC})
}

// TestSacctRealOutput: -P and --parsable (a '|' after the last field too) read
// alike: the ten jobs that ran, job 5 (cancelled while pending, NodeList "(null)" and
// NNodes 0 as sacct --completion prints them) skipped as cancelled before start; job
// 4's 83 s on node[01-04] and its 1-minute limit.
func TestSacctRealOutput(t *testing.T) {
	for _, name := range []string{"P.txt", "parsable.txt"} {
		s, err := readSacctFile(t, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(s.Jobs) != 10 || s.Skipped["cancelled before start"] != 1 || len(s.Skipped) != 1 || s.Bad != 0 || len(s.Impossible) != 0 {
			t.Fatalf("%s: %d jobs, skipped %v, impossible %v; want 10 and job 5 cancelled before start", name, len(s.Jobs), s.Skipped, s.Impossible)
		}
		var j4 *SacctJob
		for i := range s.Jobs {
			if s.Jobs[i].ID == 4 {
				j4 = &s.Jobs[i]
			}
		}
		start := time.Date(2026, 12, 6, 11, 50, 53, 0, time.UTC).Unix()
		if j4 == nil || j4.Runtime != 83 || j4.Limit != 60 || j4.Size != 4 || j4.Start != start ||
			strings.Join(j4.NodeList.Names(), ",") != "node01,node02,node03,node04" {
			t.Errorf("%s: job 4 %+v", name, j4)
		}
	}
}

// TestSacctRealOutputOtherForms: what sacct prints with -n, --delimiter, without -P,
// or under another SLURM_TIME_FORMAT is refused naming the line and the option to
// change (before, "sacct header lacks ..." or a time without a cause).
func TestSacctRealOutputOtherForms(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"P-noheader.txt", "line 1: a record where the header should be (sacct -n/--noheader)"},
		{"P-delimiter-comma.txt", "line 1: the header's fields are separated by \",\" (sacct --delimiter)"},
		{"table.txt", "line 1: this is sacct's table (fixed-width columns, long values cut): run sacct with -P"},
		{"table-noheader.txt", "line 1: this is sacct's table"},
		{"P-time-relative.txt", "line 2: time \"11:50:50\": want YYYY-MM-DDTHH:MM:SS, sacct's standard format (another comes from SLURM_TIME_FORMAT"},
		{"P-time-epoch.txt", "line 2: time \"1796557850\": want YYYY-MM-DDTHH:MM:SS"},
	} {
		_, err := readSacctFile(t, c.name)
		var le *SacctLineError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &le) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// The hint is for sacct's forms only: SWF and converted records, and sacct -P's
	// own header, get none.
	for _, line := range []string{"1 0 10 3600 64 -1 -1 64 7200 -1 1 1 1 1 1 -1 -1 -1", "0 4 100 200", "; Version: 2.2",
		"JobIDRaw|Submit|Start|End|NNodes|State", ""} {
		if h := SacctFormHint(line); h != "" {
			t.Errorf("%q: hint %q", line, h)
		}
	}
}

// TestSacctJobIDForms: the records of slurmdbd's sacct without -X, built from Slurm
// 22.05's formats (src/sacct/print.c 879-905: JobID is slurmdb_get_job_id_str's
// "%u", "%u_%u" array task, "%u_[%s]" pending array, "%u+%u" het component, then
// ".%s" a step: batch, extern, a number; State 1737-1768: "CANCELLED by %u"; Elapsed
// and Timelimit secs2time_str/mins2time_str, src/common/parse_time.c 762-786,
// "%ld-%2.2ld:%2.2ld:%2.2ld" past a day; Start/End "Unknown" for 0, 662-672). Each
// array task is a job of its own, a het job's components are one job (Slurm starts
// them together); steps, the pending array and the running job are skipped.
func TestSacctJobIDForms(t *testing.T) {
	src := "JobID|Submit|Start|End|Elapsed|Timelimit|NNodes|State|NodeList\n" +
		"200+0|2026-01-01T10:00:00|2026-01-01T10:00:10|2026-01-02T12:03:14|1-02:03:04|2-00:00:00|2|COMPLETED|n[01-02]\n" +
		"200+0.batch|2026-01-01T10:00:10|2026-01-01T10:00:10|2026-01-02T12:03:14|1-02:03:04||1|COMPLETED|n01\n" +
		"200+0.0|2026-01-01T10:00:11|2026-01-01T10:00:11|2026-01-02T12:03:14|1-02:03:03||2|COMPLETED|n[01-02]\n" +
		"200+1|2026-01-01T10:00:00|2026-01-01T10:00:10|2026-01-02T12:03:14|1-02:03:04|2-00:00:00|1|COMPLETED|n03\n" +
		"300_4|2026-01-01T11:00:00|2026-01-01T11:00:05|2026-01-01T11:10:05|00:10:00|01:00:00|1|CANCELLED by 1000|n04\n" +
		"300_4.extern|2026-01-01T11:00:05|2026-01-01T11:00:05|2026-01-01T11:10:05|00:10:00||1|CANCELLED|n04\n" +
		"300_[5-9]|2026-01-01T11:00:00|Unknown|Unknown|00:00:00|01:00:00|1|PENDING|None assigned\n" +
		"301|2026-01-01T12:00:00|2026-01-01T12:00:01|2026-01-01T12:30:01|00:30:00|UNLIMITED|2|NODE_FAIL|n[05-06]\n" +
		"302|2026-01-01T12:00:00|2026-01-01T12:00:02|Unknown|00:05:00|Partition_Limit|1|RUNNING|n07\n"
	s, err := ReadSacct(strings.NewReader(src), SacctOptions{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"job steps": 3, "pending (never started)": 1, "still running": 1}
	if !maps.Equal(s.Skipped, want) || len(s.Jobs) != 3 {
		t.Fatalf("%d jobs, skipped %v; want 3, %v", len(s.Jobs), s.Skipped, want)
	}
	for i, w := range []struct {
		id, size     int
		runtime, lim int64
		nodes        string
	}{{200, 3, 93784, 172800, "n01,n02,n03"}, {300, 1, 600, 3600, "n04"}, {301, 2, 1800, -1, "n05,n06"}} {
		j := s.Jobs[i]
		if j.ID != w.id || j.Size != w.size || j.Runtime != w.runtime || j.Limit != w.lim || strings.Join(j.NodeList.Names(), ",") != w.nodes {
			t.Errorf("job %d: %+v (%v), want %+v", i, j, j.NodeList.Names(), w)
		}
	}
}
