package sim

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/topo"
)

// checked wraps an allocator and fails the test on any double allocation, lost node
// or foreign release.
type checked struct {
	alloc.Allocator
	t     *testing.T
	owner []int // 0 free, else allocation number
	seq   int
	busy  int
}

func (c *checked) Allocate(k int) ([]int, error) {
	nodes, err := c.Allocator.Allocate(k)
	if err != nil {
		return nil, err
	}
	c.seq++
	if len(nodes) != k {
		c.t.Fatalf("%s: %d nodes for k=%d", c.Name(), len(nodes), k)
	}
	for _, v := range nodes {
		if v < 0 || v >= len(c.owner) || c.owner[v] != 0 {
			c.t.Fatalf("%s: node %d allocated while busy or out of range", c.Name(), v)
		}
		c.owner[v] = c.seq
	}
	c.busy += k
	if c.NumFree() != len(c.owner)-c.busy {
		c.t.Fatalf("%s: NumFree %d, want %d", c.Name(), c.NumFree(), len(c.owner)-c.busy)
	}
	return nodes, nil
}

func (c *checked) Release(nodes []int) error {
	if len(nodes) == 0 {
		c.t.Fatalf("%s: empty release", c.Name())
	}
	o := c.owner[nodes[0]]
	for _, v := range nodes {
		if c.owner[v] == 0 || c.owner[v] != o {
			c.t.Fatalf("%s: release of node %d not owned by the job", c.Name(), v)
		}
		c.owner[v] = 0
	}
	c.busy -= len(nodes)
	return c.Allocator.Release(nodes)
}

func randomJobs(rng *rand.Rand, n, maxProcs int) []Job {
	jobs := make([]Job, n)
	t := int64(0)
	for i := range jobs {
		t += int64(rng.IntN(40))
		p := 1 + rng.IntN(maxProcs)
		if rng.IntN(4) == 0 {
			p = 1 + rng.IntN(3)
		}
		rt := int64(rng.IntN(200))
		est := rt + int64(rng.IntN(100))
		if rng.IntN(5) == 0 {
			est = -1
		}
		jobs[i] = Job{ID: i + 1, Arrival: t, Procs: p, Runtime: rt, Estimate: est}
	}
	return jobs
}

// TestReplayInvariants replays random traces with every allocator family and
// scheduler: no node is ever double-allocated or lost, and every job runs for its
// run time after it arrives.
func TestReplayInvariants(t *testing.T) {
	machines := []*topo.Grid{topo.Mesh(6, 6), topo.Torus(4, 4, 2), topo.Mesh(8, 4)}
	specs := []string{"mc1x1", "mc1x1:tb=2,13,20,6", "mc1x1-greedy", "mm", "genalg", "mminc", "bf:snake", "ff:snake", "freelist:snake", "sos:snake", "mbs"}
	njobs := 150
	if testing.Short() {
		njobs = 50
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, g := range machines {
		jobs := randomJobs(rng, njobs, g.N())
		for _, spec := range specs {
			for _, sched := range startScheds() {
				for _, compat := range []alloc.Compat{alloc.CompatPReMAS, alloc.CompatSST} {
					a, err := alloc.Parse(spec, g, alloc.Options{Compat: compat})
					if err != nil {
						if strings.Contains(err.Error(), "unknown allocator") {
							t.Logf("skipping %s on %s: %v", spec, g.Spec(), err)
							continue
						}
						t.Fatal(err)
					}
					c := &checked{Allocator: a, t: t, owner: make([]int, g.N())}
					r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: c, Sched: Sched(sched), Compat: compat})
					if err != nil {
						t.Fatalf("%s %s %s: %v", g.Spec(), spec, sched, err)
					}
					if c.busy != 0 || c.seq != len(jobs) {
						t.Fatalf("%s %s: %d busy after the replay, %d allocations", spec, sched, c.busy, c.seq)
					}
					for i, j := range r.PerJob {
						if j.Start < j.Arrival || j.End-j.Start != j.Runtime || len(j.Nodes) != j.Procs {
							t.Fatalf("%s %s: job %d: %+v", spec, sched, i, j)
						}
						if j.Procs == 1 && (j.TotalL1 != 0 || j.Components != 1) {
							t.Fatalf("%s: 1-node job with L1 %d, %d components", spec, j.TotalL1, j.Components)
						}
					}
					if sched == "fcfs" {
						for i := 1; i < len(r.PerJob); i++ {
							if r.PerJob[i].Start < r.PerJob[i-1].Start {
								t.Fatalf("%s fcfs: job %d started before job %d", spec, i+1, i)
							}
						}
					}
					if r.Utilization <= 0 || r.Utilization > 1 {
						t.Fatalf("%s %s: utilization %v", spec, sched, r.Utilization)
					}
				}
			}
		}
	}
}

