package topo

// The fabric readers as they were before wt-fabricmem (main at e5a53205), kept
// only as the reference TestFabricReadersMatchReference compares the readers
// with: the same Graph, warnings and errors on the benchmarks' dumps and on
// random and mutated ones. Not used by the library.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

type refibPortMatch struct {
	port, peerGUID, peerPort string
	peerKind                 byte // 'S', 'H', 'R' or '?'
}

func refibPortLine(t string) (m refibPortMatch, ok bool) {
	i := 0
	span := func(in func(byte) bool) string {
		j := i
		for i < len(t) && in(t[i]) {
			i++
		}
		return t[j:i]
	}
	at := func(c byte) bool {
		if i < len(t) && t[i] == c {
			i++
			return true
		}
		return false
	}
	if !at('[') {
		return m, false
	}
	if m.port = span(isDigit); m.port == "" || !at(']') {
		return m, false
	}
	if strings.HasPrefix(t[i:], "[ext ") {
		i += len("[ext ")
		if span(isDigit) == "" || !at(']') {
			return m, false // the optional group cannot be skipped either: '"' must follow
		}
	}
	if at('(') {
		if strings.HasPrefix(t[i:], "0x") && i+2 < len(t) && isHex(t[i+2]) {
			i += 2
		}
		if span(isHex) == "" || !at(')') {
			return m, false
		}
	}
	span(func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' })
	if !at('"') || i >= len(t) || !strings.ContainsRune("SHR?", rune(t[i])) {
		return m, false
	}
	m.peerKind = t[i]
	i++
	if !at('-') {
		return m, false
	}
	if m.peerGUID = span(isHex); m.peerGUID == "" || !at('"') || !at('[') {
		return m, false
	}
	if m.peerPort = span(isDigit); m.peerPort == "" || !at(']') {
		return m, false
	}
	return m, true
}

type refibLink struct {
	a, b         uint64
	aPort, bPort int
	line         int
}

func refreadIBNetDiscover(ctx context.Context, r io.Reader, names NodeNameMap, warn func(string)) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxIBNetLine)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links []refibLink
	line := 0
	// Nodes of a type ibnetdiscover does not know (?? in -p, "?-GUID" as a peer in
	// the default form): GUID -> the line of its first mention.
	unknownType := map[uint64]int{}
	var unknownOrder []uint64
	unknown := func(guid uint64) {
		if _, seen := unknownType[guid]; !seen {
			unknownType[guid] = line
			unknownOrder = append(unknownOrder, guid)
		}
	}
	var cur *ibNode
	form := ""
	diagLines, firstDiag, firstDiagText := 0, 0, ""
	node := func(guid uint64, sw, router bool, desc string, l int, declare bool) (*ibNode, error) {
		n, ok := nodes[guid]
		if ok {
			if n.sw != sw {
				return nil, fmt.Errorf("line %d: GUID %016x is a %s here but a %s on line %d", l, guid, kind(sw), kind(n.sw), n.line)
			}
			if declare {
				return nil, fmt.Errorf("line %d: %s %016x listed twice (first on line %d)", l, kind(sw), guid, n.line)
			}
			return n, nil
		}
		// The description is a piece of the line: copied, so that the line is not
		// kept with it.
		n = &ibNode{sw: sw, router: router, guid: guid, desc: strings.Clone(desc), line: l}
		nodes[guid] = n
		order = append(order, guid)
		return n, nil
	}
	setForm := func(f string) error {
		if form != "" && form != f {
			return fmt.Errorf("line %d: a %s line in a %s dump (the two ibnetdiscover forms do not mix)", line, f, form)
		}
		form = f
		return nil
	}
	// -p shows port GUIDs only, but prints a node's ports together, highest first
	// (ibnetdiscover.c dump_ports_report): lines of one adapter's cabled ports
	// follow one another. A run of CA lines with one description, ports
	// descending and port GUIDs apart as their ports (a ConnectX-3's port GUIDs
	// are its node GUID plus the port) is one dual-port adapter, joined as the
	// node of its lowest port's GUID; other same-described CAs stay apart.
	type runPort struct {
		guid uint64
		port int
		line int
	}
	var run []runPort
	runDesc := ""
	joined := map[uint64]uint64{} // a port GUID -> its adapter's lowest port's
	joinedAdapters, firstJoin := 0, 0
	endRun := func() {
		if len(run) > 1 {
			low := run[len(run)-1].guid
			for _, p := range run[:len(run)-1] {
				joined[p.guid] = low
			}
			if joinedAdapters++; joinedAdapters == 1 {
				firstJoin = run[0].line
			}
		}
		run = run[:0]
	}
	prevLine := 0 // the last line that is not blank or a comment
	for sc.Scan() {
		line++
		if err := stopped(ctx, line); err != nil {
			return nil, err
		}
		t := sc.Text()
		if line == 1 {
			t = strings.TrimPrefix(t, textin.BOM) // as DetectGraphFormat skips it
		}
		t = strings.TrimSpace(t)
		if t == "" || t[0] == '#' {
			continue
		}
		prev := prevLine
		prevLine = line
		// Each pattern is tried only on the lines that can start as it does (the
		// regular expressions are anchored at a literal start): a 10^5-host dump
		// is millions of port lines, each tried against every pattern before.
		var nodeM, portsM []string
		c := t[0]
		if c == 'S' || c == 'C' || c == 'R' {
			nodeM = ibNodeRe.FindStringSubmatch(t)
		}
		if nodeM == nil && (c == 'C' || c == 'S' || c == 'R' || c == '?') {
			portsM, _ = refibPortsLine(t) // a connected port's line of -p (ibPOpen matches it)
		}
		switch {
		case ibDiagCandidate([]byte(t)) && ibDiagMsgRe.MatchString(t):
			// Standard error saved with the dump: what it says of the discovery is
			// passed on (see the warning below), the line is no fabric.
			if diagLines++; diagLines == 1 {
				firstDiag, firstDiagText = line, t
			}
		case nodeM != nil:
			if err := setForm("default"); err != nil {
				return nil, err
			}
			m := nodeM
			guid, err := parseGUID(m[4])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			sw := m[1] != "Ca"
			if sw != (m[3] != "H") {
				return nil, fmt.Errorf("line %d: %s block with a %s- GUID", line, m[1], m[3])
			}
			if cur, err = node(guid, sw, m[1] == "Rt", ibCaDesc(m[5]), line, true); err != nil {
				return nil, err
			}
		case strings.HasPrefix(t, "["):
			if err := setForm("default"); err != nil {
				return nil, err
			}
			p, ok := refibPortLine(t)
			if !ok {
				return nil, fmt.Errorf("line %d: malformed port line %q (want [PORT] \"S-GUID\"[PORT])", line, textin.Clip(t))
			}
			if cur == nil {
				return nil, fmt.Errorf("line %d: port line before any Switch or Ca line", line)
			}
			peer, err := parseGUID(p.peerGUID)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			aPort, _ := strconv.Atoi(p.port)
			bPort, _ := strconv.Atoi(p.peerPort)
			if p.peerKind == '?' {
				unknown(peer)
			}
			links = append(links, refibLink{a: cur.guid, b: peer, aPort: aPort, bPort: bPort, line: line})
		case portsM != nil || (c == 'C' || c == 'S' || c == 'R' || c == '?') && ibPOpen.MatchString(t):
			if err := setForm("-p"); err != nil {
				return nil, err
			}
			if !strings.HasSuffix(t, ")") && (strings.HasSuffix(t, "'") || !strings.Contains(t, " - ")) {
				// An unconnected port: "%36s'%s'" after its fields (ibnetdiscover.c
				// 741), its description possibly holding " - "; a connected one ends
				// in " )" (730).
				continue
			}
			m := portsM
			if m == nil {
				m = ibPRe.FindStringSubmatch(t)
			}
			if m == nil {
				return nil, fmt.Errorf("line %d: malformed ports-report line %q (want TYPE LID PORT 0xGUID ... - TYPE LID PORT 0xGUID ( 'desc' - 'desc' ))", line, textin.Clip(t))
			}
			a, err := parseGUID(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			b, err := parseGUID(m[6])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			for _, end := range []struct {
				guid      uint64
				typ, desc string
			}{{a, m[1], m[7]}, {b, m[4], m[8]}} {
				if end.typ == "??" {
					unknown(end.guid)
					continue
				}
				if _, err := node(end.guid, end.typ != "CA", end.typ == "RT", end.desc, line, false); err != nil {
					return nil, err
				}
			}
			aPort, _ := strconv.Atoi(m[2])
			bPort, _ := strconv.Atoi(m[5])
			links = append(links, refibLink{a: a, b: b, aPort: aPort, bPort: bPort, line: line})
			if m[1] == "CA" {
				if k := len(run) - 1; k >= 0 && run[k].line == prev && runDesc == m[7] && aPort < run[k].port && a < run[k].guid && run[k].guid-a == uint64(run[k].port-aPort) {
					run = append(run, runPort{a, aPort, line})
				} else {
					endRun()
					run, runDesc = append(run, runPort{a, aPort, line}), m[7]
				}
			}
		case strings.HasPrefix(t, "< ") || strings.HasPrefix(t, "> "):
			// ibnetdiscover --diff marks the lines of each fabric "< " and "> "
			// (ibnetdiscover.c 925-947).
			return nil, fmt.Errorf("line %d: a difference of two fabrics (ibnetdiscover --diff, lines marked < and >), not a fabric; give ibnetdiscover's output without --diff", line)
		case (c == 'S' || c == 'C' || c == 'R') && ibListRe.MatchString(t):
			return nil, fmt.Errorf("line %d: a node list (ibnetdiscover -l, -H, -S or -R) names nodes but no links; give ibnetdiscover's output without those options (the default form, or -p)", line)
		case (c == 'D' || c == 'L') && ibProgressRe.MatchString(t), strings.HasPrefix(t, "Hostname: "):
			// ibnetdiscover -s's progress lines; -g's Xsigo chassis host name.
		case strings.Contains(t, "="), strings.HasPrefix(t, "Non-Chassis"), strings.HasPrefix(t, "Chassis"):
			// vendid=, devid=, sysimgguid=, switchguid=, caguid=; grouping headers.
		default:
			return nil, fmt.Errorf("line %d: unrecognised line %q (not ibnetdiscover output?)", line, textin.Clip(t))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxIBNetLine)
	}
	endRun()
	if len(joined) > 0 {
		for i := range links {
			if g, ok := joined[links[i].a]; ok {
				links[i].a = g
			}
			if g, ok := joined[links[i].b]; ok {
				links[i].b = g
			}
		}
		for g := range joined {
			delete(nodes, g)
		}
		order = slices.DeleteFunc(order, func(g uint64) bool { _, ok := joined[g]; return ok })
	}
	if len(nodes) == 0 {
		if diagLines > 0 {
			return nil, fmt.Errorf("no Switch or Ca found, only ibnetdiscover's error messages (line %d: %q): the discovery failed; rerun ibnetdiscover", firstDiag, textin.Clip(firstDiagText))
		}
		if form == "-p" {
			return nil, fmt.Errorf("no connected port in this ports report (ibnetdiscover -p): no link to read")
		}
		return nil, fmt.Errorf("no Switch or Ca found (not ibnetdiscover output?)")
	}
	// A node of unknown type (NodeInfo's NodeType none of CA, switch, router: a
	// reserved value, or 4, an iWARP RNIC, which has no place on an InfiniBand
	// subnet) cannot be told a host or a switch. Cabled to one node only, it lies on
	// no path between others: left out, with a warning. Cabled to several, it may
	// forward their traffic or not: refused.
	unknownLeaves := 0
	// Their peers in link order, from one pass over the links (one per such node
	// was links x nodes).
	peersOf := map[uint64][]uint64{}
	if len(unknownOrder) > 0 {
		seen := map[[2]uint64]bool{}
		for _, l := range links {
			for _, guid := range [2]uint64{l.a, l.b} {
				if _, u := unknownType[guid]; !u {
					continue
				}
				if p := l.a ^ l.b ^ guid; p != guid && !seen[[2]uint64{guid, p}] {
					seen[[2]uint64{guid, p}] = true
					peersOf[guid] = append(peersOf[guid], p)
				}
			}
		}
	}
	for _, guid := range unknownOrder {
		if n, ok := nodes[guid]; ok {
			return nil, fmt.Errorf("line %d: GUID %016x is of unknown type (ibnetdiscover's ??) here but a %s on line %d", unknownType[guid], guid, kind(n.sw), n.line)
		}
		peers := peersOf[guid]
		if len(peers) > 1 {
			return nil, fmt.Errorf("line %d: node %016x is of unknown type (ibnetdiscover prints ?? or \"?-GUID\" for a NodeInfo NodeType other than CA, switch or router) and is cabled to %d nodes (%016x, %016x, ...), so whether it forwards their traffic cannot be told; fix the device (its firmware reports a reserved node type) and rerun ibnetdiscover, or remove its lines from this file if it is no switch", unknownType[guid], guid, len(peers), peers[0], peers[1])
		}
		unknownLeaves++
	}
	if unknownLeaves > 0 {
		links = slices.DeleteFunc(links, func(l refibLink) bool {
			_, a := unknownType[l.a]
			_, b := unknownType[l.b]
			return a || b
		})
	}
	text := ibFabricText{tool: "ibnetdiscover"}
	if form == "-p" {
		text.dupHint = " (or, in this -p report of port GUIDs, two cabled ports of one adapter whose lines do not show it: give ibnetdiscover's default form)"
		text.unnamedHint = "; in this -p report the GUIDs are ports': a CA is named by its lowest cabled port's, and two cabled ports of one such adapter are one host only where their lines show it (one after the other, port GUIDs apart as their ports), else two (the default form names the adapter)"
	}
	g, err := refibFabric(ctx, nodes, order, links, names, warn, text)
	if err != nil {
		return nil, err
	}
	if warn != nil && diagLines > 0 {
		warn(fmt.Sprintf("messages ibnetdiscover printed on standard error are saved with the dump (lines: %d; the first, line %d: %q): the discovery met errors, so nodes or links beyond a failed port may be missing; rerun ibnetdiscover until it prints none", diagLines, firstDiag, textin.Clip(firstDiagText)))
	}
	if warn != nil && joinedAdapters > 0 {
		warn(fmt.Sprintf("%d adapters of this -p report have two cabled ports, each joined as one node (e.g. line %d): their lines follow one another with one description, ports descending and port GUIDs apart as their ports, as ibnetdiscover prints one dual-port adapter's; each is named by its lowest port's GUID", joinedAdapters, firstJoin))
	}
	if warn != nil && unknownLeaves > 0 {
		first := unknownOrder[0]
		warn(fmt.Sprintf("%d nodes of unknown type (ibnetdiscover's ?? or \"?-GUID\": a NodeInfo NodeType other than CA, switch or router) left out, each cabled to one node only, e.g. %016x (line %d)", unknownLeaves, first, unknownType[first]))
	}
	return g, nil
}

