package plot_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/procalloc/procalloc/plot"
)

// A line chart of one series of three points, checked by properties rather than
// bytes. By hand, from LineChart's layout: the plot area is x 90..610, y 50..390
// (left 90, top 50, 520 x 340), the legend's room 230 (the name is short), so the
// picture is 90 + 520 + 230 = 840 wide and 50 + 340 + 60 = 450 high. With FromZero
// the y axis runs 0..40 (40 is a tick whatever the step), so y = 390 - 340 v / 40:
// 10 -> 305, 20 -> 220, 40 -> 50; x = 90 + 520 (x - 0.5) / 0.5: 90, 350, 610. The
// line is one path through the three points in x order (one decimal, OneDecimal),
// with a marker (<use>) on each point and one in the legend: 4 (the path ends in
// a space, trimmed here). The title's "&" is
// escaped, so the document parses as XML and the title reads back whole.
func ExampleLineChart() {
	c := plot.LineChart{
		Title:  "MM & MC1x1: mean hops by load",
		XLabel: "load factor", YLabel: "mean hops",
		Series:   []plot.Series{{Name: "mm", X: []float64{1, 0.5, 0.75}, Y: []float64{40, 10, 20}}},
		FromZero: true,
	}
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf); err != nil {
		fmt.Println(err)
		return
	}
	dec := xml.NewDecoder(&buf)
	uses, texts := 0, []string{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("not XML:", err)
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range t.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch {
			case t.Name.Local == "svg":
				fmt.Println("size", attr["width"], "x", attr["height"])
			case t.Name.Local == "use":
				uses++
			case t.Name.Local == "path" && attr["stroke-width"] == "1.6":
				fmt.Println("line", strings.TrimSpace(attr["d"]))
			}
		case xml.CharData:
			if s := string(t); len(texts) == 0 && len(s) > 20 {
				texts = append(texts, s)
			}
		}
	}
	fmt.Println("markers", uses)
	fmt.Println("title", texts[0])
	// Output:
	// size 840 x 450
	// line M90.0 305.0 L350.0 220.0 L610.0 50.0
	// markers 4
	// title MM & MC1x1: mean hops by load
}
