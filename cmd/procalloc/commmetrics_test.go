package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
	"github.com/procalloc/procalloc/sim/sweep"
)

// commMetrics are the metrics of group comm (the network's figures).
func commMetrics() []sim.Metric {
	return slices.DeleteFunc(sim.Metrics(), func(m sim.Metric) bool { return m.Group != sim.MetricsComm })
}

// TestSweepCarriesCommMetrics: a sweep over patterns none and all-to-all, two
// allocators and two load factors on a small mesh (the message engine): each
// all-to-all item's result line carries the network's metrics (comm_...), equal
// to those of sim --comm --json of the same item run alone, and every other metric
// too; the none items have none of them (no key, not zeros). merge --csv has one
// column per comm metric holding the line's value (empty on the none items) and
// none at all for a sweep without a pattern; plot --y of a comm metric tabulates
// and draws the merged values.
func TestSweepCarriesCommMetrics(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 40 {
		b.WriteString(strconv.Itoa(i*60) + " " + strconv.Itoa(1+(i*7)%9) + " " + strconv.Itoa(100+(i*37)%300) + " -1\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: commmetrics\ntraces: [jobs.txt]\nmachines: [mesh:5x5]\nallocators: [mc1x1, bf:gilbert]\ncontract: [1, 0.5]\npatterns: [none, all-to-all]\nengines: [message]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, merged, csvPath := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "m.csv")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "merge", res, "--spec", spec, "-o", merged, "--csv", csvPath); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	rep, err := sweep.Merge([]string{merged}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := rep.Lines
	if len(lines) != 8 {
		t.Fatalf("%d merged lines, want 8", len(lines))
	}
	comm := commMetrics()
	if len(comm) < 5 {
		t.Fatalf("%d comm metrics", len(comm))
	}
	withComm := 0
	for _, l := range lines {
		got := resultMetrics(l)
		var raw map[string]json.RawMessage
		json.Unmarshal(l.Result, &raw)
		if l.Params.Pattern == "none" {
			for _, m := range comm {
				if _, ok := got[m.Key]; ok {
					t.Errorf("item %d (no pattern) has %s", l.Index, m.Key)
				}
			}
			if _, ok := raw["comm"]; ok {
				t.Errorf("item %d (no pattern) has a comm object", l.Index)
			}
			if _, ok := raw["metrics_not_computed"]; ok {
				t.Errorf("item %d (no pattern): metrics_not_computed %s", l.Index, raw["metrics_not_computed"])
			}
			continue
		}
		withComm++
		code, out, stderr := runCLI(t, "", append(append([]string{"sim"}, l.Params.Args(dir)...), "--json")...)
		if code != 0 {
			t.Fatalf("sim of item %d: exit %d: %s", l.Index, code, stderr)
		}
		want := sim.SummaryNumbers([]byte(out))
		for _, m := range sim.Metrics() {
			w, wok := want[m.Key]
			g, gok := got[m.Key]
			if wok != gok || w != g {
				t.Errorf("item %d, %s: sweep %v (%v), sim --json %v (%v)", l.Index, m.Key, g, gok, w, wok)
			}
		}
		for _, m := range comm {
			if _, ok := got[m.Key]; !ok {
				t.Errorf("item %d (%s) lacks %s", l.Index, l.Params.Pattern, m.Key)
			}
		}
	}
	if withComm != 4 {
		t.Fatalf("%d items with a pattern, want 4", withComm)
	}

	// merge --csv: a column per comm metric, the line's value or empty.
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 9 {
		t.Fatalf("merge --csv: %d rows, %v", len(rows), err)
	}
	col := func(k string) int { return slices.Index(rows[0], k) }
	for _, m := range sim.Metrics() {
		if n := strings.Count(","+strings.Join(rows[0], ",")+",", ","+m.Key+","); n != 1 {
			t.Errorf("merge --csv has %d columns %s", n, m.Key)
		}
	}
	for i, l := range lines {
		row, mv := rows[1+i], resultMetrics(l)
		if row[col("index")] != strconv.Itoa(l.Index) {
			t.Fatalf("csv row %d is item %s, want %d", i, row[col("index")], l.Index)
		}
		for _, m := range comm {
			cell := row[col(m.Key)]
			v, ok := mv[m.Key]
			if !ok {
				if cell != "" {
					t.Errorf("csv item %d, %s: %q, want empty", l.Index, m.Key, cell)
				}
				continue
			}
			if f, err := strconv.ParseFloat(cell, 64); err != nil || f != v {
				t.Errorf("csv item %d, %s: %q, want %v", l.Index, m.Key, cell, v)
			}
		}
	}
	// A sweep without a pattern keeps the columns it had: no comm_ column.
	var none strings.Builder
	if err := writeSweepCSV(&none, slices.DeleteFunc(slices.Clone(lines), func(l sweep.Line) bool { return l.Params.Pattern != "none" })); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(none.String(), "\n"); strings.Contains(head, "comm_") {
		t.Errorf("merge --csv without patterns: %s", head)
	}

	// plot --y comm_mean_latency_cycles: the table (--json) and the chart hold
	// the merged values.
	svg, pj := filepath.Join(dir, "p.svg"), filepath.Join(dir, "p.json")
	key := sim.MetricCommMeanLatency
	if code, _, stderr := runCLI(t, "", "plot", merged, "--where", "pattern=all-to-all", "--y", key, "--svg", svg, "--json", "-o", pj); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, stderr)
	}
	var pl struct {
		Series []struct {
			Alloc string    `json:"alloc"`
			X     []float64 `json:"x"`
			Y     []float64 `json:"y"`
		} `json:"series"`
	}
	if err := json.Unmarshal(mustRead(t, pj), &pl); err != nil || len(pl.Series) != 2 {
		t.Fatalf("plot --json: %v, %d series", err, len(pl.Series))
	}
	type point struct{ v, y float64 }
	var pts []point
	picture := string(mustRead(t, svg))
	if !strings.Contains(picture, ">"+key+"<") {
		t.Errorf("the chart does not name %s", key)
	}
	marks := map[string][][]string{}
	var fills []string
	for _, u := range regexp.MustCompile(`<use href="#mk\d+" x="([-0-9.e]+)" y="([-0-9.e]+)" fill="([^"]+)"`).FindAllStringSubmatch(picture, -1) {
		if _, ok := marks[u[3]]; !ok {
			fills = append(fills, u[3])
		}
		marks[u[3]] = append(marks[u[3]], u)
	}
	if len(fills) != len(pl.Series) {
		t.Fatalf("the chart has markers of %d colours, want %d", len(fills), len(pl.Series))
	}
	for i, s := range pl.Series {
		for k := range s.X {
			var want float64
			found := false
			for _, l := range lines {
				if l.Params.Alloc == s.Alloc && l.Params.Pattern == "all-to-all" && l.Params.Contract == s.X[k] {
					want, found = resultMetrics(l)[key], true
				}
			}
			if !found || s.Y[k] != want {
				t.Errorf("plot %s at %g: %v, merged %v (%v)", s.Alloc, s.X[k], s.Y[k], want, found)
			}
		}
		// The chart's markers of series i (the i-th colour of the markers; the
		// last of its colour is the legend's), left to right, are its values by x.
		uses := marks[fills[i]]
		if len(uses) != len(s.X)+1 {
			t.Fatalf("series %s: %d markers, want %d", s.Alloc, len(uses), len(s.X)+1)
		}
		idx := make([]int, len(s.X))
		for k := range idx {
			idx[k] = k
		}
		sort.Slice(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
		for j, k := range idx {
			y, _ := strconv.ParseFloat(uses[j][2], 64)
			pts = append(pts, point{s.Y[k], y})
		}
	}
	// The y coordinates are one linear function of the values (a linear axis
	// from zero: these differ by far less than two decades).
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.v, b.v) })
	lo, hi := pts[0], pts[len(pts)-1]
	if hi.v <= lo.v {
		t.Fatalf("all values equal: %v", pts)
	}
	slope := (hi.y - lo.y) / (hi.v - lo.v)
	if slope >= 0 {
		t.Fatalf("larger values drawn lower: %v", pts)
	}
	for _, p := range pts {
		if want := lo.y + slope*(p.v-lo.v); p.y < want-0.11 || p.y > want+0.11 {
			t.Errorf("value %v drawn at y %v, want %v (points %v)", p.v, p.y, want, pts)
		}
	}

	// A misspelt comm metric is refused with the name meant.
	code, _, stderr := runCLI(t, "", "plot", merged, "--where", "pattern=all-to-all", "--y", "comm_mean_latncy_cycles")
	if code != 2 || !strings.Contains(stderr, "did you mean "+key) {
		t.Errorf("plot --y misspelt: exit %d: %s", code, stderr)
	}
	// On the items without a pattern it is not a metric (usage error, not a 0).
	// It says why (no pattern) and which items have it, with or without --where
	// (it said "no such metric", listing the item's metrics).
	for _, where := range [][]string{{"--where", "pattern=none"}, nil} {
		code, _, stderr = runCLI(t, "", append([]string{"plot", merged, "--y", key}, where...)...)
		if code != 2 || !strings.Contains(stderr, "pattern none, a replay without communication") || !strings.Contains(stderr, "--where pattern=all-to-all") {
			t.Errorf("plot --y %s %q on items without communication: exit %d: %s", key, where, code, stderr)
		}
	}
	// On results without any pattern it says none has one.
	var noneLines []string
	for _, line := range strings.SplitAfter(string(mustRead(t, merged)), "\n") {
		if strings.Contains(line, `"pattern":"none"`) {
			noneLines = append(noneLines, line)
		}
	}
	noComm := filepath.Join(dir, "none.jsonl")
	if err := os.WriteFile(noComm, []byte(strings.Join(noneLines, "")), 0o644); err != nil || len(noneLines) != 4 {
		t.Fatalf("%d lines without a pattern (%v)", len(noneLines), err)
	}
	code, _, stderr = runCLI(t, "", "plot", noComm, "--y", key)
	if code != 2 || !strings.Contains(stderr, "no item here has one") {
		t.Errorf("plot --y %s on a sweep without communication: exit %d: %s", key, code, stderr)
	}
}

