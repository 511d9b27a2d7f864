package topo

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// xmlScanner reads the tokens of an XML document as encoding/xml's Decoder.Token
// does in its strict mode (the default), at the speed of a byte scan: opareport's
// XML of a 10^5-host fabric is hundreds of megabytes, and encoding/xml reads it
// byte by byte through getc (21.6 s of CPU for 342 MB, 80 % of the reading). It
// returns the tokens readOPAReport looks at: start and end elements (by local
// name, as Token gives them), character data (entities replaced, "\r\n" and "\r"
// as "\n", as encoding/xml does), comments, processing instructions
// and directives (skipped). It accepts exactly the documents Token accepts, with
// the same tokens (FuzzXMLScannerMatchesEncodingXML). Its errors are
// *xmlSyntaxError with the line, as encoding/xml's, but for a read error and
// <?xml's unsupported version or encoding.
type xmlScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int // unread bytes: buf[pos:end]
	eof      bool
	rerr     error // the reader's error other than io.EOF
	line     int   // the line of buf[pos]
	text     []byte
	stack    []string // open elements' raw names (prefix:local)
	pending  string   // a self-closing element's name: its end comes next
	names    map[string]string
	maxToken int
}

// xmlSyntaxError is a malformed document at a line.
type xmlSyntaxError struct {
	Line int
	Msg  string
}

