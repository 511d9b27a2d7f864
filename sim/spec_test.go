package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/topo"
)

// validSpec is a spec Validate accepts.
func validSpec() Spec {
	s := DefaultSpec()
	s.Trace, s.MachineSpec, s.Alloc = "t.txt", "mesh:4x4", "mc1x1"
	return s
}

// Every mistake a user can make in a spec is an error naming its field, each alone
// and all at once.
func TestSpecValidate(t *testing.T) {
	if err := (&Spec{}).Validate(); err == nil {
		t.Fatal("the zero spec validated")
	}
	good := validSpec()
	if err := good.Validate(); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	cases := []struct {
		field string
		edit  func(*Spec)
		want  string
	}{
		{"Sched", func(s *Spec) { s.Sched, s.Scale.Work = SchedAsRun, 2 }, "production's own schedule"},
		{"Trace", func(s *Spec) { s.Trace = "" }, "required"},
		{"Format", func(s *Spec) { s.Format = "csv" }, "want swf, converted or sacct"},
		{"From", func(s *Spec) { s.From = "yesterday" }, "neither whole seconds"},
		{"To", func(s *Spec) { s.To = "-5" }, "cannot be negative"},
		{"Scale.Work", func(s *Spec) { s.Scale.Work = 0 }, "greater than 0"},
		{"Scale.Contract", func(s *Spec) { s.Scale.Contract = 2e6 }, "at most 1e6"},
		{"Scale.Replicate", func(s *Spec) { s.Scale.Replicate = 0 }, "at least 1"},
		{"Scale.Perturb", func(s *Spec) { s.Scale.Perturb = -1 }, "negative"},
		{"LoadFactor", func(s *Spec) { s.LoadFactor = -0.5 }, "greater than 0"},
		{"Machine", func(s *Spec) { s.MachineSpec = "" }, "required"},
		{"MachineSpec", func(s *Spec) { s.Machine = topo.Mesh(8, 8) }, "another machine"},
		{"Alloc", func(s *Spec) { s.Alloc = "" }, "required"},
		{"Alloc", func(s *Spec) { s.Alloc = "nope:1" }, "unknown allocator"},
		{"Sched", func(s *Spec) { s.Sched = "sjf" }, "want fcfs, easy, cplant or as-run"},
		{"Compat", func(s *Spec) { s.Compat = "slurm" }, "want premas, sst or empty"},
		{"Network.MessageFlits", func(s *Spec) { s.Network.MessageFlits = 0 }, "message size 0 flits"},
		{"Network.RouterDelay", func(s *Spec) { s.Network.RouterDelay = -1 }, "router delay -1 cycles"},
		{"Pattern", func(s *Spec) { s.Pattern = "ring-of-fire" }, ""},
		{"Comm", func(s *Spec) { s.Comm = "ring-of-fire" }, ""},
		{"Comm", func(s *Spec) { s.Comm, s.Sched = "n-body", SchedAsRun }, "production's run times"},
		{"MessagesPerSecond", func(s *Spec) { s.Comm, s.MessagesPerSecond = "n-body", 0 }, "positive"},
		{"CycleSeconds", func(s *Spec) { s.Comm, s.CycleSeconds = "n-body", -1 }, "between 1e-09 and 1e+06"},
		{"Metrics", func(s *Spec) { s.Metrics = MetricsRoute }, "always computed"},
		{"Metrics", func(s *Spec) { s.Metrics = 1 << 6 }, "unknown metric groups"},
		{"Metrics", func(s *Spec) { s.Comm, s.Metrics = "n-body", MetricsSched }, "measures the route metrics"},
	}
	all := validSpec()
	for _, c := range cases {
		s := validSpec()
		c.edit(&s)
		if c.field != "MachineSpec" { // excludes a missing machine
			c.edit(&all)
		}
		err := s.Validate()
		var fe *FieldError
		if err == nil || !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a FieldError", c.field, err)
			continue
		}
		if fe.Field != c.field || !strings.Contains(fe.Reason, c.want) || !strings.HasPrefix(err.Error(), c.field) {
			t.Errorf("%s: got %q (field %s), want field %s and %q", c.field, err, fe.Field, c.field, c.want)
		}
	}
	// All at once: every field is named.
	err := all.Validate()
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("all mistakes: %v, not joined errors", err)
	}
	var fields []string
	for _, e := range j.Unwrap() {
		fields = append(fields, e.(*FieldError).Field)
	}
	for _, c := range cases {
		if !slices.Contains(fields, c.field) && c.field != "MachineSpec" {
			t.Errorf("all mistakes at once: %s not named (got %v)", c.field, fields)
		}
	}
}