func refibFabric(ctx context.Context, nodes map[uint64]*ibNode, order []uint64, links []refibLink, names NodeNameMap, warn func(string), text ibFabricText) (*Graph, error) {
	// Names: hosts by the map or their description's first word, switches by the map
	// or their GUID. Aggregation nodes get none: they are left out.
	f := NewFabric()
	vname := map[uint64]string{}
	named := map[string]bool{} // vertex name -> whether a switch
	var hostNames, switchNames []string
	descLine := map[string]int{} // NodeDescription naming a host -> the line of its first CA
	aggregation := 0
	unnamed, firstUnnamed := 0, (*ibNode)(nil) // CAs without a host name in their description
	for _, pass := range []bool{false, true} { // hosts first, then switches
		for i, guid := range order {
			if err := stopped(ctx, i); err != nil {
				return nil, err
			}
			n := nodes[guid]
			if n.sw != pass {
				continue
			}
			if !n.sw && strings.Contains(n.desc, ibAggregationNode) {
				aggregation++ // even when the map names it (maps list every GUID)
				continue
			}
			name, ok := names[guid]
			switch {
			case ok:
			case n.router:
				name = fmt.Sprintf("R-%016x", guid)
			case n.sw:
				name = fmt.Sprintf("S-%016x", guid)
			case ibNoHostName(n.desc):
				// No host name to take: named by GUID (as the dump names it), each
				// CA its own host, and said below.
				name = fmt.Sprintf("H-%016x", guid)
				if unnamed++; unnamed == 1 {
					firstUnnamed = n
				}
			default:
				if w := strings.Fields(n.desc); len(w) > 0 {
					name = w[0]
					if i := strings.IndexFunc(name, notHostNameRune); i >= 0 {
						return nil, fmt.Errorf("line %d: CA %016x: the NodeDescription %q starts with %q, which holds %q and is no host name (letters, digits, '-', '_', '.'); name the CA by GUID with --node-name-map FILE", n.line, guid, textin.Clip(n.desc), textin.Clip(name), name[i:i+1])
					}
					if l, again := descLine[n.desc]; again {
						return nil, ibSharedDescError(nodes, order, n, l, text)
					}
					descLine[n.desc] = n.line
				}
			}
			vname[guid] = name
			isSw, found := named[name]
			switch {
			case found && (isSw || n.sw):
				return nil, fmt.Errorf("line %d: name %q of %s %016x is taken by another %s", n.line, textin.Clip(name), kind(n.sw), guid, kind(isSw))
			case found:
				continue // a second HCA of the same host
			}
			named[name] = n.sw
			if n.sw {
				switchNames = append(switchNames, name)
			} else {
				hostNames = append(hostNames, name)
			}
		}
	}
	if len(hostNames) == 0 {
		// Said by the graph as "the network has no hosts", with no word of the
		// file's nodes (FuzzReadSubnetLst: two switches cabled together).
		return nil, fmt.Errorf("no host in the %s file, switches or routers only (%d): jobs are placed on hosts (a CA, an FI of Omni-Path)", text.tool, len(switchNames))
	}
	// One numbering whatever the dump's order: hosts, then switches, each in Slurm's
	// node name order (see refibFabric's doc comment).
	slices.SortFunc(hostNames, hostlist.NaturalCompare)
	slices.SortFunc(switchNames, hostlist.NaturalCompare)
	for _, name := range hostNames {
		f.AddHost(name)
	}
	for _, name := range switchNames {
		f.AddSwitch(name)
	}
	// Each host's first rail: of its cables to a switch, the one of least
	// (NodeDescription, GUID, port) at the host's end.
	type railKey struct {
		desc string
		guid uint64
		port int
	}
	less := func(x, y railKey) bool {
		if x.desc != y.desc {
			return x.desc < y.desc
		}
		if x.guid != y.guid {
			return x.guid < y.guid
		}
		return x.port < y.port
	}
	// hostEnd returns the host end of a link between a host and a switch.
	hostEnd := func(l refibLink) (railKey, bool) {
		a, b := nodes[l.a], nodes[l.b]
		switch {
		case a == nil || b == nil || a.sw == b.sw:
			return railKey{}, false
		case a.sw:
			return railKey{b.desc, b.guid, l.bPort}, true
		default:
			return railKey{a.desc, a.guid, l.aPort}, true
		}
	}
	rail := map[string]railKey{}
	railSwitch := map[string]uint64{} // host -> the switch its kept cable reaches
	for i, l := range links {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		if k, ok := hostEnd(l); ok {
			h := vname[k.guid]
			if r, seen := rail[h]; !seen || less(k, r) {
				rail[h] = k
				railSwitch[h] = l.a ^ l.b ^ k.guid
			}
		}
	}
	dualRail := map[string]int{} // host -> the line of a cable it does not keep
	var dualHosts []string
	for i, l := range links {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		if _, ok := nodes[l.b]; !ok {
			return nil, fmt.Errorf("line %d: link to GUID %016x, which has no Switch or Ca block", l.line, l.b)
		}
		na, oka := vname[l.a]
		nb, okb := vname[l.b]
		if !oka || !okb {
			continue // an aggregation node's cable
		}
		if na == nb {
			continue // two HCAs of one host cabled together
		}
		if k, ok := hostEnd(l); ok {
			h := vname[k.guid]
			if k != rail[h] {
				if _, seen := dualRail[h]; !seen && vname[l.a^l.b^k.guid] != vname[railSwitch[h]] {
					dualRail[h] = l.line
					dualHosts = append(dualHosts, h)
				}
				continue // another rail's cable
			}
		}
		if err := f.Link(na, nb); err != nil {
			return nil, fmt.Errorf("line %d: %w", l.line, err)
		}
	}
	g, err := f.GraphContext(ctx)
	if err != nil {
		return nil, err
	}
	if warn != nil {
		if aggregation > 0 {
			warn(fmt.Sprintf("%d CAs described as %q (switches' SHARP aggregation nodes) left out: no hosts", aggregation, ibAggregationNode))
		}
		if unnamed > 0 {
			warn(fmt.Sprintf("%d CAs have no host name in their NodeDescription (none, the adapter firmware's default or localhost: rdma-ndd did not run on their hosts, or before they had their names; e.g. %q on line %d) and are named by GUID, each its own host (e.g. H-%016x), which no Slurm node is called; name them with --node-name-map FILE (0xGUID \"host\" lines), or run rdma-ndd on their hosts and rerun %s%s", unnamed, textin.Clip(firstUnnamed.desc), firstUnnamed.line, firstUnnamed.guid, text.tool, text.unnamedHint))
		}
		if len(dualHosts) > 0 {
			warn(fmt.Sprintf("%d hosts have more than one cable to the fabric (dual rail or dual port), e.g. %s (line %d): each keeps the cable of its first adapter (NodeDescription order, then GUID, then port) and hop distances are that rail's", len(dualHosts), dualHosts[0], dualRail[dualHosts[0]]))
		}
	}
	return g, nil
}