// tableCells returns the cells after the row name of compare's (or sim's) table
// row named name, nil when there is none. Columns are separated by two or more
// spaces.
func tableCells(table, name string) []string {
	re := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(name) + `\s{2,}(.*)$`)
	for _, line := range strings.Split(table, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(m[1]), -1)
		}
	}
	return nil
}

// The case of docs/comm.md ("What a replay reports") computed by hand: two jobs of
// 2 nodes, 2 s each, both at 0, on mesh:4x1, one cycle a second. ff:cross.txt gives
// them the interleaved nodes {0, 2} and {1, 3}: their messages share links, both
// end at 3r + 2S = 67 cycles, the mean latency is 50.5, the busiest link carries 2
// messages, each job is in 2 components. ff:snake gives {0, 1} and {2, 3}: nothing
// shared, each message alone, r + S = 33 cycles, the busiest link 1 message, each
// job in one component.
func writeCrossCase(t *testing.T) (dir string, args []string) {
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.txt"), []byte("0 2 2 -1\n0 2 2 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cross.txt"), []byte("0 0\n2 1\n1 2\n3 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"compare", "--trace", filepath.Join(dir, "two.txt"), "--machine", "mesh:4x1",
		"--alloc", "ff:" + filepath.Join(dir, "cross.txt") + ",ff:snake", "--cycle-seconds", "1"}
}

