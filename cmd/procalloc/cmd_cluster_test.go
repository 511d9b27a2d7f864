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