// TestEASYBackfill checks the backfilling rule on a hand-made trace (4 nodes).
func TestEASYBackfill(t *testing.T) {
	g := topo.Mesh(2, 2)
	jobs := []Job{
		{ID: 1, Arrival: 0, Procs: 3, Runtime: 10, Estimate: 10},
		{ID: 2, Arrival: 1, Procs: 4, Runtime: 5, Estimate: 5},   // head: reserved at 10
		{ID: 3, Arrival: 2, Procs: 1, Runtime: 20, Estimate: 20}, // would delay job 2: waits
		{ID: 4, Arrival: 3, Procs: 1, Runtime: 5, Estimate: 7},   // ends by 10: backfills
	}
	starts := map[string][]int64{
		"fcfs":   {0, 10, 15, 15},
		"easy":   {0, 10, 15, 3},
		"cplant": {0, 22, 2, 10}, // sorted by size: 3 starts at 2 (fits), then 4, then 2
	}
	for sched, want := range starts {
		a, _ := alloc.Parse("mc1x1", g, alloc.Options{})
		r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: Sched(sched)})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, j := range r.PerJob {
			got = append(got, j.Start)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: starts %v, want %v", sched, got, want)
		}
	}
}

// TestEventOrder: departures before arrivals at equal times, zero-length jobs.
func TestEventOrder(t *testing.T) {
	g := topo.Mesh(2, 2)
	jobs := []Job{
		{Arrival: 0, Procs: 4, Runtime: 5},
		{Arrival: 5, Procs: 4, Runtime: 0}, // arrives as job 1 leaves: starts at 5
		{Arrival: 5, Procs: 4, Runtime: 3}, // starts after the zero-length job, at 5
	}
	a, _ := alloc.Parse("mc1x1", g, alloc.Options{})
	r, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: "fcfs"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{0, 5, 5} {
		if r.PerJob[i].Start != want {
			t.Errorf("job %d starts at %d, want %d", i+1, r.PerJob[i].Start, want)
		}
	}
	if r.Makespan != 8 {
		t.Errorf("makespan %d, want 8", r.Makespan)
	}
}

func TestJobTooLarge(t *testing.T) {
	g := topo.Mesh(2, 2)
	a, _ := alloc.Parse("mc1x1", g, alloc.Options{})
	_, err := Run(context.Background(), []Job{{ID: 7, Line: 9, Procs: 5, Runtime: 1}}, Config{Machine: g, Alloc: a})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "job 7") {
		t.Fatalf("got %v, want an error naming job 7", err)
	}
}

