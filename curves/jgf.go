package curves

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// Flux's resource graph in the JSON Graph Format (JGF), as fluxion's reader
// (flux-sched resource/readers/resource_reader_jgf.cpp) reads it. The file and line
// numbers cited here are those of flux-sched at commit fd257f7 (v0.54.0-8,
// 2026-08-12); docs/curves.md "Flux's resource graph" lists them.

// writeJGF writes o as a JGF resource graph: a cluster vertex and one node vertex
// per host, the host of curve rank r with metadata "id" r and "uniq_id" r+1, so
// that fluxion's low-id policies (low, lonode, lonodex: match-policy in
// [sched-fluxion-resource]) select free nodes in curve order. The node's "rank"
// (Flux's broker rank, the execution target of a job's R) is the host's index in
// hosts: the broker rank when the instance lists its hosts in that order (R's
// nodelist, [bootstrap] hosts). Every metadata field is written, as fluxion before
// v0.39 required, and each edge has both the "subsystem" of fluxion v0.38 on and the
// "name" map that fluxion before v0.38 required.
func writeJGF(w io.Writer, o Order, hosts []string) error {
	type meta struct {
		Type      string            `json:"type"`
		Basename  string            `json:"basename"`
		Name      string            `json:"name"`
		ID        int               `json:"id"`
		UniqID    int               `json:"uniq_id"`
		Rank      int               `json:"rank"`
		Exclusive bool              `json:"exclusive"`
		Unit      string            `json:"unit"`
		Size      int               `json:"size"`
		Paths     map[string]string `json:"paths"`
	}
	type vertex struct {
		ID       string `json:"id"`
		Metadata meta   `json:"metadata"`
	}
	type edgeMeta struct {
		Name      map[string]string `json:"name"`
		Subsystem string            `json:"subsystem"`
	}
	type edge struct {
		Source   string   `json:"source"`
		Target   string   `json:"target"`
		Metadata edgeMeta `json:"metadata"`
	}
	nodes := []vertex{{ID: "0", Metadata: meta{Type: "cluster", Basename: "cluster", Name: "cluster0", Rank: -1, Size: 1,
		Paths: map[string]string{"containment": "/cluster0"}}}}
	edges := []edge{}
	for r, v := range o {
		name := hostName(hosts, v)
		base := strings.TrimRight(name, "0123456789")
		nodes = append(nodes, vertex{ID: strconv.Itoa(r + 1), Metadata: meta{Type: "node", Basename: base, Name: name, ID: r,
			UniqID: r + 1, Rank: v, Size: 1, Paths: map[string]string{"containment": "/cluster0/" + name}}})
		edges = append(edges, edge{Source: "0", Target: strconv.Itoa(r + 1),
			Metadata: edgeMeta{Name: map[string]string{"containment": "contains"}, Subsystem: "containment"}})
	}
	doc := map[string]any{"graph": map[string]any{"nodes": nodes, "edges": edges}}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(b)
	bw.WriteByte('\n')
	return bw.Flush()
}

