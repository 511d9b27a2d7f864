package topo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// opaPort is one <Port> of a <Link>: opareport.c ShowLinkPortBriefSummary (XML
// case, 902-913) writes its NodeGUID (XmlPrintHex64: 0x and 16 digits), PortNum,
// NodeType ("FI", "SW" or "??", StlNodeTypeToText) and NodeType_Int, and NodeDesc
// (XmlPrintStrLen: XML-escaped, bytes above 0x7f and most control bytes as '!';
// left out under opareport -N).
//
// The values are bytes reused from one <Link> to the next: a string each was 90
// of the 212 MB a 131,072-host fabric's XML allocated (docs/reliability.md,
// wt-fabricmem).
type opaPort struct {
	guid, num, typ, typInt, desc []byte
	hasGUID                      bool
	line                         int
}

// opaRoots are the document elements of opareport's XML: <Report> (opareport.c
// 13441-13446) and <Topology>, the name the topology input of opareport -T and
// opafm prefers (Topology/topology.c 1115-1121, which reads either).
var opaRoots = map[string]bool{"Report": true, "Topology": true}

// opaPartialLinks are the link reports that leave links out (opareport.c
// ShowLinksReport 5863-5885: -o extlinks, filinks, islinks, extislinks).
var opaPartialLinks = map[string]string{"ExtLinkSummary": "extlinks", "ExternalLinkSummary": "extlinks", "FILinkSummary": "filinks", "ISLinkSummary": "islinks", "ExtISLinkSummary": "extislinks"}

// ReadOPAReport reads the XML of Cornelis (Intel) Omni-Path's opareport -o
// topology, or of opareport -x -o links, or the text of opareport -o links (see
// readOPALinksText): a <Report> (or <Topology>) whose
// <LinkSummary> lists each link once as a <Link> of two <Port>s, each with the
// NodeGUID, PortNum, NodeType (FI: a host's fabric interface, SW: a switch) and
// NodeDesc of its node; <Nodes> and everything else is skipped. Nodes are known
// by their NodeGUID and named as ReadIBNetDiscover names them (names by node GUID,
// else an FI by the first word of its NodeDesc, "node01 hfi1_0" -> node01, a
// switch "S-<guid>"), with the same dual-rail rule, and numbered as they are:
// hosts, then switches, each in Slurm's node name order (see ibFabric).
//
// Errors name the line: a link report that leaves links out (-o extlinks,
// filinks, islinks, extislinks), a Port without NodeGUID (a hand-written or
// opaxlattopology topology.xml names ports by NodeDesc alone: not read), a node
// of type "??", a Link without two Ports, a NodeGUID whose type or NodeDesc
// changes, and malformed XML.
func ReadOPAReport(r io.Reader, names NodeNameMap) (*Graph, error) {
	return readOPAReport(context.Background(), r, names, nil)
}

func readOPAReport(ctx context.Context, r io.Reader, names NodeNameMap, warn func(string)) (*Graph, error) {
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
		return readOPALinksText(ctx, data, names, warn)
	}
	d := newXMLScanner(br)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links ibLinks
	var path []string // the open elements
	var ports []opaPort
	var port *opaPort
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
				if len(ports) < cap(ports) { // the buffers of an earlier link's port
					ports = ports[:len(ports)+1]
					p := &ports[len(ports)-1]
					*p = opaPort{guid: p.guid[:0], num: p.num[:0], typ: p.typ[:0], typInt: p.typInt[:0], desc: p.desc[:0], line: line()}
				} else {
					ports = append(ports, opaPort{line: line()})
				}
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
			v := bytes.TrimSpace(text)
			switch {
			case depth == 4 && port != nil:
				switch name {
				case "NodeGUID":
					port.guid, port.hasGUID = append(port.guid[:0], v...), true
				case "PortNum":
					port.num = append(port.num[:0], v...)
				case "NodeType":
					port.typ = append(port.typ[:0], v...)
				case "NodeType_Int":
					port.typInt = append(port.typInt[:0], v...)
				case "NodeDesc":
					// The writer escapes the description whole; its blanks are its own.
					port.desc = append(port.desc[:0], text...)
				}
			case depth == 3 && name == "Port":
				port = nil
			case depth == 2 && name == "Link" && path[1] == "LinkSummary":
				if len(ports) != 2 {
					return nil, fmt.Errorf("line %d: a <Link> with %d <Port>s, not 2", linkLine, len(ports))
				}
				var ends [2]*ibNode
				var nums [2]uint8
				for i := range ports {
					n, num, err := opaNode(&ports[i], nodes, &order)
					if err != nil {
						return nil, err
					}
					ends[i], nums[i] = n, num
				}
				l, err := ibLineNumber(linkLine)
				if err != nil {
					return nil, err
				}
				links.add(ibLink{a: ends[0].guid, b: ends[1].guid, aPort: nums[0], bPort: nums[1], line: l})
			case depth == 2 && name == "LinkCount" && path[1] == "LinkSummary":
				if linkCount, err = strconv.Atoi(string(v)); err != nil || linkCount < 0 {
					return nil, fmt.Errorf("line %d: <LinkCount>%s</LinkCount> is no count", line(), textin.Clip(string(v)))
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
	case links.len() == 0 && linkCount > 0:
		return nil, fmt.Errorf("the <LinkSummary> counts %d links but lists none (opareport -d 0); give opareport's default detail", linkCount)
	case links.len() == 0:
		return nil, fmt.Errorf("no <Link> in the <LinkSummary>")
	}
	return ibFabric(ctx, nodes, order, &links, names, warn, ibFabricText{tool: "opareport"})
}