func TestMetrics(t *testing.T) {
	g := topo.Mesh(4, 4)
	m, _ := newMeter(context.Background(), g, alloc.CompatPReMAS, nil, true)
	// Nodes (0,0), (1,0), (3,3): pairwise L1 1 + 6 + 5 = 12; box 4x4; 2 components.
	r := &JobResult{Job: Job{Procs: 3}, Nodes: []int{0, 1, 15}}
	m.measure(r)
	if r.TotalL1 != 12 || r.BoxVolume != 16 || r.BoxSides != 8 || r.Components != 2 || r.Span != 16 || r.RingSpan != 3 {
		t.Errorf("got %+v", r)
	}
	if r.AvgL1 != 4 {
		t.Errorf("average %v, want 4", r.AvgL1)
	}
	tor := topo.Torus(4, 4)
	m, _ = newMeter(context.Background(), tor, alloc.CompatSST, nil, true)
	r = &JobResult{Job: Job{Procs: 2}, Nodes: []int{0, 15}} // (0,0) and (3,3): 2 hops around
	m.measure(r)
	if r.TotalL1 != 2 || r.BoxVolume != 4 || r.Components != 2 {
		t.Errorf("torus: got %+v", r)
	}
	r = &JobResult{Job: Job{Procs: 2}, Nodes: []int{0, 3}} // (0,0) and (3,0): neighbours
	m.measure(r)
	if r.TotalL1 != 1 || r.BoxVolume != 2 || r.Components != 1 {
		t.Errorf("torus: got %+v", r)
	}
}

const swfSample = `; Version: 2.2
; MaxNodes: 64 (of which 8 are service)
; MaxProcs: 128
    1   10  5   100   4  -1 -1  4  200 -1  1 1 1 -1 -1 -1 -1 -1
    2   20  5    -1   8  50.4 -1  8  -1 -1  0 1 1 -1 -1 -1 -1 -1
    3   30  5     0   0  -1 -1  4  200 -1  1 1 1 -1 -1 -1 -1 -1
    4   40  5     0   2  -1 -1  2  200 -1  5 1 1 -1 -1 -1 -1 -1
    5   50  5    7.6  2  -1 -1  2  200 -1  5 1 1 -1 -1 -1 -1 -1
    6   60  5    9    2  -1 -1  2  200 -1  3 1 1 -1 -1 -1 -1 -1
`

func TestReadSWF(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(swfSample))
	zw.Close()
	for _, in := range [][]byte{[]byte(swfSample), gz.Bytes()} {
		tr, err := ReadTrace(bytes.NewReader(in), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []Job{
			{ID: 1, Line: 4, Arrival: 10, Procs: 4, Runtime: 100, Estimate: 200},
			{ID: 2, Line: 5, Arrival: 20, Procs: 8, Runtime: 50, Estimate: -1},
			{ID: 5, Line: 8, Arrival: 50, Procs: 2, Runtime: 8, Estimate: 200},
		}
		if tr.Format != "swf" || tr.MaxProcs != 128 || tr.Filtered != 3 || !reflect.DeepEqual(tr.Jobs, want) {
			t.Errorf("got %+v", tr)
		}
	}
}

func TestReadErrors(t *testing.T) {
	cases := map[string]string{
		"0 4 10 -1\n5 x 10 -1\n":   "line 2",
		"0 4 10 -1\n5 0 10 -1\n":   "line 2",
		"0 4 10\n":                 "line 1",
		"0 4 10 -1\n5 4 10 -1 7\n": "line 2",
		"0 4 -3 -1\n":              "line 1",
	}
	for in, want := range cases {
		_, err := ReadTrace(strings.NewReader(in), ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error at %s", in, err, want)
		}
	}
	tr, err := ReadTrace(strings.NewReader("0 4 10 -1\n5 x 10 -1\n6 2 1 1\n"), ReadOptions{SkipBad: true})
	if err != nil || tr.Bad != 1 || len(tr.Jobs) != 2 || tr.Jobs[1].Line != 3 {
		t.Errorf("skip-bad: %+v %v", tr, err)
	}
}

