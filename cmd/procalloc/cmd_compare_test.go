package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

func TestSplitAllocSpecs(t *testing.T) {
	got := splitAllocSpecs("mc1x1,mc1x1:tb=3,9,3,2, bf:hilbert,mc1x1-greedy:tb=2,1.5,-1,0")
	want := []string{"mc1x1", "mc1x1:tb=3,9,3,2", "bf:hilbert", "mc1x1-greedy:tb=2,1.5,-1,0"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCompareOrderAndOutputs: results come back in the order given, identical to
// single sim runs, with CSV and SVG written.
func TestCompareOrderAndOutputs(t *testing.T) {
	dir := t.TempDir()
	csvPath, svgPath := filepath.Join(dir, "c.csv"), filepath.Join(dir, "c.svg")
	specs := []string{"mc1x1:tb=2,13,20,6", "mc1x1", "bf:snake"}
	code, out, stderr := runCLI(t, "", "compare", "--trace", kthTrace, "--machine", "mesh:10x10", "--compat", "premas",
		"--alloc", strings.Join(specs, ","), "--json", "--csv", csvPath, "--svg", svgPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	want := []float64{564.865, 575.399, -1}
	for i, r := range res.Runs {
		if r["alloc"] != specs[i] {
			t.Errorf("run %d is %v, want %s", i, r["alloc"], specs[i])
		}
		if got := r["mean_total_pairwise_l1"].(float64); want[i] > 0 && (got < want[i]-0.001 || got >= want[i]+0.001) {
			t.Errorf("%s: %v, published %v", specs[i], got, want[i])
		}
	}
	code, single, _ := runCLI(t, "", "sim", "--trace", kthTrace, "--machine", "mesh:10x10", "--compat", "premas", "--alloc", "bf:snake", "--json")
	var s map[string]any
	if code != 0 || json.Unmarshal([]byte(single), &s) != nil || s["mean_total_pairwise_l1"] != res.Runs[2]["mean_total_pairwise_l1"] {
		t.Errorf("compare and sim disagree on bf:snake: %v vs %v", s["mean_total_pairwise_l1"], res.Runs[2]["mean_total_pairwise_l1"])
	}
	csvData, _ := os.ReadFile(csvPath)
	if strings.Count(string(csvData), "\n") != 4 || !strings.HasPrefix(string(csvData), "alloc,") {
		t.Errorf("CSV: %q", csvData)
	}
	svgData, _ := os.ReadFile(svgPath)
	if !strings.HasPrefix(string(svgData), "<svg") || strings.Count(string(svgData), `fill="#4878a8"`) != 3 {
		t.Errorf("SVG: %q", svgData)
	}
	// The bars have no axis: the title carries the metric's unit.
	if !strings.Contains(string(svgData), ">mean total pairwise L1 (hops) — mesh:10x10, fcfs, ") {
		t.Errorf("SVG title without the unit: %q", svgData)
	}
	if code, _, _ := runCLI(t, "", "compare", "--trace", kthTrace, "--machine", "mesh:10x10", "--alloc", ""); code != 2 {
		t.Errorf("empty --alloc: exit %d, want 2", code)
	}
}

// TestCompareContractOnce: without --loads, compare's --contract contracts the
// arrivals once, as sim's does (compare once applied it twice: KTH at 0.8 waited 18
// times longer than under sim).
func TestCompareContractOnce(t *testing.T) {
	args := []string{"--trace", kthTrace, "--machine", "mesh:10x10", "--alloc", "bf:snake", "--sched", "easy", "--contract", "0.8", "--json"}
	code, out, stderr := runCLI(t, "", append([]string{"compare"}, args...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	var cmp struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &cmp); err != nil || len(cmp.Runs) != 1 {
		t.Fatalf("compare output: %v (%d runs)", err, len(cmp.Runs))
	}
	code, out, stderr = runCLI(t, "", append([]string{"sim"}, args...)...)
	if code != 0 {
		t.Fatalf("sim: exit %d: %s", code, stderr)
	}
	var one map[string]any
	if err := json.Unmarshal([]byte(out), &one); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mean_wait", "makespan", "load_factor"} {
		if cmp.Runs[0][k] != one[k] {
			t.Errorf("%s: compare %v, sim %v", k, cmp.Runs[0][k], one[k])
		}
	}
}

// TestCompareShowsTheNetwork: with --comm, compare's table names the pattern and
// shows each replay's network figures, sim's rows for the same replays (it showed
// none, so a difference in response times came without its cause).
func TestCompareShowsTheNetwork(t *testing.T) {
	llnl := "../../sim/testdata/LLNL-T3D-1996-2.converted.txt.gz"
	args := []string{"--trace", llnl, "--machine", "mesh:16x16", "--to", "200000", "--comm", "n-body", "--comm-seed", "5"}
	specs := []string{"mc1x1", "bf:snake"}
	code, out, stderr := runCLI(t, "", append([]string{"compare", "--alloc", strings.Join(specs, ",")}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, ", n-body communication") {
		t.Errorf("title %q does not name the pattern", first)
	}
	// Which seed the replays ran with (the random pattern's and task order's).
	if !regexp.MustCompile(`communication seed \(--comm-seed\) +5 +5\n`).MatchString(out) {
		t.Errorf("compare does not say the seed:\n%s", out)
	}
	for i, a := range specs {
		code, single, stderr := runCLI(t, "", append([]string{"sim", "--alloc", a}, args...)...)
		if code != 0 {
			t.Fatalf("sim %s: exit %d: %s", a, code, stderr)
		}
		for _, r := range commRows {
			want := ""
			for _, line := range strings.Split(single, "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), r.name); ok {
					want = strings.TrimSpace(v)
				}
			}
			got := ""
			for _, line := range strings.Split(out, "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), r.name); ok {
					// Columns are separated by two or more spaces; a cell may hold one.
					cells := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(v), -1)
					if i < len(cells) {
						got = strings.TrimSuffix(cells[i], "*") // the best of the row is marked
					}
				}
			}
			if want == "" && got == "" && r.shown != nil {
				continue // a row neither has (distance classes on a mesh)
			}
			if want == "" || got != want {
				t.Errorf("%s, %q: compare shows %q, sim %q", a, r.name, got, want)
			}
		}
	}
}

// TestCompareShowsTheDistanceClasses: on a dragonfly, whose minimal routes could
// wait in a cycle, the message engine gives the links distance classes and sim's
// table says how many ("distance classes per link", JSON comm.distance_classes);
// compare's table has the same row, with sim's value in each column (it had none,
// so its figures did not say the classes were used), and on a mesh neither has it.
func TestCompareShowsTheDistanceClasses(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 30 {
		b.WriteString(strconv.Itoa(i*40) + " " + strconv.Itoa(1+(i*7)%12) + " " + strconv.Itoa(60+(i*37)%200) + " -1\n")
	}
	jobs := filepath.Join(dir, "jobs.txt")
	if err := os.WriteFile(jobs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const row = "distance classes per link"
	for _, c := range []struct {
		machine string
		classes int // 0: no row
	}{
		{"dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=13", 3},
		{"mesh:6x6", 0},
	} {
		args := []string{"--trace", jobs, "--machine", c.machine, "--comm", "all-to-all"}
		specs := []string{"bf:rcm", "genalg"}
		csvPath := filepath.Join(dir, "c.csv")
		code, out, stderr := runCLI(t, "", append([]string{"compare", "--alloc", strings.Join(specs, ","), "--csv", csvPath}, args...)...)
		if code != 0 {
			t.Fatalf("%s: compare: exit %d: %s", c.machine, code, stderr)
		}
		// --csv has the row as its column comm_distance_classes.
		rows, err := csv.NewReader(strings.NewReader(string(mustRead(t, csvPath)))).ReadAll()
		if err != nil || len(rows) != 1+len(specs) {
			t.Fatalf("%s: --csv: %d rows, %v", c.machine, len(rows), err)
		}
		col := slices.Index(rows[0], "comm_distance_classes")
		cells := tableCells(out, row)
		if c.classes == 0 {
			if cells != nil || col >= 0 {
				t.Errorf("%s: compare has a row %q: %q, CSV column %d", c.machine, row, cells, col)
			}
			continue
		}
		if col < 0 {
			t.Fatalf("%s: --csv has no column comm_distance_classes: %q", c.machine, rows[0])
		}
		for i := range specs {
			if i < len(cells) && rows[1+i][col] != cells[i] {
				t.Errorf("%s: --csv comm_distance_classes %q, the table's cell %q", specs[i], rows[1+i][col], cells[i])
			}
		}
		if len(cells) != len(specs) {
			t.Fatalf("%s: compare's row %q is %q, want %d cells:\n%s", c.machine, row, cells, len(specs), out)
		}
		for i, a := range specs {
			code, single, stderr := runCLI(t, "", append([]string{"sim", "--alloc", a, "--json"}, args...)...)
			if code != 0 {
				t.Fatalf("%s: sim %s: exit %d: %s", c.machine, a, code, stderr)
			}
			var s sim.Summary
			if err := json.Unmarshal([]byte(single), &s); err != nil {
				t.Fatal(err)
			}
			if s.Comm == nil || s.Comm.DistanceClasses != c.classes {
				t.Fatalf("%s: sim %s: comm %+v, want %d distance classes", c.machine, a, s.Comm, c.classes)
			}
			if cells[i] != strconv.Itoa(s.Comm.DistanceClasses) {
				t.Errorf("%s, %s: compare's %q is %q, sim's JSON %d", c.machine, a, row, cells[i], s.Comm.DistanceClasses)
			}
		}
	}
}
