package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// procalloc plan's behaviour is unchanged by Options.TimeLimit's zero now meaning no
// limit: without --time-limit the plan has 60 s (report time_limit 60, the ordering
// half of it), with --time-limit 0 none.
func TestPlanCLITimeLimitUnchanged(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	if err := os.WriteFile(conf, []byte("NodeName=cn[01-16] CPUs=1\nPartitionName=p Nodes=ALL OverSubscribe=EXCLUSIVE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args          []string
		report, order float64
	}{{nil, 60, 30}, {[]string{"--time-limit", "0"}, 0, 0}, {[]string{"--time-limit", "10s"}, 10, 5}} {
		out := filepath.Join(dir, "plan"+strings.Join(tc.args, ""))
		args := append([]string{"plan", "--machine", "mesh:4x4", "--hostlist", "cn[01-16]", "--slurm-conf", conf,
			"--slurm-version", "23.11", "--jobs", "50", "-o", out}, tc.args...)
		if code, _, stderr := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var r struct {
			TimeLimit float64 `json:"time_limit"`
			Ordering  struct {
				TimeLimit float64 `json:"time_limit"`
			} `json:"ordering"`
		}
		data, err := os.ReadFile(filepath.Join(out, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		if r.TimeLimit != tc.report || r.Ordering.TimeLimit != tc.order {
			t.Errorf("%v: report time_limit %v, ordering's %v; want %v and %v", tc.args, r.TimeLimit, r.Ordering.TimeLimit, tc.report, tc.order)
		}
	}
}

// --baseline-time-limit 0 is no limit, as every --time-limit 0 (it was refused): the
// decisions are searched to their end, all proven; negative is still refused.
func TestSimBaselineTimeLimitZeroIsNone(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.txt")
	if err := os.WriteFile(trace, []byte(smallTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:6x6", "--alloc", "mc1x1",
		"--baseline", "exact", "--baseline-time-limit", "0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m["baseline_proven"] != 1.0 {
		t.Errorf("baseline_proven %v, want 1", m["baseline_proven"])
	}
	code, _, stderr = runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:6x6", "--alloc", "mc1x1",
		"--baseline", "exact", "--baseline-time-limit", "-1s")
	if code != 2 || !strings.Contains(stderr, "must not be negative (0: no limit)") {
		t.Errorf("--baseline-time-limit -1s: exit %d: %s", code, stderr)
	}
}