// startScheds are the schedulers that decide start times: Scheds but as-run
// (production's recorded starts, sacct traces only).
func startScheds() []Sched {
	return slices.DeleteFunc(slices.Clone(scheds), func(s Sched) bool { return s == SchedAsRun })
}

// TestSchedulersAreScheds: the replay builds a scheduler for each name of Scheds
// and for no other, and every message that lists them lists Scheds.
func TestSchedulersAreScheds(t *testing.T) {
	var keys []string
	for k := range schedulers {
		keys = append(keys, k)
	}
	var names []string
	for _, s := range scheds {
		names = append(names, string(s))
	}
	slices.Sort(keys)
	slices.Sort(names)
	if !slices.Equal(keys, names) {
		t.Errorf("schedulers %v, Scheds %v", keys, names)
	}
	_, e1 := ParseSched("lifo")
	_, e2 := newScheduler("lifo", nil, nil)
	for _, err := range []error{e1, e2} {
		for _, s := range scheds {
			if err == nil || !strings.Contains(err.Error(), string(s)) {
				t.Errorf("%v does not name %s", err, s)
			}
		}
	}
}

// TestEnumMessagesNameTheirTables: the refusal of an unknown trace format or
// engine, by the parser and by Validate, names every value of Formats or Engines,
// each of which parses back to itself.
func TestEnumMessagesNameTheirTables(t *testing.T) {
	_, e1 := ParseFormat("pbs")
	e2 := (&Spec{Trace: "t", Format: "pbs", Alloc: "ff"}).Validate()
	_, e3 := ReadTrace(strings.NewReader("0 4 10 -1\n"), ReadOptions{Format: "pbs"})
	for _, err := range []error{e1, e2, e3} {
		for _, f := range formats {
			if v, perr := ParseFormat(f.String()); perr != nil || v != f {
				t.Errorf("ParseFormat(%q) = %q, %v", f, v, perr)
			}
			if err == nil || !strings.Contains(err.Error(), string(f)) {
				t.Errorf("%v does not name %s", err, f)
			}
		}
	}
	_, e1 = ParseEngine("booksim")
	e2 = (&Spec{Trace: "t", Alloc: "ff", Engine: "booksim"}).Validate()
	for _, err := range []error{e1, e2} {
		for _, e := range engines {
			if err == nil || !strings.Contains(err.Error(), e.String()) {
				t.Errorf("%v does not name %s", err, e)
			}
		}
	}
	if got := Choices([]Sched{SchedFCFS}); got != "fcfs" {
		t.Errorf("Choices of one: %q", got)
	}
}

// TestMetricGroupsNamed: an unknown metric group's message lists every group
// ParseMetrics reads, each of which reads back as its set.
func TestMetricGroupsNamed(t *testing.T) {
	_, err := ParseMetrics("sched,x")
	for _, g := range metricGroupNames {
		if err == nil || !strings.Contains(err.Error(), g.name) {
			t.Errorf("%v does not name %s", err, g.name)
		}
		if m, err := ParseMetrics("sched," + g.name); err != nil || m != MetricsSched|g.set {
			t.Errorf("ParseMetrics(sched,%s) = %v, %v", g.name, m, err)
		}
	}
}

