package sim

import (
	"strings"
	"testing"

	"github.com/procalloc/procalloc/slurm"
)

// TestPartitionLimitWarningsSingular: a case one job meets is said of that job
// in the singular ("1 of the N jobs replayed asks ... it"), a case several meet
// in the plural with the first named; every count is kept.
func TestPartitionLimitWarningsSingular(t *testing.T) {
	conf := []slurm.ConfPartition{
		{Name: "small", State: "UP", MaxNodes: 2, MaxTime: 10},
		{Name: "gone", State: "DOWN", MaxNodes: -1, MaxTime: -1},
	}
	jobs := []Job{
		{ID: 1, Line: 1, Procs: 3, Estimate: 60, Partition: "small"},  // over MaxNodes
		{ID: 2, Line: 2, Procs: 1, Estimate: 900, Partition: "small"}, // over MaxTime
		{ID: 3, Line: 3, Procs: 1, Estimate: 900, Partition: "small"}, // over MaxTime
		{ID: 4, Line: 4, Procs: 1, Estimate: 60, Partition: "gone"},   // DOWN
		{ID: 5, Line: 5, Procs: 1, Estimate: 60, Partition: "small"},
	}
	ws := PartitionLimitWarnings(jobs, conf)
	want := []string{
		"1 of the 5 jobs replayed asks for more nodes than its partition's MaxNodes",
		"the history ran it, so it is replayed as it ran (job 1 (line 1), 3 nodes in small of MaxNodes=2)",
		"2 of the 5 jobs replayed have a time limit over their partition's MaxTime",
		"(first: job 2 (line 2)",
		"1 of the 5 jobs replayed is in a partition of State=DOWN",
	}
	all := strings.Join(ws, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if len(ws) != 3 {
		t.Errorf("%d warnings, want 3:\n%s", len(ws), all)
	}
	for _, w := range ws {
		if strings.HasPrefix(w, "1 of") && (strings.Contains(w, " them") || strings.Contains(w, " their ")) {
			t.Errorf("a single job said in the plural: %s", w)
		}
	}
}
