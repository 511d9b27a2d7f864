package sim

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/netsim"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

func sampleFabric(t testing.TB) *topo.Graph {
	t.Helper()
	f, err := os.Open("../topo/testdata/topology.conf")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := slurm.ReadTopologyConf(f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestReadSacct(t *testing.T) {
	tr, err := ReadTraceFile("testdata/sacct-fattree.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "sacct" || len(tr.Jobs) != 7 {
		t.Fatalf("format %q, %d jobs, want sacct and 7", tr.Format, len(tr.Jobs))
	}
	want := map[string]int{"job steps": 3, "pending (never started)": 1, "cancelled before start": 1, "still running": 1, "earlier runs of requeued jobs": 1}
	for k, v := range want {
		if tr.Skipped[k] != v {
			t.Errorf("skipped %q: %d, want %d (%v)", k, tr.Skipped[k], v, tr.Skipped)
		}
	}
	byID := map[int]Job{}
	for _, j := range tr.Jobs {
		byID[j.ID] = j
	}
	j := byID[1001]
	if j.Arrival != 0 || j.Started != 5 || j.Runtime != 3600 || j.Estimate != 7200 || j.Procs != 4 || !slices.Equal(j.NodeList.Names(), []string{"node01", "node02", "node03", "node04"}) {
		t.Errorf("job 1001: %+v", j)
	}
	if byID[1003].Estimate != -1 || byID[1006].Estimate != -1 {
		t.Errorf("UNLIMITED / Partition_Limit not unknown: %+v %+v", byID[1003], byID[1006])
	}
	if r := byID[1006]; r.Started != 35*60 || r.NodeList.Names()[0] != "node05" {
		t.Errorf("requeued job 1006 not its last run: %+v", r)
	}
	if tr.UnixStart == 0 {
		t.Error("no start time")
	}
}

func TestReadSacctBadRows(t *testing.T) {
	head := "JobIDRaw|Submit|Start|End|ElapsedRaw|TimelimitRaw|NNodes|State|NodeList\n"
	good := "1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|60|5|2|COMPLETED|n[1-2]\n"
	for _, c := range []struct{ row, want string }{
		{"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|60|5|2|COMPLETED\n", "line 3: 8 fields, the header has 9"},
		{"2|2026-01-01T00:00:00|yesterday|2026-01-01T00:01:00|60|5|2|COMPLETED|n[1-2]\n", "line 3: time \"yesterday\""},
		{"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|60|soon|2|COMPLETED|n[1-2]\n", "line 3: field TimelimitRaw \"soon\""},
		{"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|60|5|2|COMPLETED|n[2-1]\n", "line 3: NodeList"},
		{"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|60|5|3|COMPLETED|n[1-2]\n", "names 2 nodes, NNodes says 3"},
		{"2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|60|5||COMPLETED|n[1-2]\n", "job size \"\""},
	} {
		_, err := ReadTrace(strings.NewReader(head+good+c.row), ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.row, err, c.want)
		}
		tr, err := ReadTrace(strings.NewReader(head+good+c.row), ReadOptions{SkipBad: true})
		if err != nil || tr.Bad != 1 || len(tr.Jobs) != 1 {
			t.Errorf("%q with SkipBad: %v, %+v", c.row, err, tr)
		}
	}
	// Issue 24 row 10: times beyond the converted reader's range are refused with the
	// line (ElapsedRaw = 2^63-1 gave a negative mean response time).
	for _, c := range []struct{ head, row, want string }{
		{head, "2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|9223372036854775807|5|2|COMPLETED|n[1-2]\n", "line 3: ElapsedRaw 9223372036854775807: value out of range"},
		{head, "2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|2251799812636673|5|2|COMPLETED|n[1-2]\n", "line 3: ElapsedRaw 2251799812636673: value out of range"},
		{strings.Replace(head, "ElapsedRaw", "Elapsed", 1), "2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|106751991167301-00:00:00|5|2|COMPLETED|n[1-2]\n", "line 3: field Elapsed"},
		{strings.Replace(head, "ElapsedRaw", "Elapsed", 1), "2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|9223372036854775807:00|5|2|COMPLETED|n[1-2]\n", "value out of range"},
		{strings.Replace(head, "ElapsedRaw|TimelimitRaw", "Elapsed|Timelimit", 1), "2|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|01:00|999999999999999-00:00:00|2|COMPLETED|n[1-2]\n", "line 3: field Timelimit"},
	} {
		good := strings.Replace(good, "|60|5|", map[bool]string{true: "|60|5|", false: "|01:00|5|"}[strings.Contains(c.head, "ElapsedRaw")], 1)
		if strings.Contains(c.head, "Timelimit|") {
			good = strings.Replace(good, "|01:00|5|", "|01:00|05:00|", 1)
		}
		_, err := ReadTrace(strings.NewReader(c.head+good+c.row), ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.row, err, c.want)
		}
	}
	// Start and End far apart: time.Time.Sub saturates at 292 years; Unix seconds
	// do not.
	tr, err := ReadTrace(strings.NewReader("JobIDRaw|Submit|Start|End|NNodes|State\n1|1000-01-01T00:00:00|1000-01-01T00:00:00|2000-01-01T00:00:00|1|COMPLETED\n"), ReadOptions{})
	if err != nil || len(tr.Jobs) != 1 || tr.Jobs[0].Runtime != 31556908800 {
		t.Errorf("a 1000-year job: %v, %+v", err, tr)
	}
	if _, err := ReadTrace(strings.NewReader("JobID|Submit|NNodes\n"), ReadOptions{Format: "sacct"}); err == nil || !strings.Contains(err.Error(), "lacks Start, End, State") {
		t.Errorf("missing columns: %v", err)
	}
}

