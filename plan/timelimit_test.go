package plan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// limitOptions is a 64-host fat tree with a 2,000-job sacct history that
// Slurm's default selection placed.
func limitOptions(t *testing.T) Options {
	t.Helper()
	m, err := topo.ParseMachine("fattree:8,4:8")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := hostlist.Expand("n[01-64]")
	return Options{Machine: m, Hosts: names, MachineSource: "fattree:8,4:8", SlurmConf: []byte("NodeName=n[01-64]\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"),
		Trace: syntheticHistory(t, m, names, 2000), TracePath: "history", Version: V2311, VersionSource: "test", TimeLimit: time.Hour, Seed: 1}
}

// stopReplaysAt makes the replays' context end, as the plan's deadline would,
// when the first replay has passed on n jobs (n 0: ended before they start); with
// interrupt the parent context ends instead (Ctrl-C). Cleanup restores the
// hooks.
func stopReplaysAt(t *testing.T, n int, interrupt context.CancelCauseFunc) {
	t.Helper()
	var mu sync.Mutex
	var stop context.CancelCauseFunc
	reached := timelimit.Reached{Name: "plan time limit", Limit: time.Minute}
	replayContext = func(ctx context.Context) (context.Context, context.CancelFunc) {
		rctx, cancel := context.WithCancelCause(ctx)
		if n == 0 {
			cancel(reached)
		}
		mu.Lock()
		stop = cancel
		mu.Unlock()
		return rctx, func() { cancel(context.Canceled) }
	}
	jobPassed = func(_ Kind, passed int) {
		if passed != n {
			return
		}
		if interrupt != nil {
			interrupt(context.Canceled)
			return
		}
		mu.Lock()
		stop(reached)
		mu.Unlock()
	}
	t.Cleanup(func() { replayContext, jobPassed = nil, nil })
}