func TestParseEnums(t *testing.T) {
	for _, s := range scheds {
		if v, err := ParseSched(s.String()); err != nil || v != s {
			t.Errorf("ParseSched(%q) = %q, %v", s, v, err)
		}
	}
	if Sched("").String() != "fcfs" {
		t.Error("the zero scheduler is not fcfs")
	}
	for _, f := range []Format{FormatDetect, FormatSWF, FormatConverted, FormatSacct} {
		if v, err := ParseFormat(f.String()); err != nil || v != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, v, err)
		}
	}
	for _, bad := range []string{"SJF", "fcfs ", "as_run"} {
		if _, err := ParseSched(bad); err == nil {
			t.Errorf("ParseSched(%q) accepted", bad)
		}
	}
	if _, err := ParseFormat("json"); err == nil {
		t.Error("ParseFormat accepted json")
	}
	for in, want := range map[string]Compat{"": "", "default": "", "premas": "premas", "sst": "sst"} {
		if c, err := ParseCompat(in); err != nil || c != want || (in != "" && c.String() != in && in != "default") {
			t.Errorf("ParseCompat(%q) = %q, %v", in, c, err)
		}
	}
	if _, err := ParseCompat("PReMAS"); err == nil {
		t.Error("ParseCompat accepted PReMAS")
	}
}

// The metric names are Summary's JSON keys, once each, and their values are the
// fields of those keys.
func TestMetricNamesAreSummaryKeys(t *testing.T) {
	s := Summary{}
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.CanSet() {
			switch f.Kind() {
			case reflect.Float64:
				f.SetFloat(float64(i) + 0.5)
			case reflect.Int64, reflect.Int:
				f.SetInt(int64(i))
			}
		}
	}
	s.RouteSummary = &RouteSummary{MeanMessageDistance: 101.5, MeanHopBytes: 102.5, MeanMaxShared: 103.5}
	s.PairwiseL1 = &PairwiseL1{MeanTotalPairwiseL1: 104.5, MeanAvgPairwiseL1: 105.5}
	s.Comm = &CommSummary{Seed: 106, Messages: 107, MeanLatency: 108.5, MaxLinkMessages: 109, MaxLinkLoad: 110.5, RunTimeFraction: 111.5}
	b, _ := json.Marshal(&s)
	m := SummaryNumbers(b)
	seen := map[string]bool{}
	for _, mt := range metrics {
		if seen[mt.Key] {
			t.Errorf("metric %s listed twice", mt.Key)
		}
		seen[mt.Key] = true
		got, ok := m[mt.Key]
		if !ok {
			t.Errorf("metric %s is not a JSON key of Summary", mt.Key)
			continue
		}
		if !mt.Has(&s) {
			t.Errorf("metric %s: Has false on a summary with every group", mt.Key)
		}
		if got != mt.Value(&s) {
			t.Errorf("metric %s: value %v, JSON %v", mt.Key, mt.Value(&s), got)
		}
		if k, ok := MetricByKey(mt.Key); !ok || k.Name != mt.Name {
			t.Errorf("MetricByKey(%s) = %v, %v", mt.Key, k.Name, ok)
		}
	}
	if _, ok := m[MetricMaxWait]; !ok {
		t.Errorf("%s is not a JSON key of Summary", MetricMaxWait)
	}
	// Without a communication model its metrics are absent, not zeros.
	s.Comm = nil
	b, _ = json.Marshal(&s)
	m = SummaryNumbers(b)
	for _, mt := range metrics {
		if _, ok := m[mt.Key]; ok == (mt.Group == MetricsComm) || mt.Has(&s) == (mt.Group == MetricsComm) {
			t.Errorf("metric %s without a communication model: in the JSON %v, Has %v", mt.Key, ok, mt.Has(&s))
		}
	}
}