// TestCompareMarksTheBestByHand: on the case computed by hand, compare's table
// marks with '*' the better allocator (ff:snake) in exactly the rows where the
// hand derivation says it is better and the metric has a better way, nothing where
// both are equal (span, slowdown, messages delivered) or the metric has none (the
// busiest link's load, utilization); the legend says what '*' means; --json's
// best names the same.
func TestCompareMarksTheBestByHand(t *testing.T) {
	dir, args := writeCrossCase(t)
	args = append(args, "--comm", "all-to-all")
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	cross := "ff:" + filepath.Join(dir, "cross.txt")
	// The hand derivation's values, cross then snake.
	for name, want := range map[string][2]string{
		"mean response (s)":             {"67.0", "33.0*"},
		"makespan (s)":                  {"67", "33*"},
		"mean message latency (cycles)": {"50.50", "33.00*"},
		"busiest link: messages":        {"2", "1*"},
		"mean components":               {"2.000", "1.000*"},
		"% contiguous":                  {"0.00", "100.00*"},
		"mean total pairwise L1":        {"2.000", "1.000*"},
		"mean span":                     {"2.00", "2.00"},
		"mean slowdown":                 {"1.000", "1.000"},
		"messages delivered":            {"4", "4"},
	} {
		if got := tableCells(out, name); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"busiest link: load", "utilization"} {
		if got := tableCells(out, name); len(got) != 2 || strings.Contains(strings.Join(got, ""), "*") {
			t.Errorf("%s (no better way) marked: %q", name, got)
		}
	}
	if !strings.Contains(out, "\n* best of its row") || !strings.Contains(out, "higher for % contiguous") || !strings.Contains(out, "no better way: utilization, messages delivered, busiest link: load") {
		t.Errorf("no legend:\n%s", out)
	}
	// Every '*' of the table is one of the above, in the snake column.
	if n := strings.Count(out, "*"); n < 7 {
		t.Errorf("%d marks:\n%s", n, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "*") && !strings.HasPrefix(line, "*") && !strings.HasSuffix(line, "*") {
			t.Errorf("a mark in the %s column: %q", cross, line)
		}
	}

	code, out, stderr = runCLI(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("compare --json: exit %d: %s", code, stderr)
	}
	var js struct {
		Best map[string][]string `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{sim.MetricMeanResponse, sim.MetricMakespan, sim.MetricCommMeanLatency, sim.MetricCommMaxLinkMessages, sim.MetricPctContiguous, sim.MetricMeanComponents} {
		if got := js.Best[k]; len(got) != 1 || got[0] != "ff:snake" {
			t.Errorf("best %s: %q, want [ff:snake]", k, got)
		}
	}
	for _, k := range []string{sim.MetricMeanSpan, sim.MetricCommMessages, sim.MetricCommMaxLinkLoad, sim.MetricUtilization, sim.MetricMeanSlowdown} {
		if got, ok := js.Best[k]; ok {
			t.Errorf("best %s: %q, want none", k, got)
		}
	}
}

// TestCompareBest: compareBest on summaries made by hand: the lowest (highest for
// a metric better higher) among the runs of a load factor that have the value, at
// the table's precision; ties all marked; nothing where all agree or one run has a
// value, nor for a metric with no better way.
func TestCompareBest(t *testing.T) {
	mk := func(alloc string, load, wait, pct, util float64, route *sim.RouteSummary) sim.Summary {
		return sim.Summary{Alloc: alloc, LoadFactor: load, MeanWait: wait, PctContiguous: pct, Utilization: util, RouteSummary: route}
	}
	r := func(d float64) *sim.RouteSummary { return &sim.RouteSummary{MeanMessageDistance: d} }
	sums := []sim.Summary{
		mk("a", 1, 10, 80.004, 0.5, r(2)),
		mk("b", 1, 5, 80.001, 0.6, nil),
		mk("c", 1, 5.04, 70, 0.7, r(3)), // 5.04 is 5.0 at mean wait's 1 decimal: a tie with b
		mk("a", 0.5, 7, 50, 0.5, r(1)),
		mk("b", 0.5, 8, 60, 0.5, nil),
	}
	by := func(k string) sim.Metric { m, _ := sim.MetricByKey(k); return m }
	for _, c := range []struct {
		key  string
		want []int
	}{
		{sim.MetricMeanWait, []int{1, 2, 3}},      // load 1: b and c (5.0, 5.0); load 0.5: a
		{sim.MetricPctContiguous, []int{0, 1, 4}}, // higher: 80.00 twice at load 1; 60 at 0.5
		{sim.MetricUtilization, nil},              // no better way
		{sim.MetricMeanMessageDistance, []int{0}}, // b has none; at 0.5 only a has one
		{sim.MetricMeanSpan, nil},                 // all 0
	} {
		if got := compareBest(sums, by(c.key)); !slices.Equal(got, c.want) {
			t.Errorf("%s: best %v, want %v", c.key, got, c.want)
		}
	}
	if b := compareBestJSON(sums); !slices.Equal(b[sim.MetricMeanWait], []string{"b @1", "c @1", "a @0.5"}) {
		t.Errorf("best JSON %v", b)
	}
}

// TestCompareCSVIsTheTable: compare --csv's columns hold the table's values (at
// its precision, '*' aside), the network's (comm_...) with --comm, with its
// pattern and seed; without --comm there is no comm_ column.
func TestCompareCSVIsTheTable(t *testing.T) {
	dir, args := writeCrossCase(t)
	for _, comm := range []bool{true, false} {
		a := slices.Clone(args)
		if comm {
			a = append(a, "--comm", "all-to-all", "--comm-seed", "7")
		}
		csvPath := filepath.Join(dir, "c.csv")
		code, out, stderr := runCLI(t, "", append(a, "--csv", csvPath)...)
		if code != 0 {
			t.Fatalf("compare: exit %d: %s", code, stderr)
		}
		f, _ := os.Open(csvPath)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(rows) != 3 {
			t.Fatalf("csv: %v, %d rows", err, len(rows))
		}
		col := func(k string) int { return slices.Index(rows[0], k) }
		if (col("comm_seed") >= 0) != comm || (col(sim.MetricCommMeanLatency) >= 0) != comm {
			t.Errorf("--comm %v: header %q", comm, rows[0])
		}
		metrics := 0
		for _, m := range sim.Metrics() {
			if m.Group == sim.MetricsComm && !comm {
				continue
			}
			cells := tableCells(out, m.Name)
			if len(cells) != 2 || col(m.Key) < 0 {
				t.Errorf("%s: table %q, column %d", m.Key, cells, col(m.Key))
				continue
			}
			metrics++
			for i, row := range rows[1:] {
				want := strings.TrimSuffix(cells[i], "*")
				got := row[col(m.Key)]
				if want == "-" {
					if got != "" {
						t.Errorf("%s run %d: csv %q, table -", m.Key, i, got)
					}
					continue
				}
				v, err := strconv.ParseFloat(got, 64)
				if err != nil || strconv.FormatFloat(v, 'f', m.Prec, 64) != want {
					t.Errorf("%s run %d: csv %q, table %q", m.Key, i, got, want)
				}
			}
		}
		if metrics < 17 {
			t.Errorf("%d metrics compared", metrics)
		}
		if comm {
			seeds := tableCells(out, "communication seed (--comm-seed)")
			for i, row := range rows[1:] {
				if row[col("comm_seed")] != "7" || seeds[i] != "7" || row[col("comm_pattern")] != "all-to-all" {
					t.Errorf("run %d: csv seed %q pattern %q, table seed %q", i, row[col("comm_seed")], row[col("comm_pattern")], seeds[i])
				}
			}
		}
	}
}

// TestUnknownMetricNamesRefused: a misspelt metric name is refused with the one
// meant (compare --metric, plot --y: TestSweepCarriesCommMetrics), and --metrics
// comm says the network's figures come with --comm.
func TestUnknownMetricNamesRefused(t *testing.T) {
	_, args := writeCrossCase(t)
	code, _, stderr := runCLI(t, "", append(args, "--comm", "all-to-all", "--metric", "comm_mean_latncy_cycles")...)
	if code != 2 || !strings.Contains(stderr, "did you mean "+sim.MetricCommMeanLatency) {
		t.Errorf("compare --metric comm_mean_latncy_cycles: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "", append(args, "--metric", sim.MetricCommMeanLatency, "--svg", filepath.Join(t.TempDir(), "x.svg"))...)
	if code != 2 || !strings.Contains(stderr, "without --comm") {
		t.Errorf("compare --metric %s --svg without --comm: exit %d: %s", sim.MetricCommMeanLatency, code, stderr)
	}
	// Without --svg too: the metric is one no replay will have.
	code, _, stderr = runCLI(t, "", append(args, "--metric", sim.MetricCommMeanLatency)...)
	if code != 2 || !strings.Contains(stderr, "without --comm") {
		t.Errorf("compare --metric %s without --comm or --svg: exit %d: %s", sim.MetricCommMeanLatency, code, stderr)
	}
	code, _, stderr = runCLI(t, "", append(args, "--comm", "all-to-all", "--metrics", "sched,comm")...)
	if code != 2 || !strings.Contains(stderr, "--comm") {
		t.Errorf("--metrics sched,comm: exit %d: %s", code, stderr)
	}
}

// TestMergeCSVNumbersAsCompareCSV: a metric's cell in merge --csv is the text
// compare --csv writes for the same value: plain decimals, every digit. merge
// wrote Go's shortest %g, so a count of a million or more came out as 3.311031e+06
// (comm_messages of a week of KTH-SP2 under all-to-all) and a mean wait of
// 2,538,313 s as 2.538313e+06, where compare --csv wrote 3311031.
func TestMergeCSVNumbersAsCompareCSV(t *testing.T) {
	result := `{"alloc":"mc1x1","machine":"mesh:10x10","sched":"fcfs","jobs":869,"load_factor":1,` +
		`"pct_contiguous":100,"mean_wait":2538313.25,"mean_response":2552105.5,"mean_slowdown":22.625,"makespan":12345678,"utilization":0.00001234,` +
		`"comm":{"pattern":"all-to-all","seed":1,"messages":3311031,"mean_latency_cycles":421.339362875189,` +
		`"max_link_messages":174217,"max_link_load":0.4311552594470933,"run_time_fraction":0.0000271}}`
	line := sweep.Line{Item: sweep.Item{Index: 0, Key: "k", Params: sweep.Params{Trace: "t", Machine: "mesh:10x10", Alloc: "mc1x1",
		Sched: "fcfs", Contract: 1, Pattern: "all-to-all", Seed: 1}}, Status: sweep.StatusOK, Result: json.RawMessage(result)}
	var s sim.Summary
	if err := json.Unmarshal([]byte(result), &s); err != nil {
		t.Fatal(err)
	}
	var mb, cb strings.Builder
	if err := writeSweepCSV(&mb, []sweep.Line{line}); err != nil {
		t.Fatal(err)
	}
	if err := writeCompareCSV(&cb, []sim.Summary{s}); err != nil {
		t.Fatal(err)
	}
	read := func(name, text string) map[string]string {
		rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s: %d rows (%v):\n%s", name, len(rows), err, text)
		}
		cells := map[string]string{}
		for i, h := range rows[0] {
			cells[h] = rows[1][i]
		}
		return cells
	}
	merged, compared := read("merge --csv", mb.String()), read("compare --csv", cb.String())
	checked := 0
	for _, m := range sim.Metrics() {
		mc, ok1 := merged[m.Key]
		cc, ok2 := compared[m.Key]
		if !ok1 || !ok2 || cc == "" || mc == "" {
			continue
		}
		checked++
		if mc != cc {
			t.Errorf("%s: merge --csv %q, compare --csv %q", m.Key, mc, cc)
		}
	}
	if merged[sim.MetricCommMessages] != "3311031" {
		t.Errorf("comm_messages: merge --csv %q, want 3311031", merged[sim.MetricCommMessages])
	}
	if checked < 8 {
		t.Errorf("only %d metrics compared", checked)
	}
}

// TestCompareMetricWithoutSVGWarns: --metric only chooses the --svg chart's
// metric; given without --svg it was dropped without a word (help compare's
// --loads example gave it so). Now warned of, once, and the output is the
// same as without it; with --svg, or not given, no warning.
func TestCompareMetricWithoutSVGWarns(t *testing.T) {
	_, args := writeCrossCase(t)
	const warn = "warning: --metric mean_response is ignored: it chooses the metric of the --svg chart"
	code, plain, stderr := runCLI(t, "", args...)
	if code != 0 || strings.Contains(stderr, "--metric") {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", append(args, "--metric", "mean_response")...)
	if code != 0 || strings.Count(stderr, warn) != 1 || stdout != plain {
		t.Errorf("compare --metric mean_response: exit %d, stderr %q (want %q once), stdout the same as without: %v", code, stderr, warn, stdout == plain)
	}
	code, _, stderr = runCLI(t, "", append(args, "--metric", "mean_response", "--svg", filepath.Join(t.TempDir(), "x.svg"))...)
	if code != 0 || strings.Contains(stderr, "--metric") {
		t.Errorf("compare --metric mean_response --svg: exit %d, stderr %q, want no warning", code, stderr)
	}
}

// TestMergeCSVHasTheDistanceClasses: merge --csv has compare --csv's column
// comm_distance_classes when some item's network had distance classes: on a sweep
// over a dragonfly and a mesh, patterns none and all-to-all, the dragonfly's
// all-to-all item's cell is its results line's comm.distance_classes (3) and the
// cell compare --csv writes for the same replay; the mesh's and the none items'
// cells are empty; a sweep on the mesh alone has no such column (the columns it
// always had).
func TestMergeCSVHasTheDistanceClasses(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 30 {
		b.WriteString(strconv.Itoa(i*40) + " " + strconv.Itoa(1+(i*7)%12) + " " + strconv.Itoa(60+(i*37)%200) + " -1\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "jobs.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const df = "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13"
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: classes\ntraces: [jobs.txt]\nmachines: [\"mesh:6x6\", \""+df+"\"]\nallocators: [bf:rcm]\npatterns: [none, all-to-all]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, csvPath := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "m.csv")
	if code, _, stderr := runCLI(t, "", "sweep", spec, "-o", res); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "merge", res, "--spec", spec, "--csv", csvPath); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	rep, err := sweep.Merge([]string{res}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(mustRead(t, csvPath)))).ReadAll()
	if err != nil || len(rows) != 1+len(rep.Lines) || len(rep.Lines) != 4 {
		t.Fatalf("merge --csv: %d rows for %d lines, %v", len(rows), len(rep.Lines), err)
	}
	col, index := slices.Index(rows[0], "comm_distance_classes"), slices.Index(rows[0], "index")
	if col < 0 {
		t.Fatalf("merge --csv has no column comm_distance_classes: %q", rows[0])
	}
	withClasses := 0
	for _, l := range rep.Lines {
		var row []string
		for _, r := range rows[1:] {
			if r[index] == strconv.Itoa(l.Index) {
				row = r
			}
		}
		var s sim.Summary
		if err := json.Unmarshal(l.Result, &s); err != nil || row == nil {
			t.Fatalf("item %d: %v, row %q", l.Index, err, row)
		}
		want := ""
		if l.Params.Machine == df && l.Params.Pattern == "all-to-all" {
			if s.Comm == nil || s.Comm.DistanceClasses != 3 {
				t.Fatalf("item %d: comm %+v, want 3 distance classes", l.Index, s.Comm)
			}
			want = "3"
			withClasses++
			// compare --csv's cell for the same replay.
			code, _, stderr := runCLI(t, "", append(append([]string{"compare"}, l.Params.Args(dir)...), "--csv", filepath.Join(dir, "c.csv"))...)
			if code != 0 {
				t.Fatalf("compare: exit %d: %s", code, stderr)
			}
			crows, err := csv.NewReader(strings.NewReader(string(mustRead(t, filepath.Join(dir, "c.csv"))))).ReadAll()
			if err != nil || len(crows) != 2 {
				t.Fatalf("compare --csv: %d rows, %v", len(crows), err)
			}
			if c := crows[1][slices.Index(crows[0], "comm_distance_classes")]; c != row[col] {
				t.Errorf("item %d: merge --csv %q, compare --csv %q", l.Index, row[col], c)
			}
		}
		if row[col] != want {
			t.Errorf("item %d (%s, %s): comm_distance_classes %q, want %q", l.Index, l.Params.Machine, l.Params.Pattern, row[col], want)
		}
	}
	if withClasses != 1 {
		t.Fatalf("%d items with classes, want 1", withClasses)
	}
	var mesh strings.Builder
	if err := writeSweepCSV(&mesh, slices.DeleteFunc(slices.Clone(rep.Lines), func(l sweep.Line) bool { return l.Params.Machine == df })); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(mesh.String(), "\n"); strings.Contains(head, "comm_distance_classes") {
		t.Errorf("merge --csv of the mesh's items: %s", head)
	}
}