func reflstFastLine(t string) (m []string, ok bool) {
	m = make([]string, 11)
	m[0] = t
	i := 0
	lit := func(s string) bool {
		if strings.HasPrefix(t[i:], s) {
			i += len(s)
			return true
		}
		return false
	}
	hex := func(maxLen int) (string, bool) {
		j := i
		for i < len(t) && isHex(t[i]) && i-j < maxLen {
			i++
		}
		if i < len(t) && isHex(t[i]) { // longer than maxLen
			return "", false
		}
		return t[j:i], i > j
	}
	record := func(g []string) bool { // g: type, -SM, NodeGUID, desc, PN
		if !lit("{ ") {
			return false
		}
		switch {
		case lit("SW"):
			g[0] = "SW"
		case lit("CA"):
			g[0] = "CA"
		case lit("Rt"):
			g[0] = "Rt"
		case lit("**"):
			g[0] = "**"
		default:
			return false
		}
		if lit("-SM") {
			g[1] = "-SM"
		}
		for _, f := range []struct {
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
		end := strings.Index(t[i:], "} LID:")
		if end < 0 || strings.ContainsAny(t[i:i+end], "{}") {
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
		return nil, false
	}
	for _, k := range []string{" PHY=", " LOG=", " SPD="} {
		if !lit(k) {
			return nil, false
		}
		j := i
		for i < len(t) && !strings.ContainsRune(" \t\n\f\r", rune(t[i])) {
			i++
		}
		if i == j {
			return nil, false
		}
	}
	return m, i == len(t)
}

func refreadSubnetLst(ctx context.Context, r io.Reader, names NodeNameMap, warn func(string)) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLstLine)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links []refibLink
	line := 0
	node := func(typ, guidHex, desc string) (*ibNode, error) {
		if typ == "**" {
			return nil, fmt.Errorf("line %d: node %s of unknown type (\"**\"): neither switch, CA nor router", line, textin.Clip(guidHex))
		}
		guid, err := parseGUID(guidHex)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		sw := typ != "CA"
		if n, ok := nodes[guid]; ok {
			if n.sw != sw || n.router != (typ == "Rt") {
				return nil, fmt.Errorf("line %d: node %016x is a %s here but not on line %d", line, guid, typ, n.line)
			}
			if n.desc != desc {
				return nil, fmt.Errorf("line %d: node %016x is described %q here but %q on line %d (two sweeps in one file?)", line, guid, textin.Clip(desc), textin.Clip(n.desc), n.line)
			}
			return n, nil
		}
		n := &ibNode{sw: sw, router: typ == "Rt", guid: guid, desc: desc, line: line}
		nodes[guid] = n
		order = append(order, guid)
		return n, nil
	}
	for sc.Scan() {
		line++
		if err := stopped(ctx, line); err != nil {
			return nil, err
		}
		t := sc.Text()
		if line == 1 {
			t = strings.TrimPrefix(t, textin.BOM) // as DetectGraphFormat skips it
		}
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		m, fast := reflstFastLine(t)
		if !fast {
			m = lstLazyRe.FindStringSubmatch(t)
		}
		if m == nil {
			if lstOpen.MatchString(t) {
				return nil, fmt.Errorf("line %d: malformed subnet.lst line %q (want { TYPE Ports:.. SystemGUID:.. NodeGUID:.. PortGUID:.. VenID:.. DevID:.. Rev:.. {desc} LID:.. PN:.. } twice, then PHY= LOG= SPD=)", line, textin.Clip(t))
			}
			return nil, fmt.Errorf("line %d: unrecognised line %q (not an OpenSM or ibdiagnet .lst file?)", line, textin.Clip(t))
		}
		if !fast {
			if g := lstGreedyRe.FindStringSubmatch(t); g[4] != m[4] || g[9] != m[9] {
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
		aPort, errA := strconv.ParseUint(m[5], 16, 8)
		bPort, errB := strconv.ParseUint(m[10], 16, 8)
		if errA != nil || errB != nil {
			return nil, fmt.Errorf("line %d: port number PN:%s or PN:%s is not a port (hexadecimal, at most FF)", line, textin.Clip(m[5]), textin.Clip(m[10]))
		}
		links = append(links, refibLink{a: a.guid, b: b.guid, aPort: int(aPort), bPort: int(bPort), line: line})
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxLstLine)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no link found (an empty subnet.lst: OpenSM writes one line per cabled port)")
	}
	return refibFabric(ctx, nodes, order, links, names, warn, ibFabricText{tool: "OpenSM or ibdiagnet"})
}

func refreadOPAReport(ctx context.Context, r io.Reader, names NodeNameMap, warn func(string)) (*Graph, error) {
	// The XML is read as it comes (a 10^5-host fabric's is hundreds of
	// megabytes); the -o links text, a tenth of that, whole.
	br := bufio.NewReaderSize(r, detectBytes)
	head, err := br.Peek(detectBytes)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if t := FirstMeaningfulLine(head); t == "" || t[0] != '<' {
		data, err := textin.ReadAll(br, MaxGraphBytes, "the file")
		if err != nil {
			return nil, err
		}
		return refreadOPALinksText(ctx, data, names, warn)
	}
	d := newXMLScanner(br)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links []refibLink
	var path []string // the open elements
	var ports []refopaPort
	var port *refopaPort
	var text []byte
	summaries, linkCount := 0, -1
	line := func() int { return d.line }
	linkLine := 0
	for tokens := 0; ; tokens++ {
		if err := stopped(ctx, tokens); err != nil {
			return nil, err
		}
		kind, name, data, err := d.next()
		if err != nil {
			var se *xmlSyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("line %d: malformed XML: %s", se.Line, textin.Clip(se.Msg))
			}
			return nil, err
		}
		switch kind {
		case xmlEOF:
		case xmlStart:
			depth := len(path)
			switch {
			case depth == 0 && !opaRoots[name]:
				return nil, fmt.Errorf("line %d: document element <%s>, not opareport's <Report> or <Topology>", line(), textin.Clip(name))
			case depth == 1 && opaPartialLinks[name] != "":
				return nil, fmt.Errorf("line %d: <%s> (opareport -o %s) lists only some links; give opareport -o topology or -x -o links", line(), name, opaPartialLinks[name])
			case depth == 1 && name == "LinkSummary":
				summaries++
				if summaries > 1 {
					return nil, fmt.Errorf("line %d: a second <LinkSummary>", line())
				}
			case depth == 2 && path[1] == "LinkSummary" && name == "Link":
				ports, linkLine = ports[:0], line()
			case depth == 3 && path[1] == "LinkSummary" && path[2] == "Link" && name == "Port":
				ports = append(ports, refopaPort{line: line()})
				port = &ports[len(ports)-1]
			}
			path = append(path, name)
			text = text[:0]
			continue
		case xmlText:
			text = append(text, data...) // of a leaf: reset at every tag
			continue
		case xmlOther:
			continue
		case xmlEnd:
			depth := len(path) - 1 // of the element ending
			v := string(bytes.TrimSpace(text))
			switch {
			case depth == 4 && port != nil:
				switch name {
				case "NodeGUID":
					port.guid, port.hasGUID = v, true
				case "PortNum":
					port.num = v
				case "NodeType":
					port.typ = v
				case "NodeType_Int":
					port.typInt = v
				case "NodeDesc":
					// The writer escapes the description whole; its blanks are its own.
					port.desc = string(text)
				}
			case depth == 3 && name == "Port":
				port = nil
			case depth == 2 && name == "Link" && path[1] == "LinkSummary":
				if len(ports) != 2 {
					return nil, fmt.Errorf("line %d: a <Link> with %d <Port>s, not 2", linkLine, len(ports))
				}
				var ends [2]*ibNode
				var nums [2]int
				for i := range ports {
					n, num, err := refopaNode(&ports[i], nodes, &order)
					if err != nil {
						return nil, err
					}
					ends[i], nums[i] = n, num
				}
				links = append(links, refibLink{a: ends[0].guid, b: ends[1].guid, aPort: nums[0], bPort: nums[1], line: linkLine})
			case depth == 2 && name == "LinkCount" && path[1] == "LinkSummary":
				if linkCount, err = strconv.Atoi(v); err != nil || linkCount < 0 {
					return nil, fmt.Errorf("line %d: <LinkCount>%s</LinkCount> is no count", line(), textin.Clip(v))
				}
			}
			path = path[:len(path)-1]
			text = text[:0]
			continue
		}
		break
	}
	switch {
	case summaries == 0:
		return nil, fmt.Errorf("no <LinkSummary> (give opareport -o topology, or -x -o links)")
	case len(links) == 0 && linkCount > 0:
		return nil, fmt.Errorf("the <LinkSummary> counts %d links but lists none (opareport -d 0); give opareport's default detail", linkCount)
	case len(links) == 0:
		return nil, fmt.Errorf("no <Link> in the <LinkSummary>")
	}
	return refibFabric(ctx, nodes, order, links, names, warn, ibFabricText{tool: "opareport"})
}