// opaNode returns the node of p (adding it to nodes and order when new) and p's
// port number.
func opaNode(p *opaPort, nodes map[uint64]*ibNode, order *[]uint64) (*ibNode, uint8, error) {
	if !p.hasGUID || len(p.guid) == 0 {
		return nil, 0, fmt.Errorf("line %d: a <Port> without <NodeGUID> (a hand-written or opaxlattopology topology names ports by NodeDesc; give opareport -o topology of the running fabric)", p.line)
	}
	h, ok := bytes.CutPrefix(p.guid, []byte("0x"))
	if !ok {
		return nil, 0, fmt.Errorf("line %d: <NodeGUID>%s</NodeGUID> is not 0x and a hexadecimal GUID", p.line, textin.Clip(string(p.guid)))
	}
	guid, err := hexGUID(h)
	if err != nil {
		return nil, 0, fmt.Errorf("line %d: %w", p.line, err)
	}
	num, err := ibPortNumber(p.num)
	if err != nil {
		return nil, 0, fmt.Errorf("line %d: <PortNum>%s</PortNum> is not a port number (0 to 255)", p.line, textin.Clip(string(p.num)))
	}
	// NodeType is "FI" or "SW" (its NodeType_Int 1 or 2, STL_NODE_FI and
	// STL_NODE_SW); Topology/topology.c reads either.
	typ := string(p.typ)
	if typ == "" {
		switch string(p.typInt) {
		case "1":
			typ = "FI"
		case "2":
			typ = "SW"
		}
	}
	if typ != "FI" && typ != "SW" {
		return nil, 0, fmt.Errorf("line %d: node %016x of type %q (want FI or SW)", p.line, guid, textin.Clip(string(typOr(p.typ, p.typInt))))
	}
	sw := typ == "SW"
	if n, ok := nodes[guid]; ok {
		if n.sw != sw {
			return nil, 0, fmt.Errorf("line %d: node %016x is a %s here but a %s on line %d", p.line, guid, kind(sw), kind(n.sw), n.line)
		}
		if n.desc != string(p.desc) {
			return nil, 0, fmt.Errorf("line %d: node %016x is described %q here but %q on line %d", p.line, guid, textin.Clip(string(p.desc)), textin.Clip(n.desc), n.line)
		}
		return n, num, nil
	}
	n := &ibNode{sw: sw, guid: guid, desc: string(p.desc), line: p.line}
	nodes[guid] = n
	*order = append(*order, guid)
	return n, num, nil
}

// opaRoot reports whether data is XML whose document element is opareport's
// <Report> or <Topology>: what DetectGraphFormat calls "opareport".
func opaRoot(data []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(data))
	for range 64 { // the declaration, comments, a doctype: a few tokens at most
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(xml.StartElement); ok {
			return opaRoots[s.Name.Local]
		}
	}
	return false
}

var (
	// A port line of opareport -o links' text (opareport.c
	// ShowLinkPortBriefSummary 879-886: "%4s " then "0x%016x %3u %2s   %.*s"): the
	// link's rate (StlStaticRateToText: "100g", "12.5g", "any", "???") before its
	// first port, "<->" before the second.
	opaTextPortRe = regexp.MustCompile(`^(\S+) +0x([0-9a-fA-F]{1,16}) +(\d+) (FI|SW|\?\?)(?:   (.*))?$`)
	// The report's other lines (ShowLinksReport 5890-5905 and 5975-5980,
	// ShowLinkBriefSummaryHeader 464, DisplaySeparator 319).
	opaTextCountRe  = regexp.MustCompile(`^(\d+) Links in Fabric:?$`)
	opaTextHeaderRe = regexp.MustCompile(`^Rate +NodeGUID +Port +Type +Name$`)
)

// readOPALinksText reads the text of opareport -o links at its default detail:
// "Link Summary", "N Links in Fabric:", a header, then per link two lines, the
// first port's after its rate, the second's after "<->", and a line of dashes.
// Lines opareport adds only with a topology input (-T: NodeDetails, PortDetails,
// LinkDetails, Cable and free-text cable details) or a focus (-F) are refused:
// free text could pass for a port line.
func readOPALinksText(ctx context.Context, data []byte, names NodeNameMap, warn func(string)) (*Graph, error) {
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links ibLinks
	var from *opaPort
	var fromNode *ibNode
	var fromNum uint8
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
			p := &opaPort{guid: []byte("0x" + m[2]), hasGUID: true, num: []byte(m[3]), typ: []byte(m[4]), desc: []byte(m[5]), line: line}
			n, num, err := opaNode(p, nodes, &order)
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
				l, err := ibLineNumber(from.line)
				if err != nil {
					return nil, err
				}
				links.add(ibLink{a: fromNode.guid, b: n.guid, aPort: fromNum, bPort: num, line: l})
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
	case links.len() == 0 && count > 0:
		return nil, fmt.Errorf("the Link Summary counts %d links but lists none (opareport -d 0); give opareport's default detail", count)
	case links.len() == 0:
		return nil, fmt.Errorf("no link in the Link Summary")
	case count >= 0 && count != links.len():
		return nil, fmt.Errorf("the Link Summary counts %d links but lists %d (a cut file?)", count, links.len())
	}
	return ibFabric(ctx, nodes, order, &links, names, warn, ibFabricText{tool: "opareport"})
}

// typOr is the first of a and b that is not empty (cmp.Or of bytes).
func typOr(a, b []byte) []byte {
	if len(a) > 0 {
		return a
	}
	return b
}
