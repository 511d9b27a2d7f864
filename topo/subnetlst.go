package topo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// A port record of a subnet.lst line, as OpenSM's dump_topology_node writes it
// (opensm/osm_dump.c 398-424, the peer 426-450): "{ TYPE[-SM] Ports:%02X SystemGUID:%016x
// NodeGUID:%016x PortGUID:%016x VenID:%06X DevID:%04X Rev:%08X {desc} LID:%04X
// PN:%02X }". The peer's record prints VenID with %08X and its DevID through
// cl_ntoh32 (eight digits on a little-endian host), so the numbers' widths are
// not fixed here. The description is OpenSM's print_desc: the NodeDescription
// with non-printing bytes made blanks (complib/cl_nodenamemap.c clean_nodedesc),
// or the name OpenSM's own node-name-map gives the node; it is not escaped and
// may hold '{' and '}'.
const lstRecord = `\{ (SW|CA|Rt|\*\*)(-SM)? Ports:[0-9A-Fa-f]+ SystemGUID:[0-9a-fA-F]{1,16} NodeGUID:([0-9a-fA-F]{1,16}) PortGUID:[0-9a-fA-F]{1,16} VenID:[0-9A-Fa-f]+ DevID:[0-9A-Fa-f]+ Rev:[0-9A-Fa-f]+ \{(DESC)\} LID:[0-9A-Fa-f]+ PN:([0-9A-Fa-f]+) \}`

var (
	// A line: both ends' records, then the link's width, state and speed
	// (osm_dump.c 493-498: "PHY=%s LOG=%s SPD=%s").
	lstLazyRe   = regexp.MustCompile(`^` + strings.Replace(lstRecord, "DESC", ".*?", 1) + ` ` + strings.Replace(lstRecord, "DESC", ".*?", 1) + ` PHY=\S+ LOG=\S+ SPD=\S+$`)
	lstGreedyRe = regexp.MustCompile(`^` + strings.Replace(lstRecord, "DESC", ".*", 1) + ` ` + strings.Replace(lstRecord, "DESC", ".*", 1) + ` PHY=\S+ LOG=\S+ SPD=\S+$`)
	// lstOpen is how a subnet.lst line starts, for DetectGraphFormat.
	lstOpen = regexp.MustCompile(`^\{ (SW|CA|Rt|\*\*)(-SM)? Ports:[0-9A-Fa-f]+ SystemGUID:`)
)