func refopaNode(p *refopaPort, nodes map[uint64]*ibNode, order *[]uint64) (*ibNode, int, error) {
	if !p.hasGUID || p.guid == "" {
		return nil, 0, fmt.Errorf("line %d: a <Port> without <NodeGUID> (a hand-written or opaxlattopology topology names ports by NodeDesc; give opareport -o topology of the running fabric)", p.line)
	}
	h, ok := strings.CutPrefix(p.guid, "0x")
	if !ok {
		return nil, 0, fmt.Errorf("line %d: <NodeGUID>%s</NodeGUID> is not 0x and a hexadecimal GUID", p.line, textin.Clip(p.guid))
	}
	guid, err := parseGUID(h)
	if err != nil {
		return nil, 0, fmt.Errorf("line %d: %w", p.line, err)
	}
	num, err := strconv.ParseUint(p.num, 10, 8)
	if err != nil {
		return nil, 0, fmt.Errorf("line %d: <PortNum>%s</PortNum> is not a port number (0 to 255)", p.line, textin.Clip(p.num))
	}
	// NodeType is "FI" or "SW" (its NodeType_Int 1 or 2, STL_NODE_FI and
	// STL_NODE_SW); Topology/topology.c reads either.
	typ := p.typ
	if typ == "" {
		typ = map[string]string{"1": "FI", "2": "SW"}[p.typInt]
	}
	if typ != "FI" && typ != "SW" {
		return nil, 0, fmt.Errorf("line %d: node %016x of type %q (want FI or SW)", p.line, guid, textin.Clip(cmp.Or(p.typ, p.typInt)))
	}
	sw := typ == "SW"
	if n, ok := nodes[guid]; ok {
		if n.sw != sw {
			return nil, 0, fmt.Errorf("line %d: node %016x is a %s here but a %s on line %d", p.line, guid, kind(sw), kind(n.sw), n.line)
		}
		if n.desc != p.desc {
			return nil, 0, fmt.Errorf("line %d: node %016x is described %q here but %q on line %d", p.line, guid, textin.Clip(p.desc), textin.Clip(n.desc), n.line)
		}
		return n, int(num), nil
	}
	n := &ibNode{sw: sw, guid: guid, desc: p.desc, line: p.line}
	nodes[guid] = n
	*order = append(*order, guid)
	return n, int(num), nil
}

