package topo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// NodeNameMap maps GUIDs to names (an OpenSM / infiniband-diags node-name-map file).
type NodeNameMap map[uint64]string

// ReadNodeNameMap reads a node-name-map: "0x<guid> \"name\"" per line (the name may be
// unquoted), '#' comments; gzip or bzip2-compressed or not (textin.Decompress). A
// GUID given twice or a line without a name is an error naming the line.
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
	sc := bufio.NewScanner(textin.Decompress(r))
	sc.Buffer(make([]byte, 4096), bufio.MaxScanTokenSize)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 && strings.HasPrefix(sc.Text(), textin.BOM) {
			return nil, fmt.Errorf("line 1: the file starts with a UTF-8 byte-order mark, which infiniband-diags reads as part of the first GUID and refuses; save it without the mark")
		}
		if line == 1 {
			if err := textin.CheckStart(sc.Text()[:min(len(sc.Text()), textin.StartLen)]); err != nil {
				return nil, fmt.Errorf("line 1: %w", err)
			}
		}
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
		if k, hex, dash := strings.Cut(s, "-"); dash && len(k) == 1 && strings.Contains("HSR", k) && hex != "" {
			if _, err := strconv.ParseUint(hex, 16, 64); err == nil {
				// ibnetdiscover's node name (a map some tools write, e.g.
				// "H-0002c90300080d28 host"), which infiniband-diags reads as 0.
				return 0, fmt.Errorf("%q is ibnetdiscover's name of a node, not a GUID: write 0x%s", textin.Clip(s), textin.Clip(hex))
			}
		}
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
	// A node list (ibnetdiscover -l, -H, -S, -R; ibnetdiscover.c list_node):
	// "Ca<TAB> : 0x<guid> ports N devid ... "desc"", no links.
	ibListRe = regexp.MustCompile(`^(Switch|Ca|Router)\s+:\s+0x[0-9a-fA-F]+\s+ports\s`)
	// A progress line of ibnetdiscover -s (printed on standard output by
	// libibnetdisc's dump_endnode): "DR path slid 0; dlid 0; 0,1 -> new Switch {guid} ...".
	ibProgressRe = regexp.MustCompile(`^(DR path|Lid \d+).* -> (new|known) .*\{[0-9a-fA-F]+\}`)
	// -p's node types: ports_nt_str_compat's SW, CA, RT, and "??" for any other
	// NodeInfo NodeType (ibnetdiscover.c 147-159).
	ibPRe   = regexp.MustCompile(`^(CA|SW|RT|\?\?)\s+\d+\s+(\d+)\s+0x([0-9a-fA-F]+)\s.*?\s-\s+(CA|SW|RT|\?\?)\s+\d+\s+(\d+)\s+0x([0-9a-fA-F]+)\s*\(\s*'(.*)'\s+-\s+'(.*)'\s*\)\s*$`)
	ibPOpen = regexp.MustCompile(`^(CA|SW|RT|\?\?)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s`)
	// A message ibnetdiscover and its libraries print on standard error, found in a
	// dump saved with 2>&1 or copied from a terminal: libibmad's IBWARN ("ibwarn:
	// [pid] function: ...") and ibpanic, infiniband-diags' iberror ("ibnetdiscover:
	// iberror: [pid N] ...: failed: ..."), libibnetdisc's IBND_ERROR ("FILE.c:LINE;
	// ...", e.g. "src/query_smp.c:195; umad (DR path ...) bad status 110; Connection
	// timed out").
	ibDiagMsgRe = regexp.MustCompile(`^(ibwarn: \[\d+\] |ibpanic: \[\d+\] |\S+: iberror: |\S+\.c:\d+; )`)
	// ibFirmwareDescRe is the NodeDescription an adapter's firmware sets until the
	// host writes its own (rdma-ndd, "%h %d": "node01 mlx5_0"): the chip and the
	// vendor, "MT4129 ConnectX7   Mellanox Technologies", "MT25408 ConnectX Mellanox
	// Technologies", "MT23108 InfiniHost Mellanox Technologies" (ibnetdiscover(8)'s
	// example). It names no host.
	ibFirmwareDescRe = regexp.MustCompile(`^MT\d{4,5}(\s|$)|\s(Mellanox|NVIDIA|Nvidia) Technologies$`)
)

// ibDiagCandidate reports whether t may be one of ibDiagMsgRe's messages: each
// alternative starts "ibwarn: " or "ibpanic: " or holds ": iberror: " or ".c:".
// (The expression is tried only then: on every line of a large dump it cost more
// than the rest of the reading.)
func ibDiagCandidate(t []byte) bool {
	return bytes.HasPrefix(t, []byte("ib")) || bytes.Contains(t, []byte(": iberror: ")) || bytes.Contains(t, []byte(".c:"))
}