// lstFastLine reads a subnet.lst line whose descriptions hold no brace, the form
// OpenSM writes for rdma-ndd's and switches' descriptions, into m what
// lstLazyRe.FindSubmatch would (lstGreedyRe reads it alike: with no brace in a
// description, where it ends is the first "} LID:"), pieces of t; ok is false for
// any other line, which the expressions then read (TestLstFastLineAsRegexp). At
// 10^5 hosts a subnet.lst is a million lines, each tried against both
// expressions before, and each made a string and given a new m before
// (docs/reliability.md, wt-fabricmem).
func lstFastLine(t []byte, m *[11][]byte) (ok bool) {
	*m = [11][]byte{}
	m[0] = t
	i := 0
	lit := func(s string) bool {
		if len(t)-i >= len(s) && string(t[i:i+len(s)]) == s {
			i += len(s)
			return true
		}
		return false
	}
	hex := func(maxLen int) ([]byte, bool) {
		j := i
		for i < len(t) && isHex(t[i]) && i-j < maxLen {
			i++
		}
		if i < len(t) && isHex(t[i]) { // longer than maxLen
			return nil, false
		}
		return t[j:i], i > j
	}
	record := func(g [][]byte) bool { // g: type, -SM, NodeGUID, desc, PN
		if !lit("{ ") {
			return false
		}
		if !lit("SW") && !lit("CA") && !lit("Rt") && !lit("**") {
			return false
		}
		g[0] = t[i-2 : i]
		if lit("-SM") {
			g[1] = t[i-3 : i]
		}
		for _, f := range [...]struct {
			key    string
			maxLen int
			into   int
		}{{" Ports:", len(t), -1}, {" SystemGUID:", 16, -1}, {" NodeGUID:", 16, 2}, {" PortGUID:", 16, -1}, {" VenID:", len(t), -1}, {" DevID:", len(t), -1}, {" Rev:", len(t), -1}} {
			if !lit(f.key) {
				return false
			}
			v, ok := hex(f.maxLen)
			if !ok {
				return false
			}
			if f.into >= 0 {
				g[f.into] = v
			}
		}
		if !lit(" {") {
			return false
		}
		end := bytes.Index(t[i:], []byte("} LID:"))
		if end < 0 || bytes.ContainsAny(t[i:i+end], "{}") {
			return false
		}
		g[3] = t[i : i+end]
		i += end + len("} LID:")
		if _, ok := hex(len(t)); !ok || !lit(" PN:") {
			return false
		}
		pn, ok := hex(len(t))
		if !ok || !lit(" }") {
			return false
		}
		g[4] = pn
		return true
	}
	if !record(m[1:6]) || !lit(" ") || !record(m[6:11]) {
		return false
	}
	for _, k := range [...]string{" PHY=", " LOG=", " SPD="} {
		if !lit(k) {
			return false
		}
		j := i
		for i < len(t) && !strings.ContainsRune(" \t\n\f\r", rune(t[i])) {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(t)
}

// maxLstLine is the longest subnet.lst line ReadSubnetLst reads (OpenSM's are
// under 400 bytes; a node-name-map name may be longer).
const maxLstLine = 1 << 20

// ReadSubnetLst reads the link list OpenSM writes to opensm-subnet.lst
// (osm_dump.c dump_topology_node; ibdiagnet's ibdiagnet.lst and ibdiagnet2.lst
// have its fields, as NVIDIA's mst tool reads them, but ibdiagnet's writer is not
// public): one line per cabled port of every node, both ends' records ("{ CA
// Ports:01 ... NodeGUID:<guid> ... {node01 HCA-1} LID:0015 PN:01 } { SW ... }
// PHY=4x LOG=ACT SPD=25"), so each cable twice. Nodes are known by their node GUID
// and named as ReadIBNetDiscover names them (names by node GUID, else a host by the
// first word of its description, a switch "S-<guid>", a router "R-<guid>"), with
// the same dual-rail and aggregation-node rules; links in every state (ACT, ARM,
// INI) are cables. Nodes are numbered as every fabric dump's: hosts, then switches,
// each in Slurm's node name order (see ibFabric), not in the file's GUID order.
//
// A node of unknown type ("**"), a node GUID whose type or description changes
// between lines, a description whose end cannot be told (one holding "} LID:" and
// a record's tail) and any other line are errors naming the line.
func ReadSubnetLst(r io.Reader, names NodeNameMap) (*Graph, error) {
	return readSubnetLst(context.Background(), r, names, nil)
}

func readSubnetLst(ctx context.Context, r io.Reader, names NodeNameMap, warn func(string)) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLstLine)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links ibLinks
	line := 0
	// node returns the node of a record's type, NodeGUID and description, pieces
	// of the line (the description is copied when the node is new).
	node := func(typ, guidHex, desc []byte) (*ibNode, error) {
		if string(typ) == "**" {
			return nil, fmt.Errorf("line %d: node %s of unknown type (\"**\"): neither switch, CA nor router", line, textin.Clip(string(guidHex)))
		}
		guid, err := hexGUID(guidHex)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		sw, router := string(typ) != "CA", string(typ) == "Rt"
		if n, ok := nodes[guid]; ok {
			if n.sw != sw || n.router != router {
				return nil, fmt.Errorf("line %d: node %016x is a %s here but not on line %d", line, guid, typ, n.line)
			}
			if n.desc != string(desc) {
				return nil, fmt.Errorf("line %d: node %016x is described %q here but %q on line %d (two sweeps in one file?)", line, guid, textin.Clip(string(desc)), textin.Clip(n.desc), n.line)
			}
			return n, nil
		}
		n := &ibNode{sw: sw, router: router, guid: guid, desc: string(desc), line: line}
		nodes[guid] = n
		order = append(order, guid)
		return n, nil
	}
	var fastM [11][]byte
	for sc.Scan() {
		line++
		if err := stopped(ctx, line); err != nil {
			return nil, err
		}
		// Read in the scanner's buffer: a string a line allocated the file's size
		// again (docs/reliability.md, wt-fabricmem).
		t := sc.Bytes()
		if line == 1 {
			t = bytes.TrimPrefix(t, []byte(textin.BOM)) // as DetectGraphFormat skips it
		}
		t = bytes.TrimSpace(t)
		if len(t) == 0 {
			continue
		}
		var m [][]byte
		fast := lstFastLine(t, &fastM)
		if fast {
			m = fastM[:]
		} else {
			m = lstLazyRe.FindSubmatch(t)
		}
		if m == nil {
			if lstOpen.Match(t) {
				return nil, fmt.Errorf("line %d: malformed subnet.lst line %q (want { TYPE Ports:.. SystemGUID:.. NodeGUID:.. PortGUID:.. VenID:.. DevID:.. Rev:.. {desc} LID:.. PN:.. } twice, then PHY= LOG= SPD=)", line, textin.Clip(string(t)))
			}
			return nil, fmt.Errorf("line %d: unrecognised line %q (not an OpenSM or ibdiagnet .lst file?)", line, textin.Clip(string(t)))
		}
		if !fast {
			if g := lstGreedyRe.FindSubmatch(t); !bytes.Equal(g[4], m[4]) || !bytes.Equal(g[9], m[9]) {
				return nil, fmt.Errorf("line %d: a description holds a record's own syntax (\"} LID:\"), so where it ends cannot be told; set the node's NodeDescription (or its name in OpenSM's node-name-map) and write the file again", line)
			}
		}
		a, err := node(m[1], m[3], m[4])
		if err != nil {
			return nil, err
		}
		b, err := node(m[6], m[8], m[9])
		if err != nil {
			return nil, err
		}
		aPort, errA := hexGUID(m[5])
		bPort, errB := hexGUID(m[10])
		if errA != nil || errB != nil || aPort > math.MaxUint8 || bPort > math.MaxUint8 {
			return nil, fmt.Errorf("line %d: port number PN:%s or PN:%s is not a port (hexadecimal, at most FF)", line, textin.Clip(string(m[5])), textin.Clip(string(m[10])))
		}
		l, err := ibLineNumber(line)
		if err != nil {
			return nil, err
		}
		links.add(ibLink{a: a.guid, b: b.guid, aPort: uint8(aPort), bPort: uint8(bPort), line: l})
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxLstLine)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no link found (an empty subnet.lst: OpenSM writes one line per cabled port)")
	}
	return ibFabric(ctx, nodes, order, &links, names, warn, ibFabricText{tool: "OpenSM or ibdiagnet"})
}