func refreadOPALinksText(ctx context.Context, data []byte, names NodeNameMap, warn func(string)) (*Graph, error) {
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links []refibLink
	var from *refopaPort
	var fromNode *ibNode
	var fromNum int
	count, summary := -1, false
	for i, l := range strings.Split(strings.TrimPrefix(string(data), textin.BOM), "\n") {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		line := i + 1
		if err := stopped(ctx, line); err != nil {
			return nil, err
		}
		l = strings.TrimRight(l, "\r")
		t := strings.TrimSpace(l)
		switch m := opaTextPortRe.FindStringSubmatch(strings.TrimLeft(l, " ")); {
		case t == "":
		case t == "Link Summary":
			if summary {
				return nil, fmt.Errorf("line %d: a second Link Summary", line)
			}
			summary = true
		case !summary:
			return nil, fmt.Errorf("line %d: %q before opareport's \"Link Summary\" (not opareport -o links output?)", line, textin.Clip(t))
		case opaTextCountRe.MatchString(t):
			count, _ = strconv.Atoi(opaTextCountRe.FindStringSubmatch(t)[1])
		case opaTextHeaderRe.MatchString(t), strings.Trim(t, "-") == "":
		case m != nil:
			p := &refopaPort{guid: "0x" + m[2], hasGUID: true, num: m[3], typ: m[4], desc: m[5], line: line}
			n, num, err := refopaNode(p, nodes, &order)
			if err != nil {
				return nil, err
			}
			switch {
			case m[1] != "<->" && from != nil:
				return nil, fmt.Errorf("line %d: a link's first port, but the link of line %d has no second (\"<->\") port", line, from.line)
			case m[1] != "<->":
				from, fromNode, fromNum = p, n, num
			case from == nil:
				return nil, fmt.Errorf("line %d: a link's second (\"<->\") port without a first", line)
			default:
				links = append(links, refibLink{a: fromNode.guid, b: n.guid, aPort: fromNum, bPort: num, line: from.line})
				from = nil
			}
		default:
			return nil, fmt.Errorf("line %d: %q is no line of opareport -o links at its default detail without -T or -F (details and cable text could pass for links); give it so, or -x for XML", line, textin.Clip(t))
		}
	}
	switch {
	case from != nil:
		return nil, fmt.Errorf("line %d: the last link has no second (\"<->\") port", from.line)
	case !summary:
		return nil, fmt.Errorf("no \"Link Summary\" (give opareport -o links, or -o topology)")
	case len(links) == 0 && count > 0:
		return nil, fmt.Errorf("the Link Summary counts %d links but lists none (opareport -d 0); give opareport's default detail", count)
	case len(links) == 0:
		return nil, fmt.Errorf("no link in the Link Summary")
	case count >= 0 && count != len(links):
		return nil, fmt.Errorf("the Link Summary counts %d links but lists %d (a cut file?)", count, len(links))
	}
	return refibFabric(ctx, nodes, order, links, names, warn, ibFabricText{tool: "opareport"})
}

