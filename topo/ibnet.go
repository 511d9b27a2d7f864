package topo

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// NodeNameMap maps GUIDs to names (an OpenSM / infiniband-diags node-name-map file).
type NodeNameMap map[uint64]string

// ReadNodeNameMap reads a node-name-map: "0x<guid> \"name\"" per line (the name may be
// unquoted), '#' comments. A GUID given twice or a line without a name is an error
// naming the line.
//
// A file it accepts is read as infiniband-diags reads it (ibnetdiscover
// --node-name-map, OpenSM; FuzzReadNodeNameMap compares the two), but for the
// blanks before a comment and a CRLF line's CR, which infiniband-diags keeps in the
// name. What infiniband-diags would read otherwise than its writer meant is refused
// rather than guessed: a GUID without 0x (there a decimal number, octal with a
// leading 0), a name holding '"' or '#' (there the end of the name), white space
// other than C's (a no-break space is part of the GUID there).
func ReadNodeNameMap(r io.Reader) (NodeNameMap, error) {
	m := NodeNameMap{}
	first := map[uint64]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), bufio.MaxScanTokenSize)
	line := 0
	for sc.Scan() {
		line++
		t := strings.Trim(sc.Text(), nameMapSpace)
		if t == "" || t[0] == '#' {
			continue
		}
		end := strings.IndexAny(t, nameMapSpace+"#")
		if end < 0 {
			end = len(t)
		}
		word := t[:end]
		guid, err := nameMapGUID(word)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		rest := strings.TrimLeft(t[end:], nameMapSpace)
		name := rest
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated quoted name", line)
			}
			name = rest[1 : 1+end]
		} else if i := strings.IndexByte(rest, '#'); i >= 0 {
			name = strings.TrimRight(rest[:i], nameMapSpace)
		}
		if name == "" || strings.ContainsAny(name, nameMapSpace) {
			return nil, fmt.Errorf("line %d: GUID %s needs one name without spaces, got %q", line, textin.Clip(word), textin.Clip(name))
		}
		if strings.ContainsAny(name, `"#`) {
			return nil, fmt.Errorf("line %d: name %q: infiniband-diags ends a name at '\"' or '#'", line, textin.Clip(name))
		}
		if l, dup := first[guid]; dup {
			return nil, fmt.Errorf("line %d: GUID %s mapped again (first on line %d)", line, textin.Clip(word), l)
		}
		first[guid] = line
		m[guid] = name
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, bufio.MaxScanTokenSize)
	}
	return m, nil
}

// NamesAny reports whether any name of m is a node of g: false for an empty map and
// for a map of another fabric, which infiniband-diags reads without a word (an empty
// file is a valid node-name-map there) but which leaves every node its default
// name. (A map entry equal to the default name counts as naming: it changes
// nothing either way.)
func (m NodeNameMap) NamesAny(g *Graph) bool {
	for _, name := range m {
		if _, ok := g.Lookup(name); ok {
			return true
		}
	}
	return false
}

// nameMapSpace is the white space of a node-name-map line: C's isspace, as
// infiniband-diags reads it (a newline ends the line).
const nameMapSpace = " \t\v\f\r"

// nameMapGUID reads a node-name-map's GUID: 0x and 1 to 16 hexadecimal digits.
func nameMapGUID(s string) (uint64, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		h, ok = strings.CutPrefix(s, "0X")
	}
	if !ok {
		if _, err := strconv.ParseUint(s, 16, 64); err == nil {
			return 0, fmt.Errorf("GUID %q has no 0x: infiniband-diags reads it as a decimal (octal with a leading 0) number, or refuses it; write 0x and the hexadecimal GUID", textin.Clip(s))
		}
		return 0, fmt.Errorf("%q is not a GUID (0x and up to 16 hexadecimal digits)", textin.Clip(s))
	}
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil || h == "" || h[0] == '+' || h[0] == '-' {
		return 0, fmt.Errorf("%q is not a GUID (0x and up to 16 hexadecimal digits)", textin.Clip(s))
	}
	return v, nil
}

func parseGUID(s string) (uint64, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	v, err := strconv.ParseUint(h, 16, 64)
	if err != nil || h == "" {
		return 0, fmt.Errorf("%q is not a GUID (hexadecimal, up to 16 digits)", textin.Clip(s))
	}
	return v, nil
}

var (
	ibNodeRe = regexp.MustCompile(`^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"(.*)$`)
	ibPortRe = regexp.MustCompile(`^\[(\d+)\](?:\((?:0x)?[0-9a-fA-F]+\))?\s*"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]`)
	ibPRe    = regexp.MustCompile(`^(CA|SW|RT)\s+\d+\s+(\d+)\s+0x([0-9a-fA-F]+)\s.*?\s-\s+(CA|SW|RT)\s+\d+\s+(\d+)\s+0x([0-9a-fA-F]+)\s*\(\s*'(.*)'\s+-\s+'(.*)'\s*\)\s*$`)
	ibPOpen  = regexp.MustCompile(`^(CA|SW|RT)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s`)
	ibQuoted = regexp.MustCompile(`"([^"]*)"`)
)

// ibNode is one node of an ibnetdiscover dump.
type ibNode struct {
	sw   bool
	guid uint64
	desc string
	line int
}

type ibLink struct {
	a, b uint64
	line int
}

