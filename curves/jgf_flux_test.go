package curves

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestFluxResourceQuery loads the graph procalloc writes into fluxion's own
// resource-query (flux-sched; $PROCALLOC_RESOURCE_QUERY, else resource-query on
// PATH; skipped without it: `make test-flux` builds it and runs this test) and
// replays a random sequence of node-exclusive allocations and cancellations under
// each id policy: low, lonode and lonodex must take the k free nodes of lowest curve
// rank, high and first (fluxion's default) the k of highest. Each match comes back
// as fluxion's JGF match writer writes it and is read with procalloc's reader, whose
// ids must be the nodes' curve ranks.
func TestFluxResourceQuery(t *testing.T) {
	rq := os.Getenv("PROCALLOC_RESOURCE_QUERY")
	if rq == "" {
		rq, _ = exec.LookPath("resource-query")
	}
	if rq == "" {
		t.Skip("no resource-query (flux-sched): `make test-flux` builds it")
	}
	g := topo.Mesh(6, 5)
	o, err := Generate("gilbert", g)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, g.N())
	for i := range hosts {
		hosts[i] = fmt.Sprintf("cn%03d", 7*i+1) // the names' numbers are not the ranks
	}
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := WriteRanking(&buf, FormatJGF, o, RankingMeta{}, hosts); err != nil {
		t.Fatal(err)
	}
	graph := filepath.Join(dir, "graph.json")
	if err := os.WriteFile(graph, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 6; k++ {
		spec := fmt.Sprintf("version: 9999\nresources:\n  - type: node\n    exclusive: true\n    count: %d\n"+
			"attributes:\n  system:\n    duration: 3600\ntasks:\n  - command: [ \"app\" ]\n    slot: default\n    count:\n      per_slot: 1\n", k)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("k%d.yaml", k)), []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The script and, for a low and a high policy, the nodes each job must get.
	rng := rand.New(rand.NewPCG(7, 30))
	var script strings.Builder
	lowFree, highFree := make([]bool, g.N()), make([]bool, g.N()) // by curve rank
	for r := range lowFree {
		lowFree[r], highFree[r] = true, true
	}
	var jobs []int // live job ids
	var wantLow, wantHigh [][]string
	heldLow, heldHigh := map[int][]int{}, map[int][]int{} // job id -> ranks
	take := func(free []bool, k int, fromTop bool) []int {
		var got []int
		for i := range free {
			r := i
			if fromTop {
				r = len(free) - 1 - i
			}
			if free[r] && len(got) < k {
				free[r] = false
				got = append(got, r)
			}
		}
		return got
	}
	names := func(ranks []int) []string {
		var s []string
		for _, r := range ranks {
			s = append(s, hosts[o[r]])
		}
		slices.Sort(s)
		return s
	}
	nfree := g.N()
	for range 60 {
		if len(jobs) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(jobs))
			id := jobs[i]
			jobs = slices.Delete(jobs, i, i+1)
			for _, r := range heldLow[id] {
				lowFree[r] = true
			}
			for _, r := range heldHigh[id] {
				highFree[r] = true
			}
			nfree += len(heldLow[id])
			fmt.Fprintf(&script, "cancel %d\n", id)
			continue
		}
		k := 1 + rng.IntN(6)
		if k > nfree {
			continue
		}
		nfree -= k
		id := len(wantLow) + 1
		heldLow[id], heldHigh[id] = take(lowFree, k, false), take(highFree, k, true)
		wantLow, wantHigh = append(wantLow, names(heldLow[id])), append(wantHigh, names(heldHigh[id]))
		jobs = append(jobs, id)
		fmt.Fprintf(&script, "match allocate %s\n", filepath.Join(dir, fmt.Sprintf("k%d.yaml", k)))
	}
	script.WriteString("quit\n")
	for _, policy := range []string{"low", "lonode", "lonodex", "high", "first"} {
		want := wantLow
		if policy == "high" || policy == "first" {
			want = wantHigh
		}
		cmd := exec.Command(rq, "-L", graph, "-f", "jgf", "-P", policy, "-F", "jgf", "-d")
		cmd.Stdin = strings.NewReader(script.String())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", policy, err, out)
		}
		// The output: per job a JGF document, then INFO lines.
		var docs []string
		var cur strings.Builder
		for _, l := range strings.SplitAfter(string(out), "\n") {
			switch {
			case strings.HasPrefix(l, "INFO:"):
				if cur.Len() > 0 {
					docs = append(docs, cur.String())
					cur.Reset()
				}
			case strings.HasPrefix(l, "ERROR") || strings.Contains(l, "ERROR:"):
				t.Fatalf("%s: %s", policy, l)
			default:
				cur.WriteString(l)
			}
		}
		if len(docs) != len(want) {
			t.Fatalf("%s: %d matches, want %d\n%s", policy, len(docs), len(want), out)
		}
		for j, d := range docs {
			if _, err := readJGF([]byte(d)); err != nil {
				t.Fatalf("%s job %d: procalloc cannot read fluxion's match: %v\n%s", policy, j+1, err, d)
			}
			elems, _ := jgfGraph([]byte(d))
			var got []string
			for _, el := range elems.nodes {
				v, _ := jgfParseVertex(el.raw)
				if v.typ != "node" {
					continue
				}
				if v.id < 0 || v.id >= int64(len(o)) || hosts[o[v.id]] != v.name {
					t.Fatalf("%s job %d: fluxion's match has node %s with id %d, not its curve rank", policy, j+1, v.name, v.id)
				}
				got = append(got, v.name)
			}
			slices.Sort(got)
			if !slices.Equal(got, want[j]) {
				t.Errorf("%s job %d: fluxion took %v, the curve's %s free nodes are %v", policy, j+1, got,
					map[bool]string{true: "lowest", false: "highest"}[policy != "high" && policy != "first"], want[j])
			}
		}
		t.Logf("%s: %d jobs matched as the curve orders them", policy, len(docs))
	}

	// A graph Flux wrote (flux ion-R encode: broker ranks 0, 1, 2 are hetchy1001,
	// hetchy1002, hetchy1, each with 2 cores) with its node ids merged from an
	// ordering that is neither the names' numbers nor the uniq_ids: under lonodex
	// the jobs' R (rlite, which needs the cores) names the broker ranks in curve order.
	data, err := os.ReadFile("testdata/jgf/flux-ion-r.json")
	if err != nil {
		t.Fatal(err)
	}
	ionHosts := []string{"hetchy1001", "hetchy1002", "hetchy1"}
	ionOrder := Order{1, 2, 0}
	merged, err := MergeJGFIDs(data, ionOrder, ionHosts)
	if err != nil {
		t.Fatal(err)
	}
	_, sched := jgfTestGraph(t, merged)
	b, _ := json.Marshal(map[string]any{"graph": sched})
	mergedPath := filepath.Join(dir, "merged.json")
	if err := os.WriteFile(mergedPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rq, "-L", mergedPath, "-f", "jgf", "-P", "lonodex", "-F", "rlite", "-d")
	one := "match allocate " + filepath.Join(dir, "k1.yaml") + "\n"
	cmd.Stdin = strings.NewReader(one + one + one + "quit\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("merged graph: %v\n%s", err, out)
	}
	var ranks []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "[") {
			var rlite []struct {
				Rank     string            `json:"rank"`
				Children map[string]string `json:"children"`
			}
			if err := json.Unmarshal([]byte(l), &rlite); err != nil || len(rlite) != 1 || rlite[0].Children["core"] != "0-1" {
				t.Fatalf("merged graph: R_lite %s: %v", l, err)
			}
			ranks = append(ranks, rlite[0].Rank)
		}
	}
	if want := []string{"1", "2", "0"}; !slices.Equal(ranks, want) {
		t.Errorf("merged graph under lonodex: broker ranks %v, want %v (curve order)\n%s", ranks, want, out)
	}
}