// ibPortMatch is what ibPortLine reads of a port line of the default form.
type ibPortMatch struct {
	port, peerGUID, peerPort []byte // pieces of the line
	peerKind                 byte   // 'S', 'H', 'R' or '?'
}

// ibPortLine reads a port line of the default form: "[p]", -g's "[ext N]", a CA's
// "(portguid)" with or without 0x, blanks, then the peer "K-<guid>"[q] and anything
// after (the comment). It reads what `^\[(\d+)\](?:\[ext \d+\])?(?:\((?:0x)?[0-9a-fA-F]+\))?\s*"([SHR?])-([0-9a-fA-F]+)"\[(\d+)\]`
// matches (TestIBPortLineAsRegexp), without the regular expression's cost on the
// millions of port lines of a 10^5-host dump, nor a string made of each.
func ibPortLine(t []byte) (m ibPortMatch, ok bool) {
	i := 0
	span := func(in func(byte) bool) []byte {
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
	if m.port = span(isDigit); len(m.port) == 0 || !at(']') {
		return m, false
	}
	if bytes.HasPrefix(t[i:], []byte("[ext ")) {
		i += len("[ext ")
		if len(span(isDigit)) == 0 || !at(']') {
			return m, false // the optional group cannot be skipped either: '"' must follow
		}
	}
	if at('(') {
		if bytes.HasPrefix(t[i:], []byte("0x")) && i+2 < len(t) && isHex(t[i+2]) {
			i += 2
		}
		if len(span(isHex)) == 0 || !at(')') {
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
	if m.peerGUID = span(isHex); len(m.peerGUID) == 0 || !at('"') || !at('[') {
		return m, false
	}
	if m.peerPort = span(isDigit); len(m.peerPort) == 0 || !at(']') {
		return m, false
	}
	return m, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// hexGUID is parseGUID of hexadecimal digits in a line's buffer, without making
// them a string (but for the error, which parseGUID words).
func hexGUID(b []byte) (uint64, error) {
	var v uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return parseGUID(string(b))
		}
		if v>>60 != 0 {
			return parseGUID(string(b)) // more than 64 bits
		}
		v = v<<4 | uint64(d)
	}
	if len(b) == 0 {
		return parseGUID("")
	}
	return v, nil
}

// ibPortNumber reads a port number of ibnetdiscover's (decimal digits): 0 to 255,
// as NodeInfo's NumPorts and every port number of InfiniBand are 8 bits.
func ibPortNumber(b []byte) (uint8, error) {
	v := 0
	for _, c := range b {
		if !isDigit(c) {
			v = -1
			break
		}
		if v = v*10 + int(c-'0'); v > 255 {
			break
		}
	}
	if len(b) == 0 || v < 0 || v > 255 {
		return 0, fmt.Errorf("port %q is no port number (0 to 255)", textin.Clip(string(b)))
	}
	return uint8(v), nil
}

// ibPortsLine reads a connected port's line of the -p report in the shape
// ibnetdiscover prints it ("%2s %5d %2d 0x%016x %s %s - %2s %5d %2d 0x%016x ( '%s' -
// '%s' )": eleven fields, then the two descriptions joined by the line's only
// "' -"), into m what ibPRe.FindSubmatch would, pieces of t; ok is false for any
// other shape, which ibPRe then reads (TestIBPortsLineAsRegexp).
func ibPortsLine(t []byte, m *[9][]byte) (ok bool) {
	k := bytes.Index(t, []byte(" ( '"))
	if k < 0 {
		return false
	}
	head := t[:k]
	var f [11][]byte // head's fields: only spaces split it (below)
	n := 0
	for i := 0; i < len(head); {
		c := head[i]
		if c != ' ' && (c < 0x21 || c > 0x7e) {
			return false // blanks other than spaces: split as ibPRe splits them
		}
		if c == ' ' {
			i++
			continue
		}
		j := i
		for j < len(head) && head[j] != ' ' {
			if c := head[j]; c < 0x21 || c > 0x7e {
				return false
			}
			j++
		}
		if n == len(f) {
			return false
		}
		f[n], n, i = head[i:j], n+1, j
	}
	if n != 11 || string(f[6]) != "-" || string(f[4]) == "-" || string(f[5]) == "-" {
		return false
	}
	for _, e := range [2]int{0, 7} {
		switch string(f[e]) {
		case "CA", "SW", "RT", "??":
		default:
			return false
		}
		for _, num := range f[e+1 : e+3] {
			for _, c := range num {
				if !isDigit(c) {
					return false
				}
			}
		}
		h, ok := bytes.CutPrefix(f[e+3], []byte("0x"))
		if !ok || len(h) == 0 {
			return false
		}
		for _, c := range h {
			if !isHex(c) {
				return false
			}
		}
	}
	body, ok := bytes.CutSuffix(bytes.TrimRight(t[k+len(" ( '"):], " \t\n\f\r"), []byte("' )"))
	if !ok || bytes.Count(body, []byte("'")) != 2 {
		return false
	}
	d1, d2, ok := bytes.Cut(body, []byte("' - '"))
	if !ok {
		return false
	}
	*m = [9][]byte{t, f[0], f[2], f[3][2:], f[7], f[9], f[10][2:], d1, d2}
	return true
}

// ibNode is one node of an ibnetdiscover dump.
type ibNode struct {
	sw     bool
	router bool // an Rt (RT) node: it routes, named R-<guid>
	guid   uint64
	desc   string
	line   int
	// Set by ibFabric: the node's vertex name (named false for an aggregation
	// node, which gets none) and its vertex's slot there (hosts of several CAs
	// share one).
	vname string
	named bool
	slot  int32
}

// ibLink is a cable: the GUIDs and port numbers of its ends (in the -p form the
// GUIDs are port GUIDs) and the line that lists it. 24 bytes: a 10^5-host dump
// lists about 10^6 of them (docs/reliability.md, wt-fabricmem).
type ibLink struct {
	a, b         uint64
	line         uint32
	aPort, bPort uint8
}

// ibLinks is a dump's links in their order, in chunks of ibLinkChunk that are
// never copied: a slice grown by appends allocated 5 times its final size (205
// MB for the 10^6 port lines of a 131,072-host fat tree's ibnetdiscover dump).
type ibLinks struct {
	chunks [][]ibLink // every chunk but the last holds ibLinkChunk links
	n      int
}

const ibLinkChunk = 1 << 13

// add appends l.
func (ls *ibLinks) add(l ibLink) {
	k := len(ls.chunks) - 1
	if k < 0 || len(ls.chunks[k]) == ibLinkChunk {
		// The first chunk grows by appends (a small dump's stays small), the
		// others are made whole.
		c := []ibLink(nil)
		if k >= 0 {
			c = make([]ibLink, 0, ibLinkChunk)
		}
		ls.chunks = append(ls.chunks, c)
		k++
	}
	ls.chunks[k] = append(ls.chunks[k], l)
	ls.n++
}

// len returns the number of links.
func (ls *ibLinks) len() int { return ls.n }

// at returns the i-th link.
func (ls *ibLinks) at(i int) *ibLink { return &ls.chunks[i/ibLinkChunk][i%ibLinkChunk] }

// all yields the links in order, each with its index.
func (ls *ibLinks) all() iter.Seq2[int, *ibLink] {
	return func(yield func(int, *ibLink) bool) {
		i := 0
		for _, c := range ls.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// deleteFunc removes the links del reports, keeping the order of the others.
func (ls *ibLinks) deleteFunc(del func(*ibLink) bool) {
	w := 0
	for _, l := range ls.all() {
		if !del(l) {
			*ls.at(w) = *l
			w++
		}
	}
	ls.n = w
	ls.chunks = ls.chunks[:(w+ibLinkChunk-1)/ibLinkChunk]
	if k := len(ls.chunks) - 1; k >= 0 {
		ls.chunks[k] = ls.chunks[k][:w-k*ibLinkChunk]
	}
}

// ibLineNumber is a line number as a link keeps it, or an error naming the line
// when it does not fit (a dump of more than 4 x 10^9 lines).
func ibLineNumber(line int) (uint32, error) {
	if line < 0 || line > math.MaxUint32 {
		return 0, fmt.Errorf("line %d: more lines than %d, the most read", line, uint32(math.MaxUint32))
	}
	return uint32(line), nil
}

// ibAggregationNode is what a Mellanox/NVIDIA Quantum switch's SHARP Aggregation
// Node puts in its NodeDescription: a CA inside the switch, cabled to one of its
// ports, which ibnetdiscover lists as any other Ca ("Mellanox Technologies
// Aggregation Node"). It is no host.
const ibAggregationNode = "Aggregation Node"

// ibCaDesc returns the NodeDescription of a Ca or Rt line from what follows its
// "H-<guid>": ibnetdiscover.c out_ca_detail prints `# "desc"`, then " (scp)" on a
// Xsigo adapter with -g; the description is not escaped, so it runs from the first
// '"' after the '#' to the last one of the line and may hold '"' and '#'.
// It is a piece of rest (a line's string, or its bytes in the scanner's buffer).
func ibCaDesc[T string | []byte](rest T) T {
	h := -1
	for i := 0; i < len(rest) && h < 0; i++ {
		if rest[i] == '#' {
			h = i
		}
	}
	if h < 0 {
		return rest[:0]
	}
	c := rest[h+1:]
	i, j := -1, -1
	for k := 0; k < len(c); k++ {
		if c[k] == '"' {
			if i < 0 {
				i = k
			}
			j = k
		}
	}
	if i < 0 || j <= i {
		return rest[:0]
	}
	return c[i+1 : j]
}

// ibNodeMatch is what ibNodeLine reads of a node line of the default form.
type ibNodeMatch struct {
	typ, guid, rest []byte // "Switch", "Ca" or "Rt"; the GUID's digits; what follows its '"'
	letter          byte   // of the GUID: 'S', 'H' or 'R'
}

// ibNodeLine reads a node line of the default form ("Switch 40 \"S-<guid>\" ...",
// "Ca", "Rt") in a line's bytes: what ibNodeRe matches (TestIBNodeLineAsRegexp),
// without the expression's cost nor a string made of the line.
func ibNodeLine(t []byte) (m ibNodeMatch, ok bool) {
	i := 0
	switch {
	case bytes.HasPrefix(t, []byte("Switch")):
		i = len("Switch")
	case bytes.HasPrefix(t, []byte("Ca")), bytes.HasPrefix(t, []byte("Rt")):
		i = 2
	default:
		return m, false
	}
	m.typ = t[:i]
	span := func(in func(byte) bool) int {
		j := i
		for i < len(t) && in(t[i]) {
			i++
		}
		return i - j
	}
	if span(isREBlank) == 0 || span(isDigit) == 0 || span(isREBlank) == 0 {
		return m, false
	}
	if len(t)-i < 3 || t[i] != '"' || (t[i+1] != 'S' && t[i+1] != 'H' && t[i+1] != 'R') || t[i+2] != '-' {
		return m, false
	}
	m.letter = t[i+1]
	i += 3
	j := i
	if span(isHex) == 0 || i >= len(t) || t[i] != '"' {
		return m, false
	}
	m.guid, m.rest = t[j:i], t[i+1:]
	return m, bytes.IndexByte(m.rest, '\n') < 0 // (.*)$
}

// isREBlank reports whether c is in the regular expressions' \s: [\t\n\f\r ].
func isREBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// maxIBNetLine is the longest line of ibnetdiscover output ReadIBNetDiscover reads.
const maxIBNetLine = 16 << 20

// ReadIBNetDiscover reads ibnetdiscover output (ibnetdiscover(8), infiniband-diags):
// the default topology form (Switch/Ca/Rt node blocks, each followed by its port lines
// [p] "S-<guid>"[q]; with -g also chassis headers and [ext N] ports; with -s the
// discovery progress lines, skipped) or the -p ports report (one line per port,
// both ends' type, port and GUID and their NodeDescriptions), as a fabric: hosts are
// the CAs, switches and routers route. A host is named by names (its GUID), else by
// the first word of its NodeDescription ("node01 mlx5_0" -> node01), else, when the
// NodeDescription names no host (none, the adapter firmware's default "MT4129
// ConnectX7   Mellanox Technologies" or "localhost ...": rdma-ndd did not run on
// the host, or before it had its name), by "H-<guid>", each such CA its own
// host, with a warning; a switch by
// names, else "S-<guid>", a router "R-<guid>". The -p form shows port GUIDs, with
// which names is then looked up; there the lines of one dual-port adapter (one
// after the other, one description, ports descending, port GUIDs apart as their
// ports: ibnetdiscover prints a node's ports together) are one node, named by its
// lowest port's GUID, with a warning. Parallel cables count once. names may be nil.
// Hosts are numbered first, in Slurm's node name order of their names (node9
// before node10), then switches and routers in that order of theirs: not in the
// dump's (discovery) order, so that every dump of one fabric numbers it alike.
//
// Several HCAs (or cabled ports) of one host make one host (dual rail); since a host
// does not forward traffic, it keeps one cable to a switch, its first rail's: the
// port of its CA whose NodeDescription sorts first ("node01 mlx5_0" before "node01
// mlx5_1"), then of lowest GUID, then the lowest port. (Kept on both rails, the host
// would be a shortcut between them for everyone's traffic.) A CA whose NodeDescription
// holds "Aggregation Node" (a switch's SHARP aggregation node) is no host and is left
// out, named by names or not. A node of unknown type (-p's ??, the default form's
// "?-GUID" peer: a NodeInfo NodeType none of CA, switch, router) cabled to one node
// only is left out; cabled to more it is an error. What it did of these it says in
// warnings (may be nil).
//
// Messages ibnetdiscover and its libraries print on standard error (ibwarn:,
// iberror:, "FILE.c:LINE; ..."), saved with the dump by 2>&1, are skipped with a
// warning: the discovery met errors and may have missed nodes.
//
// Errors name the line: a node block given twice, a link to a GUID with no node block
// (default form), a malformed line, a port number above 255 (InfiniBand's are 8
// bits), a node list (-l, -H, -S, -R: no links), two CAs
// named by one identical NodeDescription other than a firmware default (one copied
// onto several machines: the error names every CA that carries it, and
// --node-name-map names them).
func ReadIBNetDiscover(r io.Reader, names NodeNameMap) (*Graph, error) {
	return readIBNetDiscover(context.Background(), r, names, nil)
}

// readIBNetDiscover is ReadIBNetDiscover passing on what it decided to warn (may
// be nil) and stopped by ctx (its cause returned), looked at every ctxEvery lines.
func readIBNetDiscover(ctx context.Context, r io.Reader, names NodeNameMap, warn func(string)) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxIBNetLine)
	nodes := map[uint64]*ibNode{}
	var order []uint64
	var links ibLinks
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
	node := func(guid uint64, sw, router bool, desc []byte, l int, declare bool) (*ibNode, error) {
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
		// The description is a piece of the line: copied.
		n = &ibNode{sw: sw, router: router, guid: guid, desc: string(desc), line: l}
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
	// portLine reads a port line of the default form in the scanner's buffer.
	portLine := func(b []byte) error {
		if err := setForm("default"); err != nil {
			return err
		}
		p, ok := ibPortLine(b)
		if !ok {
			return fmt.Errorf("line %d: malformed port line %q (want [PORT] \"S-GUID\"[PORT])", line, textin.Clip(string(b)))
		}
		if cur == nil {
			return fmt.Errorf("line %d: port line before any Switch or Ca line", line)
		}
		peer, err := hexGUID(p.peerGUID)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		aPort, err := ibPortNumber(p.port)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		bPort, err := ibPortNumber(p.peerPort)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		l, err := ibLineNumber(line)
		if err != nil {
			return err
		}
		if p.peerKind == '?' {
			unknown(peer)
		}
		links.add(ibLink{a: cur.guid, b: peer, aPort: aPort, bPort: bPort, line: l})
		return nil
	}
	// nodeLine reads a node line of the default form.
	nodeLine := func(m ibNodeMatch) error {
		if err := setForm("default"); err != nil {
			return err
		}
		guid, err := hexGUID(m.guid)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		sw := string(m.typ) != "Ca"
		if sw != (m.letter != 'H') {
			return fmt.Errorf("line %d: %s block with a %c- GUID", line, m.typ, m.letter)
		}
		cur, err = node(guid, sw, string(m.typ) == "Rt", ibCaDesc(m.rest), line, true)
		return err
	}
	prevLine := 0        // the last line that is not blank or a comment
	var portsM [9][]byte // ibPortsLine's pieces of a line
	for sc.Scan() {
		line++
		if err := stopped(ctx, line); err != nil {
			return nil, err
		}
		// The line is read in the scanner's buffer, never made a string (a string
		// a line allocated the file's size again: docs/reliability.md,
		// wt-fabricmem); what is kept of it is copied (node, the first message).
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte(textin.BOM)) // as DetectGraphFormat skips it
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		prev := prevLine
		prevLine = line
		// Each pattern is tried only on the lines that can start as it does (the
		// regular expressions are anchored at a literal start): a 10^5-host dump
		// is millions of port lines, each tried against every pattern before.
		c := b[0]
		nodeM, isNode := ibNodeLine(b)
		portsOK := false
		if !isNode && (c == 'C' || c == 'S' || c == 'R' || c == '?') {
			portsOK = ibPortsLine(b, &portsM) // a connected port's line of -p (ibPOpen matches it)
		}
		switch {
		case ibDiagCandidate(b) && ibDiagMsgRe.Match(b):
			// Standard error saved with the dump: what it says of the discovery is
			// passed on (see the warning below), the line is no fabric.
			if diagLines++; diagLines == 1 {
				firstDiag, firstDiagText = line, string(b)
			}
		case isNode:
			if err := nodeLine(nodeM); err != nil {
				return nil, err
			}
		case c == '[':
			if err := portLine(b); err != nil {
				return nil, err
			}
		case portsOK || (c == 'C' || c == 'S' || c == 'R' || c == '?') && ibPOpen.Match(b):
			if err := setForm("-p"); err != nil {
				return nil, err
			}
			if !bytes.HasSuffix(b, []byte(")")) && (bytes.HasSuffix(b, []byte("'")) || !bytes.Contains(b, []byte(" - "))) {
				// An unconnected port: "%36s'%s'" after its fields (ibnetdiscover.c
				// 741), its description possibly holding " - "; a connected one ends
				// in " )" (730).
				continue
			}
			m := portsM[:]
			if !portsOK {
				m = ibPRe.FindSubmatch(b)
			}
			if m == nil {
				return nil, fmt.Errorf("line %d: malformed ports-report line %q (want TYPE LID PORT 0xGUID ... - TYPE LID PORT 0xGUID ( 'desc' - 'desc' ))", line, textin.Clip(string(b)))
			}
			a, err := hexGUID(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			bGUID, err := hexGUID(m[6])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			for _, end := range [...]struct {
				guid      uint64
				typ, desc []byte
			}{{a, m[1], m[7]}, {bGUID, m[4], m[8]}} {
				if string(end.typ) == "??" {
					unknown(end.guid)
					continue
				}
				if _, err := node(end.guid, string(end.typ) != "CA", string(end.typ) == "RT", end.desc, line, false); err != nil {
					return nil, err
				}
			}
			aPort8, err := ibPortNumber(m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			bPort8, err := ibPortNumber(m[5])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			l, err := ibLineNumber(line)
			if err != nil {
				return nil, err
			}
			links.add(ibLink{a: a, b: bGUID, aPort: aPort8, bPort: bPort8, line: l})
			if aPort := int(aPort8); string(m[1]) == "CA" {
				if k := len(run) - 1; k >= 0 && run[k].line == prev && runDesc == string(m[7]) && aPort < run[k].port && a < run[k].guid && run[k].guid-a == uint64(run[k].port-aPort) {
					run = append(run, runPort{a, aPort, line})
				} else {
					endRun()
					run, runDesc = append(run, runPort{a, aPort, line}), string(m[7])
				}
			}
		case bytes.HasPrefix(b, []byte("< ")) || bytes.HasPrefix(b, []byte("> ")):
			// ibnetdiscover --diff marks the lines of each fabric "< " and "> "
			// (ibnetdiscover.c 925-947).
			return nil, fmt.Errorf("line %d: a difference of two fabrics (ibnetdiscover --diff, lines marked < and >), not a fabric; give ibnetdiscover's output without --diff", line)
		case (c == 'S' || c == 'C' || c == 'R') && ibListRe.Match(b):
			return nil, fmt.Errorf("line %d: a node list (ibnetdiscover -l, -H, -S or -R) names nodes but no links; give ibnetdiscover's output without those options (the default form, or -p)", line)
		case (c == 'D' || c == 'L') && ibProgressRe.Match(b), bytes.HasPrefix(b, []byte("Hostname: ")):
			// ibnetdiscover -s's progress lines; -g's Xsigo chassis host name.
		case bytes.IndexByte(b, '=') >= 0, bytes.HasPrefix(b, []byte("Non-Chassis")), bytes.HasPrefix(b, []byte("Chassis")):
			// vendid=, devid=, sysimgguid=, switchguid=, caguid=; grouping headers.
		default:
			return nil, fmt.Errorf("line %d: unrecognised line %q (not ibnetdiscover output?)", line, textin.Clip(string(b)))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, textin.ScanErr(err, line+1, maxIBNetLine)
	}
	endRun()
	if len(joined) > 0 {
		for _, l := range links.all() {
			if g, ok := joined[l.a]; ok {
				l.a = g
			}
			if g, ok := joined[l.b]; ok {
				l.b = g
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
		for _, l := range links.all() {
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
		links.deleteFunc(func(l *ibLink) bool {
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
	g, err := ibFabric(ctx, nodes, order, &links, names, warn, text)
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

// ibFabricText is what ibFabric's messages say of the dump it builds: the tool that
// wrote it (to rerun), a hint added to a refused repeated NodeDescription and one
// added to the warning of CAs named by GUID.
type ibFabricText struct {
	tool, dupHint, unnamedHint string
}

// ibFabric builds the fabric of an InfiniBand-like dump (ibnetdiscover, OpenSM's
// subnet.lst, opareport's XML): nodes by node GUID (order: the dump's, which only
// decides which line an error names), links between them by GUID and port. It is
// the one place of the host naming and dual-rail rules ReadIBNetDiscover
// documents, which every such format shares, and of their numbering: the hosts
// first, in Slurm's node name order (hostlist.NaturalCompare: cn9 before cn10),
// then the switches and routers in that order of their names. Every dump of one
// fabric, whichever tool wrote it and in whatever order (ibnetdiscover's
// discovery order, OpenSM's and opareport's GUID order), thus gives one Graph,
// and the orderings that break ties by node index (rcm, bfs, the local search's
// starts) one ranking file; the node-name-map, which renames, can renumber.
func ibFabric(ctx context.Context, nodes map[uint64]*ibNode, order []uint64, links *ibLinks, names NodeNameMap, warn func(string), text ibFabricText) (*Graph, error) {
	// Names: hosts by the map or their description's first word, switches by the map
	// or their GUID. Aggregation nodes get none: they are left out. Each vertex
	// name has a slot (a host of several CAs one), which holds what is known of it.
	type railKey struct {
		desc string
		guid uint64
		port int
	}
	type slot struct {
		rail       *ibNode // the host end of its first rail's cable (below): its CA,
		railPort   uint8   // and port,
		railSwitch *ibNode // and the switch it reaches
		sw         bool
		dual       bool // a cable of another rail, to another switch, was met
	}
	named := make(map[string]int32, len(order)) // vertex name -> its slot
	slots := make([]slot, 0, len(order)+1)      // and one for aggregation nodes (below)
	hostNames := make([]string, 0, len(order))
	var switchNames []string
	descLine := make(map[string]int, len(order)) // NodeDescription naming a host -> the line of its first CA
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
			n.vname, n.named, n.slot = "", false, -1
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
				if w := ibFirstWord(n.desc); w != "" {
					name = w
					if i := strings.IndexFunc(name, notHostNameRune); i >= 0 {
						return nil, fmt.Errorf("line %d: CA %016x: the NodeDescription %q starts with %q, which holds %q and is no host name (letters, digits, '-', '_', '.'); name the CA by GUID with --node-name-map FILE", n.line, guid, textin.Clip(n.desc), textin.Clip(name), name[i:i+1])
					}
					if l, again := descLine[n.desc]; again {
						return nil, ibSharedDescError(nodes, order, n, l, text)
					}
					descLine[n.desc] = n.line
				}
			}
			n.vname, n.named = name, true
			si, found := named[name]
			switch {
			case found && (slots[si].sw || n.sw):
				return nil, fmt.Errorf("line %d: name %q of %s %016x is taken by another %s", n.line, textin.Clip(name), kind(n.sw), guid, kind(slots[si].sw))
			case found:
				n.slot = si
				continue // a second HCA of the same host
			}
			n.slot = int32(len(slots))
			named[name] = n.slot
			slots = append(slots, slot{sw: n.sw})
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
	// Aggregation nodes share the slot of the name "" (a map may give it; there
	// is none otherwise): their cables are no host's rail.
	noName, ok := named[""]
	if !ok {
		noName = int32(len(slots))
		slots = append(slots, slot{})
	}
	for _, n := range nodes {
		if !n.named {
			n.slot = noName
		}
	}
	// One numbering whatever the dump's order: hosts, then switches, each in Slurm's
	// node name order (see ibFabric's doc comment).
	slices.SortFunc(hostNames, hostlist.NaturalCompare)
	slices.SortFunc(switchNames, hostlist.NaturalCompare)
	f := NewFabric()
	f.Grow(len(hostNames)+len(switchNames), links.len())
	for _, name := range hostNames {
		f.AddHost(name)
	}
	for _, name := range switchNames {
		f.AddSwitch(name)
	}
	// Each host's first rail: of its cables to a switch, the one of least
	// (NodeDescription, GUID, port) at the host's end.
	less := func(x, y railKey) bool {
		if x.desc != y.desc {
			return x.desc < y.desc
		}
		if x.guid != y.guid {
			return x.guid < y.guid
		}
		return x.port < y.port
	}
	// hostEnd returns the host end of a link between a host and a switch, the
	// host's node and the switch's.
	hostEnd := func(l *ibLink) (railKey, *ibNode, *ibNode, bool) {
		a, b := nodes[l.a], nodes[l.b]
		switch {
		case a == nil || b == nil || a.sw == b.sw:
			return railKey{}, nil, nil, false
		case a.sw:
			return railKey{b.desc, b.guid, int(l.bPort)}, b, a, true
		default:
			return railKey{a.desc, a.guid, int(l.aPort)}, a, b, true
		}
	}
	for i, l := range links.all() {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		if k, h, sw, ok := hostEnd(l); ok {
			if s := &slots[h.slot]; s.rail == nil || less(k, railKey{s.rail.desc, s.rail.guid, int(s.railPort)}) {
				s.rail, s.railPort, s.railSwitch = h, uint8(k.port), sw
			}
		}
	}
	var dualHosts []string // hosts with a cable they do not keep, the first's line below
	dualLine := uint32(0)
	for i, l := range links.all() {
		if err := stopped(ctx, i); err != nil {
			return nil, err
		}
		nb, ok := nodes[l.b]
		if !ok {
			return nil, fmt.Errorf("line %d: link to GUID %016x, which has no Switch or Ca block", l.line, l.b)
		}
		na := nodes[l.a]
		if na == nil || !na.named || !nb.named {
			continue // an aggregation node's cable
		}
		if na.vname == nb.vname {
			continue // two HCAs of one host cabled together
		}
		if k, h, sw, ok := hostEnd(l); ok {
			if s := &slots[h.slot]; k != (railKey{s.rail.desc, s.rail.guid, int(s.railPort)}) {
				if !s.dual && sw.vname != s.railSwitch.vname {
					s.dual = true
					if len(dualHosts) == 0 {
						dualLine = l.line
					}
					dualHosts = append(dualHosts, h.vname)
				}
				continue // another rail's cable
			}
		}
		if err := f.Link(na.vname, nb.vname); err != nil {
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
			warn(fmt.Sprintf("%d hosts have more than one cable to the fabric (dual rail or dual port), e.g. %s (line %d): each keeps the cable of its first adapter (NodeDescription order, then GUID, then port) and hop distances are that rail's", len(dualHosts), dualHosts[0], dualLine))
		}
	}
	return g, nil
}

// ibSharedDescError is the error of a NodeDescription naming a host that several
// CAs carry, n the second met (the first on line first): it names every CA that
// carries it (GUID and line, the first eight) and counts the other descriptions
// shared so, since a node-name-map must name them all.
//
// Such CAs are not joined as one host's adapters: rdma-ndd describes an adapter by
// its host and its device ("%h %d"), and one host's devices differ (a DGX's
// "dgx01 mlx5_0" ... "dgx01 mlx5_7" are one host of eight adapters, joined by the
// first word). The same whole description on two node GUIDs is two machines
// described alike (a copied or static description, an image's host name), which
// cannot be told apart, nor which of them is the named host; joined, they would be
// one host with both machines' cables, and split by GUID, the named host would
// vanish from the network unsaid. (An unset description, the firmware's, names no
// host: ibNoHostName.)
func ibSharedDescError(nodes map[uint64]*ibNode, order []uint64, n *ibNode, first int, text ibFabricText) error {
	count := map[string]int{}
	for _, g := range order {
		if m := nodes[g]; !m.sw && !ibNoHostName(m.desc) && !strings.Contains(m.desc, ibAggregationNode) {
			count[m.desc]++
		}
	}
	var cas []string
	for _, g := range order {
		if m := nodes[g]; !m.sw && m.desc == n.desc && len(cas) < 8 {
			cas = append(cas, fmt.Sprintf("%016x (line %d)", g, m.line))
		}
	}
	if count[n.desc] > len(cas) {
		cas = append(cas, fmt.Sprintf("and %d more", count[n.desc]-len(cas)))
	}
	others := 0
	for d, c := range count {
		if c > 1 && d != n.desc {
			others++
		}
	}
	also := ""
	if others > 0 {
		also = fmt.Sprintf("; %d other NodeDescriptions are shared so", others)
	}
	return fmt.Errorf("line %d: CA %016x has the NodeDescription %q of the CA on line %d: %d CAs carry it, %s%s; two adapters of one host differ in it (node01 mlx5_0, node01 mlx5_1), so these are machines whose description is copied or static%s, and which of them is %s cannot be told; name the CAs by GUID with --node-name-map FILE (a line \"0x%016x name\" each), or set their descriptions (rdma-ndd) and rerun %s", n.line, n.guid, textin.Clip(n.desc), first, count[n.desc], strings.Join(cas, ", "), also, text.dupHint, textin.Clip(strings.Fields(n.desc)[0]), n.guid, text.tool)
}

// ibNoHostName reports whether a CA's NodeDescription names no host: none, the
// adapter firmware's default (ibFirmwareDescRe), or the host name "localhost"
// (rdma-ndd ran before the host had its name: CAs of several hosts may say so,
// so they cannot be joined as one host's adapters).
func ibNoHostName(desc string) bool {
	first := ibFirstWord(desc)
	if first == "" || first == "localhost" || first == "localhost.localdomain" {
		return true
	}
	// ibFirmwareDescRe's two alternatives start "MT" and end "Technologies".
	return (strings.HasPrefix(first, "MT") || ibLastWord(desc) == "Technologies") && ibFirmwareDescRe.MatchString(strings.Join(strings.Fields(desc), " "))
}

// ibFirstWord is strings.Fields(desc)[0], "" when desc has no word, without
// the slice of every word (two a CA of a 10^5-host dump: docs/reliability.md,
// wt-fabricmem).
func ibFirstWord(desc string) string {
	desc = strings.TrimLeftFunc(desc, unicode.IsSpace)
	if i := strings.IndexFunc(desc, unicode.IsSpace); i >= 0 {
		return desc[:i]
	}
	return desc
}

// ibLastWord is the last of strings.Fields(desc), "" when desc has no word.
func ibLastWord(desc string) string {
	desc = strings.TrimRightFunc(desc, unicode.IsSpace)
	if i := strings.LastIndexFunc(desc, unicode.IsSpace); i >= 0 {
		_, size := utf8.DecodeRuneInString(desc[i:])
		return desc[i+size:]
	}
	return desc
}

// notHostNameRune reports whether r cannot be in a host name as rdma-ndd writes it
// into a NodeDescription ("%h %d": gethostname's name, then the device).
func notHostNameRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

func kind(sw bool) string {
	if sw {
		return "switch"
	}
	return "CA"
}
