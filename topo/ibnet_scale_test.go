package topo

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ibPortRe is the port line of ibnetdiscover's default form, which ibPortLine
// reads: the local port, with -g its external port "[ext N]" (a chassis line or
// spine switch), a CA's port GUID, then the peer's GUID, port and "[ext N]"
// (ibnetdiscover.c out_switch_port and out_ca_port). A peer of unknown node type is
// "?-GUID" (node_name's default).
var ibPortRe = regexp.MustCompile(`^\[(\d+)\](?:\[ext \d+\])?(?:\((?:0x)?[0-9a-fA-F]+\))?\s*"([SHR?])-([0-9a-fA-F]+)"\[(\d+)\]`)

// randomLine assembles a line from pieces, each the first of its alternatives (of
// the line's form) but for one piece in odds, which is any (near misses), so that
// random lines reach every branch of a hand-written reader.
func randomLine(r *rand.Rand, pieces [][]string, odds int) string {
	var b strings.Builder
	for _, alts := range pieces {
		if r.IntN(odds) != 0 {
			b.WriteString(alts[0])
		} else {
			b.WriteString(alts[r.IntN(len(alts))])
		}
	}
	s := b.String()
	if r.IntN(8) == 0 && s != "" { // a byte changed
		i := r.IntN(len(s))
		const bytes = "[]()\"'- \t0xX?9aZ\v#"
		s = s[:i] + string(bytes[r.IntN(len(bytes))]) + s[i+1:]
	}
	if r.IntN(16) == 0 && s != "" { // cut short
		s = s[:r.IntN(len(s))]
	}
	return s
}

// TestIBPortLineAsRegexp: ibPortLine reads what ibPortRe matches, the same
// pieces, and refuses what it does not match, on 200,000 random lines of the
// default form's port line and near misses.
func TestIBPortLineAsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := [][]string{
		{"[", "[", "[", "", "("},
		{"1", "36", "007", "", "x"},
		{"]", "]", "]", ")", ""},
		{"", "", "[ext 3]", "[ext ]", "[ext 12", "[ex 1]"},
		{"", "(2c90300c00011)", "(0x2c9)", "(0x)", "()", "(0xg1)", "(ab"},
		{"\t", " ", "", " \t ", "\v", "\r"},
		{"\"", "\"", "'", ""},
		{"S", "H", "R", "?", "X", ""},
		{"-", "-", "_", ""},
		{"0002c90300a00001", "fc6a1c0300000000", "ab", "", "0002c90300a0000100", "g1"},
		{"\"", "\"", ""},
		{"[", "[", ""},
		{"13", "1", "", "a"},
		{"]", "]", ""},
		{"", "\t\t# \"MF0;leaf:MQM8700/U1\" lid 1 4xHDR", "[ext 2]", "x"},
	}
	seen := 0
	for range 200000 {
		line := randomLine(r, pieces, 2)
		m, ok := ibPortLine([]byte(line))
		re := ibPortRe.FindStringSubmatch(line)
		if ok != (re != nil) {
			t.Fatalf("%q: ibPortLine ok=%v, the expression matches: %v", line, ok, re != nil)
		}
		if ok {
			seen++
			if got := []string{string(m.port), string(m.peerKind), string(m.peerGUID), string(m.peerPort)}; strings.Join(got, "|") != strings.Join(re[1:], "|") {
				t.Fatalf("%q: ibPortLine read %q, the expression %q", line, got, re[1:])
			}
		}
	}
	t.Logf("%d lines read", seen)
	if seen < 1000 {
		t.Fatalf("only %d of the random lines were port lines", seen)
	}
}

