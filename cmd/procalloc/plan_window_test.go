package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// windowJob is a job of windowHistory.
type windowJob struct {
	id, nodes   int
	hosts       []int
	submit      time.Time
	start, stop time.Time
}

// windowHistory is a random sacct history on the hosts n1..n16 whose jobs
// overlap in time (each on hosts free at its start, so that as-run replays any
// subset of them), some (with retired) also on hosts n17..n20 that the machine
// and slurm.conf lack.
func windowHistory(rng *rand.Rand, n int, retired bool) []windowJob {
	t := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	busy := map[int]time.Time{} // host -> end of its job
	jobs := make([]windowJob, 0, n)
	for i := range n {
		t = t.Add(time.Duration(60+rng.IntN(3600)) * time.Second)
		start := t.Add(time.Duration(rng.IntN(120)) * time.Second)
		var free []int
		for h := 1; h <= 16; h++ {
			if !busy[h].After(start) {
				free = append(free, h)
			}
		}
		if len(free) == 0 {
			continue
		}
		rng.Shuffle(len(free), func(a, b int) { free[a], free[b] = free[b], free[a] })
		hosts := slices.Clone(free[:1+rng.IntN(min(len(free), 6))])
		if retired && rng.IntN(5) == 0 {
			hosts[0] = 17 + rng.IntN(4)
		}
		slices.Sort(hosts)
		stop := start.Add(time.Duration(300+rng.IntN(7200)) * time.Second)
		for _, h := range hosts {
			busy[h] = stop
		}
		jobs = append(jobs, windowJob{id: 500 + i, nodes: len(hosts), hosts: hosts, submit: t, start: start, stop: stop})
	}
	return jobs
}

func writeWindowHistory(t *testing.T, name string, jobs []windowJob) string {
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n")
	const f = "2006-01-02T15:04:05"
	for _, j := range jobs {
		names := make([]string, len(j.hosts))
		for i, h := range j.hosts {
			names[i] = "n" + strconv.Itoa(h)
		}
		fmt.Fprintf(&b, "%d|%s|%s|%s|%d|COMPLETED|%s\n", j.id, j.submit.Format(f), j.start.Format(f), j.stop.Format(f), j.nodes, strings.Join(names, ","))
	}
	return writeTemp(t, name, b.String())
}

// planReport is what TestPlanWindowIsTheHandCutHistory compares of two plans.
type planReport struct {
	Recommended    string          `json:"recommended"`
	Recommendation string          `json:"recommendation"`
	Deployments    json.RawMessage `json:"deployments"`
	Ordering       map[string]any  `json:"ordering"` // but its seconds, a time

	Workload struct {
		Jobs    int `json:"jobs"`
		Dropped *struct {
			Jobs      int    `json:"jobs"`
			Hosts     int    `json:"hosts"`
			FirstJob  int    `json:"first_job"`
			FirstHost string `json:"first_host"`
		} `json:"dropped_unknown_hosts"`
		Window *struct {
			From        string `json:"from"`
			To          string `json:"to"`
			Jobs        int    `json:"jobs"`
			HistoryJobs int    `json:"history_jobs"`
		} `json:"window"`
	} `json:"workload"`
}

func readPlanReport(t *testing.T, dir string) planReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r planReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	delete(r.Ordering, "seconds")
	return r
}

