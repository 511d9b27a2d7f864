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

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/sim"
)

// unknownHostsHistory is a random sacct history on the hosts n1..n16, some jobs
// naming hosts n17..n24 that the machine (and slurm.conf) lacks. Jobs run one
// after another (no two at once, so that as-run replays any subset of them);
// the first job names known hosts only, so that the earliest Submit, which
// arrivals count from, is the same with the unknown-host jobs removed.
type unknownHostsJob struct {
	id    int
	hosts []int
	start time.Time
}

func unknownHostsHistory(rng *rand.Rand, n int) []unknownHostsJob {
	t0 := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	jobs := make([]unknownHostsJob, n)
	for i := range jobs {
		k := 1 + rng.IntN(4)
		set := map[int]bool{}
		for len(set) < k {
			h := 1 + rng.IntN(16)
			if i > 0 && rng.IntN(6) == 0 {
				h = 17 + rng.IntN(8) // retired
			}
			set[h] = true
		}
		hosts := slices.Sorted(func(yield func(int) bool) {
			for h := range set {
				if !yield(h) {
					return
				}
			}
		})
		jobs[i] = unknownHostsJob{id: 100 + i, hosts: hosts, start: t0.Add(time.Duration(i) * 100 * time.Second)}
	}
	return jobs
}

func unknownHostsKnown(j unknownHostsJob) bool {
	for _, h := range j.hosts {
		if h > 16 {
			return false
		}
	}
	return true
}

func writeUnknownHostsHistory(t *testing.T, name string, jobs []unknownHostsJob) string {
	var b strings.Builder
	b.WriteString("JobIDRaw|Submit|Start|End|NNodes|State|NodeList\n")
	for _, j := range jobs {
		names := make([]string, len(j.hosts))
		for i, h := range j.hosts {
			names[i] = "n" + strconv.Itoa(h)
		}
		f := "2006-01-02T15:04:05"
		fmt.Fprintf(&b, "%d|%s|%s|%s|%d|COMPLETED|%s\n", j.id, j.start.Format(f), j.start.Format(f), j.start.Add(50*time.Second).Format(f), len(j.hosts), strings.Join(names, ","))
	}
	return writeTemp(t, name, b.String())
}

// withoutColumn returns a CSV with the column named col removed (the record
// line, which removing records by hand changes for the records after).
func withoutColumn(t *testing.T, csv, col string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	at := slices.Index(strings.Split(lines[0], ","), col)
	if at < 0 {
		t.Fatalf("no column %s in %q", col, lines[0])
	}
	for i, l := range lines {
		f := strings.Split(l, ",")
		lines[i] = strings.Join(slices.Delete(f, at, at+1), ",")
	}
	return strings.Join(lines, "\n")
}