func (e *xmlSyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// xmlKind is the kind of a token of xmlScanner.
type xmlKind int

const (
	xmlEOF xmlKind = iota
	xmlStart
	xmlEnd
	xmlText
	xmlOther // a comment or a processing instruction
)

func newXMLScanner(r io.Reader) *xmlScanner {
	return &xmlScanner{r: r, buf: make([]byte, 1<<20), line: 1, names: map[string]string{}, maxToken: 1 << 30}
}

func (s *xmlScanner) syntax(msg string) error { return &xmlSyntaxError{Line: s.line, Msg: msg} }

// fill reads more input, keeping buf[pos:end], growing buf when it is full. It
// returns false at the end of input (or on a read error, kept in rerr).
func (s *xmlScanner) fill() bool {
	if s.eof {
		return false
	}
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= s.maxToken {
			s.rerr = fmt.Errorf("line %d: an XML token longer than %d bytes", s.line, s.maxToken)
			s.eof = true
			return false
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// advance consumes n bytes, counting their lines.
func (s *xmlScanner) advance(n int) {
	s.line += bytes.Count(s.buf[s.pos:s.pos+n], []byte{'\n'})
	s.pos += n
}

// find returns the offset from pos of the first sep at or after from, reading
// more input as needed; -1 at the end of input.
func (s *xmlScanner) find(from int, sep []byte) int {
	for {
		if i := bytes.Index(s.buf[s.pos+from:s.end], sep); i >= 0 {
			return from + i
		}
		from = max(from, s.end-s.pos-len(sep)+1)
		if !s.fill() {
			return -1
		}
	}
}

// need makes buf[pos:pos+n] readable; false at the end of input.
func (s *xmlScanner) need(n int) bool {
	for s.end-s.pos < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// eofError is the error at an unexpected end of input.
func (s *xmlScanner) eofError() error {
	if s.rerr != nil {
		return s.rerr
	}
	return s.syntax("unexpected EOF")
}

// next returns the next token: its kind, the element's local name (start, end)
// or the character data (text, valid until the next call).
func (s *xmlScanner) next() (xmlKind, string, []byte, error) {
	if s.pending != "" {
		raw := s.pending
		s.pending = ""
		s.stack = s.stack[:len(s.stack)-1]
		return xmlEnd, localName(raw), nil, nil
	}
	if s.pos == s.end && !s.fill() {
		if s.rerr != nil {
			return xmlEOF, "", nil, s.rerr
		}
		if len(s.stack) > 0 {
			return xmlEOF, "", nil, s.syntax("unexpected EOF")
		}
		return xmlEOF, "", nil, nil
	}
	if s.buf[s.pos] != '<' {
		i := s.find(0, []byte{'<'})
		if i < 0 {
			i = s.end - s.pos
			if s.rerr != nil {
				return xmlEOF, "", nil, s.rerr
			}
		}
		raw := s.buf[s.pos : s.pos+i]
		text, err := s.charData(raw, 0, false)
		if err != nil {
			return xmlEOF, "", nil, err
		}
		s.advance(i)
		return xmlText, "", text, nil
	}
	if !s.need(2) {
		return xmlEOF, "", nil, s.eofError()
	}
	switch s.buf[s.pos+1] {
	case '/':
		return s.endElement()
	case '?':
		return s.procInst()
	case '!':
		return s.bang()
	}
	return s.startElement()
}

// name reads a name at buf[pos+at:], returning its length (0: none there).
// Names are as encoding/xml reads them: bytes of [A-Za-z0-9_:.-] or above
// 0x7f, then checked as XML names.
func (s *xmlScanner) name(at int) (int, error) {
	n := 0
	for {
		if s.pos+at+n == s.end && !s.fill() {
			return 0, s.eofError()
		}
		b := s.buf[s.pos+at+n]
		if b < utf8.RuneSelf && !isXMLNameByte(b) {
			break
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	if !isXMLName(s.buf[s.pos+at : s.pos+at+n]) {
		return 0, s.syntax("invalid XML name: " + string(s.buf[s.pos+at:s.pos+at+n]))
	}
	return n, nil
}

// space returns the length of the white space at buf[pos+at:].
func (s *xmlScanner) space(at int) (int, error) {
	n := 0
	for {
		if s.pos+at+n == s.end && !s.fill() {
			return n, nil
		}
		switch s.buf[s.pos+at+n] {
		case ' ', '\r', '\n', '\t':
			n++
		default:
			return n, nil
		}
	}
}

// byteAt returns buf[pos+at], reading as needed.
func (s *xmlScanner) byteAt(at int) (byte, error) {
	if !s.need(at + 1) {
		return 0, s.eofError()
	}
	return s.buf[s.pos+at], nil
}

// intern returns the string of b, one copy per distinct name.
func (s *xmlScanner) intern(b []byte) string {
	if v, ok := s.names[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(s.names) < 1<<12 {
		s.names[v] = v
	}
	return v
}

// nsName is a raw name as encoding/xml's nsname splits it: at most one colon
// (ok false otherwise).
func nsName(raw string) bool { return strings.Count(raw, ":") <= 1 }

// localName is the local part of a raw name, as encoding/xml's nsname gives it.
func localName(raw string) string {
	if space, local, ok := strings.Cut(raw, ":"); ok && space != "" && local != "" {
		return local
	}
	return raw
}

func (s *xmlScanner) endElement() (xmlKind, string, []byte, error) {
	n, err := s.name(2)
	if err != nil {
		return xmlEOF, "", nil, err
	}
	raw := s.intern(s.buf[s.pos+2 : s.pos+2+n])
	if n == 0 || !nsName(raw) {
		return xmlEOF, "", nil, s.syntax("expected element name after </")
	}
	at := 2 + n
	sp, _ := s.space(at)
	at += sp
	b, err := s.byteAt(at)
	if err != nil {
		return xmlEOF, "", nil, err
	}
	if b != '>' {
		return xmlEOF, "", nil, s.syntax("invalid characters between </" + localName(raw) + " and >")
	}
	s.advance(at + 1)
	if len(s.stack) == 0 {
		return xmlEOF, "", nil, s.syntax("unexpected end element </" + localName(raw) + ">")
	}
	if top := s.stack[len(s.stack)-1]; top != raw {
		return xmlEOF, "", nil, s.syntax("element <" + localName(top) + "> closed by </" + localName(raw) + ">")
	}
	s.stack = s.stack[:len(s.stack)-1]
	return xmlEnd, localName(raw), nil, nil
}

func (s *xmlScanner) procInst() (xmlKind, string, []byte, error) {
	n, err := s.name(2)
	if err != nil {
		return xmlEOF, "", nil, err
	}
	if n == 0 {
		return xmlEOF, "", nil, s.syntax("expected target name after <?")
	}
	target := string(s.buf[s.pos+2 : s.pos+2+n])
	at := 2 + n
	sp, _ := s.space(at)
	at += sp
	e := s.find(at, []byte("?>"))
	if e < 0 {
		return xmlEOF, "", nil, s.eofError()
	}
	if target == "xml" {
		content := string(s.buf[s.pos+at : s.pos+e])
		if ver := xmlProcInstParam("version", content); ver != "" && ver != "1.0" {
			return xmlEOF, "", nil, fmt.Errorf("unsupported XML version %q; only version 1.0 is read", ver)
		}
		if enc := xmlProcInstParam("encoding", content); enc != "" && !strings.EqualFold(enc, "utf-8") {
			return xmlEOF, "", nil, fmt.Errorf("encoding %q declared: only UTF-8 is read (opareport writes UTF-8)", enc)
		}
	}
	s.advance(e + 2)
	return xmlOther, "", nil, nil
}

// xmlProcInstParam is the value of param="..." (or '...') in the content of
// <?xml ...?>, found as encoding/xml's procInst finds it.
func xmlProcInstParam(param, s string) string {
	param += "="
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

func (s *xmlScanner) bang() (xmlKind, string, []byte, error) {
	b, err := s.byteAt(2)
	if err != nil {
		return xmlEOF, "", nil, err
	}
	switch b {
	case '-':
		if b, err = s.byteAt(3); err != nil {
			return xmlEOF, "", nil, err
		}
		if b != '-' {
			return xmlEOF, "", nil, s.syntax("invalid sequence <!- not part of <!--")
		}
		e := s.find(4, []byte("--"))
		if e < 0 {
			return xmlEOF, "", nil, s.eofError()
		}
		if b, err = s.byteAt(e + 2); err != nil {
			return xmlEOF, "", nil, err
		}
		if b != '>' {
			s.advance(e)
			return xmlEOF, "", nil, s.syntax(`invalid sequence "--" not allowed in comments`)
		}
		s.advance(e + 3)
		return xmlOther, "", nil, nil
	case '[':
		for i := range 6 {
			if b, err = s.byteAt(3 + i); err != nil {
				return xmlEOF, "", nil, err
			}
			if b != "CDATA["[i] {
				return xmlEOF, "", nil, s.syntax("invalid <![ sequence")
			}
		}
		e := s.find(9, []byte("]]>"))
		if e < 0 {
			s.advance(s.end - s.pos)
			if s.rerr != nil {
				return xmlEOF, "", nil, s.rerr
			}
			return xmlEOF, "", nil, s.syntax("unexpected EOF in CDATA section")
		}
		text, err := s.charData(s.buf[s.pos+9:s.pos+e], 0, true)
		if err != nil {
			return xmlEOF, "", nil, err
		}
		s.advance(e + 3)
		return xmlText, "", text, nil
	}
	return s.directive()
}

// directive skips a directive (<!DOCTYPE ...>, <!ENTITY ...>) as encoding/xml
// reads one: to the first '>' outside quotes and outside the '<' ... '>' nested
// in it, comments in it skipped; the byte after "<!" taken as it stands.
func (s *xmlScanner) directive() (xmlKind, string, []byte, error) {
	at := 3
	var inquote byte
	depth := 0
	for {
		b, err := s.byteAt(at)
		if err != nil {
			return xmlEOF, "", nil, err
		}
		at++
		if inquote == 0 && b == '>' && depth == 0 {
			break
		}
	handle:
		switch {
		case b == inquote:
			inquote = 0
		case inquote != 0:
		case b == '\'' || b == '"':
			inquote = b
		case b == '>':
			depth--
		case b == '<':
			for i := range 3 {
				c, err := s.byteAt(at)
				if err != nil {
					return xmlEOF, "", nil, err
				}
				at++
				if c != "!--"[i] {
					b = c
					depth++
					goto handle
				}
			}
			var b0, b1 byte
			for {
				c, err := s.byteAt(at)
				if err != nil {
					return xmlEOF, "", nil, err
				}
				at++
				if b0 == '-' && b1 == '-' && c == '>' {
					break
				}
				b0, b1 = b1, c
			}
		}
	}
	s.advance(at)
	return xmlOther, "", nil, nil
}

func (s *xmlScanner) startElement() (xmlKind, string, []byte, error) {
	n, err := s.name(1)
	if err != nil {
		return xmlEOF, "", nil, err
	}
	raw := s.intern(s.buf[s.pos+1 : s.pos+1+n])
	if n == 0 || !nsName(raw) {
		return xmlEOF, "", nil, s.syntax("expected element name after <")
	}
	at := 1 + n
	empty := false
	for {
		sp, _ := s.space(at)
		at += sp
		b, err := s.byteAt(at)
		if err != nil {
			return xmlEOF, "", nil, err
		}
		if b == '/' {
			if b, err = s.byteAt(at + 1); err != nil {
				return xmlEOF, "", nil, err
			}
			if b != '>' {
				return xmlEOF, "", nil, s.syntax("expected /> in element")
			}
			at += 2
			empty = true
			break
		}
		if b == '>' {
			at++
			break
		}
		// an attribute: name = "value" (the values are not kept)
		an, err := s.name(at)
		if err != nil {
			return xmlEOF, "", nil, err
		}
		if an == 0 || !nsName(string(s.buf[s.pos+at:s.pos+at+an])) {
			return xmlEOF, "", nil, s.syntax("expected attribute name in element")
		}
		at += an
		sp, _ = s.space(at)
		at += sp
		if b, err = s.byteAt(at); err != nil {
			return xmlEOF, "", nil, err
		}
		if b != '=' {
			return xmlEOF, "", nil, s.syntax("attribute name without = in element")
		}
		at++
		sp, _ = s.space(at)
		at += sp
		q, err := s.byteAt(at)
		if err != nil {
			return xmlEOF, "", nil, err
		}
		if q != '"' && q != '\'' {
			return xmlEOF, "", nil, s.syntax("unquoted or missing attribute value in element")
		}
		e := s.find(at+1, []byte{q})
		if e < 0 {
			// encoding/xml reads a value to the end of input as the value,
			// and then lacks the element's end
			return xmlEOF, "", nil, s.eofError()
		}
		if _, err := s.charData(s.buf[s.pos+at+1:s.pos+e], q, false); err != nil {
			return xmlEOF, "", nil, err
		}
		at = e + 1
	}
	s.advance(at)
	s.stack = append(s.stack, raw)
	if empty {
		s.pending = raw
	}
	return xmlStart, localName(raw), nil, nil
}

// xmlPlain marks the bytes that character data may hold as they are: every
// other byte (a control byte, '&', '\r', ']', '<' and bytes above 0x7f) sends
// charData to its careful path.
var xmlPlain = func() (t [256]bool) {
	for b := 0x20; b < 0x80; b++ {
		t[b] = true
	}
	t['\t'], t['\n'] = true, true
	t['&'], t[']'], t['<'] = false, false, false
	return t
}()

// charData checks and decodes raw character data as encoding/xml's text does:
// in a quoted attribute value (quote ' or "), in a CDATA section (cdata) or in
// text. It returns raw itself when nothing needs decoding.
func (s *xmlScanner) charData(raw []byte, quote byte, cdata bool) ([]byte, error) {
	plain := true
	for _, b := range raw {
		if !xmlPlain[b] {
			plain = false
			break
		}
	}
	if plain {
		return raw, nil
	}
	out := s.text[:0]
	line := s.line
	var b0, b1 byte
	for i := 0; i < len(raw); i++ {
		b := raw[i]
		if b == '\n' {
			line++
		}
		if quote == 0 && !cdata && b0 == ']' && b1 == ']' && b == '>' {
			return nil, &xmlSyntaxError{Line: line, Msg: "unescaped ]]> not in CDATA section"}
		}
		if b == '<' && !cdata {
			return nil, &xmlSyntaxError{Line: line, Msg: "unescaped < inside quoted string"}
		}
		if b == '&' && !cdata {
			r, n := xmlEntity(raw[i+1:])
			if n == 0 {
				return nil, &xmlSyntaxError{Line: line, Msg: "invalid character entity"}
			}
			out = utf8.AppendRune(out, r)
			i += n
			b0, b1 = 0, 0
			continue
		}
		switch {
		case b == '\r':
			out = append(out, '\n')
		case b1 == '\r' && b == '\n':
		default:
			out = append(out, b)
		}
		b0, b1 = b1, b
	}
	s.text = out
	for buf := out; len(buf) > 0; {
		r, size := utf8.DecodeRune(buf)
		if r == utf8.RuneError && size == 1 {
			return nil, &xmlSyntaxError{Line: line, Msg: "invalid UTF-8"}
		}
		buf = buf[size:]
		if !(r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) {
			return nil, &xmlSyntaxError{Line: line, Msg: fmt.Sprintf("illegal character code %U", r)}
		}
	}
	return out, nil
}

// xmlEntity reads the entity after an '&' in b: the rune it stands for and the
// bytes it takes up to and with its ';' (0 when it is none encoding/xml knows:
// the five predefined ones and character references).
func xmlEntity(b []byte) (rune, int) {
	semi := bytes.IndexByte(b, ';')
	if semi < 0 {
		return 0, 0
	}
	name := string(b[:semi])
	switch name {
	case "lt":
		return '<', semi + 1
	case "gt":
		return '>', semi + 1
	case "amp":
		return '&', semi + 1
	case "apos":
		return '\'', semi + 1
	case "quot":
		return '"', semi + 1
	}
	if len(name) < 2 || name[0] != '#' {
		return 0, 0
	}
	digits, base := name[1:], 10
	if digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	for _, c := range []byte(digits) {
		if !('0' <= c && c <= '9' || base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F')) {
			return 0, 0
		}
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil || v > unicode.MaxRune {
		return 0, 0
	}
	// as encoding/xml: string(rune(v)), a surrogate becoming U+FFFD
	r, _ := utf8.DecodeRuneInString(string(rune(v)))
	return r, semi + 1
}

func isXMLNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// isXMLName is encoding/xml's check of a name: ASCII names here, others (rare
// in a fabric dump) by encoding/xml itself.
func isXMLName(b []byte) bool {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		c := b[0]
		return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':'
	}
	_, err := xml.NewDecoder(bytes.NewReader(append(append([]byte("<"), b...), "/>"...))).RawToken()
	return err == nil
}