// gridSpecs are small replays of the KTH trace: several allocators, schedulers and
// load factors.
func gridSpecs(t *testing.T) []Spec {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Jobs = tr.Jobs[:2000]
	var out []Spec
	for _, sched := range []Sched{SchedFCFS, SchedEASY} {
		for _, c := range []float64{1, 0.5} {
			for _, a := range []string{"mc1x1", "bf:gilbert", "genalg"} {
				s := DefaultSpec()
				s.Trace, s.TraceData, s.Machine, s.Alloc, s.Sched, s.Scale.Contract = "kth", tr, topo.Mesh(10, 10), a, sched, c
				out = append(out, s)
			}
		}
	}
	return out
}

func reportsJSON(t *testing.T, rs []GridResult) []string {
	var out []string
	for i, r := range rs {
		if r.Err != nil {
			t.Fatalf("replay %d: %v", i, r.Err)
		}
		rep := *r.Report
		rep.Seconds, rep.AllocTime = 0, nil
		b, _ := json.Marshal(rep)
		out = append(out, string(b))
	}
	return out
}

// A grid's results are in input order and the same whatever the number of workers,
// and each is the spec's own replay.
func TestRunGridDeterministic(t *testing.T) {
	specs := gridSpecs(t)
	one := reportsJSON(t, RunGrid(context.Background(), specs, 1))
	three := reportsJSON(t, RunGrid(context.Background(), specs, 3))
	if !slices.Equal(one, three) {
		t.Fatal("results differ between 1 and 3 workers")
	}
	for i, s := range specs {
		rep, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rep.Alloc == "" || !strings.HasPrefix(rep.Alloc, strings.Split(s.Alloc, ":")[0]) || rep.Sched != s.Sched.String() || rep.LoadFactor != s.Scale.Contract {
			t.Errorf("replay %d is %s/%s/%g, want %s/%s/%g", i, rep.Alloc, rep.Sched, rep.LoadFactor, s.Alloc, s.Sched, s.Scale.Contract)
		}
		rep.Seconds, rep.AllocTime = 0, nil
		b, _ := json.Marshal(rep)
		if string(b) != one[i] {
			t.Errorf("replay %d: grid result differs from its own Run", i)
		}
	}
}

// Cancelled, a grid returns what finished and ctx's error for the rest; a spec
// that fails is that replay's error, not the grid's.
func TestRunGridCancel(t *testing.T) {
	specs := gridSpecs(t)
	specs[1].Alloc = "nope"
	ctx, cancel := context.WithCancel(context.Background())
	finished := 0
	g := Grid{Workers: 1, Task: func(i int) (Runner, error) { return &specs[i], nil },
		Done: func(i int, r GridResult) error {
			if i == 1 && r.Err == nil {
				t.Error("the spec with an unknown allocator ran")
			}
			if i == 2 {
				cancel()
			}
			finished++
			return nil
		}}
	if err := g.Run(ctx, len(specs)); err != nil {
		t.Fatal(err)
	}
	if finished != 3 {
		t.Errorf("%d replays reported after cancelling at the third, want 3", finished)
	}
	res := RunGrid(ctx, specs, 2)
	for i, r := range res {
		if !errors.Is(r.Err, context.Canceled) || r.Report != nil {
			t.Errorf("replay %d of a cancelled grid: %v, %v", i, r.Report, r.Err)
		}
	}
	// Cancelled in the middle of a replay: it stops, and the grid with it.
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	long := gridSpecs(t)[:1]
	long[0].Scale.Replicate = 200
	t0 := time.Now()
	r := RunGrid(ctx, long, 1)
	if !errors.Is(r[0].Err, context.DeadlineExceeded) {
		t.Errorf("a replay cancelled while running: %v", r[0].Err)
	}
	if d := time.Since(t0); d > 30*time.Second {
		t.Errorf("cancelled grid took %v", d)
	}
	// Done's error stops the grid and is returned.
	stop := errors.New("disk full")
	n := 0
	g = Grid{Workers: 2, Task: func(i int) (Runner, error) { return &specs[i], nil },
		Done: func(i int, r GridResult) error { n++; return stop }}
	if err := g.Run(context.Background(), len(specs)); err != stop || n != 1 {
		t.Errorf("Done's error: grid returned %v after %d results, want it after 1", err, n)
	}
}

