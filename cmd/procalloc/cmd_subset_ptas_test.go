package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each registered approximation algorithm runs from the command line on a points file
// and on the free nodes of a mesh, returning k distinct indices whose recomputed total
// is within the printed guarantee of the known optimum.
func TestSubsetApproxAlgorithms(t *testing.T) {
	dir := t.TempDir()
	pts := filepath.Join(dir, "pts.txt")
	// Two tight clusters and stragglers; the optimum for k = 4 is the square at the
	// origin, total 8.
	if err := os.WriteFile(pts, []byte("# test\n0 0\n1 0\n5 5\n0 1\n9 9\n1 1\n20 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	free := filepath.Join(dir, "free.txt")
	if err := os.WriteFile(free, []byte("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, algo := range []string{"mm", "genalg", "mc1x1", "mminc", "ptas"} {
		code, out, stderr := runCLI(t, "", "subset", "--algo", algo, "--k", "4", "--points", pts, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", algo, code, stderr)
		}
		var res subsetResult
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v in %q", algo, err, out)
		}
		if len(res.Indices) != 4 || res.Guarantee < 1 || res.Total < 8 || res.Total > res.Guarantee*8 {
			t.Fatalf("%s: %+v", algo, res)
		}
		// The free nodes 0..15 of mesh:4x4 form the whole mesh: the best 4 form a
		// 2x2 square (total 8). MM's ties by index give a T (total 9) there.
		code, out, stderr = runCLI(t, "", "subset", "--algo", algo, "--k", "4", "--machine", "mesh:4x4", "--free", free, "--json")
		if code != 0 {
			t.Fatalf("%s mesh: exit %d: %s", algo, code, stderr)
		}
		res = subsetResult{}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Nodes) != 4 || res.Total < 8 || res.Total > res.Guarantee*8 {
			t.Fatalf("%s mesh: %+v", algo, res)
		}
		if (algo == "mminc" || algo == "ptas") && res.Total != 8 {
			t.Fatalf("%s mesh: total %v, want the square (8)", algo, res.Total)
		}
	}
	if code, out, _ := runCLI(t, "", "subset", "--algo", "ptas", "--k", "4", "--eps", "0.25", "--points", pts); code != 0 || !strings.Contains(out, "total       8\n") || !strings.Contains(out, "m = 4") {
		t.Fatalf("ptas eps 0.25: %d %q", code, out)
	}
}

func TestSubsetPTASTooLarge(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&sb, "%d %d\n", i*7%101, i*13%97)
	}
	code, _, stderr := runCLI(t, sb.String(), "subset", "--algo", "ptas", "--k", "40", "--eps", "0.1", "--points", "-")
	if code != 1 || !strings.Contains(stderr, "too large") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

func TestSubsetHelpListsApproximations(t *testing.T) {
	_, out, _ := runCLI(t, "", "help", "subset")
	for _, w := range []string{"mminc", "PTAS", "seconds", "7/4"} {
		if !strings.Contains(out, w) && !strings.Contains(out, strings.ToLower(w)) {
			t.Errorf("help subset does not mention %q", w)
		}
	}
}
