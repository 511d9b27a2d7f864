package slurm

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// withCluster is the sacct -P text of lines with a Cluster column put first: name
// on every record, "Cluster" on the header.
func withCluster(lines []string, name string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		c := name
		if i == 0 {
			c = "Cluster"
		}
		out[i] = c + "|" + l
	}
	return out
}

// TestSacctSeveralClusters: sacct -L or -M a,b prints the jobs of several clusters,
// whose ids repeat; a repeated id was taken for a requeued job's runs and all but
// the last dropped. Now such output is refused naming the clusters and what to run,
// by the Cluster column when it is there and otherwise by a job id whose two
// records ran at the same time. One cluster's output (sacct -M NAME, with or
// without the Cluster column) reads as before. The records are the real sacct
// 22.05.8 output of P.txt; the second cluster's are the same records renamed (the
// ids of two clusters' histories overlap so).
func TestSacctSeveralClusters(t *testing.T) {
	data, err := os.ReadFile("testdata/sacct-22.05/P.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	read := func(ls []string) (*Sacct, error) {
		return ReadSacct(strings.NewReader(strings.Join(ls, "\n")+"\n"), SacctOptions{Location: time.UTC})
	}
	plain, err := read(lines)
	if err != nil {
		t.Fatal(err)
	}
	one, err := read(withCluster(lines, "alpha"))
	if err != nil || len(one.Jobs) != len(plain.Jobs) {
		t.Fatalf("one cluster: %v, %d jobs; want %d", err, len(one.Jobs), len(plain.Jobs))
	}
	for i := range one.Jobs {
		a, b := one.Jobs[i], plain.Jobs[i]
		if a.ID != b.ID || a.Start != b.Start || a.Runtime != b.Runtime || a.Size != b.Size || a.NodeList.String() != b.NodeList.String() {
			t.Errorf("one cluster, job %d: %+v, without the column %+v", i, a, b)
		}
	}
	two := append(withCluster(lines, "alpha"), withCluster(lines, "beta")[1:]...)
	_, err = read(two)
	if !errors.Is(err, ErrSeveralClusters) || !strings.Contains(err.Error(), "alpha (line 2), beta (line 13)") || !strings.Contains(err.Error(), "sacct -M NAME") {
		t.Errorf("two clusters with a Cluster column: %v", err)
	}
	// Without the column: the second cluster's job 3 ran when the first's did (job
	// 2 ran for 0 s, which a requeue's runs may share).
	_, err = read(append(lines, lines[1:]...))
	if !errors.Is(err, ErrSeveralClusters) || !strings.HasPrefix(err.Error(), "line 14: ") || !strings.Contains(err.Error(), "job 3 of line 3") || !strings.Contains(err.Error(), "sacct -M NAME") {
		t.Errorf("two clusters without a Cluster column: %v", err)
	}
	// A requeued job (sacct -D): runs one after the other, the last kept.
	rq := []string{lines[0],
		"40|2026-12-06T11:00:00|2026-12-06T11:00:00|2026-12-06T11:05:00|300|5|1|1|REQUEUED|all|node01",
		"40|2026-12-06T11:05:30|2026-12-06T11:06:00|2026-12-06T11:07:00|60|5|1|1|COMPLETED|all|node02"}
	s, err := read(rq)
	if err != nil || len(s.Jobs) != 1 || s.Jobs[0].Runtime != 60 || s.Skipped["earlier runs of requeued jobs"] != 1 {
		t.Errorf("requeued job: %v, %+v", err, s)
	}
}
