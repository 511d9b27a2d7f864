package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertReplicatedReplaysTheSame: sim --convert writes the scaled jobs the
// replay runs, also when --replicate generates them (lazily, as they are
// replayed): the converted file has the replicas' jobs, and replaying it gives
// the summary of the replicated run (every metric of --json but the trace).
func TestConvertReplicatedReplaysTheSame(t *testing.T) {
	trace := trace200(t)
	conv := filepath.Join(t.TempDir(), "conv.txt")
	scale := []string{"--replicate", "3", "--seed", "7", "--work", "1.5", "--contract", "0.8"}
	if code, _, stderr := runCLI(t, "", append([]string{"sim", "--trace", trace, "--machine", "mesh:4x4", "--convert", conv}, scale...)...); code != 0 {
		t.Fatalf("--convert: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, conv))), "\n")
	if len(lines) != 600 {
		t.Fatalf("%d converted jobs, want 3 x 200", len(lines))
	}
	run := func(args ...string) map[string]any {
		t.Helper()
		code, out, stderr := runCLI(t, "", append([]string{"sim", "--machine", "mesh:4x4", "--alloc", "mc1x1", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	replicated := run(append([]string{"--trace", trace}, scale...)...)
	replayed := run("--trace", conv)
	if replicated["jobs"] != float64(600) {
		t.Fatalf("replicated run: %v jobs", replicated["jobs"])
	}
	for k, v := range replicated {
		switch k {
		case "trace", "scale", "seconds", "load_factor", "alloc_time": // timings differ run to run
			continue
		}
		if w, ok := replayed[k]; !ok || !jsonEqual(v, w) {
			t.Errorf("%s: %v replicated, %v replayed from --convert's file", k, v, w)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
