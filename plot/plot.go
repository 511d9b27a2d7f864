package plot

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strconv"
)

// Numbers says how a document prints float64 values.
type Numbers int

const (
	// Plain prints the shortest decimal that reads back exactly, never an exponent
	// (integers as integers).
	Plain Numbers = iota
	// Shortest is Go's %g: the shortest representation, with an exponent for large
	// and small magnitudes.
	Shortest
	// OneDecimal prints one digit after the point (chart coordinates).
	OneDecimal
)

// Header is the root element of a document.
type Header struct {
	Width, Height int // the document's size in pixels
	// ViewBox adds viewBox="0 0 Width Height" (the picture scales with its box).
	ViewBox bool
	// FontSize > 0 sets font-family="sans-serif" and font-size on the root, the
	// default of every text element.
	FontSize int
	// Numbers is the format of float64 attribute values.
	Numbers Numbers
	// Label, when set, makes the picture an image with that accessible name
	// (role="img" aria-label=Label): an SVG inline in an HTML page.
	Label string
	// Background, when set, is the colour of a rectangle under everything (a
	// picture opened on its own shows on a white ground, not the viewer's).
	Background string
}

// Doc is an SVG document being written. Element methods write one element each, with
// no line break (Newline adds one); the first write error is kept, later writes are
// dropped, and End returns it.
type Doc struct {
	w   *bufio.Writer
	num Numbers
	err error
}

// Begin writes the root element of an SVG document to w.
func Begin(w io.Writer, h Header) *Doc {
	d := &Doc{w: bufio.NewWriter(w), num: h.Numbers}
	d.open("svg", "xmlns", "http://www.w3.org/2000/svg", "width", h.Width, "height", h.Height)
	if h.ViewBox {
		d.put(` viewBox="0 0 ` + strconv.Itoa(h.Width) + " " + strconv.Itoa(h.Height) + `"`)
	}
	if h.FontSize > 0 {
		d.put(` font-family="sans-serif" font-size="` + strconv.Itoa(h.FontSize) + `"`)
	}
	if h.Label != "" {
		d.attrs([]any{"role", "img", "aria-label", h.Label})
	}
	d.put(">\n")
	if h.Background != "" {
		d.Elem("rect", "width", "100%", "height", "100%", "fill", h.Background)
		d.Newline()
	}
	return d
}

// Num formats v in the document's Numbers format.
func (d *Doc) Num(v float64) string {
	switch d.num {
	case Shortest:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case OneDecimal:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
}

func (d *Doc) put(s string) {
	if d.err == nil {
		_, d.err = d.w.WriteString(s)
	}
}

// attrs writes key="value" pairs; an odd count or a key that is not a string is a
// programming error and panics.
func (d *Doc) attrs(kv []any) {
	if len(kv)%2 != 0 {
		panic(fmt.Sprintf("plot: odd attribute list %v", kv))
	}
	for i := 0; i < len(kv); i += 2 {
		key, ok := kv[i].(string)
		if !ok {
			panic(fmt.Sprintf("plot: attribute name %v is not a string", kv[i]))
		}
		var val string
		switch v := kv[i+1].(type) {
		case int:
			val = strconv.Itoa(v)
		case float64:
			val = d.Num(v)
		case string:
			val = html.EscapeString(v)
		case []byte:
			val = html.EscapeString(string(v))
		default:
			panic(fmt.Sprintf("plot: attribute %s has a value of type %T", key, v))
		}
		d.put(" " + key + `="` + val + `"`)
	}
}

// open writes a start tag without its end: <name k="v" ...
func (d *Doc) open(name string, kv ...any) {
	d.put("<" + name)
	d.attrs(kv)
}

// Elem writes an empty element <name k="v" .../>.
func (d *Doc) Elem(name string, kv ...any) {
	d.open(name, kv...)
	d.put("/>")
}

// OpenElem writes a start tag <name k="v" ...>, to be closed by CloseElem.
func (d *Doc) OpenElem(name string, kv ...any) {
	d.open(name, kv...)
	d.put(">")
}

// CloseElem writes the end tag </name>.
func (d *Doc) CloseElem(name string) { d.put("</" + name + ">") }

// TextElem writes <name k="v" ...>text</name>, the text escaped.
func (d *Doc) TextElem(name, text string, kv ...any) {
	d.OpenElem(name, kv...)
	d.put(html.EscapeString(text))
	d.CloseElem(name)
}

// Newline ends a line of the document.
func (d *Doc) Newline() { d.put("\n") }

// End writes the end of the document, flushes it and returns the first error.
func (d *Doc) End() error {
	d.put("</svg>\n")
	if d.err != nil {
		return d.err
	}
	return d.w.Flush()
}
