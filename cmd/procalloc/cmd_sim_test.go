package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/internal/shared"
)

const kthTrace = "../../sim/testdata/KTH-SP2-1996-2.converted.txt.gz"

// TestSimPublishedJSON: the KTH-SP2 MC1x1 run of Johnson et al. 2010 Fig. 8 through
// the command line, with the JSON keys other tools rely on.
func TestSimPublishedJSON(t *testing.T) {
	dir := t.TempDir()
	perJob := filepath.Join(dir, "jobs.csv")
	code, out, stderr := runCLI(t, "", "sim", "--trace", kthTrace, "--machine", "mesh:10x10", "--alloc", "mc1x1",
		"--sched", "fcfs", "--compat", "premas", "--per-job", perJob, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"jobs", "mean_total_pairwise_l1", "mean_avg_pairwise_l1", "mean_wait", "mean_response", "makespan", "utilization"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON has no %q", k)
		}
	}
	if got := m["mean_total_pairwise_l1"].(float64); got < 575.399 || got >= 575.400 {
		t.Errorf("mean total pairwise L1 %v, published 575.399", got)
	}
	if m["jobs"].(float64) != 28489 {
		t.Errorf("jobs %v", m["jobs"])
	}
	data, err := os.ReadFile(perJob)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != 28490 {
		t.Errorf("per-job CSV has %d lines, want 28490", lines)
	}
}

func TestSimErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0 4 10 -1\n5 four 10 -1\n9 2 1 -1\n"), 0o644)
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte("0 4 10 -1\n5 17 10 -1\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "--machine", "mesh:4x4"}, 2, "--trace"},
		{[]string{"sim", "--trace", bad}, 2, "--machine"},
		{[]string{"sim", "--trace", bad, "--machine", "mesh:4x4", "--sched", "sjf"}, 2, "--sched"},
		{[]string{"sim", "--trace", bad, "--machine", "mesh:4x4", "--alloc", "nope"}, 1, "line 2"},
		{[]string{"sim", "--trace", bad, "--machine", "mesh:4x4", "--alloc", "nope", "--skip-bad"}, 2, "unknown allocator"},
		{[]string{"sim", "--trace", big, "--machine", "mesh:4x4"}, 1, "job 2"},
		{[]string{"sim", "--trace", bad, "--machine", "mesh:4x4", "--compat", "x"}, 2, "--compat"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr, c.code, c.want)
		}
	}
	code, out, stderr := runCLI(t, "", "sim", "--trace", bad, "--machine", "mesh:4x4", "--skip-bad", "--sched", "easy")
	if code != 0 || !strings.Contains(out, "1 malformed line skipped") || !strings.Contains(out, "mean total pairwise L1") {
		t.Errorf("--skip-bad: exit %d, %s %s", code, out, stderr)
	}
}