func TestScale(t *testing.T) {
	jobs := []Job{{ID: 1, Arrival: 0, Procs: 2, Runtime: 10, Estimate: 20}, {ID: 2, Arrival: 100, Procs: 3, Runtime: 5, Estimate: -1}}
	out, err := Scale{Work: 2, Contract: 0.5}.Apply(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Runtime != 20 || out[0].Estimate != 40 || out[1].Arrival != 50 || out[1].Estimate != -1 || jobs[0].Runtime != 10 {
		t.Errorf("work/contract: %+v", out)
	}
	out, _ = Scale{Replicate: 3, Seed: 1}.Apply(jobs)
	if len(out) != 6 {
		t.Fatalf("replicate: %d jobs", len(out))
	}
	for i := 1; i < len(out); i++ {
		if out[i].Arrival < out[i-1].Arrival || out[i].ID != i+1 {
			t.Fatalf("replicate: not sorted/renumbered: %+v", out)
		}
	}
	again, _ := Scale{Replicate: 3, Seed: 1}.Apply(jobs)
	if !reflect.DeepEqual(out, again) {
		t.Errorf("replication is not deterministic")
	}
}

func FuzzReadTrace(f *testing.F) {
	f.Add([]byte(swfSample))
	f.Add([]byte("0 4 10 -1\n5 2 3 100\n"))
	f.Add([]byte("; MaxProcs: 5\n\n"))
	f.Add([]byte("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n"))
	f.Add([]byte("0 1e3 10 -1\n"))
	f.Add([]byte("\ufeff" + swfSample)) // TestReadTraceByteOrderMark
	if sacct, err := os.ReadFile("testdata/sacct-fattree.txt"); err == nil {
		f.Add(sacct)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTrace(bytes.NewReader(data), ReadOptions{})
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && pe.Line < 1 {
				t.Fatalf("parse error without a line: %v", err)
			}
			return
		}
		for _, j := range tr.Jobs {
			if j.Procs < 1 || j.Runtime < 0 || j.Arrival < 0 || j.Estimate < -1 ||
				j.Runtime > maxTraceValue || j.Arrival > maxTraceValue || j.Estimate > maxTraceValue || j.Started > maxTraceValue {
				t.Fatalf("invalid job accepted: %+v", j)
			}
		}
		var buf bytes.Buffer
		if err := WriteConverted(&buf, tr.Jobs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTrace(&buf, ReadOptions{Format: "converted"})
		if err != nil {
			t.Fatalf("converted output does not read back: %v\n%s", err, buf.String())
		}
		if len(back.Jobs) != len(tr.Jobs) {
			t.Fatalf("round trip: %d jobs, want %d", len(back.Jobs), len(tr.Jobs))
		}
		for i, j := range back.Jobs {
			o := tr.Jobs[i]
			if j.Arrival != o.Arrival || j.Procs != o.Procs || j.Runtime != o.Runtime || j.Estimate != o.Estimate {
				t.Fatalf("round trip: %+v != %+v", j, o)
			}
		}
	})
}

var _ = fmt.Sprint

func TestGzipDamageIsReportedAsSuch(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := range 5000 {
		fmt.Fprintf(zw, "%d 4 100 200\n", i*10)
	}
	zw.Close()
	full := buf.Bytes()
	if tr, err := ReadTrace(bytes.NewReader(full), ReadOptions{}); err != nil || len(tr.Jobs) != 5000 {
		t.Fatalf("whole file: %v", err)
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{full[:len(full)/2], "truncated: it ends after line"},
		{full[:len(full)-4], "truncated"},
		{full[:5], "ends inside its header"},
		{append([]byte{0x1f, 0x8b, 0x99}, full[3:]...), "bad header"},
	} {
		for _, skip := range []bool{false, true} {
			_, err := ReadTrace(bytes.NewReader(tc.data), ReadOptions{SkipBad: skip})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%d bytes (skip-bad %v): err = %v, want %q", len(tc.data), skip, err, tc.want)
			}
		}
	}
}

// decisionGapAlloc records the most allocation decisions made between two looks
// at its context.
type decisionGapAlloc struct {
	alloc.Allocator
	ctx        *ctxtest.Counting
	lastPoll   int
	sincePoll  int
	maxBetween int
}

func (a *decisionGapAlloc) Allocate(k int) ([]int, error) {
	if looks := int(a.ctx.Looks()); looks != a.lastPoll {
		a.lastPoll, a.sincePoll = looks, 0
	}
	a.sincePoll++
	a.maxBetween = max(a.maxBetween, a.sincePoll)
	return a.Allocator.Allocate(k)
}

