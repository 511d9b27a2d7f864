package curves

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// The JGF files in testdata/jgf are in the forms flux-sched writes and tests, one
// written by hand, two printed by Flux's own tools (testdata/jgf/README.md). Read as a
// ranking, their nodes come in the order of the "id" fluxion's reader gives them:
// the metadata id, else the digits that end the host name, else the uniq_id; not
// the order of the file, nor the broker rank.
func TestJGFReadsFluxForms(t *testing.T) {
	for _, tc := range []struct {
		file  string
		hosts []string // node-index order
		want  []string // hosts in the order fluxion's low-id policies take them
	}{
		// Every field given; ids 0..3 listed rack1 first, ranks 1,2,3,0.
		{"flux-hierarchy.json", []string{"node0", "node1", "node2", "node3"},
			[]string{"node0", "node1", "node2", "node3"}},
		// R from flux R encode | flux ion-R encode: no node id, so the host name's number
		// (hetchy1 = 1 before hetchy1001); broker ranks follow the nodelist.
		{"flux-ion-r.json", []string{"hetchy1001", "hetchy1002", "hetchy1"},
			[]string{"hetchy1", "hetchy1001", "hetchy1002"}},
		// resource-query's match (JGF writer): no names (basename "node" + id), ids
		// 5, 3, 4 in file order.
		{"flux-match.json", []string{"node3", "node4", "node5"},
			[]string{"node3", "node4", "node5"}},
	} {
		data, err := os.ReadFile("testdata/jgf/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := DetectFormat(data); err != nil || f != FormatJGF {
			t.Errorf("%s detected as %q, %v", tc.file, f, err)
		}
		o, err := ReadRanking(bytes.NewReader(data), FormatJGF, len(tc.hosts), tc.hosts)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var got []string
		for _, v := range o {
			got = append(got, tc.hosts[v])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.file, got, tc.want)
		}
		// The order is the ids', not the file's: shuffled vertices and edges read
		// the same.
		doc, graph := jgfTestGraph(t, data)
		rng := rand.New(rand.NewPCG(1, uint64(len(tc.file))))
		for range 5 {
			for _, k := range []string{"nodes", "edges"} {
				l := graph[k].([]any)
				rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
			}
			b, _ := json.Marshal(doc)
			o2, err := ReadRanking(bytes.NewReader(b), FormatJGF, len(tc.hosts), tc.hosts)
			if err != nil || !slices.Equal(o2, o) {
				t.Fatalf("%s shuffled: %v, %v; want %v", tc.file, o2, err, o)
			}
		}
	}
}

// jgfTestGraph decodes a JGF document (or a Flux R) and returns it with its graph.
func jgfTestGraph(t *testing.T, data []byte) (map[string]any, map[string]any) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if s, ok := doc["scheduling"].(map[string]any); ok {
		return doc, s["graph"].(map[string]any)
	}
	return doc, doc["graph"].(map[string]any)
}