// TestPlanWindowIsTheHandCutHistory: procalloc plan --from/--to on a random
// history (dates in UTC, --tz UTC) plans what plan plans on the history cut to
// the window by hand (the records whose Submit is in [from, to)): the same
// recommendation, deployments' figures (metrics, by size, pending, waited) and
// ordering, and the same predicted nodes for every job (the line, submit,
// start and end columns left out: cutting renumbers the records and moves the
// history's start). Some histories name retired hosts: with
// --drop-unknown-hosts both plans drop the window's such jobs alike; without,
// a window holding one is refused naming the flag, and one holding none is
// planned (the records outside it are not refused). report.json and the text
// report say the window.
func TestPlanWindowIsTheHandCutHistory(t *testing.T) {
	dir := t.TempDir()
	conf := writeTemp(t, "slurm.conf", "NodeName=n[1-16] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n")
	base := []string{"--machine", "mesh:4x4", "--hostlist", "n[1-16]", "--slurm-conf", conf, "--time-limit", "0", "--slurm-version", "23.11", "--tz", "UTC"}
	rng := rand.New(rand.NewPCG(31, 7))
	rounds := 8
	if testing.Short() {
		rounds = 3
	}
	const f = "2006-01-02T15:04:05"
	compared, refused, dropped, outside := 0, 0, 0, 0
	for round := range rounds {
		// Rounds of three kinds: no retired host; retired hosts anywhere; a
		// retired host in the first and last jobs only, outside the window.
		jobs := windowHistory(rng, 30+rng.IntN(30), round%3 == 1)
		// A window of whole seconds between two jobs' submits, or open at one
		// end.
		a, b := rng.IntN(len(jobs)), rng.IntN(len(jobs))
		a, b = min(a, b), max(a, b)+1
		if round%3 == 2 {
			jobs[0].hosts[0], jobs[len(jobs)-1].hosts[0] = 17, 18
			a, b = 1+rng.IntN(len(jobs)/2), len(jobs)-1-rng.IntN(len(jobs)/3)
		}
		from := jobs[a].submit.Add(-time.Duration(rng.IntN(30)) * time.Second)
		to := time.Time{}
		if b < len(jobs) && (rng.IntN(4) > 0 || round%3 == 2) {
			to = jobs[b].submit.Add(-time.Duration(rng.IntN(30)) * time.Second)
		}
		var cut []windowJob
		for _, j := range jobs {
			if !j.submit.Before(from) && (to.IsZero() || j.submit.Before(to)) {
				cut = append(cut, j)
			}
		}
		if len(cut) == 0 {
			continue
		}
		full := writeWindowHistory(t, fmt.Sprintf("full%d.sacct", round), jobs)
		byHand := writeWindowHistory(t, fmt.Sprintf("cut%d.sacct", round), cut)
		window := []string{"--from", from.Format(f)}
		if !to.IsZero() {
			window = append(window, "--to", to.Format(f))
		}
		onRetired := func(j windowJob) bool { return slices.ContainsFunc(j.hosts, func(h int) bool { return h > 16 }) }
		retiredIn := slices.ContainsFunc(cut, onRetired)
		if !retiredIn && slices.ContainsFunc(jobs, onRetired) {
			outside++ // planned without --drop-unknown-hosts: only the window's records are checked
		}
		for _, drop := range [][]string{nil, {"--drop-unknown-hosts"}} {
			what := fmt.Sprintf("round %d %v %v", round, window, drop)
			outW, outH := filepath.Join(dir, fmt.Sprintf("w%d-%d", round, len(drop))), filepath.Join(dir, fmt.Sprintf("h%d-%d", round, len(drop)))
			args := slices.Concat([]string{"plan", "--trace", full, "-o", outW}, window, drop, base)
			code, stdout, stderr := runCLI(t, "", args...)
			if drop == nil && retiredIn {
				if code != 1 || !strings.Contains(stderr, "--drop-unknown-hosts") {
					t.Errorf("%s: a window naming retired hosts: exit %d, %s", what, code, stderr)
				}
				refused++
				continue
			}
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", what, code, stderr)
			}
			if code, _, stderr := runCLI(t, "", slices.Concat([]string{"plan", "--trace", byHand, "-o", outH}, drop, base)...); code != 0 {
				t.Fatalf("%s, by hand: exit %d: %s", what, code, stderr)
			}
			got, want := readPlanReport(t, outW), readPlanReport(t, outH)
			if compared++; got.Workload.Dropped != nil {
				dropped++
			}
			if w := got.Workload.Window; w == nil || w.Jobs != len(cut) || w.HistoryJobs != len(jobs) || w.From != from.Format(f) || (w.To != "") != !to.IsZero() {
				t.Errorf("%s: report.json's window %+v; want %d of %d jobs", what, w, len(cut), len(jobs))
			}
			if !strings.Contains(stdout, fmt.Sprintf("history window  --from %s", from.Format(f))) || !strings.Contains(stdout, fmt.Sprintf(", %d of its %d jobs", len(cut), len(jobs))) {
				t.Errorf("%s: the text report does not say the window:\n%s", what, stdout)
			}
			got.Workload.Window = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: plan with the window\n%s %+v\n%s\nplan of the history cut by hand\n%s %+v\n%s", what, got.Recommendation, got.Workload, got.Deployments, want.Recommendation, want.Workload, want.Deployments)
			}
			preds, err := filepath.Glob(filepath.Join(outH, "predictions", "*.csv"))
			if err != nil || len(preds) < 4 {
				t.Fatalf("%s: predictions %v (%v)", what, preds, err)
			}
			for _, p := range preds {
				w, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				g, err := os.ReadFile(filepath.Join(outW, "predictions", filepath.Base(p)))
				if err != nil {
					t.Fatal(err)
				}
				strip := func(csv string) string {
					for _, col := range []string{"line", "submit", "start", "end"} {
						csv = withoutColumn(t, csv, col)
					}
					return csv
				}
				if strip(string(g)) != strip(string(w)) {
					t.Errorf("%s: %s differs from the hand-cut history's:\n%s\nby hand:\n%s", what, filepath.Base(p), g, w)
				}
			}
		}
	}
	t.Logf("%d plans compared with the hand-cut history's (%d dropping jobs on retired hosts; %d windows of a history naming retired hosts outside them), %d windows naming retired hosts refused", compared, dropped, outside, refused)
	if compared < rounds || refused == 0 || dropped == 0 || outside == 0 {
		t.Errorf("the rounds did not cover every case: %d compared, %d dropped, %d refused", compared, dropped, refused)
	}
}