// Prepare builds what the spec names: the window, the dropped jobs and the load
// factor applied after the scaling.
func TestSpecPrepare(t *testing.T) {
	tr := &Trace{Format: FormatConverted, Jobs: []Job{
		{ID: 1, Arrival: 0, Procs: 4, Runtime: 10, Estimate: -1},
		{ID: 2, Arrival: 100, Procs: 40, Runtime: 10, Estimate: -1},
		{ID: 3, Arrival: 200, Procs: 2, Runtime: 10, Estimate: -1},
		{ID: 4, Arrival: 300, Procs: 2, Runtime: 10, Estimate: -1},
	}}
	s := DefaultSpec()
	s.Trace, s.TraceData, s.MachineSpec, s.Alloc = "t", tr, "mesh:4x4", "ff:rowmajor"
	s.From, s.To, s.DropLarger, s.Scale.Contract, s.LoadFactor = "100", "300", true, 0.5, 0.5
	rp, err := s.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	if rp.DroppedLarger != 1 || len(rp.Jobs) != 1 || rp.Jobs[0].ID != 3 || rp.Jobs[0].Arrival != 50 || rp.Machine.N() != 16 {
		t.Fatalf("prepared %+v, dropped %d", rp.Jobs, rp.DroppedLarger)
	}
	rep, err := rp.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.LoadFactor != 0.5 || rep.DroppedLarger != 1 || rep.Jobs != 1 || rep.PerJob != nil {
		t.Errorf("report %+v", rep)
	}
	s.Sched = SchedAsRun
	s.From, s.To, s.Scale.Contract, s.LoadFactor = "", "", 1, 0
	if _, err := s.Prepare(); err == nil || !strings.Contains(err.Error(), "sacct") {
		t.Errorf("as-run on a converted trace: %v", err)
	}
	// The replicas' bound: one replica past it, and factors whose job count
	// overflows an int64 (it passed the bound, and the replicas never
	// ended: compare --replicate 9223372036854775807 hung).
	var fe *FieldError
	s = validSpec()
	s.TraceData = tr
	atBound := int(MaxJobBytes / jobBytes(int64(len(tr.Jobs))))
	for _, replicate := range []int{atBound + 1, math.MaxInt64 / 2, math.MaxInt64} {
		s.Scale.Replicate = replicate
		if _, err := s.Prepare(); !errors.As(err, &fe) || fe.Field != "Scale.Replicate" {
			t.Errorf("Replicate %d: %v, want refused", replicate, err)
		}
	}
	s = validSpec()
	s.TraceData, s.MachineSpec = tr, "mesh:9000x9000"
	if _, err := s.Prepare(); !errors.As(err, &fe) || fe.Field != "Machine" {
		t.Errorf("a machine too large: %v", err)
	}
}