// maxIBNetLine is the longest line of ibnetdiscover output ReadIBNetDiscover reads.
const maxIBNetLine = 16 << 20

// ReadIBNetDiscover reads ibnetdiscover output (ibnetdiscover(8), infiniband-diags):
// the default topology form (Switch/Ca/Rt node blocks, each followed by its port lines
// [p] "S-<guid>"[q]) or the -p ports report (one line per port, both ends' type, port
// and GUID and their NodeDescriptions), as a fabric: hosts are the CAs, switches (and
// routers) route. A host is named by names (its GUID), else by the first word of its
// NodeDescription ("node01 HCA-1" -> node01; several HCAs of one host make one host);
// a switch by names, else "S-<guid>". The -p form shows port GUIDs, with which names
// is then looked up. Parallel cables count once. names may be nil. Errors name the line: a node block given
// twice, a link to a GUID with no node block (default form), a malformed line.
func ReadIBNetDiscover(r io.Reader, names NodeNameMap) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxIBNetLine)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links []ibLink
	var cur *ibNode
	form := ""
	line := 0
	node := func(guid uint64, sw bool, desc string, l int, declare bool) (*ibNode, error) {
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
		n = &ibNode{sw: sw, guid: guid, desc: desc, line: l}
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
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		switch {
		case t == "" || t[0] == '#':
			continue
		case ibNodeRe.MatchString(t):
			if err := setForm("default"); err != nil {
				return nil, err
			}
			m := ibNodeRe.FindStringSubmatch(t)
			guid, err := parseGUID(m[4])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			sw := m[1] != "Ca"
			if sw != (m[3] != "H") {
				return nil, fmt.Errorf("line %d: %s block with a %s- GUID", line, m[1], m[3])
			}
			desc := ""
			if _, c, ok := strings.Cut(m[5], "#"); ok {
				if q := ibQuoted.FindStringSubmatch(c); q != nil {
					desc = q[1]
				}
			}
			if cur, err = node(guid, sw, desc, line, true); err != nil {
				return nil, err
			}
		case strings.HasPrefix(t, "["):
			if err := setForm("default"); err != nil {
				return nil, err
			}
			m := ibPortRe.FindStringSubmatch(t)
			if m == nil {
				return nil, fmt.Errorf("line %d: malformed port line %q (want [PORT] \"S-GUID\"[PORT])", line, textin.Clip(t))
			}
			if cur == nil {
				return nil, fmt.Errorf("line %d: port line before any Switch or Ca line", line)
			}
			peer, err := parseGUID(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			links = append(links, ibLink{cur.guid, peer, line})
		case ibPOpen.MatchString(t):
			if err := setForm("-p"); err != nil {
				return nil, err
			}
			if !strings.Contains(t, " - ") {
				continue // an unconnected port
			}
			m := ibPRe.FindStringSubmatch(t)
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
			if _, err := node(a, m[1] != "CA", m[7], line, false); err != nil {
				return nil, err
			}
			if _, err := node(b, m[4] != "CA", m[8], line, false); err != nil {
				return nil, err
			}
			links = append(links, ibLink{a, b, line})
		case strings.Contains(t, "="), strings.HasPrefix(t, "Non-Chassis"), strings.HasPrefix(t, "Chassis"):
			// vendid=, devid=, sysimgguid=, switchguid=, caguid=; grouping headers.
		default:
			return nil, fmt.Errorf("line %d: unrecognised line %q (not ibnetdiscover output?)", line, textin.Clip(t))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxIBNetLine)
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no Switch or Ca found (not ibnetdiscover output?)")
	}
	// Names: hosts by the map or their description's first word, switches by the map
	// or their GUID.
	f := NewFabric()
	vname := map[uint64]string{}
	for _, pass := range []bool{false, true} { // hosts first, then switches
		for _, guid := range order {
			n := nodes[guid]
			if n.sw != pass {
				continue
			}
			name, ok := names[guid]
			switch {
			case ok:
			case n.sw:
				name = fmt.Sprintf("S-%016x", guid)
			default:
				if w := strings.Fields(n.desc); len(w) > 0 {
					name = w[0]
				} else {
					name = fmt.Sprintf("H-%016x", guid)
				}
			}
			vname[guid] = name
			found, isSw := f.Has(name)
			switch {
			case found && (isSw || n.sw):
				return nil, fmt.Errorf("line %d: name %q of %s %016x is taken by another %s", n.line, textin.Clip(name), kind(n.sw), guid, kind(isSw))
			case found:
				continue // a second HCA of the same host
			case n.sw:
				f.AddSwitch(name)
			default:
				f.AddHost(name)
			}
		}
	}
	for _, l := range links {
		if _, ok := nodes[l.b]; !ok {
			return nil, fmt.Errorf("line %d: link to GUID %016x, which has no Switch or Ca block", l.line, l.b)
		}
		if vname[l.a] == vname[l.b] {
			continue // two HCAs of one host cabled together
		}
		if err := f.Link(vname[l.a], vname[l.b]); err != nil {
			return nil, fmt.Errorf("line %d: %w", l.line, err)
		}
	}
	g, err := f.Graph()
	if err != nil {
		return nil, err
	}
	return g, nil
}

func kind(sw bool) string {
	if sw {
		return "switch"
	}
	return "CA"
}