// When the time limit ends the replays, the report covers the history's first N
// jobs under every deployment: N is said (report, warning, recommendation), each
// deployment's metrics are those of exactly these jobs of the whole replay
// (recomputed here from the complete plan's predictions: hops by the machine's
// distances, waits from the starts), the predictions files hold the complete
// plan's first N lines under a name that says so, and the recommendation compares
// the deployments on them.
func TestPlanTimeLimitStopsReplays(t *testing.T) {
	opt := limitOptions(t)
	opt.TimeLimit = -1
	full, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	total := len(full.Jobs)
	if full.Report.Workload.Stopped != nil {
		t.Fatalf("a plan without a limit says it stopped: %+v", full.Report.Workload.Stopped)
	}
	const at = 700
	if total < 2*at {
		t.Fatalf("the sample history has %d jobs; the test wants more than %d", total, 2*at)
	}
	stopReplaysAt(t, at, nil)
	opt.TimeLimit = time.Hour // lockstep and the ordering's share; the hook ends the replays
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := &p.Report
	st := r.Workload.Stopped
	if st == nil {
		t.Fatal("replays stopped: report.json says nothing")
	}
	n := st.Jobs
	// Lockstep: when the first replay passed on its at-th job (the hook runs before
	// its lockstep wait), its at-1 jobs were within the window of the slowest. No
	// upper bound but the whole workload: after the stop, each replay passes on
	// what its next event ends before it looks at the context, and a job that
	// held later ones back (results come in trace order) can release many at once
	// (715 seen once at 700 under load).
	if lo := at - 1 - lockstepWindow; n < lo || n >= total {
		t.Errorf("stopped after %d jobs, want at least %d (lockstep window %d) and fewer than all %d", n, lo, lockstepWindow, total)
	}
	if r.Workload.Jobs != total || st.Reason != "plan time limit 1m0s reached" {
		t.Errorf("workload jobs %d (want %d), reason %q", r.Workload.Jobs, total, st.Reason)
	}
	if r.TimeLimit != 3600 || r.Ordering.TimeLimit != 1800 {
		t.Errorf("time limits: plan %g s, ordering %g s; want 3600 and half", r.TimeLimit, r.Ordering.TimeLimit)
	}
	said := fmt.Sprintf("first %d of the workload's %d jobs", n, total)
	if !strings.Contains(r.Recommendation, said) {
		t.Errorf("recommendation %q does not say %q", r.Recommendation, said)
	}
	warned := fmt.Sprintf("cover the workload's first %d of %d jobs", n, total)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), warned) || !strings.Contains(strings.Join(r.Caveats, "\n"), warned) {
		t.Errorf("warnings %q / caveats %q do not say %q", r.Warnings, r.Caveats, warned)
	}
	if !strings.Contains(string(file(p, "report.html")), "Partial replays:") {
		t.Error("report.html does not say the replays are partial")
	}
	best, bestHops := "", math.Inf(1)
	var cur float64
	for i, d := range r.Deployments {
		if !d.Supported {
			continue
		}
		fd := full.Report.Deployments[i]
		if want := fmt.Sprintf("predictions/%s.first-%d-jobs.csv", d.Name, n); d.Predictions != want || file(p, fd.Predictions) != nil {
			t.Errorf("%s: predictions %q (want %q), and the whole history's name must not be written", d.Name, d.Predictions, want)
		}
		got := string(file(p, d.Predictions))
		lines := strings.SplitAfter(string(file(full, fd.Predictions)), "\n")
		if want := strings.Join(lines[:n+1], ""); got != want {
			t.Errorf("%s: the partial predictions are not the complete plan's first %d jobs", d.Name, n)
			continue
		}
		// The metrics of those jobs, from the predictions (in the deployment's
		// node names).
		index := map[string]int{}
		for v, name := range p.Deployment(Kind(d.Name)).NodeNames() {
			index[name] = v
		}
		jobs, hops, wait := 0, 0.0, 0.0
		for _, l := range lines[1 : n+1] {
			f := strings.SplitN(strings.TrimSpace(l), ",", 7)
			submit, _ := strconv.ParseInt(f[2], 10, 64)
			start, _ := strconv.ParseInt(f[3], 10, 64)
			wait += float64(start - submit)
			names, err := hostlist.Expand(strings.Trim(f[6], `"`))
			if err != nil {
				t.Fatal(err)
			}
			if len(names) < 2 {
				continue
			}
			sum := 0
			for a := range names {
				for b := a + 1; b < len(names); b++ {
					sum += p.Machine.Dist(index[names[a]], index[names[b]])
				}
			}
			jobs++
			hops += float64(sum) / float64(len(names)*(len(names)-1)/2)
		}
		m := d.Metrics
		if m.Jobs != jobs || math.Abs(m.MeanPairwiseHops-hops/float64(jobs)) > 1e-9 || math.Abs(m.MeanWait-wait/float64(n)) > 1e-6 {
			t.Errorf("%s: metrics jobs %d, hops %.9f, wait %.3f; the first %d jobs have %d, %.9f, %.3f", d.Name, m.Jobs, m.MeanPairwiseHops, m.MeanWait, n, jobs, hops/float64(jobs), wait/float64(n))
		}
		if d.Name == string(KindCurrent) {
			cur = m.MeanPairwiseHops
		} else if d.Name != string(KindAsRun) && d.Pending == 0 && d.Refused == 0 && m.MeanPairwiseHops < bestHops {
			best, bestHops = d.Name, m.MeanPairwiseHops
		}
	}
	want := string(KindCurrent)
	if best != "" && 1-bestHops/cur >= r.Threshold {
		want = best
	}
	if r.Recommended != want {
		t.Errorf("recommended %s; on the first %d jobs the rule gives %s", r.Recommended, n, want)
	}
}