// Without the route metrics and the pairwise distances (Metrics = MetricsSched) a
// replay reports the same scheduling metrics and no route or distance metric at
// all: no JSON key, Metric.Has false; on the graphs, the bounding-box metrics are
// not had either.
func TestMetricsSchedOnly(t *testing.T) {
	for _, machine := range []string{"mesh:10x10", "fattree:4,4:4,4:8", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13"} {
		specs := gridSpecs(t)[:3]
		for i, s := range specs {
			s.Machine = nil
			s.MachineSpec = machine
			if !strings.HasPrefix(machine, "mesh") {
				s.Alloc = []string{"bf:rcm", "genalg", "bf:rcm"}[i]
			}
			full, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			s.Metrics = MetricsSched
			part, err := s.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if part.RouteSummary != nil || full.RouteSummary == nil || full.MeanMessageDistance == 0 {
				t.Fatalf("%s %s: route metrics %v with sched only, %v with all", machine, s.Alloc, part.RouteSummary, full.RouteSummary)
			}
			if part.PairwiseL1 != nil || full.PairwiseL1 == nil || full.MeanTotalPairwiseL1 == 0 {
				t.Fatalf("%s %s: distances %v with sched only, %v with all", machine, s.Alloc, part.PairwiseL1, full.PairwiseL1)
			}
			b, _ := json.Marshal(part)
			for _, k := range []string{"route_pattern", MetricMeanMessageDistance, MetricMeanHopBytes, MetricMeanMaxShared, MetricMeanTotalPairwiseL1, MetricMeanAvgPairwiseL1} {
				if strings.Contains(string(b), `"`+k+`"`) {
					t.Errorf("%s: key %s in the JSON without route metrics", machine, k)
				}
			}
			// a fat tree and a dragonfly have no coordinates: no bounding box
			if graph := !strings.HasPrefix(machine, "mesh"); part.NoCoordinates != graph || full.NoCoordinates != graph {
				t.Errorf("%s: NoCoordinates %v, %v", machine, part.NoCoordinates, full.NoCoordinates)
			}
			for _, m := range metrics {
				box := m.Key == MetricMeanBoxVolume || m.Key == MetricMeanBoxSides
				if m.Has(&part.Summary) != (m.Group == MetricsSched && !(box && part.NoCoordinates)) {
					t.Errorf("%s: metric %s: Has %v", machine, m.Key, m.Has(&part.Summary))
				}
				if m.Group == MetricsSched && m.Value(&part.Summary) != m.Value(&full.Summary) {
					t.Errorf("%s %s: %s %v without route metrics, %v with", machine, s.Alloc, m.Key, m.Value(&part.Summary), m.Value(&full.Summary))
				}
			}
		}
	}
}