// TestPlanWindowErrors: a window plan refuses says why, in sim's words for
// the same flags (one reading of --from, --to and --tz), and plans nothing.
func TestPlanWindowErrors(t *testing.T) {
	dir := t.TempDir()
	conf := writeTemp(t, "slurm.conf", "NodeName=n[1-16] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n")
	hist := writeWindowHistory(t, "h.sacct", windowHistory(rand.New(rand.NewPCG(1, 2)), 20, false))
	swf := writeTemp(t, "h.swf", "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 10 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n")
	machine := []string{"--machine", "mesh:4x4", "--hostlist", "n[1-16]"}
	for _, c := range []struct {
		trace  string
		window []string
		code   int
		want   string
	}{
		{hist, []string{"--from", "bogus"}, 2, `--from: "bogus" is neither whole seconds from the trace's start nor a date YYYY-MM-DD[THH:MM:SS]`},
		{hist, []string{"--to", "-5"}, 2, "--to: -5: seconds from the trace's start cannot be negative"},
		{hist, []string{"--from", "100", "--to", "50"}, 2, "--to 50: the window must end after --from 100 (50 s <= 100 s from the trace's start)"},
		{hist, []string{"--to", "0"}, 2, "--to 0: the window must end after the trace's start"},
		{hist, []string{"--from", "2030-01-01"}, 1, "no job arrives in the window"},
		{hist, []string{"--from", "2025-03-09T02:30:00", "--tz", "America/New_York"}, 2, "does not exist in the trace's time zone America/New_York"},
		{hist, []string{"--from", "1", "--tz", "Mars/Base"}, 2, `--tz "Mars/Base": is not a time zone`},
		{swf, []string{"--from", "2025-03-01"}, 2, "a date needs the SWF header's UnixStartTime"},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := runCLI(t, "", slices.Concat([]string{"plan", "--trace", c.trace, "--slurm-conf", conf, "-o", out}, machine, c.window)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("plan %v: exit %d, %q; want exit %d saying %q", c.window, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("plan %v: %s written", c.window, out)
		}
		// sim reads the same flags the same way: the same words.
		_, _, simErr := runCLI(t, "", slices.Concat([]string{"sim", "--trace", c.trace, "--alloc", "mc1x1", "--slurm-conf", conf}, machine, c.window)...)
		if !strings.Contains(simErr, c.want) {
			t.Errorf("sim %v: %q, not plan's %q", c.window, simErr, c.want)
		}
	}
	if code, _, stderr := runCLI(t, "", slices.Concat([]string{"plan", "--slurm-conf", conf, "-o", filepath.Join(dir, "o2"), "--from", "5"}, machine)...); code != 2 || !strings.Contains(stderr, "give it with --trace FILE") {
		t.Errorf("--from without --trace: exit %d, %s", code, stderr)
	}
}