// TestIBPortsLineAsRegexp: what ibPortsLine reads of a -p line is what ibPRe
// reads (a shape it does not read goes to ibPRe), on 200,000 random lines.
func TestIBPortsLineAsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := [][]string{
		{"CA", "SW", "RT", "??", "Ca", ""},
		{"    21", " 7", "  ", "\t3", " x"},
		{"  1", " 12", "1", " "},
		{" 0x0002c90300c00011", " 0x", " 0002c9", " 0xabcg", " 0x1"},
		{" 4x", " 4x NDR", " ??", " - "},
		{" HDR", " ???", "", " -"},
		{" - ", " - ", " -  ", "\t-\t", " "},
		{"SW", "CA", "RT", "??", "XX"},
		{"     1", "  2", " ", "1"},
		{"  1", " 13", " "},
		{" 0x0002c90300a00001", " 0x", " 0xzz"},
		{" ( '", " ( '", " (  '", " (", "( '"},
		{"node01 HCA-1", "n - 1", "it's", "", "a' - 'b", "x'  - 'y"},
		{"' - '", "' - '", "'  - '", "'-'", "' -'"},
		{"MF0;switch-a00001:MQM8700/U1", "s - w", "", "q'r"},
		{"' )", "' )", "')", "' )  ", "' ) x", "'  )"},
	}
	seen := 0
	for range 200000 {
		line := randomLine(r, pieces, 2)
		var mb [9][]byte
		if !ibPortsLine([]byte(line), &mb) {
			continue
		}
		seen++
		var m []string
		for _, p := range mb {
			m = append(m, string(p))
		}
		re := ibPRe.FindStringSubmatch(line)
		if strings.Join(m, "|") != strings.Join(re, "|") {
			t.Fatalf("%q: ibPortsLine read %q, the expression %q", line, m, re)
		}
	}
	t.Logf("%d lines read", seen)
	if seen < 1000 {
		t.Fatalf("only %d of the random lines were read by ibPortsLine", seen)
	}
}

// TestLstFastLineAsRegexp: what lstFastLine reads of a subnet.lst line is what
// lstLazyRe reads, and lstGreedyRe agrees on its descriptions (a line it does not
// read goes to the expressions), on 200,000 random lines.
func TestLstFastLineAsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	record := [][]string{
		{"{ ", "{", "{  "},
		{"CA", "SW", "Rt", "**", "Ca", "XX"},
		{"", "-SM", "-sm"},
		{" Ports:01", " Ports:", " Ports:1G"},
		{" SystemGUID:0002c90300c00010", " SystemGUID:00000000000000000", " SystemGUID:"},
		{" NodeGUID:0002c90300c00010", " NodeGUID:a1", " NodeGUID:00000000000000001", " NodeGUID:x"},
		{" PortGUID:0002c90300c00011", " PortGUID:"},
		{" VenID:0002C9", " VenID:000002C9", " VenID:"},
		{" DevID:101B", " DevID:101B0000", " DevID:Z"},
		{" Rev:000000A0", " Rev:"},
		{" {", " {", "{"},
		{"node01 HCA-1", "leaf {1}", "x} LID:0001 PN:01 } { CA Ports:01 SystemGUID:00 NodeGUID:00 PortGUID:00 VenID:0 DevID:0 Rev:0 {y", "", "a}b", "{"},
		{"} LID:0015", "} LID:", "}LID:1", "} LID:0015 "},
		{" PN:01 }", " PN:1 }", " PN: }", " PN:01}"},
	}
	var pieces [][]string
	pieces = append(pieces, record...)
	pieces = append(pieces, []string{" ", "  ", ""})
	pieces = append(pieces, record...)
	pieces = append(pieces, []string{" PHY=4x LOG=ACT SPD=50", " PHY=4x LOG=INI SPD=25", " PHY= LOG=ACT SPD=5", " PHY=4x LOG=ACT SPD=50 ", " PHY=4x\vLOG=ACT SPD=5"})
	seen := 0
	for range 200000 {
		line := randomLine(r, pieces, 20)
		var mb [11][]byte
		if !lstFastLine([]byte(line), &mb) {
			continue
		}
		seen++
		var m []string
		for _, p := range mb {
			m = append(m, string(p))
		}
		lazy, greedy := lstLazyRe.FindStringSubmatch(line), lstGreedyRe.FindStringSubmatch(line)
		if strings.Join(m, "|") != strings.Join(lazy, "|") || greedy == nil || greedy[4] != m[4] || greedy[9] != m[9] {
			t.Fatalf("%q: lstFastLine read %q, lstLazyRe %q, lstGreedyRe %q", line, m, lazy, greedy)
		}
	}
	t.Logf("%d lines read", seen)
	if seen < 1000 {
		t.Fatalf("only %d of the random lines were read by lstFastLine", seen)
	}
}