func TestParseMetrics(t *testing.T) {
	for in, want := range map[string]MetricSet{"sched": MetricsSched, "sched,route": MetricsSched | MetricsRoute, "route, sched,dist,ties,compact": MetricsAll, "sched,compact": MetricsSched | MetricsCompact, "sched,dist": MetricsSched | MetricsDist, "sched,ties": MetricsSched | MetricsTies, "all": MetricsAll} {
		if got, err := ParseMetrics(in); err != nil || got != want || !got.Has(MetricsSched) {
			t.Errorf("ParseMetrics(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "route", "ties", "sched,hops", "none"} {
		if _, err := ParseMetrics(in); err == nil {
			t.Errorf("ParseMetrics(%q) accepted", in)
		}
	}
	if MetricsAll.String() != "sched,route,dist,ties,compact" || MetricSet(0).Has(MetricsCompact) != true || MetricSet(0).Has(MetricsRoute) != true || MetricSet(0).Has(MetricsDist) != true || MetricSet(0).Has(MetricsTies) != true {
		t.Error("String or the zero value's default")
	}
}

// A replay that keeps no per-job records (Spec.PerJob false: records folded into
// the summary as jobs finish, then forgotten) reports byte for byte the summary of
// one that keeps them all, with every scheduler, unsorted arrivals and replicas,
// and with JobDone seeing every job once, in trace order.
func TestStreamedSummaryIsTheKeptOne(t *testing.T) {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unsorted := slices.Clone(tr.Jobs[:3000])
	for i := 0; i+1 < len(unsorted); i += 7 {
		unsorted[i].Arrival, unsorted[i+1].Arrival = unsorted[i+1].Arrival+5, unsorted[i].Arrival
	}
	for _, c := range []struct {
		jobs []Job
		rep  int
	}{{tr.Jobs[:5000], 1}, {tr.Jobs[:2000], 3}, {unsorted, 1}} {
		for _, sched := range []Sched{SchedFCFS, SchedEASY, SchedCplant} {
			for _, machine := range []string{"mesh:10x10", "fattree:4,4:4,4:8"} {
				s := DefaultSpec()
				s.Trace, s.TraceData, s.MachineSpec, s.Alloc, s.Sched = "kth", &Trace{Jobs: c.jobs}, machine, "bf:rcm", sched
				s.Scale.Replicate = c.rep
				var ids []int
				s.JobDone = func(r *JobResult) error { ids = append(ids, r.ID); return nil }
				_, kept := streamedIsKept(t, &s, fmt.Sprintf("%s %s x%d", machine, sched, c.rep))
				for i, r := range kept.PerJob {
					if i >= len(ids) || ids[i] != r.ID {
						t.Fatalf("JobDone saw job %d at %d, want %d", ids[min(i, len(ids)-1)], i, r.ID)
					}
				}
			}
		}
	}
}

// streamedIsKept runs s as it is (streamed: no per-job records kept), then with
// PerJob and no JobDone, and fails unless the two summaries are the same but for
// their timings (zeroed in both).
func streamedIsKept(t *testing.T, s *Spec, what string) (stream, kept *Report) {
	t.Helper()
	stream, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.PerJob, s.JobDone = true, nil
	kept, err = s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stream.PerJob != nil || len(kept.PerJob) != kept.Jobs {
		t.Fatalf("%s: per-job records: %d streamed, %d kept", what, len(stream.PerJob), len(kept.PerJob))
	}
	stream.Seconds, kept.Seconds = 0, 0
	stream.AllocTime, kept.AllocTime = nil, nil
	a, _ := json.Marshal(stream)
	b, _ := json.Marshal(kept)
	if string(a) != string(b) {
		t.Fatalf("%s: streamed summary differs:\n%s\n%s", what, a, b)
	}
	return stream, kept
}

// The replicas a replay generates one at a time are Scale.Apply's (then
// LoadFactor's contraction), job for job and in the same order, ties included.
func TestReplicaStreamIsApply(t *testing.T) {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	base := tr.Jobs[:3000]
	ties := slices.Clone(base[:500]) // many equal arrivals
	for i := range ties {
		ties[i].Arrival = int64(i / 7 * 10)
	}
	for _, c := range []struct {
		jobs []Job
		s    Scale
		lf   float64
	}{
		{base, Scale{Work: 1, Contract: 1, Replicate: 3, Seed: 1}, 0},
		{base, Scale{Work: 1.5, Contract: 0.7, Replicate: 5, Seed: 9}, 0.8},
		{base, Scale{Work: 1, Contract: 1, Replicate: 2, Perturb: 1, Seed: 2}, 0},
		{ties, Scale{Work: 1, Contract: 1, Replicate: 4, Perturb: 15, Seed: 3}, 0.5},
		{ties, Scale{Work: 1, Contract: 1, Replicate: 3, Perturb: 0, Seed: 4}, 0},
	} {
		want, err := c.s.Apply(c.jobs)
		if err != nil {
			t.Fatal(err)
		}
		if c.lf != 0 {
			if want, err = (Scale{Contract: c.lf}).Apply(want); err != nil {
				t.Fatal(err)
			}
		}
		rs, err := newReplicaStream(c.jobs, c.s, c.lf)
		if err != nil || rs == nil {
			t.Fatalf("%+v: no stream (%v)", c.s, err)
		}
		var got []Job
		for it := rs.iter(); ; {
			j, ok := it.next()
			if !ok {
				break
			}
			got = append(got, j)
		}
		if len(got) != len(want) || rs.len() != len(want) {
			t.Fatalf("%+v: %d jobs (len %d), want %d", c.s, len(got), rs.len(), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%+v: job %d is %+v, want %+v", c.s, i, got[i], want[i])
			}
		}
	}
	if rs, _ := newReplicaStream(base, Scale{Replicate: 1}, 0); rs != nil {
		t.Error("a stream without replication")
	}
}

// TestFieldErrorNamed pins how a command says a FieldError by its flags (Named),
// the one rendering sim's commands and a sweep file's up-front check share: the
// field and the fields its Reason names by flag, an allocator's error as a
// sentence, and a field no flag sets by its Reason alone.
func TestFieldErrorNamed(t *testing.T) {
	flags := map[string]string{"Scale.Perturb": "--perturb", "Sched": "--sched", "Alloc": "--alloc", "From": "--from"}
	name := func(f string) string { return flags[f] }
	for _, c := range []struct {
		e    FieldError
		want string
	}{
		{FieldError{Field: "Scale.Perturb", Value: "-5", Reason: "must not be negative"}, "--perturb -5: must not be negative"},
		{FieldError{Field: "Sched", Reason: "needs {From} unset"}, "--sched: needs --from unset"},
		{FieldError{Field: "Alloc", Value: "as-run", Reason: "places each job on its recorded nodes"}, "--alloc as-run places each job on its recorded nodes"},
		{FieldError{Field: "Alloc", Reason: `unknown allocator "x"`}, `unknown allocator "x"`},
		{FieldError{Field: "Scale", Reason: "contract: 0 is not above 0 (with {From})"}, "contract: 0 is not above 0 (with --from)"},
		{FieldError{Field: "Network", Value: "7", Reason: "too large"}, "too large"},
	} {
		if got := c.e.Named(name); got != c.want {
			t.Errorf("%+v: Named = %q, want %q", c.e, got, c.want)
		}
	}
	// Named by the fields' own names, it is Error's text.
	e := FieldError{Field: "Scale.Perturb", Value: "-5", Reason: "below {From}"}
	if got, want := e.Named(func(f string) string { return f }), e.Error(); got != want {
		t.Errorf("Named(identity) = %q, Error = %q", got, want)
	}
}

// A replicated replay of jobs of several partitions (SlurmConf) generates its
// replicas as it goes, as one without partitions does, and reports byte for
// byte the summary of the replay that keeps every job and record, under
// every queue scheduler.
func TestStreamedSummaryWithPartitions(t *testing.T) {
	tr, err := ReadTraceFile("testdata/KTH-SP2-1996-2.converted.txt.gz", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobs := slices.Clone(tr.Jobs[:1500])
	for i := range jobs {
		switch {
		case i%4 == 1 && jobs[i].Procs <= 40:
			jobs[i].Partition = "small"
		case i%4 == 2 && jobs[i].Procs <= 30:
			jobs[i].Partition = "debug"
		default:
			jobs[i].Partition = "batch"
		}
	}
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("NodeName=n[001-100] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n"+
		"PartitionName=small Nodes=n[001-040]\nPartitionName=debug Nodes=n[031-060] PriorityTier=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sched := range []Sched{SchedFCFS, SchedEASY, SchedCplant} {
		s := DefaultSpec()
		s.Trace, s.TraceData, s.MachineSpec, s.Hostlist, s.SlurmConf = "kth", &Trace{Jobs: jobs}, "mesh:10x10", "n[001-100]", conf
		s.Alloc, s.Sched, s.Metrics = "slurm:consec", sched, MetricsSched
		s.Scale.Replicate = 3
		rp, err := s.PrepareContext(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rp.lazy == nil || rp.partitions == nil {
			t.Fatalf("%s: replicas generated %v, partitions read %v", sched, rp.lazy != nil, rp.partitions != nil)
		}
		stream, err := rp.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		s.PerJob = true
		kept, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if kept.Jobs != 4500 || len(kept.PerJob) != kept.Jobs || stream.PerJob != nil {
			t.Fatalf("%s: %d jobs, %d records kept, %d streamed", sched, kept.Jobs, len(kept.PerJob), len(stream.PerJob))
		}
		stream.Seconds, kept.Seconds = 0, 0
		stream.AllocTime, kept.AllocTime = nil, nil
		a, _ := json.Marshal(stream)
		b, _ := json.Marshal(kept)
		if string(a) != string(b) {
			t.Fatalf("%s: streamed summary differs:\n%s\n%s", sched, a, b)
		}
	}
}
