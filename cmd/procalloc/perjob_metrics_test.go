package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPerJobMetricGroups: sim --per-job with --metrics sched leaves the cells of
// the groups not computed empty (dist, route, ties), not zero, and every other
// cell as --metrics all writes it; with all, a job's total_pairwise_l1 is the sum
// of the L1 distances between its nodes on mesh:4x4 (node i at (i mod 4, i div 4))
// and avg_pairwise_l1 that over the pairs.
func TestPerJobMetricGroups(t *testing.T) {
	trace := trace200(t)
	dir := t.TempDir()
	read := func(metrics string) [][]string {
		t.Helper()
		path := filepath.Join(dir, metrics+".csv")
		code, _, stderr := runCLI(t, "", "sim", "--trace", trace, "--machine", "mesh:4x4", "--alloc", "mc1x1", "--metrics", metrics, "--per-job", path)
		if code != 0 {
			t.Fatalf("--metrics %s: exit %d: %s", metrics, code, stderr)
		}
		f, _ := os.Open(path)
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) != 201 {
			t.Fatalf("--metrics %s: %d rows, %v", metrics, len(rows), err)
		}
		return rows
	}
	all, sched := read("all"), read("sched")
	head := all[0]
	if !slices.Equal(head, sched[0]) {
		t.Fatalf("headers differ: %q / %q", head, sched[0])
	}
	col := func(name string) int {
		i := slices.Index(head, name)
		if i < 0 {
			t.Fatalf("no column %s in %q", name, head)
		}
		return i
	}
	empty := map[int]bool{}
	for _, name := range []string{"total_pairwise_l1", "avg_pairwise_l1", "ties", "messages", "message_hops", "message_distance", "hop_bytes", "max_routes_on_a_link"} {
		empty[col(name)] = true
	}
	tot, avg, nodes := col("total_pairwise_l1"), col("avg_pairwise_l1"), col("nodes")
	for r := 1; r < len(all); r++ {
		for c := range head {
			switch {
			case empty[c] && sched[r][c] != "":
				t.Fatalf("row %d: --metrics sched wrote %s = %q, want empty", r, head[c], sched[r][c])
			case empty[c] && all[r][c] == "":
				t.Fatalf("row %d: --metrics all left %s empty", r, head[c])
			case !empty[c] && sched[r][c] != all[r][c]:
				t.Fatalf("row %d: %s = %q with sched, %q with all", r, head[c], sched[r][c], all[r][c])
			}
		}
		var ns []int
		for _, f := range strings.Fields(all[r][nodes]) {
			v, _ := strconv.Atoi(f)
			ns = append(ns, v)
		}
		sum := 0
		for i := range ns {
			for j := i + 1; j < len(ns); j++ {
				dx, dy := ns[i]%4-ns[j]%4, ns[i]/4-ns[j]/4
				sum += max(dx, -dx) + max(dy, -dy)
			}
		}
		if got := all[r][tot]; got != strconv.Itoa(sum) {
			t.Fatalf("row %d: total_pairwise_l1 %s, brute force over nodes %v gives %d", r, got, ns, sum)
		}
		want := 0.0
		if k := len(ns); k > 1 {
			want = float64(sum) / float64(k*(k-1)/2)
		}
		if got := all[r][avg]; got != strconv.FormatFloat(want, 'f', 4, 64) {
			t.Fatalf("row %d: avg_pairwise_l1 %s, want %.4f", r, got, want)
		}
	}
}