// The as-run replay with the as-run schedule is production itself: every job starts
// when and where sacct says it did.
func TestAsRunReplaysProduction(t *testing.T) {
	g := sampleFabric(t)
	tr, err := ReadTraceFile("testdata/sacct-fattree.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := alloc.Parse("as-run", g, alloc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), tr.Jobs, Config{Machine: g, Alloc: a, Sched: "as-run"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.PerJob {
		names := make([]string, len(r.Nodes))
		for i, v := range r.Nodes {
			names[i] = g.Name(v)
		}
		slices.Sort(names)
		want := slices.Sorted(slices.Values(r.NodeList.Names()))
		if r.Start != r.Started || !slices.Equal(names, want) {
			t.Fatalf("job %d: started %d on %v; production %d on %v", r.ID, r.Start, names, r.Started, want)
		}
	}
	// Under FCFS the schedule differs and a recorded node is busy: a clear error.
	a, _ = alloc.Parse("as-run", g, alloc.Options{})
	if _, err := Run(context.Background(), tr.Jobs, Config{Machine: g, Alloc: a, Sched: "easy"}); err != nil && !strings.Contains(err.Error(), "--sched as-run") {
		t.Fatalf("as-run under easy: %v", err)
	}
}

// Replays on a switched network: hop-distance metrics equal a brute-force sum, spans
// are measured on the allocator's ranks, allocators that need coordinates refuse.
func TestReplayOnFabric(t *testing.T) {
	g := sampleFabric(t)
	tr, err := ReadTraceFile("testdata/sacct-fattree.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"bf:rcm", "bf:name-order", "ff:bfs", "genalg", "freelist:spectral"} {
		a, err := alloc.Parse(spec, g, alloc.Options{})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		res, err := Run(context.Background(), tr.Jobs, Config{Machine: g, Alloc: a, Sched: "easy"})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var rank []int
		if r, ok := a.(alloc.Ranked); ok {
			o := r.Ordering()
			rank = make([]int, len(o))
			for i, v := range o {
				rank[v] = i
			}
		}
		for _, r := range res.PerJob {
			var tot int64
			for i, u := range r.Nodes {
				for _, v := range r.Nodes[i+1:] {
					tot += int64(g.Dist(u, v))
				}
			}
			if tot != r.TotalL1 || r.MessageDistance <= 0 {
				t.Fatalf("%s job %d: total hops %d, brute force %d (message distance %v)", spec, r.ID, r.TotalL1, tot, r.MessageDistance)
			}
			if rank != nil {
				lo, hi := len(rank), -1
				for _, v := range r.Nodes {
					lo, hi = min(lo, rank[v]), max(hi, rank[v])
				}
				if r.Span != hi-lo+1 {
					t.Fatalf("%s job %d: span %d, on the ranks %d", spec, r.ID, r.Span, hi-lo+1)
				}
			}
		}
		if rank != nil && res.Summary.SpanOrder != "allocator's ordering" {
			t.Fatalf("%s: span order %q", spec, res.Summary.SpanOrder)
		}
	}
	// Best Fit along the leaves puts the 4-node job 1001 on one leaf switch.
	o, err := curves.Generate("rcm", g)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := alloc.NewCurveAllocator("bf", g, o, alloc.BestFit, false)
	nodes, _ := a.Allocate(4)
	for _, v := range nodes[1:] {
		if g.Dist(nodes[0], v) != 2 {
			t.Fatalf("bf:rcm gave %v, not one leaf", nodes)
		}
	}
	for _, spec := range []string{"mc1x1", "mm", "mbs", "mc", "paging:hilbert:1", "mminc"} {
		if _, err := alloc.Parse(spec, g, alloc.Options{}); err == nil || !strings.Contains(err.Error(), "needs a mesh or torus") {
			t.Errorf("%s on a graph: %v", spec, err)
		}
	}
}