// readJGF returns the node vertices of a JGF resource graph, or of the JGF under the
// "scheduling" key of a Flux R document (RFC 20, as `flux ion-R encode` writes it),
// ranked as fluxion's low-id policies order them: by the metadata "id" that
// fluxion's reader gives the node, with its defaults for absent fields. It refuses,
// naming the line, what fluxion's reader refuses (a missing "graph", "nodes" or
// "edges" key, a vertex without a string "id", metadata without a string "type" or
// a "paths" object, a field of the wrong JSON type, a vertex id given twice, an edge
// to an unknown vertex) and two nodes of one id, which fluxion orders arbitrarily
// (std::sort of equal scores).
func readJGF(data []byte) ([]HostRank, error) {
	graph, err := jgfGraph(data)
	if err != nil {
		return nil, err
	}
	type node struct {
		id   int64
		name string
		line int
	}
	var nodes []node
	vertexLine := map[string]int{}
	for _, el := range graph.nodes {
		v, err := jgfParseVertex(el.raw)
		if err != nil {
			return nil, fmt.Errorf("JGF line %d: %w", el.line, err)
		}
		if first, dup := vertexLine[v.vertexID]; dup {
			return nil, fmt.Errorf("JGF line %d: vertex id %q again (first on line %d); fluxion refuses a duplicate vertex id",
				el.line, v.vertexID, first)
		}
		vertexLine[v.vertexID] = el.line
		if v.typ == "node" {
			nodes = append(nodes, node{v.id, v.name, el.line})
		}
	}
	for _, el := range graph.edges {
		var e map[string]json.RawMessage
		if err := json.Unmarshal(el.raw, &e); err != nil {
			return nil, fmt.Errorf("JGF line %d: an edge is not a JSON object", el.line)
		}
		for _, end := range []string{"source", "target"} {
			var id string
			if err := json.Unmarshal(e[end], &id); err != nil || e[end] == nil {
				return nil, fmt.Errorf("JGF line %d: edge %q is not a string (fluxion: malformed edge)", el.line, end)
			}
			if _, ok := vertexLine[id]; !ok {
				return nil, fmt.Errorf("JGF line %d: edge %s %q is no vertex of the graph", el.line, end, id)
			}
		}
		if m, ok := e["metadata"]; ok {
			var meta map[string]json.RawMessage
			if err := json.Unmarshal(m, &meta); err != nil || meta == nil {
				return nil, fmt.Errorf("JGF line %d: edge metadata is not an object", el.line)
			}
			if s, ok := meta["subsystem"]; ok {
				var sub string
				if err := json.Unmarshal(s, &sub); err != nil || string(s) == "null" {
					return nil, fmt.Errorf("JGF line %d: edge metadata \"subsystem\" is not a string", el.line)
				}
			}
		}
	}
	slices.SortStableFunc(nodes, func(a, b node) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	hr := make([]HostRank, len(nodes))
	for r, nd := range nodes {
		if r > 0 && nodes[r-1].id == nd.id {
			p := nodes[r-1]
			return nil, fmt.Errorf("JGF line %d: node %q has id %d, as node %q on line %d: fluxion's low-id policies order nodes by id and would order these two arbitrarily",
				nd.line, nd.name, nd.id, p.name, p.line)
		}
		hr[r] = HostRank{Rank: r, Host: nd.name, Line: nd.line}
	}
	return hr, nil
}

// jgfElement is one element of the "nodes" or "edges" array, with the line it
// starts on.
type jgfElement struct {
	raw  json.RawMessage
	line int
}

type jgfGraphElements struct {
	nodes, edges []jgfElement
}

// jgfGraph finds the "graph" object of a JGF document, or of the JGF under an R
// document's "scheduling" key, and returns its vertices and edges with their lines.
func jgfGraph(data []byte) (jgfGraphElements, error) {
	var g jgfGraphElements
	dec := json.NewDecoder(bytes.NewReader(data))
	// lineAt is the line of the first byte at or after off that is not white space
	// or a comma. Offsets mostly rise, so it counts on from the last one.
	lastOff, lastLine := int64(0), 1
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++
		}
		if off < lastOff {
			lastOff, lastLine = 0, 1
		}
		lastLine += bytes.Count(data[lastOff:off], []byte{'\n'})
		lastOff = off
		return lastLine
	}
	// object reads the keys of the object that starts at the next token, calling
	// f for each key (f consumes the value) and skipping values f leaves.
	object := func(what string, f func(key string) (bool, error)) error {
		line := lineAt(dec.InputOffset())
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != json.Delim('{') {
			return fmt.Errorf("JGF line %d: %s is not a JSON object", line, what)
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			used, err := f(t.(string))
			if err != nil {
				return err
			}
			if !used {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token()
		return err
	}
	array := func(what string, into *[]jgfElement) error {
		line := lineAt(dec.InputOffset())
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != json.Delim('[') {
			return fmt.Errorf("JGF line %d: %q is not an array", line, what)
		}
		*into = []jgfElement{}
		for dec.More() {
			line := lineAt(dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			*into = append(*into, jgfElement{raw, line})
		}
		_, err = dec.Token()
		return err
	}
	graph := func() error {
		return object(`"graph"`, func(key string) (bool, error) {
			switch key {
			case "nodes":
				return true, array("nodes", &g.nodes)
			case "edges":
				return true, array("edges", &g.edges)
			}
			return false, nil
		})
	}
	seenGraph, seenScheduling := false, false
	err := object("the document", func(key string) (bool, error) {
		switch key {
		case "graph":
			seenGraph = true
			return true, graph()
		case "scheduling": // Flux R (RFC 20): JGF under "scheduling"
			if seenGraph {
				return false, nil
			}
			seenScheduling = true
			return true, object(`"scheduling"`, func(key string) (bool, error) {
				if key == "graph" {
					seenGraph = true
					return true, graph()
				}
				return false, nil
			})
		}
		return false, nil
	})
	if err != nil {
		// Semantic errors name their line; the decoder's do not.
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return g, fmt.Errorf("JGF line %d: %w", lineAt(se.Offset-1), err)
		case strings.HasPrefix(err.Error(), "JGF"):
			return g, err
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return g, fmt.Errorf("JGF line %d: the document ends before its JSON does", lineAt(dec.InputOffset()))
		}
		return g, fmt.Errorf("JGF line %d: %w", lineAt(dec.InputOffset()), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return g, fmt.Errorf("JGF line %d: data after the JSON document", lineAt(dec.InputOffset()))
	}
	switch {
	case !seenGraph && seenScheduling:
		return g, errors.New(`JGF: Flux R whose "scheduling" has no "graph"`)
	case !seenGraph:
		return g, errors.New(`JGF: no "graph" key (nor a Flux R with JGF under "scheduling"); fluxion's reader requires it`)
	case g.nodes == nil:
		return g, errors.New(`JGF: "graph" has no "nodes" key; fluxion's reader requires it`)
	case g.edges == nil:
		return g, errors.New(`JGF: "graph" has no "edges" key; fluxion's reader requires it (an empty list will do)`)
	}
	return g, nil
}

// jgfVertex is a vertex as fluxion's reader sees it after its defaults.
type jgfVertex struct {
	vertexID string
	typ      string
	name     string
	id       int64
}

// jgfParseVertex reads one vertex with fluxion's rules (fill_fetcher,
// resource_reader_jgf.cpp:379-441): a string "id" and a "metadata" object with a
// string "type" and a "paths" object are required; "basename", "name", "unit"
// (strings), "id", "uniq_id", "rank", "size" (integers), "status" (an integer),
// "exclusive" (a boolean) and "properties" (an object) are optional and, when
// present, of that type. Keys match exactly, as in jansson. Absent fields get the
// defaults of apply_defaults (:331-377): uniq_id from the leading integer of the
// vertex id; id from the uniq_id, or for a node with a name ending in digits from
// those digits; basename from the type; name from basename and id.
func jgfParseVertex(raw json.RawMessage) (jgfVertex, error) {
	var v jgfVertex
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return v, errors.New("a vertex is not a JSON object")
	}
	if err := jgfString(top, "id", &v.vertexID, true); err != nil {
		return v, fmt.Errorf("vertex: %w", err)
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(top["metadata"], &meta); err != nil || meta == nil {
		return v, fmt.Errorf("vertex %q: no \"metadata\" object", v.vertexID)
	}
	fail := func(err error) (jgfVertex, error) {
		return v, fmt.Errorf("vertex %q: metadata %w", v.vertexID, err)
	}
	var basename, name, unit string
	var hasBasename, hasName bool
	if err := jgfString(meta, "type", &v.typ, true); err != nil {
		return fail(err)
	}
	if _, ok := meta["basename"]; ok {
		hasBasename = true
		if err := jgfString(meta, "basename", &basename, true); err != nil {
			return fail(err)
		}
	}
	if _, ok := meta["name"]; ok {
		hasName = true
		if err := jgfString(meta, "name", &name, true); err != nil {
			return fail(err)
		}
	}
	if err := jgfString(meta, "unit", &unit, false); err != nil {
		return fail(err)
	}
	id, uniq := int64(-2), int64(-1) // fluxion's "absent" (fetch_helper_t::scrub)
	var rank, size, status int64
	for _, f := range []struct {
		key string
		to  *int64
	}{{"id", &id}, {"uniq_id", &uniq}, {"rank", &rank}, {"size", &size}, {"status", &status}} {
		if r, ok := meta[f.key]; ok {
			if err := json.Unmarshal(r, f.to); err != nil || string(r) == "null" {
				return fail(fmt.Errorf("%q is not an integer: %.40s", f.key, r))
			}
		}
	}
	if r, ok := meta["exclusive"]; ok {
		var b bool
		if err := json.Unmarshal(r, &b); err != nil || string(r) == "null" {
			return fail(fmt.Errorf("\"exclusive\" is not true or false: %.40s", r))
		}
	}
	var paths map[string]string
	if err := json.Unmarshal(meta["paths"], &paths); err != nil || paths == nil {
		return fail(errors.New(`"paths" is not an object of strings (fluxion requires it, e.g. {"containment": "/cluster0/node3"})`))
	}
	if r, ok := meta["properties"]; ok && string(r) != "null" {
		var props map[string]string
		if err := json.Unmarshal(r, &props); err != nil {
			return fail(errors.New(`"properties" is not an object of strings`))
		}
	}
	// apply_defaults (:331-377).
	if uniq == -1 {
		u, ok := leadingInt(v.vertexID)
		if !ok {
			return fail(fmt.Errorf("has no \"uniq_id\" and the vertex id %q is not an integer to infer it from", v.vertexID))
		}
		uniq = u
	}
	if id == -2 {
		id = uniq
		if v.typ == "node" && hasName {
			digits := name[len(strings.TrimRight(name, "0123456789")):]
			if digits != "" {
				d, err := strconv.ParseInt(digits, 10, 64)
				if err != nil {
					return fail(fmt.Errorf("has no \"id\" and the number ending the name %q is out of range", name))
				}
				id = d
			}
		}
	}
	if !hasBasename {
		basename = v.typ
	}
	if !hasName {
		name = basename + strconv.FormatInt(id, 10)
	}
	v.id, v.name = id, name
	return v, nil
}

// jgfString reads the string m[key] into s; an absent key is an error when
// required, a key of another type always.
func jgfString(m map[string]json.RawMessage, key string, s *string, required bool) error {
	r, ok := m[key]
	if !ok {
		if required {
			return fmt.Errorf("has no %q", key)
		}
		return nil
	}
	if err := json.Unmarshal(r, s); err != nil || string(r) == "null" {
		return fmt.Errorf("%q is not a string: %.40s", key, r)
	}
	return nil
}

// leadingInt parses the integer that starts s, as std::stoll does (white space,
// a sign, decimal digits; what follows is ignored).
func leadingInt(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(t) && (t[end] == '+' || t[end] == '-') {
		end++
	}
	digits := end
	for end < len(t) && t[end] >= '0' && t[end] <= '9' {
		end++
	}
	if end == digits {
		return 0, false
	}
	x, err := strconv.ParseInt(t[:end], 10, 64)
	return x, err == nil
}

// isJGFDocument says whether data is a JSON object with a "graph" key (JGF) or a
// "scheduling" key (a Flux R, whose JGF sits there): procalloc's JSON ranking has
// neither. JSON that does not parse is told by a "graph" key in its text, so that
// the JGF reader names the syntax error of a broken graph.
func isJGFDocument(data []byte) bool {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return bytes.Contains(data, []byte(`"graph"`))
	}
	_, graph := top["graph"]
	_, scheduling := top["scheduling"]
	return graph || scheduling
}

// MergeJGFIDs returns the Flux resource graph graph (JGF, or a Flux R with JGF under
// "scheduling", as `flux ion-R encode` writes it) with the metadata "id" of each node
// vertex set to the curve rank of its host in o (hosts names the nodes in
// node-index order), and its "name" written out, as fluxion's default name
// (basename+id) would change with the id. Everything else is kept: cores, GPUs,
// broker ranks, properties, uniq_ids (so fluxion's default policy, first, which
// follows the uniq_id, does not follow the curve; low, lonode and lonodex do). Key
// order and white space are not kept. A graph fluxion's reader refuses, a node the
// ordering does not name and a host the graph lacks are errors.
func MergeJGFIDs(graph []byte, o Order, hosts []string) ([]byte, error) {
	if len(hosts) != len(o) {
		return nil, fmt.Errorf("%d host names for %d nodes", len(hosts), len(o))
	}
	if err := o.Validate(len(o)); err != nil {
		return nil, err
	}
	if err := textin.CheckStart(string(graph[:min(len(graph), textin.StartLen)])); err != nil {
		// Flux's own file, written back with its ids: read as Flux reads it.
		return nil, fmt.Errorf("%w (Flux reads its resource graph uncompressed, and the graph with its ids set is written plain)", err)
	}
	nodes, err := readJGF(graph)
	if err != nil {
		return nil, err
	}
	rank := make(map[string]int, len(o))
	for r, v := range o {
		rank[hosts[v]] = r
	}
	inGraph := make(map[string]int, len(nodes)) // a host's node's line
	for _, nd := range nodes {
		if _, ok := rank[nd.Host]; !ok {
			return nil, fmt.Errorf("JGF line %d: node %q is not a host of the ordering", nd.Line, nd.Host)
		}
		// Both would take the host's rank as their id, which fluxion's low-id
		// policies order arbitrarily (was refused only on reading the merge back).
		if first, dup := inGraph[nd.Host]; dup {
			return nil, fmt.Errorf("JGF line %d: node %q again (first on line %d): a host has one rank, and two nodes of one id are ordered arbitrarily by fluxion",
				max(nd.Line, first), nd.Host, min(nd.Line, first))
		}
		inGraph[nd.Host] = nd.Line
	}
	for _, v := range o {
		if _, ok := inGraph[hosts[v]]; !ok {
			return nil, fmt.Errorf("host %q has no node vertex in the graph", hosts[v])
		}
	}
	dec := json.NewDecoder(bytes.NewReader(graph))
	dec.UseNumber() // big ids and sizes stay as written
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("JGF: %w", err)
	}
	g, _ := doc["graph"].(map[string]any)
	if g == nil {
		s, _ := doc["scheduling"].(map[string]any)
		g, _ = s["graph"].(map[string]any)
	}
	vertices, _ := g["nodes"].([]any)
	for _, x := range vertices {
		vm, _ := x.(map[string]any)
		raw, err := json.Marshal(vm)
		if err != nil {
			return nil, err
		}
		v, err := jgfParseVertex(raw)
		if err != nil {
			return nil, err // readJGF took it
		}
		if v.typ != "node" {
			continue
		}
		meta := vm["metadata"].(map[string]any)
		meta["id"] = json.Number(strconv.Itoa(rank[v.name]))
		meta["name"] = v.name
	}
	out, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	// What fluxion's low-id policies read back is the ordering.
	back, err := readJGF(out)
	if err == nil {
		for r, nd := range back {
			if nd.Host != hosts[o[r]] {
				err = fmt.Errorf("rank %d reads back as %s, not %s", r, nd.Host, hosts[o[r]])
				break
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("merged graph: %w", err)
	}
	return out, nil
}