// TestIBNodeLineAsRegexp: ibNodeLine reads what ibNodeRe matches, the same
// pieces, and refuses what it does not match, on 200,000 random node lines and
// near misses (invalid UTF-8 and blanks the expression's \s does not take among
// them).
func TestIBNodeLineAsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := [][]string{
		{"Switch", "Ca", "Rt", "Sw", "CA", "", "Swit"},
		{"\t", " ", "", "  ", "\v", "\r", "\n"},
		{"40", "1", "", "x", "4 0"},
		{" ", "\t", "", "\f", "\v"},
		{"\"", "\"", "'", ""},
		{"S", "H", "R", "?", "X", ""},
		{"-", "-", "_", ""},
		{"fc6a1c0300000000", "2c9", "", "0002c90300a0000100", "g1"},
		{"\"", "\"", ""},
		{"", "\t\t# \"MF0;leaf:MQM8700/U1\" enhanced port 0 lid 1 lmc 0", "\t# \"n01 mlx5_0\"", "\xff\xfe", "# \"a\nb\"", "\r"},
	}
	seen := 0
	for range 200000 {
		line := randomLine(r, pieces, 2)
		m, ok := ibNodeLine([]byte(line))
		re := ibNodeRe.FindStringSubmatch(line)
		if ok != (re != nil) {
			t.Fatalf("%q: ibNodeLine ok=%v, the expression matches: %v", line, ok, re != nil)
		}
		if ok {
			seen++
			if got := []string{string(m.typ), string(m.letter), string(m.guid), string(m.rest)}; strings.Join(got, "|") != strings.Join([]string{re[1], re[3], re[4], re[5]}, "|") {
				t.Fatalf("%q: ibNodeLine read %q, the expression %q", line, got, re[1:])
			}
		}
	}
	t.Logf("%d lines read", seen)
	if seen < 1000 {
		t.Fatalf("only %d of the random lines were node lines", seen)
	}
}

// TestIBFirstLastWord: ibFirstWord and ibLastWord are the first and last of
// strings.Fields, on random strings of words, ASCII and Unicode blanks (a
// no-break space, U+0085, an ideographic space) and invalid UTF-8.
func TestIBFirstLastWord(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	parts := []string{"n01", "mlx5_0", " ", "\t", "\v", "\u00a0", "\u0085", "\u3000", "\xff", "\xc2", "é", "Technologies", ""}
	for range 100000 {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		w := strings.Fields(s)
		first, last := "", ""
		if len(w) > 0 {
			first, last = w[0], w[len(w)-1]
		}
		if ibFirstWord(s) != first || ibLastWord(s) != last {
			t.Fatalf("%q: first %q last %q, strings.Fields %q", s, ibFirstWord(s), ibLastWord(s), w)
		}
	}
}

// TestIBLinksAsSlice: ibLinks keeps links as a slice grown by appends would
// (their order, at, len), and deleteFunc removes as slices.DeleteFunc does, at
// sizes around its chunk's (a dump's first chunk grows by appends, the others
// are made whole).
func TestIBLinksAsSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, ibLinkChunk - 1, ibLinkChunk, ibLinkChunk + 1, 2*ibLinkChunk + r.IntN(ibLinkChunk), 3 * ibLinkChunk} {
		var ls ibLinks
		var want []ibLink
		for i := range n {
			l := ibLink{a: r.Uint64(), b: r.Uint64(), line: uint32(i), aPort: uint8(r.IntN(256)), bPort: uint8(r.IntN(256))}
			ls.add(l)
			want = append(want, l)
		}
		check := func(what string) {
			t.Helper()
			if ls.len() != len(want) {
				t.Fatalf("%d links %s: len %d, want %d", n, what, ls.len(), len(want))
			}
			i := 0
			for k, l := range ls.all() {
				if k != i || *l != want[i] || *ls.at(i) != want[i] {
					t.Fatalf("%d links %s: link %d (index %d) %+v, at %+v, want %+v", n, what, i, k, *l, *ls.at(i), want[i])
				}
				i++
			}
			if i != len(want) {
				t.Fatalf("%d links %s: all yields %d", n, what, i)
			}
		}
		check("added")
		del := func(l ibLink) bool { return l.aPort%3 == 0 }
		ls.deleteFunc(func(l *ibLink) bool { return del(*l) })
		want = slices.DeleteFunc(want, del)
		check("after deleteFunc")
		for i := range 2 * ibLinkChunk { // added after a deletion
			l := ibLink{a: uint64(i), line: uint32(i)}
			ls.add(l)
			want = append(want, l)
		}
		check("added after deleteFunc")
	}
}