func csvIDs(t *testing.T, csv string, col string) []int {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	at := slices.Index(strings.Split(lines[0], ","), col)
	var ids []int
	for _, l := range lines[1:] {
		id, err := strconv.Atoi(strings.Split(l, ",")[at])
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// The jobs --drop-unknown-hosts drops (sim and plan) are those a brute-force
// filter of the history drops (a job naming any host beyond n16), counted
// with the distinct hosts they name and the first of them (lowest line); the
// kept jobs' predictions (sim's --per-job, plan's predictions) are those of the
// history with the dropped jobs removed by hand, but for the record line
// column; without the flag the history is refused, naming the flag.
func TestDropUnknownHostsMatchesBruteForce(t *testing.T) {
	dir := t.TempDir()
	conf := writeTemp(t, "slurm.conf", "NodeName=n[1-16] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n")
	machine := []string{"--machine", "mesh:4x4", "--hostlist", "n[1-16]"}
	rng := rand.New(rand.NewPCG(7, 30))
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		jobs := unknownHostsHistory(rng, 5+rng.IntN(20))
		var kept, dropped []unknownHostsJob
		unknown := map[int]bool{}
		for _, j := range jobs {
			if unknownHostsKnown(j) {
				kept = append(kept, j)
				continue
			}
			dropped = append(dropped, j)
			for _, h := range j.hosts {
				if h > 16 {
					unknown[h] = true
				}
			}
		}
		full := writeUnknownHostsHistory(t, fmt.Sprintf("full%d.sacct", round), jobs)
		byHand := writeUnknownHostsHistory(t, fmt.Sprintf("kept%d.sacct", round), kept)
		var keptIDs []int
		for _, j := range kept {
			keptIDs = append(keptIDs, j.id)
		}
		wantNote := ""
		if len(dropped) > 0 {
			first := dropped[0] // the lowest line: records are written in job order
			firstHost := 0
			for _, h := range first.hosts {
				if h > 16 {
					firstHost = h
					break
				}
			}
			line := 2 + slices.IndexFunc(jobs, func(j unknownHostsJob) bool { return j.id == first.id })
			wantNote = fmt.Sprintf("dropped %s naming %s %%s lacks (first: job %d line %d host n%d)", textin.CountNoun(len(dropped), "job"), textin.CountNoun(len(unknown), "host"), first.id, line, firstHost)
		}

		// sim, as-run: the whole history; and with --slurm-conf and a random
		// window (mc1x1, EASY), the window's jobs.
		span := 100 * len(jobs) // seconds from the first arrival past the last
		from := rng.IntN(span / 2)
		for _, window := range [][]string{nil, {"--from", strconv.Itoa(from), "--to", strconv.Itoa(from + 1 + rng.IntN(span))}} {
			args := append(slices.Clone(machine), "--tz", "UTC")
			if window == nil {
				args = append(args, "--alloc", "as-run", "--sched", "as-run")
			} else {
				args = append(append(args, "--alloc", "mc1x1", "--slurm-conf", conf), window...)
			}
			inWindow := func(j unknownHostsJob) bool {
				if window == nil {
					return true
				}
				from, _ := strconv.Atoi(window[1])
				to, _ := strconv.Atoi(window[3])
				a := int(j.start.Sub(jobs[0].start).Seconds())
				return a >= from && a < to
			}
			var wantKept []int
			wantDropped := 0
			for _, j := range jobs {
				switch {
				case !inWindow(j):
				case unknownHostsKnown(j):
					wantKept = append(wantKept, j.id)
				default:
					wantDropped++
				}
			}
			pj := filepath.Join(dir, fmt.Sprintf("pj%d.csv", round))
			code, stdout, stderr := runCLI(t, "", append([]string{"sim", "--trace", full, "--drop-unknown-hosts", "--json", "--per-job", pj}, args...)...)
			if len(wantKept) == 0 {
				if code != 1 || !strings.Contains(stderr, "no job left to replay") && !strings.Contains(stderr, "no job arrives in the window") {
					t.Errorf("round %d sim %v: every job dropped: exit %d, %s", round, window, code, stderr)
				}
				continue
			}
			if code != 0 {
				t.Fatalf("round %d sim %v: exit %d: %s", round, window, code, stderr)
			}
			var out struct {
				Dropped int `json:"dropped_unknown_hosts"`
				Hosts   int `json:"unknown_hosts"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(pj)
			if err != nil {
				t.Fatal(err)
			}
			got := csvIDs(t, string(b), "id")
			if out.Dropped != wantDropped || !slices.Equal(got, wantKept) {
				t.Errorf("round %d sim %v: dropped %d, replayed %v; brute force: dropped %d, kept %v", round, window, out.Dropped, got, wantDropped, wantKept)
			}
			if window == nil && wantNote != "" && !strings.Contains(stderr, fmt.Sprintf(wantNote, "mesh:4x4")) {
				t.Errorf("round %d sim: stderr %q lacks %q", round, stderr, fmt.Sprintf(wantNote, "mesh:4x4"))
			}
			if window == nil {
				// The same per-job rows as the history with the jobs removed by hand.
				pj2 := filepath.Join(dir, fmt.Sprintf("pjhand%d.csv", round))
				if code, _, stderr := runCLI(t, "", append([]string{"sim", "--trace", byHand, "--per-job", pj2}, args...)...); code != 0 {
					t.Fatalf("round %d sim by hand: exit %d: %s", round, code, stderr)
				}
				b2, err := os.ReadFile(pj2)
				if err != nil {
					t.Fatal(err)
				}
				if withoutColumn(t, string(b), "line") != withoutColumn(t, string(b2), "line") {
					t.Errorf("round %d sim: per-job rows differ from the history with the jobs removed by hand:\n%s\n--\n%s", round, b, b2)
				}
				if len(dropped) > 0 {
					// Without the flag: refused, the flag named.
					code, _, stderr := runCLI(t, "", append([]string{"sim", "--trace", full}, args...)...)
					if code != 1 || !strings.Contains(stderr, "--drop-unknown-hosts") {
						t.Errorf("round %d sim without the flag: exit %d, %s", round, code, stderr)
					}
				}
			}
		}

		// plan: the same set, the report's count and the recommendation's
		// words, the predictions of the history removed by hand.
		outFlag := filepath.Join(dir, fmt.Sprintf("plan%d", round))
		args := append(slices.Clone(machine), "--slurm-conf", conf, "--time-limit", "0", "--slurm-version", "23.11")
		code, _, stderr := runCLI(t, "", append([]string{"plan", "--trace", full, "--drop-unknown-hosts", "-o", outFlag}, args...)...)
		if code != 0 {
			t.Fatalf("round %d plan: exit %d: %s", round, code, stderr)
		}
		var rep struct {
			Recommendation string `json:"recommendation"`
			Workload       struct {
				Jobs    int `json:"jobs"`
				Dropped *struct {
					Jobs  int `json:"jobs"`
					Hosts int `json:"hosts"`
				} `json:"dropped_unknown_hosts"`
			} `json:"workload"`
		}
		b, err := os.ReadFile(filepath.Join(outFlag, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		gotDropped, gotHosts := 0, 0
		if d := rep.Workload.Dropped; d != nil {
			gotDropped, gotHosts = d.Jobs, d.Hosts
		}
		if rep.Workload.Jobs != len(kept) || gotDropped != len(dropped) || gotHosts != len(unknown) {
			t.Errorf("round %d plan: %d jobs kept, %d dropped naming %d hosts; brute force %d, %d, %d", round, rep.Workload.Jobs, gotDropped, gotHosts, len(kept), len(dropped), len(unknown))
		}
		if len(dropped) > 0 {
			if note := fmt.Sprintf(wantNote, "slurm.conf"); !strings.Contains(stderr, "procalloc plan: "+note) {
				t.Errorf("round %d plan: stderr %q lacks %q", round, stderr, note)
			}
			if !strings.Contains(rep.Recommendation, fmt.Sprintf("on the %s of the history kept", textin.CountNoun(len(kept), "job"))) {
				t.Errorf("round %d plan: recommendation %q does not say it rests on the %d jobs kept", round, rep.Recommendation, len(kept))
			}
			if code, _, stderr := runCLI(t, "", append([]string{"plan", "--trace", full, "-o", filepath.Join(dir, "refused")}, args...)...); code != 1 || !strings.Contains(stderr, "--drop-unknown-hosts") {
				t.Errorf("round %d plan without the flag: exit %d, %s", round, code, stderr)
			}
		}
		outHand := filepath.Join(dir, fmt.Sprintf("planhand%d", round))
		if code, _, stderr := runCLI(t, "", append([]string{"plan", "--trace", byHand, "-o", outHand}, args...)...); code != 0 {
			t.Fatalf("round %d plan by hand: exit %d: %s", round, code, stderr)
		}
		preds, err := filepath.Glob(filepath.Join(outHand, "predictions", "*.csv"))
		if err != nil || len(preds) == 0 {
			t.Fatalf("round %d plan: no predictions (%v)", round, err)
		}
		for _, p := range preds {
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(outFlag, "predictions", filepath.Base(p)))
			if err != nil {
				t.Fatal(err)
			}
			if ids := csvIDs(t, string(got), "job_id"); !slices.Equal(ids, keptIDs) {
				t.Errorf("round %d plan %s: jobs %v, brute force kept %v", round, filepath.Base(p), ids, keptIDs)
			}
			if withoutColumn(t, string(got), "line") != withoutColumn(t, string(want), "line") {
				t.Errorf("round %d plan %s differs from the history with the jobs removed by hand", round, filepath.Base(p))
			}
		}
	}
}

// TestCompareDropsUnknownHostsWhereverAsRunIs: compare reads the trace once for
// every allocator, as the as-run replay needs it when one of them is as-run,
// whatever its place in --alloc: with as-run second (bf:rcm,as-run) the flag was
// ignored and the as-run replay failed at the first retired host. Without
// --drop-unknown-hosts the history is refused at the record naming node17, the
// flag named; with it the jobs naming hosts the machine lacks are dropped and
// counted, and both orders give the same replays (the columns swapped). sim with an
// allocator that reads no recorded nodes warns that the flag does nothing.
func TestCompareDropsUnknownHostsWhereverAsRunIs(t *testing.T) {
	args := []string{"--graph", "../../topo/testdata/topology.conf", "--trace", "../../sim/testdata/sacct-fattree-retired.txt", "--sched", "as-run"}
	runs := map[string][]sim.Summary{}
	for _, order := range []string{"bf:rcm,as-run", "as-run,bf:rcm"} {
		code, _, stderr := runCLI(t, "", append([]string{"compare", "--alloc", order}, args...)...)
		if code != 1 || !strings.Contains(stderr, `line 16: job 1011: recorded node "node17" is not a host`) || !strings.Contains(stderr, "--drop-unknown-hosts replays the history without") {
			t.Errorf("%s without --drop-unknown-hosts: exit %d, stderr %q; want the record naming node17 refused and the flag named", order, code, stderr)
		}
		code, out, stderr := runCLI(t, "", append([]string{"compare", "--alloc", order, "--drop-unknown-hosts", "--json"}, args...)...)
		if code != 0 || !strings.Contains(stderr, "dropped 2 jobs naming 3 hosts") {
			t.Fatalf("%s --drop-unknown-hosts: exit %d, stderr %q", order, code, stderr)
		}
		var rep struct {
			Dropped int           `json:"dropped_unknown_hosts"`
			Runs    []sim.Summary `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Dropped != 2 || len(rep.Runs) != 2 {
			t.Fatalf("%s: %v, dropped %d, %d runs", order, err, rep.Dropped, len(rep.Runs))
		}
		runs[order] = rep.Runs
	}
	a, b := runs["bf:rcm,as-run"], runs["as-run,bf:rcm"]
	for i := range a {
		a[i].Seconds, b[1-i].Seconds = 0, 0
		a[i].AllocTime, b[1-i].AllocTime = nil, nil
		if !reflect.DeepEqual(a[i], b[1-i]) {
			t.Errorf("%s: %+v in one order, %+v in the other", a[i].Alloc, a[i], b[1-i])
		}
	}
	code, _, stderr := runCLI(t, "", append([]string{"sim", "--alloc", "bf:rcm", "--drop-unknown-hosts"}, args[:4]...)...)
	if code != 0 || !strings.Contains(stderr, "--drop-unknown-hosts is ignored: only an as-run allocator and --slurm-conf") {
		t.Errorf("sim bf:rcm --drop-unknown-hosts: exit %d, stderr %q; want the flag said to be ignored", code, stderr)
	}
	code, _, stderr = runCLI(t, "", append([]string{"sim", "--alloc", "as-run", "--drop-unknown-hosts"}, args...)...)
	if code != 0 || strings.Contains(stderr, "is ignored") || !strings.Contains(stderr, "dropped 2 jobs") {
		t.Errorf("sim as-run --drop-unknown-hosts: exit %d, stderr %q", code, stderr)
	}
}
