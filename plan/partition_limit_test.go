package plan

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/fabrictest"
)

// Partitions and the time limit together: when the limit stops replays whose jobs
// wait in their partitions, each deployment's predictions are the first N lines
// of its complete replay's, and its count of jobs that waited (DeploymentReport.
// Waited) is of those N jobs only. A job waited when its predicted start is later
// than production's; the complete replay's count is checked against the same
// definition, so the test holds the count to the jobs, not to the replay's end.
func TestPartitionsTimeLimitPrefix(t *testing.T) {
	parts := map[string][]int{"debug": {13, 14, 15, 16}, "left": {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "right": {7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
	names := []string{"debug", "left", "right"}
	conf := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=DEFAULT OverSubscribe=EXCLUSIVE\n" +
		"PartitionName=debug Nodes=node[13-16]\nPartitionName=left Nodes=node[01-10] Default=YES\nPartitionName=right Nodes=node[07-16]\n"
	rng := rand.New(rand.NewPCG(3, 7))
	jobs := partHistory(rng, 400, parts, names)
	opt := Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree", SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
		TimeLimit: -1, Seed: 1, Version: Version{Major: 26, Minor: 5}, VersionSource: "test"}
	opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
	full, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	// waitedIn counts the rows of a predictions file whose job started later than
	// production started it.
	waitedIn := func(data []byte) (rows int, waited int) {
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[1:] {
			id, _ := strconv.Atoi(r[0])
			start, _ := strconv.ParseInt(r[3], 10, 64)
			if start > jobs[id-1000].start {
				waited++
			}
		}
		return len(recs) - 1, waited
	}
	anyWaited := false
	for _, d := range full.Report.Deployments {
		if !d.Supported || d.Predictions == "" {
			continue
		}
		_, w := waitedIn(file(full, d.Predictions))
		if d.Name != string(KindAsRun) && w != d.Waited {
			t.Errorf("complete replay, %s: %d jobs started after production, the report says %d waited", d.Name, w, d.Waited)
		}
		anyWaited = anyWaited || d.Waited > 0
	}
	if !anyWaited {
		t.Fatal("no job waited under any deployment: the history does not test the count")
	}
	const at = 200
	stopReplaysAt(t, at, nil)
	opt.TimeLimit = time.Hour
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Report.Workload.Stopped
	if st == nil || st.Jobs < at-lockstepWindow || st.Jobs > at {
		t.Fatalf("stopped: %+v, want about %d jobs", st, at)
	}
	n := st.Jobs
	partialWaits := 0
	for i, d := range p.Report.Deployments {
		if !d.Supported || d.Predictions == "" {
			continue
		}
		got := file(p, d.Predictions)
		lines := strings.SplitAfter(string(file(full, full.Report.Deployments[i].Predictions)), "\n")
		if want := strings.Join(lines[:n+1], ""); string(got) != want {
			t.Errorf("%s: the partial predictions are not the complete replay's first %d lines", d.Name, n)
		}
		rows, w := waitedIn(got)
		if rows != n {
			t.Errorf("%s: %d predictions, want %d", d.Name, rows, n)
		}
		if d.Name != string(KindAsRun) && w != d.Waited {
			t.Errorf("partial replay, %s: %d of the first %d jobs started after production, the report says %d waited", d.Name, w, n, d.Waited)
		}
		partialWaits += d.Waited
	}
	t.Logf("stopped after %d of %d jobs; waits among them %d", n, len(jobs), partialWaits)
}

// TestPlanPartitionLimitWarnings: a history's jobs that slurm.conf's partition
// State and limits would have kept pending are said, as procalloc sim
// --slurm-conf says them (sim.PartitionLimitWarnings), counted here against the
// history read plainly; the partition holds every host, so the jobs are not
// kept in it and the replays are the ones without limits.
func TestPlanPartitionLimitWarnings(t *testing.T) {
	opt := sampleOptions(t, true)
	opt.Version, opt.VersionSource = Version{Major: 26, Minor: 5}, "test"
	opt.SlurmConf = []byte("NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE MaxNodes=2 MaxTime=1 State=DOWN\n")
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	over, long := 0, 0
	for _, j := range opt.Trace.Jobs {
		if j.Procs > 2 {
			over++
		}
		if j.Estimate > 60 {
			long++
		}
	}
	if over == 0 || long == 0 {
		t.Fatalf("the sample has %d jobs over 2 nodes and %d over a minute: the test checks nothing", over, long)
	}
	n := len(opt.Trace.Jobs)
	for _, want := range []string{
		strconv.Itoa(over) + " of the " + strconv.Itoa(n) + " jobs replayed ask for more nodes than their partition's MaxNodes",
		strconv.Itoa(long) + " of the " + strconv.Itoa(n) + " jobs replayed have a time limit over their partition's MaxTime",
		strconv.Itoa(n) + " of the " + strconv.Itoa(n) + " jobs replayed are in a partition of State=DOWN",
	} {
		found := false
		for _, w := range p.Report.Warnings {
			found = found || strings.Contains(w, want)
		}
		if !found {
			t.Errorf("no warning %q in %q", want, p.Report.Warnings)
		}
	}
}

// TestPlanPartitionLimitWarningsStopped: when the time limit stops the replays,
// the partition limits' warnings count the jobs replayed (the first n of the
// history, Workload.Stopped.Jobs), not the history's.
func TestPlanPartitionLimitWarningsStopped(t *testing.T) {
	parts := map[string][]int{"all": {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
	rng := rand.New(rand.NewPCG(5, 9))
	jobs := partHistory(rng, 400, parts, []string{"all"})
	conf := "NodeName=DEFAULT CPUs=1\nNodeName=node[01-16]\nPartitionName=all Nodes=ALL Default=YES OverSubscribe=EXCLUSIVE MaxNodes=3 MaxTime=5\n"
	opt := Options{Machine: fabrictest.SampleFabric(t, "../topo/testdata"), MachineSource: "fattree", SlurmConf: []byte(conf), SlurmConfPath: "slurm.conf",
		TimeLimit: time.Hour, Seed: 1, Version: Version{Major: 26, Minor: 5}, VersionSource: "test"}
	opt.Trace, opt.TracePath = sacctOf(t, jobs), "sacct.txt"
	stopReplaysAt(t, 200, nil)
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Report.Workload.Stopped
	if st == nil || st.Jobs >= len(jobs) {
		t.Fatalf("stopped: %+v, want fewer than %d jobs", st, len(jobs))
	}
	n := st.Jobs
	over, long := 0, 0
	for _, j := range opt.Trace.Jobs[:n] {
		if j.Procs > 3 {
			over++
		}
		if j.Estimate > 300 {
			long++
		}
	}
	if over == 0 || long == 0 {
		t.Fatalf("%d of the first %d jobs over 3 nodes, %d over 5 minutes: the test checks nothing", over, n, long)
	}
	for _, want := range []string{
		fmt.Sprintf("slurm.conf: %d of the %d jobs replayed ask for more nodes", over, n),
		fmt.Sprintf("slurm.conf: %d of the %d jobs replayed have a time limit over", long, n),
	} {
		found := false
		for _, w := range p.Report.Warnings {
			found = found || strings.Contains(w, want)
		}
		if !found {
			t.Errorf("no warning %q in %q", want, p.Report.Warnings)
		}
	}
}