// The network model on switched networks: messages are routed through switches
// (shortest paths), every job's messages arrive, and a placement on one leaf gives
// shorter messages than one spread over the leaves.
func TestCommOnFabric(t *testing.T) {
	g := sampleFabric(t)
	ft, _ := topo.ParseMachine("dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9")
	tr, err := ReadTraceFile("testdata/sacct-fattree.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pat, _ := netsim.ParsePattern("all-to-all")
	dist := map[string]float64{}
	for _, c := range []struct {
		m    topo.Machine
		spec string
	}{{g, "bf:rcm"}, {g, "bf:name-order"}, {ft, "bf:rcm"}, {ft, "genalg"}} {
		a, err := alloc.Parse(c.spec, c.m, alloc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		comm := &Comm{Pattern: pat, Params: netsim.DefaultParams(), MessagesPerSecond: 0.05, CycleSeconds: DefaultCycleSeconds, Seed: 1}
		res, err := Run(context.Background(), tr.Jobs, Config{Machine: c.m, Alloc: a, Sched: "easy", Comm: comm})
		if err != nil {
			t.Fatalf("%s on %s: %v", c.spec, c.m.Spec(), err)
		}
		if res.Comm == nil || res.Comm.Messages == 0 {
			t.Fatalf("%s on %s: no messages", c.spec, c.m.Spec())
		}
		dist[c.m.Spec()+" "+c.spec] = res.MeanMessageDistance
	}
	if a, b := dist[g.Spec()+" bf:rcm"], dist[g.Spec()+" bf:name-order"]; !(a < b) {
		t.Fatalf("message distance along rcm %v, along name order %v", a, b)
	}
}

// Issue 31 items 2 and 10: a trace has a job cap (a gzip bomb of jobs fails
// clearly instead of exhausting memory), and sacct times are read in the trace's
// zone (Spec.TimeZone, the CLI's --tz), impossible records counted in the report.
func TestTraceCapsAndZones(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for range 2000 {
		fmt.Fprint(zw, "0 1 1 1\n")
	}
	zw.Close()
	_, err := ReadTrace(bytes.NewReader(buf.Bytes()), ReadOptions{MaxJobs: 1000, SkipBad: true})
	if !errors.Is(err, slurm.ErrTooManyJobs) || !strings.Contains(err.Error(), "line 1001: more than 1000 jobs") {
		t.Fatalf("2000 jobs, cap 1000: %v", err)
	}
	if tr, err := ReadTrace(bytes.NewReader(buf.Bytes()), ReadOptions{MaxJobs: 2000}); err != nil || len(tr.Jobs) != 2000 {
		t.Fatalf("2000 jobs, cap 2000: %v", err)
	}

	const sacct = "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n" +
		"7|2024-03-10T01:59:50|2024-03-10T03:00:10|2024-03-10T03:00:20|10|1|COMPLETED\n" +
		"8|2024-03-10T01:00:00|2024-03-10T00:59:00|2024-03-10T01:00:20|80|1|COMPLETED\n"
	s := DefaultSpec()
	s.Trace, s.TraceReader, s.MachineSpec, s.Alloc, s.TimeZone = "dst.sacct", strings.NewReader(sacct), "mesh:2x2", "ff:snake", "America/New_York"
	rp, err := s.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if len(rp.Jobs) != 1 || rp.Jobs[0].Started-rp.Jobs[0].Arrival != 20 {
		t.Fatalf("jobs %+v: want one job that waited 20 s", rp.Jobs)
	}
	rep, err := rp.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Impossible[slurm.ImpossibleStartBeforeSubmit] != 1 {
		t.Errorf("report's impossible records %v, want 1 starting before its submission", rep.Impossible)
	}
	s.TimeZone = "Mars/Olympus_Mons"
	var fe *FieldError
	if err := s.Validate(); !errors.As(err, &fe) || fe.Field != "TimeZone" {
		t.Errorf("unknown zone: %v", err)
	}
}

// Issue 31 minor: an SWF field of 1e300 is a number out of range, not "not a
// number"; a word is still not a number.
func TestSWFFieldOutOfRange(t *testing.T) {
	rec := func(f string) string {
		return "1 0 0 " + f + " 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n"
	}
	for f, want := range map[string]string{"1e300": "field 4 1e300: value out of range", "1e400": "field 4 1e400: value out of range", "-1e16": "field 4 -1e16: value out of range", "ten": `field 4 "ten" is not a number`, "1_0": `field 4 "1_0" is not a number`} {
		_, err := ReadTrace(strings.NewReader(rec(f)), ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("run time %s: %v, want %q", f, err, want)
		}
	}
	if tr, err := ReadTrace(strings.NewReader(rec("1e3")), ReadOptions{}); err != nil || tr.Jobs[0].Runtime != 1000 {
		t.Errorf("run time 1e3: %v", err)
	}
}

// An sacct trace's times are local times, read in Spec.TimeZone (else the system's
// zone): across a daylight-saving change the same trace replays differently in two
// zones, so the report names the zone it read them in (time_zone in sim --json and
// in a sweep's results), and a rerun elsewhere can tell why its numbers moved.
func TestSacctReportNamesItsZone(t *testing.T) {
	// Two 4-node jobs of 90 min on 4 nodes, submitted 01:30 and 03:30 on the day
	// New York skips 02:00-03:00: one hour apart there (the second waits 30 min), two
	// in UTC (no wait).
	const sacct = "JobIDRaw|Submit|Start|End|ElapsedRaw|NNodes|State\n" +
		"1|2024-03-10T01:30:00|2024-03-10T01:30:00|2024-03-10T04:00:00|5400|4|COMPLETED\n" +
		"2|2024-03-10T03:30:00|2024-03-10T04:00:00|2024-03-10T05:30:00|5400|4|COMPLETED\n"
	wait := map[string]float64{}
	for _, zone := range []string{"America/New_York", "UTC"} {
		s := DefaultSpec()
		s.Trace, s.TraceReader, s.MachineSpec, s.Alloc, s.TimeZone = "dst.sacct", strings.NewReader(sacct), "mesh:2x2", "ff:snake", zone
		rp, err := s.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rp.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rep.TimeZone != zone {
			t.Errorf("read in %s: the report names zone %q", zone, rep.TimeZone)
		}
		js, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"time_zone":"`+zone+`"`) {
			t.Errorf("read in %s: the JSON does not name it: %s", zone, js)
		}
		wait[zone] = rep.MeanWait
	}
	if wait["America/New_York"] != 900 || wait["UTC"] != 0 {
		t.Errorf("mean waits %v: want 900 s in New York (one job waits 30 min) and 0 in UTC", wait)
	}
	// SWF and converted traces carry no reader's zone.
	s := DefaultSpec()
	s.Trace, s.TraceReader, s.MachineSpec, s.Alloc = "t.txt", strings.NewReader("0 1 10 1\n"), "mesh:2x2", "ff:snake"
	rp, err := s.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := rp.Run(context.Background()); err != nil || rep.TimeZone != "" {
		t.Errorf("converted trace: zone %q, %v", rep.TimeZone, err)
	}
}
