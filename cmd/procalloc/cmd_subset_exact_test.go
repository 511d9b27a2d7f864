package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/exact"
	"github.com/procalloc/procalloc/geom"
	"github.com/procalloc/procalloc/internal/oracle"
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type exactJSON struct {
	Indices  []int    `json:"indices"`
	Total    float64  `json:"total"`
	Optimal  *bool    `json:"optimal"`
	Bound    *float64 `json:"bound"`
	Gap      *float64 `json:"gap"`
	Distance string   `json:"distance"`
}

func runJSON(t *testing.T, args ...string) exactJSON {
	t.Helper()
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var r exactJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return r
}

func TestSubsetExactAlgos(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 77))
	for trial := 0; trial < 20; trial++ {
		n := 5 + r.IntN(20)
		pts := make([]geom.Point, n)
		var sb strings.Builder
		for i := range pts {
			pts[i] = geom.Point{r.IntN(6), r.IntN(6)}
			fmt.Fprintf(&sb, "%d %d\n", pts[i][0], pts[i][1])
		}
		file := writeTemp(t, "p.txt", sb.String())
		_, want := oracle.TripleSweep(pts)
		for _, algo := range []string{"k3", "exact"} {
			got := runJSON(t, "subset", "--algo", algo, "--k", "3", "--points", file, "--json")
			if got.Total != float64(want) || got.Optimal == nil || !*got.Optimal || *got.Gap != 0 {
				t.Fatalf("%s: %+v, want total %d", algo, got, want)
			}
		}
		k := 2 + r.IntN(4)
		ex := runJSON(t, "subset", "--algo", "exact", "--k", fmt.Sprint(k), "--points", file, "--json")
		pf := geom.ToFloat(pts)
		res, _ := exact.Subset(t.Context(), pf, k, exact.SubsetOptions{})
		if ex.Total != res.Total || !*ex.Optimal {
			t.Fatalf("exact k %d: %+v, want %g", k, ex, res.Total)
		}
	}
}

func TestSubsetLineRing(t *testing.T) {
	file := writeTemp(t, "r.txt", "0\n12\n15\n18\n20\n32\n41\n42\n44\n50\n62\n64\n")
	ring := runJSON(t, "subset", "--algo", "ring", "--k", "10", "--points", file, "--circumference", "65", "--json")
	if ring.Total != 755 || ring.Distance != "ring" || !*ring.Optimal {
		t.Fatalf("ring: %+v", ring)
	}
	line := runJSON(t, "subset", "--algo", "line", "--k", "3", "--points", file, "--json")
	if line.Total != 6 || !*line.Optimal { // 41 42 44
		t.Fatalf("line: %+v", line)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--algo", "ring", "--k", "2", "--points", file, "--circumference", "64"}, 1, "outside [0, 64)"},
		{[]string{"--algo", "ring", "--k", "2", "--points", file}, 2, "--circumference"},
		{[]string{"--algo", "ring", "--k", "13", "--points", file, "--circumference", "65"}, 2, "--k 13"},
		{[]string{"--algo", "line", "--k", "2", "--points", writeTemp(t, "2d.txt", "1 2\n3 4\n")}, 1, "one coordinate"},
		{[]string{"--algo", "k3", "--k", "2", "--points", writeTemp(t, "2d.txt", "1 2\n3 4\n")}, 2, "--k 3"},
		{[]string{"--algo", "k3", "--k", "3", "--points", writeTemp(t, "f.txt", "1.5 2\n3 4\n5 5\n")}, 1, "f.txt: point 1 (1.5 2): coordinates must be integers"},
		{[]string{"--algo", "k3", "--k", "3", "--points", writeTemp(t, "g.txt", "# c\n1 2\n\n3 4.25\n5 5\n")}, 1, "g.txt: point 2 (3 4.25)"},
		{[]string{"--algo", "k3", "--k", "3", "--points", writeTemp(t, "3d.txt", "1 2 3\n3 4 5\n5 5 5\n")}, 1, "3d.txt: points have dimension 3"},
		{[]string{"--algo", "exact", "--k", "2", "--points", writeTemp(t, "m.txt", "1 2\n3\n")}, 1, "line 2: 1 coordinate, but"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", append([]string{"subset"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	// voronoi names the first point that is not an integer, as k3 does.
	f := writeTemp(t, "v.txt", "1 2\n3.5 4\n5 6\n")
	if code, _, stderr := runCLI(t, "", "voronoi", "--k", "2", "--points", f); code != 1 || !strings.Contains(stderr, "v.txt: point 2 (3.5 4): coordinates must be integers") {
		t.Errorf("voronoi on a non-integer point: exit %d, stderr %q", code, stderr)
	}
}

func TestSubsetExactTimeLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 99))
	var sb strings.Builder
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&sb, "%d %d\n", r.IntN(60), r.IntN(60))
	}
	file := writeTemp(t, "big.txt", sb.String())
	got := runJSON(t, "subset", "--algo", "exact", "--k", "40", "--points", file, "--time-limit", "300ms", "--json")
	if got.Optimal == nil || got.Bound == nil || *got.Bound > got.Total {
		t.Fatalf("%+v", got)
	}
	if !*got.Optimal && (got.Gap == nil || *got.Gap <= 0) {
		t.Fatalf("stopped without a gap: %+v", got)
	}
}

func TestClusterAndVoronoiCommands(t *testing.T) {
	code, out, stderr := runCLI(t, "", "cluster", "--k", "21", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var c struct {
		Total   int64   `json:"total"`
		Points  [][]int `json:"points"`
		Optimal bool    `json:"optimal"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Total != 632 || len(c.Points) != 21 || !c.Optimal {
		t.Fatalf("cluster: %v %+v", err, c)
	}
	if code, _, _ := runCLI(t, "", "cluster", "--k", "4", "--dim", "4"); code != 2 {
		t.Errorf("--dim 4: exit %d", code)
	}
	file := writeTemp(t, "v.txt", "0 0\n1 0\n0 1\n5 5\n6 5\n")
	code, out, stderr = runCLI(t, "", "voronoi", "--k", "2", "--points", file, "--json")
	if code != 0 {
		t.Fatalf("voronoi: exit %d: %s", code, stderr)
	}
	var v struct {
		Count int `json:"count"`
		Sets  []struct {
			Indices []int `json:"indices"`
		} `json:"sets"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Count != len(v.Sets) || v.Count == 0 {
		t.Fatalf("voronoi: %v %s", err, out)
	}
	if code, _, _ := runCLI(t, "", "voronoi", "--k", "6", "--points", file); code != 2 {
		t.Errorf("k > n: exit %d", code)
	}
}
