package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/sim"
)

// trace200 writes a converted trace of 200 jobs of 1-9 nodes (mesh:4x4 runs it in
// milliseconds).
func trace200(t *testing.T) string {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "t.txt")
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%d %d %d -1\n", i*7, 1+i%9, 30+i%50)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return trace
}

// TestCompareLoadsChart: compare --loads --svg draws --metric against the load
// factor, one line per allocator: every point of the chart is where the JSON's
// value of that allocator at that load puts it (the chart's axis starts at zero:
// y = top+height - height*v/max), the legend names the allocators in order, and
// the table heads each column "ALLOC @LOAD".
func TestCompareLoadsChart(t *testing.T) {
	trace := trace200(t)
	dir := t.TempDir()
	svgPath, jsonPath := filepath.Join(dir, "l.svg"), filepath.Join(dir, "l.json")
	args := []string{"compare", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1,bf:hilbert",
		"--loads", "1,0.5,0.25", "--parallel", "1"}
	code, _, stderr := runCLI(t, "", append(args, "--svg", svgPath, "--json", "-o", jsonPath)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Runs []struct {
			Alloc string  `json:"alloc"`
			Load  float64 `json:"load_factor"`
			Resp  float64 `json:"mean_total_pairwise_l1"`
		} `json:"runs"`
	}
	data, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 6 {
		t.Fatalf("%d runs, want 2 allocators x 3 loads", len(res.Runs))
	}
	svgb, _ := os.ReadFile(svgPath)
	svg := string(svgb)
	if strings.Contains(svg, "log scale") {
		t.Fatalf("a log axis: this test reads a linear one")
	}
	// The default metric; its unit is on the y axis, as on plot's charts.
	if !strings.Contains(svg, `text-anchor="middle">mean total pairwise L1 (hops)</text>`) || !strings.Contains(svg, "mean total pairwise L1 against load factor — mesh:4x4, fcfs, 200 jobs") {
		t.Errorf("title or axis label missing:\n%s", svg)
	}
	// Legend: the allocators' names, in the order given.
	legend := regexp.MustCompile(`<text x="655" y="[0-9.]+">([^<]*)</text>`).FindAllStringSubmatch(svg, -1)
	if len(legend) != 2 || legend[0][1] != "mc1x1" || legend[1][1] != "bf:hilbert" {
		t.Fatalf("legend %q, want mc1x1, bf:hilbert", legend)
	}
	// Points, one marker per run, coloured by the allocator's line.
	circles := regexp.MustCompile(`<use href="#mk[0-9]+" x="([0-9.]+)" y="([0-9.]+)" fill="(#[0-9a-f]+)"`).FindAllStringSubmatch(svg, -1)
	if len(circles) != 6+2 {
		t.Fatalf("%d markers, want 6 points and 2 legend entries", len(circles))
	}
	// The y axis runs from 0 to its top tick, the largest label left of it.
	hi := 0.0
	for _, m := range regexp.MustCompile(`<text x="84" y="[0-9.]+" text-anchor="end">([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("y tick %q: %v", m[1], err)
		}
		hi = max(hi, v)
	}
	for _, r := range res.Runs {
		if r.Resp > hi {
			t.Fatalf("%s at load %g: %g above the axis' top tick %g", r.Alloc, r.Load, r.Resp, hi)
		}
	}
	colour := map[string]string{"mc1x1": "#1f77b4", "bf:hilbert": "#ff7f0e"}
	for _, r := range res.Runs {
		wantX := 90 + 520*(r.Load-0.25)/(1-0.25)
		wantY := 50 + 340 - 340*r.Resp/hi
		found := false
		for _, c := range circles {
			x, _ := strconv.ParseFloat(c[1], 64)
			y, _ := strconv.ParseFloat(c[2], 64)
			if c[3] == colour[r.Alloc] && math.Abs(x-wantX) <= 0.05 && math.Abs(y-wantY) <= 0.05 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s at load %g (mean_total_pairwise_l1 %g): no point at (%.1f, %.1f) in %q", r.Alloc, r.Load, r.Resp, wantX, wantY, circles)
		}
	}
	// The table: one column per allocator and load, in run order.
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("table: exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		t.Fatalf("table %q", out)
	}
	head := strings.Fields(lines[1])
	var want []string
	for _, r := range res.Runs {
		want = append(want, r.Alloc, fmt.Sprintf("@%g", r.Load))
	}
	if strings.Join(head[1:], " ") != strings.Join(want, " ") {
		t.Errorf("table header %q, want metric %q", lines[1], want)
	}
}

// TestCompareLoadsUsage: --loads with --contract, or arguments left over, are
// usage errors (exit 2) that name the problem.
func TestCompareLoadsUsage(t *testing.T) {
	trace := trace200(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--loads", "1,0.5", "--contract", "0.8"}, "--loads replaces --contract"},
		{[]string{"extra.txt"}, `unexpected arguments ["extra.txt"]`},
		{[]string{"--parallel", "0"}, "--parallel 0: must be at least 1"},
		{[]string{"--metric", "speed"}, `--metric "speed": not a metric key`},
	} {
		args := append([]string{"compare", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1"}, c.args...)
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestMetricAxis: every metric's axis label is its name, with the unit once.
func TestMetricAxis(t *testing.T) {
	for _, m := range sim.Metrics() {
		a := metricAxis(m)
		if !strings.HasPrefix(a, m.Name) || strings.Count(a, "(") > 1 {
			t.Errorf("%s: axis %q", m.Key, a)
		}
		if u := metricLabel(m.Key); u != m.Key && !strings.HasSuffix(a, ")") {
			t.Errorf("%s: axis %q without the unit of %q", m.Key, a, u)
		}
	}
}

// TestCompareStatus: the progress line counts the finished replays and shows
// at most three running ones with their share of jobs done.
func TestCompareStatus(t *testing.T) {
	runs := make([]compareRun, 6)
	jobs := func(k int) int { return 200 }
	for _, c := range []struct {
		done     []int
		finished []bool
		want     string
	}{
		{[]int{0, 0, 0, 0, 0, 0}, make([]bool, 6), "0/6 replays done"},
		{[]int{200, 50, 0, 0, 0, 0}, []bool{true, false, false, false, false, false}, "1/6 replays done; #2 25%"},
		{[]int{200, 50, 100, 1, 199, 2}, []bool{true, false, false, false, false, false}, "1/6 replays done; #2 25%; #3 50%; #4 0% ..."},
		{[]int{200, 200, 200, 200, 200, 200}, []bool{true, true, true, true, true, true}, "6/6 replays done"},
	} {
		if got := compareStatus(runs, c.done, c.finished, jobs); got != c.want {
			t.Errorf("done %v finished %v: %q, want %q", c.done, c.finished, got, c.want)
		}
	}
	if got := sumInts([]int{200, 50, 100, 1}); got != 351 {
		t.Errorf("sumInts = %d, want 351", got)
	}
}
