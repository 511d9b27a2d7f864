package curves

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzMergeJGFIDs: `procalloc curve --flux-graph FILE` reads the user's Flux
// resource graph and writes it back with the node ids set to the curve ranks
// (MergeJGFIDs). For any graph:
//   - no panic; an error of the reader is a JGF error, naming its line when a
//     vertex, an edge or the JSON is at fault;
//   - for a graph readJGF accepts whose node names are distinct, the merge with
//     any ordering of them succeeds, reads back in that ordering, changes no
//     vertex, edge or field but the nodes' "id" and "name", and merging the
//     result again gives the same bytes;
//   - a graph with two nodes of one name is refused (the two cannot both take
//     the host's rank).
func FuzzMergeJGFIDs(f *testing.F) {
	for _, file := range []string{"flux-ion-r.json", "flux-match.json", "flux-hierarchy.json"} {
		data, err := os.ReadFile("testdata/jgf/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(1))
	}
	f.Add([]byte(`{"graph":{"nodes":[{"id":"0","metadata":{"type":"cluster","paths":{}}},{"id":"1","metadata":{"type":"node","name":"n7","paths":{}}},{"id":"2","metadata":{"type":"node","basename":"n","paths":{}}}],"edges":[{"source":"0","target":"1"}]}}`), uint8(0))
	f.Add([]byte(`{"graph":{"nodes":[{"id":"1","metadata":{"type":"node","name":"a","id":1,"paths":{}}},{"id":"2","metadata":{"type":"node","name":"a","id":2,"paths":{}}}],"edges":[]}}`), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, rot uint8) {
		nodes, err := readJGF(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "JGF") {
				t.Fatalf("error not naming JGF: %v", err)
			}
			if _, merr := MergeJGFIDs(data, Order{}, nil); merr == nil {
				t.Fatalf("readJGF refuses (%v), MergeJGFIDs merges", err)
			}
			return
		}
		var hosts []string
		seen := map[string]bool{}
		for _, nd := range nodes {
			if !seen[nd.Host] {
				seen[nd.Host] = true
				hosts = append(hosts, nd.Host)
			}
		}
		n := len(hosts)
		o := make(Order, n)
		for r := range o {
			o[r] = (n - 1 - r + int(rot)) % n // reversed and rotated: neither the file's order nor the names'
		}
		merged, err := MergeJGFIDs(data, o, hosts)
		if len(hosts) < len(nodes) {
			if err == nil {
				t.Fatalf("%d nodes of %d names merged", len(nodes), len(hosts))
			}
			if strings.HasPrefix(err.Error(), "merged graph") {
				t.Fatalf("two nodes of one name refused only after the merge: %v", err)
			}
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "Flux reads its resource graph uncompressed") {
				return // compressed: readJGF reads it, Flux does not
			}
			t.Fatalf("readJGF accepts the graph, the merge refuses it: %v", err)
		}
		back, err := readJGF(merged)
		if err != nil {
			t.Fatalf("merged graph: %v", err)
		}
		if len(back) != n {
			t.Fatalf("merged graph has %d nodes, was %d", len(back), n)
		}
		for r, nd := range back {
			if nd.Host != hosts[o[r]] {
				t.Fatalf("rank %d reads back as %q, want %q", r, nd.Host, hosts[o[r]])
			}
		}
		again, err := MergeJGFIDs(merged, o, hosts)
		if err != nil || !bytes.Equal(again, merged) {
			t.Fatalf("merged twice: %v\n%s\nonce:\n%s", err, again, merged)
		}
		// All but the nodes' id and name as before.
		strip := func(b []byte) []byte {
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("decoding: %v", err)
			}
			g, _ := doc["graph"].(map[string]any)
			if g == nil {
				s, _ := doc["scheduling"].(map[string]any)
				g, _ = s["graph"].(map[string]any)
			}
			vs, _ := g["nodes"].([]any)
			for _, x := range vs {
				m := x.(map[string]any)["metadata"].(map[string]any)
				if m["type"] == "node" {
					delete(m, "id")
					delete(m, "name")
				}
			}
			out, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		if b1, b2 := strip(data), strip(merged); !bytes.Equal(b1, b2) {
			t.Fatalf("the merge changed more than the node ids and names:\n%s\n%s", b1, b2)
		}
	})
}
