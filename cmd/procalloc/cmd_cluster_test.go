package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// cluster --time-limit returns a cluster of the requested size with its proven bound.
func TestClusterTimeLimitCLI(t *testing.T) {
	code, out, stderr := runCLI(t, "", "cluster", "--k", "200", "--time-limit", "100ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var c struct {
		K       int     `json:"k"`
		Total   int64   `json:"total"`
		Bound   int64   `json:"bound"`
		Optimal bool    `json:"optimal"`
		Points  [][]int `json:"points"`
		Note    string  `json:"note"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.K != 200 || len(c.Points) != 200 || c.Bound <= 0 || c.Bound > c.Total || (!c.Optimal && c.Note == "") {
		t.Fatalf("k %d, %d points, total %d, bound %d, optimal %v, note %q", c.K, len(c.Points), c.Total, c.Bound, c.Optimal, c.Note)
	}
	if code, _, stderr := runCLI(t, "", "cluster", "--k", "5", "--time-limit", "-1s"); code != 2 || !strings.Contains(stderr, "time-limit") {
		t.Errorf("negative limit: exit %d, %s", code, stderr)
	}
	code, out, _ = runCLI(t, "", "cluster", "--k", "60")
	if code != 0 || !strings.Contains(out, "total       8968") || !strings.Contains(out, "optimal     true") {
		t.Errorf("k 60: exit %d\n%s", code, out)
	}
}

// k above the documented maximum is a usage error (it panicked or ran out of memory).
func TestClusterHugeKIsUsageError(t *testing.T) {
	for _, k := range []string{"9223372036854775807", "100000000", "200001", "0"} {
		if code, _, stderr := runCLI(t, "", "cluster", "--k", k, "--dim", "3", "--time-limit", "2s"); code != 2 || !strings.Contains(stderr, "1..200000") {
			t.Errorf("--k %s: exit %d, %s", k, code, stderr)
		}
	}
}

// cluster's search stops at defaultSolveLimit when --time-limit is not given, as
// order's, plan's and subset --algo exact's (it had no limit: 2D k = 300 ran on
// unproven for minutes without a word); --time-limit 0 is none. The JSON and the
// text say the limit, and the help states the default.
func TestClusterDefaultTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want float64
	}{
		{nil, 60},
		{[]string{"--time-limit", "0"}, 0},
		{[]string{"--time-limit", "5s"}, 5},
	} {
		r, _ := runJSONObject(t, append([]string{"cluster", "--k", "21", "--json"}, tc.args...)...)
		if got, ok := r["time_limit"].(float64); ok != (tc.want > 0) || got != tc.want || r["optimal"] != true {
			t.Errorf("%v: time_limit %v (present %v), optimal %v; want %v and a proof", tc.args, r["time_limit"], ok, r["optimal"], tc.want)
		}
		code, out, _ := runCLI(t, "", append([]string{"cluster", "--k", "21"}, tc.args...)...)
		if has := strings.Contains(out, "time limit  "); code != 0 || has != (tc.want > 0) {
			t.Errorf("%v: the text's time limit line shown %v, want %v:\n%s", tc.args, has, tc.want > 0, out)
		}
	}
	code, out, stderr := runCLI(t, "", "cluster", "--help")
	all := strings.Join(strings.Fields(out+stderr), " ")
	if code != 0 || !strings.Contains(all, "--time-limit (default 60s, as procalloc order and plan and subset --algo exact; 0: none)") || !strings.Contains(all, "(default 1m0s)") {
		t.Errorf("cluster --help (exit %d) does not state the default limit:\n%s%s", code, out, stderr)
	}
}