func refibPortsLine(t string) (m []string, ok bool) {
	k := strings.Index(t, " ( '")
	if k < 0 {
		return nil, false
	}
	head := t[:k]
	for i := range len(head) {
		if c := head[i]; c != ' ' && (c < 0x21 || c > 0x7e) {
			return nil, false // blanks other than spaces: split as ibPRe splits them
		}
	}
	f := strings.Fields(head)
	if len(f) != 11 || f[6] != "-" || f[4] == "-" || f[5] == "-" {
		return nil, false
	}
	for _, e := range [2]int{0, 7} {
		switch f[e] {
		case "CA", "SW", "RT", "??":
		default:
			return nil, false
		}
		for _, n := range f[e+1 : e+3] {
			if strings.IndexFunc(n, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
				return nil, false
			}
		}
		h, ok := strings.CutPrefix(f[e+3], "0x")
		if !ok || h == "" || strings.IndexFunc(h, func(r rune) bool { return r > 0x7f || !isHex(byte(r)) }) >= 0 {
			return nil, false
		}
	}
	body, ok := strings.CutSuffix(strings.TrimRight(t[k+len(" ( '"):], " \t\n\f\r"), "' )")
	if !ok || strings.Count(body, "'") != 2 {
		return nil, false
	}
	d1, d2, ok := strings.Cut(body, "' - '")
	if !ok {
		return nil, false
	}
	return []string{t, f[0], f[2], f[3][2:], f[7], f[9], f[10][2:], d1, d2}, true
}

