package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// subset --algo exact has the default time limit of the other exact solves' commands
// (order, plan: 60 s), said in its help and its output (time_limit); --time-limit 0
// is none; the other algorithms keep none unless given one.
func TestSubsetExactDefaultTimeLimit(t *testing.T) {
	pts := filepath.Join(t.TempDir(), "pts.txt")
	if err := os.WriteFile(pts, []byte("0 0\n1 0\n0 1\n5 5\n1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want float64
	}{
		{[]string{"--algo", "exact"}, 60},
		{[]string{"--algo", "exact", "--time-limit", "0"}, 0},
		{[]string{"--algo", "exact", "--time-limit", "5s"}, 5},
		{[]string{"--algo", "mminc"}, 0},
		{[]string{"--algo", "ptas", "--time-limit", "2s"}, 2},
	} {
		r, out := runJSONObject(t, append([]string{"subset", "--k", "3", "--points", pts, "--json"}, tc.args...)...)
		got, ok := r["time_limit"].(float64)
		if ok != (tc.want > 0) || got != tc.want {
			t.Errorf("%v: time_limit %v (present %v), want %v", tc.args, r["time_limit"], ok, tc.want)
		}
		if tc.want == 60 && r["optimal"] != true {
			t.Errorf("%v: %s", tc.args, out)
		}
	}
	code, out, stderr := runCLI(t, "", "subset", "--help")
	all := strings.Join(strings.Fields(out+stderr), " ")
	if code != 0 || !strings.Contains(all, "not given: 1m0s for --algo exact, as procalloc order and plan") ||
		!strings.Contains(all, "--time-limit (default 60s, as procalloc order and plan; 0: none)") {
		t.Errorf("subset --help (exit %d) does not state the exact search's default limit:\n%s%s", code, out, stderr)
	}
}

// runJSONObject runs procalloc with args, which must exit 0, and returns the JSON
// object it printed, decoded, and as printed.
func runJSONObject(t *testing.T, args ...string) (map[string]any, string) {
	t.Helper()
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return r, out
}