// A time limit reached before any job was replayed: nothing to compare, the
// current configuration kept, saying why; no predictions file.
func TestPlanTimeLimitBeforeReplays(t *testing.T) {
	opt := limitOptions(t)
	stopReplaysAt(t, 0, nil)
	p, err := Make(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	r := &p.Report
	if st := r.Workload.Stopped; st == nil || st.Jobs != 0 {
		t.Fatalf("stopped %+v, want 0 jobs", st)
	}
	if r.Recommended != string(KindCurrent) || !strings.Contains(r.Recommendation, "before any job was replayed") {
		t.Errorf("recommended %s: %q", r.Recommended, r.Recommendation)
	}
	for _, d := range r.Deployments {
		if d.Supported && (d.Metrics == nil || d.Metrics.Jobs != 0 || d.Predictions != "") {
			t.Errorf("%s: metrics %+v, predictions %q", d.Name, d.Metrics, d.Predictions)
		}
	}
	for _, f := range p.Files {
		if strings.HasPrefix(f.Name, "predictions/") {
			t.Errorf("wrote %s", f.Name)
		}
	}
}

// Ctrl-C during the replays is an interruption even with a deadline set: Make
// returns the cause, no plan.
func TestPlanInterruptDuringLimitedReplays(t *testing.T) {
	opt := limitOptions(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stopReplaysAt(t, 300, cancel)
	p, err := Make(ctx, opt)
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Fatalf("Make: %v, plan %v; want context.Canceled and none", err, p != nil)
	}
}

// The time limit did not bound the deployments' builds (seconds at 10^5 hosts:
// a plan with --time-limit 4s ran 8 s). Now a build the limit stops is abandoned
// at once (here held until Make has returned) and that deployment, and every one
// after it, is not built: the report says which and why, no metrics, no files;
// the replays then have no time, so the plan covers no job and keeps the current
// configuration, saying so. --deployment of a deployment not built is an error.
func TestPlanTimeLimitDuringBuilds(t *testing.T) {
	reached := timelimit.Reached{Name: "plan time limit", Limit: time.Minute}
	run := func(t *testing.T, opt Options, at Kind) (*Plan, error) {
		ctx, stop := context.WithCancelCause(context.Background())
		defer stop(nil)
		limited := func(context.Context) (context.Context, context.CancelFunc) { return ctx, func() {} }
		held, release, resumed := make(chan struct{}), make(chan struct{}), make(chan struct{})
		buildContext, replayContext = limited, limited
		buildStarted = func(k Kind) {
			if k == at {
				stop(reached)
				close(held)
				<-release
				close(resumed)
			}
		}
		defer func() {
			close(release)
			<-held
			<-resumed // the abandoned build has read buildStarted
			buildContext, replayContext, buildStarted = nil, nil, nil
		}()
		type made struct {
			p   *Plan
			err error
		}
		done := make(chan made, 1)
		go func() {
			p, err := Make(context.Background(), opt)
			done <- made{p, err}
		}()
		select {
		case m := <-done:
			return m.p, m.err
		case <-time.After(20 * time.Second):
			t.Fatal("Make still running 20 s after the time limit, waiting for the tree's build")
			return nil, nil
		}
	}
	opt := limitOptions(t)
	p, err := run(t, opt, KindTree)
	if err != nil {
		t.Fatal(err)
	}
	r := &p.Report
	if st := r.Workload.Stopped; st == nil || *st != (ReplayStop{Jobs: 0, Reason: reached.Error(), During: "the deployments' builds"}) {
		t.Fatalf("stopped %+v, want 0 jobs during the deployments' builds", st)
	}
	want := map[Kind]string{
		KindTree:  "not built: " + reached.Error() + " during its build",
		KindBlock: "not built: " + reached.Error() + " before its build",
	}
	for _, d := range p.Deployments {
		if why, ok := want[d.Kind]; ok {
			if d.Supported || d.Why != why || d.SlurmConf != nil || d.Topology != nil {
				t.Errorf("%s: supported %v, why %q (want %q), files %v", d.Kind, d.Supported, d.Why, why, d.SlurmConf != nil || d.Topology != nil)
			}
			continue
		}
		if d.Kind != KindTorus3D && !d.Supported {
			t.Errorf("%s: not built (%s); the limit came after its build", d.Kind, d.Why)
		}
	}
	for _, d := range r.Deployments {
		if d.Supported && (d.Metrics == nil || d.Metrics.Jobs != 0 || d.Predictions != "") {
			t.Errorf("%s: metrics %+v, predictions %q; want none over 0 jobs", d.Name, d.Metrics, d.Predictions)
		}
	}
	if r.Recommended != string(KindCurrent) || !strings.Contains(r.Recommendation, "before any job was replayed") {
		t.Errorf("recommended %s: %q", r.Recommended, r.Recommendation)
	}
	if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "during the deployments' builds: tree, block not built") {
		t.Errorf("warnings %q do not say which deployments were not built", w)
	}
	for _, f := range p.Files {
		if strings.HasPrefix(f.Name, "predictions/") || f.Name == "topology.conf" {
			t.Errorf("wrote %s", f.Name)
		}
	}
	if !strings.Contains(string(file(p, "report.html")), "not built: "+reached.Error()+" during its build") {
		t.Error("report.html does not say the tree was not built")
	}
	// The limit during the first build: nothing built, and apply.txt does not
	// speak of a slurm.conf that is not written.
	p, err = run(t, opt, KindCurrent)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Deployments {
		if d.Kind != KindTorus3D && (d.Supported || !strings.HasPrefix(d.Why, "not built: ")) {
			t.Errorf("%s: supported %v, why %q; want not built", d.Kind, d.Supported, d.Why)
		}
	}
	if file(p, "slurm.conf") != nil || strings.Contains(string(file(p, "apply.txt")), "slurm.conf here") {
		t.Errorf("current not built: wrote slurm.conf %v; apply.txt %q", file(p, "slurm.conf") != nil, file(p, "apply.txt"))
	}
	// What is known without building is said as it is, not "not built": here
	// as-run without a history that records nodes (a synthetic workload), and
	// torus3d, whose Slurm is newer than the site's.
	synth := opt
	synth.Trace, synth.TracePath = nil, ""
	if p, err = run(t, synth, KindCurrent); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[Kind]string{
		KindAsRun:   "needs a job history that records where jobs ran (an sacct trace with NodeList)",
		KindTorus3D: "needs Slurm 26.05 or later (the site's is 23.11)",
		KindTree:    "not built: " + reached.Error() + " before its build",
	} {
		if d := p.Deployment(k); d.Supported || d.Why != want {
			t.Errorf("the limit during current's build: %s supported %v, why %q; want %q", k, d.Supported, d.Why, want)
		}
	}
	opt.Deployment = KindTree
	if p, err := run(t, opt, KindTree); err == nil || p != nil || !strings.Contains(err.Error(), "--deployment tree: not built: "+reached.Error()) {
		t.Errorf("--deployment tree not built: plan %v, error %v", p != nil, err)
	}
}

