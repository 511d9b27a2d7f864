package topo

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// encodingXMLTokens is a document's tokens as readOPAReport sees them: "<name",
// ">name" (an end), "=text", "?" (a comment, processing instruction or
// directive); the error, if any, ends the list.
func encodingXMLTokens(doc []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var toks []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return toks, nil
		}
		if err != nil {
			return toks, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			toks = append(toks, "<"+tok.Name.Local)
		case xml.EndElement:
			toks = append(toks, ">"+tok.Name.Local)
		case xml.CharData:
			toks = append(toks, "="+string(tok))
		case xml.Comment, xml.ProcInst, xml.Directive:
			toks = append(toks, "?")
		}
	}
}

// scannerTokens reads doc with xmlScanner from r's bytes, its buffer starting at
// bufSize bytes.
func scannerTokens(r io.Reader, bufSize int) ([]string, error) {
	s := newXMLScanner(r)
	s.buf = make([]byte, bufSize)
	var toks []string
	for range 1 << 20 {
		kind, name, text, err := s.next()
		if err != nil {
			return toks, err
		}
		switch kind {
		case xmlEOF:
			return toks, nil
		case xmlStart:
			toks = append(toks, "<"+name)
		case xmlEnd:
			toks = append(toks, ">"+name)
		case xmlText:
			toks = append(toks, "="+string(text))
		case xmlOther:
			toks = append(toks, "?")
		}
	}
	return toks, errors.New("no end")
}

// checkScannerMatches holds xmlScanner to encoding/xml on doc: the same tokens
// where encoding/xml reads the document, an error where it refuses it.
func checkScannerMatches(t *testing.T, doc []byte) {
	t.Helper()
	want, werr := encodingXMLTokens(doc)
	for _, read := range []struct {
		name string
		r    io.Reader
		buf  int
	}{
		{"whole", bytes.NewReader(doc), 1 << 20},
		{"byte by byte, a 1-byte buffer", iotest.OneByteReader(bytes.NewReader(doc)), 1},
		{"halves, a 7-byte buffer", iotest.HalfReader(bytes.NewReader(doc)), 7},
	} {
		got, gerr := scannerTokens(read.r, read.buf)
		switch {
		case werr != nil && gerr == nil:
			t.Fatalf("%s: %q: read as %q; encoding/xml: %v", read.name, doc, got, werr)
		case werr == nil && gerr != nil:
			t.Fatalf("%s: %q: %v; encoding/xml reads %q", read.name, doc, gerr, want)
		case werr == nil && fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want):
			t.Fatalf("%s: %q:\nscanner      %q\nencoding/xml %q", read.name, doc, got, want)
		}
	}
}

var xmlScanSeeds = []string{
	`<?xml version="1.0" encoding="utf-8" ?><Report a="1"><LinkSummary/></Report>`,
	"<a>x<!--c-->y</a>",
	"<a><![CDATA[<b>&amp;]]]></a>",
	"<a>]]></a>",
	"<a b='>' c=\"'\">t</a >",
	"<a b='<'/>",
	"<a>&lt;&#65;&#x42;&#X43;&#;&#x;</a>",
	"<a>&#0;</a>",
	"<a>&#xD800;&#x10FFFF;&#x110000;</a>",
	"<a>&unknown;</a>",
	"<a>\r\n\rx\r</a>",
	"<a>\x01</a>",
	"<a>\xff</a>",
	"<a>é</a><b/>",
	"<é/>",
	"<a:b:c/>",
	"<a:b></a:b><:x/><y:/>",
	"<a:b></c:b>",
	"<a></b>",
	"</a>",
	"<a>",
	"<a",
	"<a b>",
	"<a b=c>",
	"<a/ >",
	"<a><!-- a -- b --></a>",
	"<a><!---></a>",
	"<a><!----></a>",
	"<a><!- x --></a>",
	"<a><![CDAT[x]]></a>",
	"<a><![CDATA[x",
	"<?xml version=\"1.1\"?><a/>",
	"<?xml encoding='latin1'?><a/>",
	"<?xml encoding='UTF-8'?><a/>",
	"<??><a/>",
	"<?pi?><a/>",
	"<!DOCTYPE a [<!ENTITY e 'x'>]><a/>",
	"<!DOCTYPE a [<!-- c > -->]><a/>",
	"<!'>'><!a<>><!<<!->><!x\"'>\"><a/>",
	"<!DOCTYPE a [<!-- c",
	"<!>x><a/>",
	"<a>\n\n<b\n c\n=\n'\n'\n/></a>",
	"text<a/>more",
	"<1a/>",
	"<-a/>",
	"<_a.b-c:d9/>",
	"<a\t\r\n/>",
	"<a b='x' b='y'/>",
	"<a>&amp</a>",
	"<a>&lt x;</a>",
	"<a>&#12a;</a>",
	"<a>a]]b]>]]&gt;</a>",
}

// Against encoding/xml on hand-picked documents: edge cases of each construct.
func TestXMLScannerMatchesEncodingXML(t *testing.T) {
	for _, doc := range xmlScanSeeds {
		checkScannerMatches(t, []byte(doc))
	}
	checkScannerMatches(t, []byte(readFile(t, "testdata/fattree.opareport.xml")))
}

// FuzzXMLScannerMatchesEncodingXML: whatever the bytes, xmlScanner accepts what
// encoding/xml's Token accepts, with the same tokens, and refuses what it
// refuses.
func FuzzXMLScannerMatchesEncodingXML(f *testing.F) {
	for _, doc := range xmlScanSeeds {
		f.Add([]byte(doc))
	}
	f.Add([]byte(readFile(f, "testdata/fattree.opareport.xml")))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 1<<16 {
			return
		}
		checkScannerMatches(t, doc)
	})
}

// A malformed document is refused with its line, as encoding/xml's errors give it.
func TestXMLScannerErrorLine(t *testing.T) {
	doc := "<Report>\n<LinkSummary>\n<Link>\n</Lnk>\n"
	_, err := ReadOPAReport(strings.NewReader(doc), nil)
	if err == nil || !strings.Contains(err.Error(), "line 4: malformed XML: element <Link> closed by </Lnk>") {
		t.Fatalf("got %v", err)
	}
}
