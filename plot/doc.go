// Package plot writes every SVG procalloc draws: the pictures of orderings, clusters
// and Voronoi sets, and the charts of the commands and reports (a line chart with
// axes, ticks and a legend; a horizontal bar chart). One document writer (Doc) holds
// the rules every picture shares: the root element, one escaping of text and
// attribute values, and one number format per document, so that the same input
// always gives the same bytes.
//
// A picture is written element by element:
//
//	d := plot.Begin(w, plot.Header{Width: 200, Height: 100, ViewBox: true, Background: "white"})
//	d.Elem("circle", "cx", 10, "cy", 10, "r", 3, "fill", "#333")
//	d.Newline()
//	err := d.End()
//
// Attributes are key, value pairs: an int prints in decimal, a float64 in the
// document's Numbers format, a string escaped. A chart is a value with a WriteSVG
// method (LineChart, BarChart). It follows no paper.
package plot
