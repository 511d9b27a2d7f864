package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSubsetLineRingFractional: subset --algo line and --algo ring on points with
// fractional coordinates (the float path; integer inputs take another) return k
// points whose total pairwise distance is the brute-force minimum over all k-subsets
// (on the ring the distance is the shorter arc), and the total they report is that
// of the indices they return.
func TestSubsetLineRingFractional(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	const C = 10.0
	for trial := range 6 {
		n, k := 9+trial%3, 2+trial%4
		pts := make([]float64, n)
		var b strings.Builder
		for i := range pts {
			pts[i] = math.Round(rng.Float64()*C*1000) / 1000
			if pts[i] >= C {
				pts[i] = 0
			}
			fmt.Fprintf(&b, "%g\n", pts[i])
		}
		if !strings.Contains(b.String(), ".") {
			t.Fatalf("trial %d: no fractional coordinate", trial)
		}
		file := filepath.Join(dir, fmt.Sprintf("p%d.txt", trial))
		os.WriteFile(file, []byte(b.String()), 0o644)
		for _, algo := range []string{"line", "ring"} {
			dist := func(a, b float64) float64 { return math.Abs(a - b) }
			args := []string{"subset", "--algo", algo, "--k", fmt.Sprint(k), "--points", file, "--json"}
			if algo == "ring" {
				dist = func(a, b float64) float64 { d := math.Abs(a - b); return min(d, C-d) }
				args = append(args, "--circumference", fmt.Sprint(C))
			}
			total := func(idx []int) float64 {
				s := 0.0
				for i := range idx {
					for j := i + 1; j < len(idx); j++ {
						s += dist(pts[idx[i]], pts[idx[j]])
					}
				}
				return s
			}
			best := math.Inf(1)
			for mask := range 1 << n {
				var idx []int
				for i := range n {
					if mask>>i&1 == 1 {
						idx = append(idx, i)
					}
				}
				if len(idx) == k {
					best = min(best, total(idx))
				}
			}
			code, out, stderr := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%s trial %d: exit %d: %s", algo, trial, code, stderr)
			}
			var r struct {
				Indices []int   `json:"indices"`
				Total   float64 `json:"total"`
				Optimal *bool   `json:"optimal"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Indices) != k || r.Optimal == nil || !*r.Optimal {
				t.Fatalf("%s trial %d: %s", algo, trial, out)
			}
			if got := total(r.Indices); math.Abs(got-best) > 1e-9 || math.Abs(r.Total-got) > 1e-9 {
				t.Errorf("%s trial %d (k %d, points %v): indices %v total %g (reported %g), brute force %g", algo, trial, k, pts, r.Indices, got, r.Total, best)
			}
		}
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0.5\n10.25\n3\n"), 0o644)
	code, _, stderr := runCLI(t, "", "subset", "--algo", "ring", "--k", "2", "--points", bad, "--circumference", "10")
	if code != 1 || !strings.Contains(stderr, "point 1 (0-based, as in indices) has coordinate 10.25, outside [0, 10)") {
		t.Errorf("a point beyond the circumference: exit %d, %q", code, stderr)
	}
}