func TestSimConvert(t *testing.T) {
	dir := t.TempDir()
	swf := filepath.Join(dir, "t.swf")
	os.WriteFile(swf, []byte("; MaxProcs: 16\n1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 -1 0 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n3 7 0 3.6 2 -1 -1 2 -1 -1 0 1 1 -1 -1 -1 -1 -1\n"), 0o644)
	conv := filepath.Join(dir, "t.txt")
	if code, _, stderr := runCLI(t, "", "sim", "--trace", swf, "--convert", conv, "--work", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(conv)
	if got, want := string(data), "0\t4\t20\t40\n7\t2\t8\t-1\n"; got != want {
		t.Errorf("converted %q, want %q", got, want)
	}
}

// TestSDSCWindowOfBunde2004 cuts the SDSC Paragon log to Oct-Dec 1996 by dates in its
// time zone (Bunde et al. 2004 §4): 6,613 jobs, of which three ask for 320 nodes; on
// 16x16 they are an error naming the job unless --drop-larger drops them.
func TestSDSCWindowOfBunde2004(t *testing.T) {
	sdsc, err := shared.Find("traces/SDSC-Par-1996-3.1-cln.swf.gz")
	if err != nil {
		t.Skipf("the SDSC Paragon trace is needed: %v", err)
	}
	window := []string{"--trace", sdsc, "--from", "1996-10-01", "--to", "1997-01-01", "--alloc", "ff:snake", "--json"}
	jobs := func(args ...string) (int, int) {
		code, out, stderr := runCLI(t, "", append(args, window...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var s struct {
			Jobs    int `json:"jobs"`
			Dropped int `json:"dropped_larger"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		return s.Jobs, s.Dropped
	}
	if n, d := jobs("sim", "--machine", "mesh:16x22"); n != 6613 || d != 0 {
		t.Errorf("16x22: %d jobs, %d dropped; want 6613, 0", n, d)
	}
	if n, d := jobs("sim", "--machine", "mesh:16x16", "--drop-larger"); n != 6610 || d != 3 {
		t.Errorf("16x16 --drop-larger: %d jobs, %d dropped; want 6610, 3", n, d)
	}
	code, _, stderr := runCLI(t, "", append([]string{"sim", "--machine", "mesh:16x16"}, window...)...)
	if code != 1 || !strings.Contains(stderr, "needs 320 processors") {
		t.Errorf("16x16 without --drop-larger: exit %d, %q", code, stderr)
	}
}

// Issue 13 item 12: SWF records dropped by the conversion (here a negative submit
// time) are said on stderr, not only counted in the JSON.
func TestSWFDroppedRecordsAreSaid(t *testing.T) {
	swf := filepath.Join(t.TempDir(), "neg.swf")
	os.WriteFile(swf, []byte("1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"+
		"2 -5 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"+
		"3 20 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"), 0o644)
	code, out, stderr := runCLI(t, "", "sim", "--trace", swf, "--machine", "mesh:4x4", "--alloc", "ff:snake", "--json")
	if code != 0 || !strings.Contains(stderr, "1 SWF record dropped") || !strings.Contains(stderr, "negative submit time") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var s struct {
		Jobs     int `json:"jobs"`
		Filtered int `json:"filtered_records"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Jobs != 2 || s.Filtered != 1 {
		t.Fatalf("jobs %d, filtered %d, %v", s.Jobs, s.Filtered, err)
	}
}

// --no-memo searches every decision anew and changes nothing else: the same per-job
// CSV (every job's nodes and tie count) and summary, for the allocators that
// remember their decisions.
func TestSimNoMemoSameResults(t *testing.T) {
	dir := t.TempDir()
	for _, a := range []string{"mm", "mc1x1:tb=2,13,20,6"} {
		var csv [2]string
		var sum [2]map[string]any
		for i, flag := range []string{"", "--no-memo"} {
			perJob := filepath.Join(dir, a+flag+".csv")
			args := []string{"sim", "--trace", kthTrace, "--machine", "mesh:10x10", "--alloc", a, "--compat", "premas", "--to", "2000000", "--per-job", perJob, "--json"}
			if flag != "" {
				args = append(args, flag)
			}
			code, out, stderr := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", a, flag, code, stderr)
			}
			if err := json.Unmarshal([]byte(out), &sum[i]); err != nil {
				t.Fatal(err)
			}
			delete(sum[i], "seconds")
			delete(sum[i], "alloc_time")
			data, err := os.ReadFile(perJob)
			if err != nil {
				t.Fatal(err)
			}
			csv[i] = string(data)
		}
		if csv[0] != csv[1] {
			t.Errorf("%s: per-job CSV differs with --no-memo", a)
		}
		j0, _ := json.Marshal(sum[0])
		j1, _ := json.Marshal(sum[1])
		if string(j0) != string(j1) {
			t.Errorf("%s: summary differs with --no-memo:\n%s\n%s", a, j0, j1)
		}
		if strings.Count(csv[0], "\n") < 1000 {
			t.Errorf("%s: only %d jobs replayed", a, strings.Count(csv[0], "\n"))
		}
	}
}

// TestSimLeavesGOMAXPROCS: a replay changes no process-wide setting, so that the
// replays sweep -j N and compare --parallel N run in this process after it keep N
// cores (sim once set GOMAXPROCS to 1 for the whole process).
func TestSimLeavesGOMAXPROCS(t *testing.T) {
	prev := runtime.GOMAXPROCS(3)
	defer runtime.GOMAXPROCS(prev)
	code, _, stderr := runCLI(t, "", "sim", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16",
		"--alloc", "bf:hilbert", "--compat", "premas", "--to", "864000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("GOMAXPROCS is %d after sim, was 3", got)
	}
}

// --metrics sched leaves the route metrics and the pairwise distances out of sim's
// JSON and compare's table and CSV (no zeros printed as if measured) and keeps
// every other number; a set
// without sched, or --comm without route metrics, is a usage error naming --metrics.
func TestSimMetricsSched(t *testing.T) {
	args := []string{"--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16", "--alloc", "bf:hilbert", "--to", "864000", "--json"}
	code, all, stderr := runCLI(t, "", append([]string{"sim"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, sched, stderr := runCLI(t, "", append([]string{"sim", "--metrics", "sched"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var a, s map[string]any
	if err := json.Unmarshal([]byte(all), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(sched), &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"route_pattern", "mean_message_distance", "mean_hop_bytes", "mean_max_routes_on_a_link", "mean_total_pairwise_l1", "mean_avg_pairwise_l1", "compactness"} {
		if _, ok := s[k]; ok {
			t.Errorf("--metrics sched: key %s in the JSON", k)
		}
		if _, ok := a[k]; !ok {
			t.Errorf("default metrics: no key %s", k)
		}
		delete(a, k)
	}
	for _, rows := range []any{a["by_size"], s["by_size"]} {
		for _, row := range rows.([]any) {
			delete(row.(map[string]any), "mean_total_pairwise_l1")
			delete(row.(map[string]any), "mean_avg_pairwise_l1")
		}
	}
	if nc, _ := s["metrics_not_computed"].([]any); len(nc) != 4 {
		t.Errorf("--metrics sched: metrics_not_computed %v", s["metrics_not_computed"])
	}
	delete(s, "metrics_not_computed")
	delete(a, "seconds")
	delete(a, "alloc_time")
	delete(s, "seconds")
	delete(s, "alloc_time")
	if !reflect.DeepEqual(a, s) {
		t.Errorf("the other metrics differ:\n%v\n%v", a, s)
	}
	code, out, stderr := runCLI(t, "", "compare", "--trace", "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz", "--machine", "mesh:16x16",
		"--alloc", "bf:hilbert,bf:snake", "--to", "864000", "--metrics", "sched")
	if code != 0 || !strings.Contains(out, "mean hop-bytes") || strings.Count(out, " - ") < 1 {
		t.Errorf("compare --metrics sched: exit %d, %s%s", code, out, stderr)
	}
	for _, bad := range [][]string{{"--metrics", "route"}, {"--metrics", "hops"}, {"--metrics", "sched", "--comm", "all-to-all"}} {
		code, _, stderr := runCLI(t, "", append(append([]string{"sim"}, args...), bad...)...)
		if code != 2 || !strings.Contains(stderr, "--metrics") {
			t.Errorf("%v: exit %d, %s", bad, code, stderr)
		}
	}
}

// A job's bounding box means something only on a machine with coordinates: on a
// fat tree the table prints "-" for the two bounding-box metrics, the JSON says
// no_coordinates, and the per-job CSV leaves their cells empty; on a mesh all three
// carry values.
func TestSimBoundingBoxOnlyWithCoordinates(t *testing.T) {
	for _, tc := range []struct {
		machine string
		coords  bool
	}{{"mesh:10x10", true}, {"fattree:4,4:4,4:8", false}} {
		dir := t.TempDir()
		perJob := filepath.Join(dir, "jobs.csv")
		args := []string{"sim", "--trace", kthTrace, "--machine", tc.machine, "--alloc", "bf:rcm", "--to", "300000"}
		code, table, stderr := runCLI(t, "", append(args, "--per-job", perJob)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.machine, code, stderr)
		}
		for _, name := range []string{"mean bbox volume", "mean bbox sides"} {
			i := strings.Index(table, name)
			if i < 0 {
				t.Fatalf("%s: no %q in the table:\n%s", tc.machine, name, table)
			}
			value := strings.Fields(table[i+len(name):])[0]
			if got := value != "-"; got != tc.coords {
				t.Errorf("%s: %s reads %q", tc.machine, name, value)
			}
		}
		code, out, stderr := runCLI(t, "", append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.machine, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		if _, noCoords := m["no_coordinates"]; noCoords == tc.coords {
			t.Errorf("%s: no_coordinates %v in the JSON", tc.machine, m["no_coordinates"])
		}
		f, err := os.Open(perJob)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 2 || rows[0][15] != "bbox_volume" || rows[0][16] != "bbox_sides" {
			t.Fatalf("%s: per-job CSV header %v (%d rows)", tc.machine, rows[0], len(rows))
		}
		for _, r := range rows[1:] {
			if got := r[15] != "" && r[16] != ""; got != tc.coords {
				t.Fatalf("%s: job %s has bbox cells %q, %q", tc.machine, r[0], r[15], r[16])
			}
		}
	}
}

// A job larger than the machine fails sim and compare (exit 1) with a message that
// names the job and the two ways out; the second of them replays the rest.
func TestSimJobLargerThanMachineSaysTheFix(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.txt")
	if err := os.WriteFile(trace, []byte("0 2 10 10\n5 5 10 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"sim", "compare"} {
		args := []string{cmd, "--trace", trace, "--machine", "mesh:2x2", "--alloc", "mc1x1"}
		code, _, stderr := runCLI(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "job 2 (line 2) needs 5 processors") ||
			!strings.Contains(stderr, "--machine of at least") || !strings.Contains(stderr, "--drop-larger") {
			t.Errorf("%s: exit %d, %q", cmd, code, stderr)
		}
		if code, _, stderr := runCLI(t, "", append(args, "--drop-larger")...); code != 0 {
			t.Errorf("%s --drop-larger: exit %d, %q", cmd, code, stderr)
		}
	}
}
