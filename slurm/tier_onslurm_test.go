package slurm

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Slurm takes the jobs of a partition of a higher PriorityTier first, whatever
// their submit order (job_scheduler.c, sort_job_queue2), which sim's queue
// schedulers follow (sim.Config.PartitionTiers; sim's TestPartitionTiersByHand
// is this history): on 4 nodes, partitions low (tier 1) and high (tier 2) of
// every node; job A (low, 4 nodes) runs, B (low, 2 nodes) and then C (high, 4
// nodes) are submitted; when A ends, C starts and B waits. With equal tiers B
// starts (submit order) and C waits. Not -short; needs root and Slurm's daemons.
func TestPriorityTierOnSlurm(t *testing.T) {
	for _, c := range []struct {
		high       int // high's PriorityTier; low's is 1
		first, ran string
	}{
		{2, "C", "RUNNING"},
		{1, "B", "PENDING"}, // equal tiers: submit order, B first, and C waits for B
	} {
		first, sc := tierRun(t, c.high)
		if first != c.first || sc != c.ran {
			t.Errorf("high of tier %d: %s started first, C %s; want %s first, C %s", c.high, first, sc, c.first, c.ran)
		}
	}
}

// tierRun runs the history on a fresh cluster and returns the job that
// started after A (B or C) and C's state.
func tierRun(t *testing.T, high int) (string, string) {
	c := newCluster(t, fmt.Sprintf("tiers%d", high))
	extra := filepath.Join(t.TempDir(), "extra.conf")
	if err := os.WriteFile(extra, []byte(fmt.Sprintf("PartitionName=low Nodes=ALL PriorityTier=1\nPartitionName=high Nodes=ALL PriorityTier=%d\n", high)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.start(4, withPorts(4, "--conf-extra", extra))
	a := regexp.MustCompile(`Granted job allocation (\d+)`).FindStringSubmatch(c.run("salloc", "--no-shell", "-p", "low", "-N", "4", "-t", "5"))
	if a == nil {
		t.Fatal("salloc: no allocation")
	}
	submit := func(part, nodes string) string {
		out := c.run("sbatch", "--parsable", "-p", part, "-N", nodes, "-t", "5", "-o", "/dev/null", "--wrap", "sleep 120")
		return strings.TrimSpace(strings.Split(out, ";")[0])
	}
	b := submit("low", "2")
	cj := submit("high", "4")
	defer c.run("scancel", b, cj)
	state := func(id string) string { return c.run("squeue", "-h", "-j", id, "-o", "%T") }
	if sb, sc := state(b), state(cj); sb != "PENDING" || sc != "PENDING" {
		t.Fatalf("while A runs: B %s, C %s; want both PENDING", sb, sc)
	}
	c.cancel(a[1])
	for range 150 {
		if sb, sc := state(b), state(cj); sb == "RUNNING" || sc == "RUNNING" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	sb, sc := state(b), state(cj)
	t.Logf("high of tier %d, after A: B (low, submitted first) %s, C (high) %s", high, sb, sc)
	switch {
	case sc == "RUNNING" && sb == "PENDING":
		return "C", sc
	case sb == "RUNNING":
		return "B", sc
	}
	return "none", sc
}