// What fluxion's reader refuses (resource_reader_jgf.cpp: fetch_jgf, fill_fetcher,
// apply_defaults, add_vtx, unpack_edge) procalloc refuses, naming the line, and it
// refuses nodes of equal id, which fluxion's low-id policies order arbitrarily.
func TestJGFRefusesWhatFluxRefuses(t *testing.T) {
	const node = `{"id":"1","metadata":{"type":"node","name":"a1","id":0,"paths":{"containment":"/c/a1"}}}`
	cluster := `{"id":"0","metadata":{"type":"cluster","paths":{"containment":"/c"}}}`
	doc := func(nodes, edges string) string {
		return `{"graph":{"nodes":[` + nodes + `],"edges":[` + edges + `]}}`
	}
	ok := doc(cluster+",\n"+node, `{"source":"0","target":"1"}`)
	if o, err := ReadRanking(strings.NewReader(ok), FormatJGF, 1, []string{"a1"}); err != nil || len(o) != 1 {
		t.Fatalf("the valid base: %v, %v", o, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"nodes":[]}`, `no "graph" key`},
		{`{"graph":{"edges":[]}}`, `no "nodes" key`},
		{`{"graph":{"nodes":[` + node + `]}}`, `no "edges" key`},
		{`{"graph":{"nodes":{},"edges":[]}}`, `"nodes" is not an array`},
		{`{"version":1,"scheduling":{}}`, `"scheduling" has no "graph"`},
		{`{"graph":{"nodes":[` + node + `],"edges":[]}} x`, "after the JSON document"},
		{`{"graph":{"nodes":[` + node + `,]}}`, "JGF line 1: invalid character"},
		{doc(cluster+",\n"+strings.Replace(node, `"id":"1"`, `"id":1`, 1), ""), `line 2: vertex: "id" is not a string`},
		{doc(`{"id":"1"}`, ""), `vertex "1": no "metadata"`},
		{doc(strings.Replace(node, `"type":"node",`, "", 1), ""), `metadata has no "type"`},
		{doc(strings.Replace(node, `"type":"node"`, `"Type":"node"`, 1), ""), `metadata has no "type"`},
		{doc(strings.Replace(node, `,"paths":{"containment":"/c/a1"}`, "", 1), ""), `"paths" is not an object`},
		{doc(strings.Replace(node, `"id":0`, `"id":0.5`, 1), ""), `"id" is not an integer`},
		{doc(strings.Replace(node, `"id":0`, `"id":0,"rank":"3"`, 1), ""), `"rank" is not an integer`},
		{doc(strings.Replace(node, `"id":0`, `"id":0,"exclusive":1`, 1), ""), `"exclusive" is not true or false`},
		{doc(strings.Replace(node, `"name":"a1"`, `"name":7`, 1), ""), `"name" is not a string`},
		{doc(strings.Replace(node, `"id":0`, `"id":0,"properties":{"x":1}`, 1), ""), `"properties" is not an object of strings`},
		{doc(node+",\n"+node, ""), `line 2: vertex id "1" again (first on line 1)`},
		{doc(node, `{"source":"1","target":"9"}`), `edge target "9" is no vertex`},
		{doc(node, `{"source":1,"target":"1"}`), `edge "source" is not a string`},
		{doc(node, `{"source":"1","target":"1","metadata":{"subsystem":5}}`), `"subsystem" is not a string`},
		// fluxion infers uniq_id from the vertex id when it is absent.
		{doc(strings.Replace(node, `"id":"1"`, `"id":"n1"`, 1), ""), `no "uniq_id" and the vertex id "n1" is not an integer`},
		{doc(strings.Replace(strings.Replace(node, `"id":0,`, "", 1), `"a1"`, `"a99999999999999999999"`, 1), ""), "out of range"},
		// Two nodes of one id (t/data/shell/corona-jgf.json has two of id -1).
		{doc(cluster+",\n"+node+",\n"+strings.NewReplacer(`"id":"1"`, `"id":"2"`, "a1", "a2").Replace(node), ""),
			`line 3: node "a2" has id 0, as node "a1" on line 2`},
		// Without an id a node's is the number ending its name: a01 and a1 tie.
		{doc(strings.Replace(strings.Replace(node, `"id":0,`, "", 1), "a1", "a01", 1)+",\n"+
			strings.NewReplacer(`"id":"1"`, `"id":"2"`, `"id":0,`, "").Replace(node), ""), `node "a1" has id 1, as node "a01"`},
	} {
		_, err := ReadRanking(strings.NewReader(tc.in), FormatJGF, 2, []string{"a1", "a2"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// Every vertex procalloc writes carries all the metadata fluxion before v0.39
// required and every edge the "name" map fluxion before v0.38 required besides the
// "subsystem" of later versions; a node's id is its curve rank, its uniq_id its
// vertex id, its rank (broker rank) the host's index, its path under the one root.
func TestJGFWriterFields(t *testing.T) {
	g, err := topo.ParseSpec("mesh:6x5")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Generate("gilbert", g)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, g.N())
	for i := range hosts {
		hosts[i] = fmt.Sprintf("cn%03d", 7*i+1)
	}
	var buf bytes.Buffer
	if err := WriteRanking(&buf, FormatJGF, o, RankingMeta{}, hosts); err != nil {
		t.Fatal(err)
	}
	_, graph := jgfTestGraph(t, buf.Bytes())
	index := map[string]int{}
	for i, h := range hosts {
		index[h] = i
	}
	roots, seen := 0, map[string]bool{}
	nodes := graph["nodes"].([]any)
	for _, x := range nodes {
		v := x.(map[string]any)
		m := v["metadata"].(map[string]any)
		for _, k := range []string{"type", "basename", "name", "id", "uniq_id", "rank", "exclusive", "unit", "size", "paths"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("vertex %v has no %q", v["id"], k)
			}
		}
		vid := v["id"].(string)
		if seen[vid] {
			t.Fatalf("vertex id %s twice", vid)
		}
		seen[vid] = true
		if strconv.Itoa(int(m["uniq_id"].(float64))) != vid {
			t.Errorf("vertex %s: uniq_id %v", vid, m["uniq_id"])
		}
		path := m["paths"].(map[string]any)["containment"].(string)
		if strings.Count(path, "/") == 1 {
			roots++
			continue
		}
		name := m["name"].(string)
		r, rank := int(m["id"].(float64)), int(m["rank"].(float64))
		if r < 0 || r >= len(o) || hosts[o[r]] != name {
			t.Errorf("node %s has id %d; curve rank %d is %s", name, r, r, hosts[o[r]])
		}
		if rank != index[name] || path != "/cluster0/"+name || m["type"] != "node" {
			t.Errorf("node %s: rank %d, path %s, type %v", name, rank, path, m["type"])
		}
	}
	if roots != 1 || len(nodes) != g.N()+1 {
		t.Errorf("%d roots, %d vertices for %d nodes", roots, len(nodes), g.N())
	}
	edges := graph["edges"].([]any)
	for _, x := range edges {
		e := x.(map[string]any)
		m := e["metadata"].(map[string]any)
		if m["subsystem"] != "containment" || m["name"].(map[string]any)["containment"] != "contains" ||
			!seen[e["source"].(string)] || !seen[e["target"].(string)] {
			t.Errorf("edge %v", e)
		}
	}
	if len(edges) != g.N() {
		t.Errorf("%d edges for %d nodes", len(edges), g.N())
	}
}

// Flux names its graphs .json: a file named so is a Flux graph (or R) or procalloc's
// JSON ranking by its content. A graph with every core, as Flux writes one, takes
// more than a ranking's 1 KiB per node and is read within jgfBytesPerNode.
func TestJGFNamedJSONAndLarge(t *testing.T) {
	const n, cores = 64, 96
	hosts := make([]string, n)
	var vs, es []string
	vs = append(vs, `{"id":"0","metadata":{"type":"cluster","paths":{"containment":"/c0"}}}`)
	uid := 1
	for i := range n {
		hosts[i] = fmt.Sprintf("n%02d", i)
		node := uid
		// ids reversed: node n-1-i has id i.
		vs = append(vs, fmt.Sprintf(`{"id":"%d","metadata":{"type":"node","name":"%s","id":%d,"rank":%d,"paths":{"containment":"/c0/%s"}}}`,
			node, hosts[i], n-1-i, i, hosts[i]))
		es = append(es, fmt.Sprintf(`{"source":"0","target":"%d"}`, node))
		uid++
		for c := range cores {
			vs = append(vs, fmt.Sprintf(`{"id":"%d","metadata":{"type":"core","basename":"core","name":"core%d","id":%d,"uniq_id":%d,"rank":%d,"exclusive":false,"unit":"","size":1,"paths":{"containment":"/c0/%s/core%d"}}}`,
				uid, c, c, uid, i, hosts[i], c))
			es = append(es, fmt.Sprintf(`{"source":"%d","target":"%d","metadata":{"subsystem":"containment"}}`, node, uid))
			uid++
		}
	}
	big := []byte(`{"graph":{"nodes":[` + strings.Join(vs, ",\n") + "],\n" + `"edges":[` + strings.Join(es, ",\n") + "]}}\n")
	if int64(len(big)) <= maxRankingBytes(n) {
		t.Fatalf("%d bytes is within a ranking's cap: the test shows nothing", len(big))
	}
	want := make(Order, n)
	for r := range want {
		want[r] = n - 1 - r
	}
	dir := t.TempDir()
	var small bytes.Buffer
	if err := WriteRanking(&small, FormatJSON, want, RankingMeta{}, nil); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"flux.json": big, "procalloc.json": small.Bytes()} {
		path := dir + "/" + name
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		o, err := ReadRankingFile(path, n, hosts)
		if err != nil || !slices.Equal(o, want) {
			t.Errorf("%s: %v, %v", name, o, err)
		}
	}
	for _, f := range []Format{"", FormatJGF} {
		o, err := ReadRankingFrom(bytes.NewReader(big), "stdin", f, topo.Mesh(n), hosts)
		if err != nil || !slices.Equal(o, want) {
			t.Errorf("format %q: %v", f, err)
		}
	}
	for _, f := range []Format{FormatJGF, FormatJSONOrJGF} {
		if o, err := ReadRanking(bytes.NewReader(big), f, n, hosts); err != nil || !slices.Equal(o, want) {
			t.Errorf("ReadRanking %s: %v", f, err)
		}
	}
	if o, err := ReadRanking(bytes.NewReader(small.Bytes()), FormatJSONOrJGF, n, hosts); err != nil || !slices.Equal(o, want) {
		t.Errorf("ReadRanking %s of a JSON ranking: %v", FormatJSONOrJGF, err)
	}
	if f, _ := ReadFormatFromPath("x/graph.json"); f != FormatJSONOrJGF {
		t.Errorf("ReadFormatFromPath(.json) = %q", f)
	}
	// Past its own cap a graph is refused too.
	huge := bytes.Repeat([]byte(" "), int(MaxJGFBytes(n)))
	if _, err := ReadRanking(bytes.NewReader(append(huge, big...)), FormatJGF, n, hosts); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("past MaxJGFBytes: %v", err)
	}
}

// MergeJGFIDs sets the node ids of a graph Flux wrote to the curve ranks: read back,
// the nodes come in the ordering's order; every other vertex, field and edge, and
// R's execution part, is unchanged; a node's name is written out where fluxion would
// have made it from the old id. A host without a node and a node no host are errors.
func TestMergeJGFIDs(t *testing.T) {
	for _, tc := range []struct {
		file  string
		hosts []string
	}{
		{"flux-ion-r.json", []string{"hetchy1001", "hetchy1002", "hetchy1"}},
		{"flux-match.json", []string{"node3", "node4", "node5"}},
		{"flux-hierarchy.json", []string{"node0", "node1", "node2", "node3"}},
	} {
		data, err := os.ReadFile("testdata/jgf/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		n := len(tc.hosts)
		o := make(Order, n)
		for r := range o {
			o[r] = n - 1 - r // neither the names' order nor the file's
		}
		merged, err := MergeJGFIDs(data, o, tc.hosts)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		back, err := ReadRanking(bytes.NewReader(merged), FormatJGF, n, tc.hosts)
		if err != nil || !slices.Equal(back, o) {
			t.Fatalf("%s: read back %v, %v; want %v", tc.file, back, err, o)
		}
		// All but the nodes' id and name as before.
		before, gb := jgfTestGraph(t, data)
		after, ga := jgfTestGraph(t, merged)
		for _, g := range []map[string]any{gb, ga} {
			for _, x := range g["nodes"].([]any) {
				m := x.(map[string]any)["metadata"].(map[string]any)
				if m["type"] == "node" {
					delete(m, "id")
					delete(m, "name")
				}
			}
		}
		b1, _ := json.Marshal(before)
		b2, _ := json.Marshal(after)
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s: the merge changed more than the node ids and names:\n%s\n%s", tc.file, b1, b2)
		}
		if _, err := MergeJGFIDs(data, RowMajor(n-1), tc.hosts[:n-1]); err == nil || !strings.Contains(err.Error(), "is not a host of the ordering") {
			t.Errorf("%s, a host short: %v", tc.file, err)
		}
		if _, err := MergeJGFIDs(data, o[:n-1], tc.hosts[:n-1]); err == nil {
			t.Errorf("%s: an ordering that is no permutation merged", tc.file)
		}
		other := append(slices.Clone(tc.hosts), "elsewhere9")
		if _, err := MergeJGFIDs(data, append(slices.Clone(o), n), other); err == nil || !strings.Contains(err.Error(), `host "elsewhere9" has no node`) {
			t.Errorf("%s, a host not in the graph: %v", tc.file, err)
		}
	}
}