// refopaPort is opaPort as it was.
type refopaPort struct {
	guid, num, typ, typInt, desc string
	hasGUID                      bool
	line                         int
}

// CompareFabricReaders reads src as form ("ibnetdiscover", "subnet-lst" or
// "opareport") with the reader and with its reference above, and returns what
// differs between the two: the Graph (every vertex's name and kind, every
// adjacency list in its order, the groups), the warnings and the errors (their
// text); nil when nothing does. The reader refuses, where the reference did not,
// ibnetdiscover port numbers above 255 (InfiniBand's are 8 bits): that is no
// difference when its error says so. ok reports whether the reader read a graph.
func CompareFabricReaders(form string, src []byte, names NodeNameMap) (ok bool, diff error) {
	type reader func(context.Context, io.Reader, NodeNameMap, func(string)) (*Graph, error)
	var cur, ref reader
	switch form {
	case "ibnetdiscover":
		cur, ref = readIBNetDiscover, refreadIBNetDiscover
	case "subnet-lst":
		cur, ref = readSubnetLst, refreadSubnetLst
	case "opareport":
		cur, ref = readOPAReport, refreadOPAReport
	default:
		return false, fmt.Errorf("no reader %q", form)
	}
	var warnCur, warnRef []string
	g, err := cur(context.Background(), bytes.NewReader(src), names, func(s string) { warnCur = append(warnCur, s) })
	gRef, errRef := ref(context.Background(), bytes.NewReader(src), names, func(s string) { warnRef = append(warnRef, s) })
	switch {
	case err != nil && errRef == nil && form == "ibnetdiscover" && strings.Contains(err.Error(), "is no port number (0 to 255)"):
		return false, nil
	case (err == nil) != (errRef == nil) || err != nil && err.Error() != errRef.Error():
		return false, fmt.Errorf("error %v, the reference's %v", err, errRef)
	case err != nil:
		return false, nil
	case !slices.Equal(warnCur, warnRef):
		return true, fmt.Errorf("warnings %q, the reference's %q", warnCur, warnRef)
	}
	if d := graphDiff(g, gRef); d != "" {
		return true, fmt.Errorf("graphs differ: %s", d)
	}
	return true, nil
}

// graphDiff says how a graph read from a file differs from b, "" when it does
// not: its names, hosts, links (each vertex's list in order) and groups.
func graphDiff(a, b *Graph) string {
	switch {
	case !slices.Equal(a.names, b.names):
		return "vertex names"
	case a.hosts != b.hosts || a.edges != b.edges:
		return fmt.Sprintf("%d hosts, %d links; the reference %d, %d", a.hosts, a.edges, b.hosts, b.edges)
	case a.spec != b.spec || (a.layout == nil) != (b.layout == nil):
		return "spec or layout"
	case len(a.groups) != len(b.groups):
		return fmt.Sprintf("%d groups, the reference %d", len(a.groups), len(b.groups))
	}
	for v := range a.adj {
		if !slices.Equal(a.adj[v], b.adj[v]) {
			return fmt.Sprintf("the links of %s: %v, the reference %v", a.names[v], a.adj[v], b.adj[v])
		}
	}
	for i := range a.groups {
		if a.groups[i].Name != b.groups[i].Name || !slices.Equal(a.groups[i].Nodes, b.groups[i].Nodes) {
			return fmt.Sprintf("group %d: %v, the reference %v", i, a.groups[i], b.groups[i])
		}
	}
	return ""
}