// TestProgressCountsTheJobsReplayed: under a time limit every replay runs at once
// (lockstep), so the stages "replaying X" all came in the first moment and a
// terminal's progress line (drawn after a second) showed nothing for the whole
// replay phase, minutes at 10^4-10^5 hosts. Progress now tells the jobs the
// slowest replay has passed on, never decreasing, up to every job.
func TestProgressCountsTheJobsReplayed(t *testing.T) {
	opt := limitOptions(t)
	var mu sync.Mutex
	var counts []int
	opt.Progress = func(s string) {
		i := strings.LastIndex(s, ": job ")
		if !strings.HasPrefix(s, "replaying ") || i < 0 {
			return
		}
		var n, of int
		if _, err := fmt.Sscanf(s[i:], ": job %d of %d", &n, &of); err != nil || of != len(opt.Trace.Jobs) {
			t.Errorf("progress %q: %v", s, err)
		}
		mu.Lock()
		counts = append(counts, n)
		mu.Unlock()
	}
	if _, err := Make(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if len(counts) < 100 {
		t.Fatalf("%d job counts told, want one each 0.5%% of the %d jobs: %v", len(counts), len(opt.Trace.Jobs), counts)
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			t.Fatalf("job count went back: %v", counts)
		}
	}
	if last := counts[len(counts)-1]; last < len(opt.Trace.Jobs)-len(opt.Trace.Jobs)/200 {
		t.Errorf("last count %d of %d jobs", last, len(opt.Trace.Jobs))
	}
}