// A replay looks at its context before every allocation decision: one decision
// takes tens of milliseconds at 2 x 10^5 nodes (mc1x1 on mesh:448x448, ties
// counted, 80 ms on average), and the replay looked once per 1,024 finished jobs,
// so Ctrl-C during sim on such a machine waited for the watchdog.
func TestRunLooksAtContextEveryDecision(t *testing.T) {
	g := topo.Mesh(8, 8)
	jobs := randomJobs(rand.New(rand.NewPCG(5, 6)), 300, g.N())
	for _, sched := range startScheds() {
		a, err := alloc.Parse("ff:snake", g, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := ctxtest.NewCounting()
		da := &decisionGapAlloc{Allocator: a, ctx: ctx}
		if _, err := Run(ctx, jobs, Config{Machine: g, Alloc: da, Sched: Sched(sched)}); err != nil {
			t.Fatalf("%s: %v", sched, err)
		}
		if da.maxBetween > 1 {
			t.Errorf("%s: up to %d decisions between two looks at the context (%d looks), want 1", sched, da.maxBetween, ctx.Looks())
		}
	}
}

// Progress sees every finished job, not one call in 1,024: a replay whose
// decisions take seconds each (opt, genalg on a network) showed no progress
// until a thousand jobs had finished. Jobs here end at distinct times, so every
// count from 0 to the total is reported, in order, each once.
func TestProgressSeesEveryJob(t *testing.T) {
	g := topo.Mesh(4, 4)
	var jobs []Job
	for i := range 40 {
		jobs = append(jobs, Job{ID: i + 1, Arrival: int64(3 * i), Procs: 1 + i%5, Runtime: int64(2 + i%7)})
	}
	a, _ := alloc.Parse("ff:hilbert", g, alloc.Options{})
	var seen []int
	_, err := Run(context.Background(), jobs, Config{Machine: g, Alloc: a, Sched: "fcfs",
		Progress: func(done, total int) {
			if total != len(jobs) {
				t.Fatalf("total %d, want %d", total, len(jobs))
			}
			seen = append(seen, done)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(jobs)+1 {
		t.Fatalf("calls %v: want every count from 0 to %d once", seen, len(jobs))
	}
	for i, d := range seen {
		if d != i {
			t.Fatalf("call %d reported %d jobs (calls %v): want every count once, in order", i, d, seen)
		}
	}
}

// A replay that keeps no records (NoPerJob, no JobDone) holds a JobResult for
// the queued and running jobs only: the jobs that finished while an earlier one
// still waited or ran are held as what the summary reads (foldRec) until that one
// finishes. Job 0 runs for 10^6 s and job 1, which needs the whole machine, waits
// for it, while 3,000 short jobs start and finish around them: the most records
// held at once is the most jobs queued or running at once (a handful), not the
// jobs since job 0 (every one of them). The summary is the kept replay's.
func TestStreamedRecordsFollowTheQueue(t *testing.T) {
	g := topo.Mesh(4, 4)
	rng := rand.New(rand.NewPCG(24, 12))
	jobs := []Job{
		{ID: 1, Arrival: 0, Procs: 1, Runtime: 1_000_000, Estimate: 1_000_000},
		{ID: 2, Arrival: 10, Procs: 16, Runtime: 100, Estimate: 100},
	}
	for i := range 3000 {
		run := int64(10 + rng.IntN(40))
		jobs = append(jobs, Job{ID: 3 + i, Arrival: 100 + 30*int64(i), Procs: 1 + rng.IntN(4), Runtime: run, Estimate: 2 * run})
	}
	for _, sched := range []Sched{SchedEASY, SchedCplant} {
		cfg := func(noPerJob bool, peak *int) Config {
			a, err := alloc.Parse("mc1x1", g, alloc.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return Config{Machine: g, Alloc: a, Sched: sched, Metrics: MetricsAll, NoPerJob: noPerJob, DropNodes: noPerJob, heldPeak: peak}
		}
		kept, err := Run(context.Background(), jobs, cfg(false, nil))
		if err != nil {
			t.Fatal(err)
		}
		// The most jobs arrived and not finished at once (departures before
		// arrivals at one time, as the replay takes them).
		type ev struct {
			t     int64
			delta int
		}
		var evs []ev
		for _, r := range kept.PerJob {
			evs = append(evs, ev{r.Arrival, 1}, ev{r.End, -1})
		}
		slices.SortFunc(evs, func(a, b ev) int {
			if a.t != b.t {
				return int(a.t - b.t)
			}
			return a.delta - b.delta
		})
		live, maxLive := 0, 0
		for _, e := range evs {
			live += e.delta
			maxLive = max(maxLive, live)
		}
		if w := kept.PerJob[1].Wait(); w < 900_000 {
			t.Fatalf("%s: job 1 waited %d s; the test needs it to wait for job 0", sched, w)
		}
		if maxLive > 20 {
			t.Fatalf("%s: %d jobs queued or running at once; the test needs a short queue", sched, maxLive)
		}
		var peak int
		stream, err := Run(context.Background(), jobs, cfg(true, &peak))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: job 1 waited %d s; %d jobs queued or running at most, %d records held at most", sched, kept.PerJob[1].Wait(), maxLive, peak)
		if peak > maxLive {
			t.Errorf("%s: %d job records held at once, want at most the %d jobs queued or running at once (not the %d jobs)", sched, peak, maxLive, len(jobs))
		}
		kept.PerJob = nil
		a, _ := json.Marshal(stream)
		b, _ := json.Marshal(kept)
		if string(a) != string(b) {
			t.Fatalf("%s: streamed summary differs from the kept one:\n%s\n%s", sched, a, b)
		}
		// With JobDone the records wait whole (JobDone sees them in trace
		// order): every job since job 0's.
		c := cfg(true, &peak)
		c.JobDone = func(*JobResult) error { return nil }
		if _, err := Run(context.Background(), jobs, c); err != nil {
			t.Fatal(err)
		}
		if peak < len(jobs)-10 {
			t.Errorf("%s with JobDone: %d records held at once, want about the %d jobs behind job 0", sched, peak, len(jobs))
		}
	}
}

// A replay that keeps no records nor calls JobDone folds each job into a foldRec
// when it finishes: its summary, with every metric (the compactness on a 2^4 x 2^4
// mesh under MBS, the route and distance metrics) and with the scheduling ones, replicas
// generated as the replay goes, is the one of the replay that keeps every record.
func TestFoldedStreamIsTheKeptOne(t *testing.T) {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"mesh:16x16", "mbs"}, {"fattree:4,4:4,4:8", "bf:rcm"}} {
		for i, sched := range []Sched{SchedFCFS, SchedEASY, SchedCplant, SchedCplant} {
			metrics := MetricsAll
			if i == 3 {
				metrics = MetricsSched // every foldExtra zero
			}
			s := DefaultSpec()
			s.Trace, s.TraceData, s.MachineSpec, s.Alloc, s.Sched = "kth", &Trace{Jobs: tr.Jobs[:1500]}, c[0], c[1], sched
			s.Metrics, s.Scale.Replicate = metrics, 3
			stream, _ := streamedIsKept(t, &s, fmt.Sprintf("%s %s %s", c[0], c[1], sched))
			if stream.Jobs != 4500 || (stream.RouteSummary == nil) != (i == 3) || (stream.PairwiseL1 == nil) != (i == 3) || (c[1] == "mbs" && i != 3) != (stream.Compactness != nil) {
				t.Fatalf("%s %s %s: %d jobs, route %v, distances %v, compactness %v", c[0], c[1], sched, stream.Jobs, stream.RouteSummary, stream.PairwiseL1, stream.Compactness)
			}
		}
	}
}
