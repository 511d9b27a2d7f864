package topo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// graphFormats backs GraphFormats; only this package changes it.
var graphFormats = []string{"edges", "ibnetdiscover", "subnet-lst", "opareport"}

// GraphFormats returns the --graph-format names ReadGraphFormat accepts: the generic
// network formats. Slurm's topology.conf and topology.yaml are package slurm's, whose
// ReadGraphFormat reads them and falls back to this one for the others.
// Each call returns a new slice: changing it changes nothing in the package.
func GraphFormats() []string { return slices.Clone(graphFormats) }

// MaxGraphBytes is the largest network file ReadGraphFormat reads whole (in any
// format, slurm's topology files included) but for the fabric dumps it reads line
// by line (MaxDumpBytes).
const MaxGraphBytes = 256 << 20

// MaxDumpBytes is the largest fabric dump (ibnetdiscover, subnet-lst, opareport's
// XML) ReadGraphFormat reads: these are read as they come, in memory of the order
// of their nodes and links rather than of their bytes (opareport -o topology of a
// 131,072-host fat tree is 342 MB).
const MaxDumpBytes = 8 << 30

// detectBytes is how much of a file ReadGraphFormat looks at to tell its format:
// the first meaningful line is in it unless a megabyte of blanks and comments
// comes first (then the whole file is read and looked at).
const detectBytes = 1 << 20

// GraphReadOptions are the settings of ReadGraphFormat.
type GraphReadOptions struct {
	Format      string      // one of GraphFormats or of Extra, or "" to detect it
	NodeNameMap NodeNameMap // ibnetdiscover, subnet-lst, opareport: GUID -> name
	// Warn receives what a reader decided about the input that the user should hear
	// (ibnetdiscover: dual-rail hosts kept on one rail, aggregation nodes left out);
	// nil drops it.
	Warn func(string)
	// Extra are formats a package above topo adds (package slurm: topology.conf and
	// topology.yaml), by name, each read from the whole file; Detect, when set, names
	// a file's format in place of DetectGraphFormat (and may fall back to it).
	Extra  map[string]func(data []byte) (*Graph, error)
	Detect func(data []byte) (string, error) // nil: DetectGraphFormat
	// Context, when set, stops the reading, the parsing and the network's
	// construction of the built-in formats (a fabric dump is read as it comes,
	// looked at every few thousand lines and links; an edge list is read whole,
	// then parsed under it): ReadGraphFormat returns its cause; nil: never.
	// Extra readers take their own.
	Context context.Context
}

// ReadGraphFormat reads a network in any of GraphFormats (and opt.Extra); with an
// empty Format it is detected from the content (DetectGraphFormat, or opt.Detect,
// on the file's first megabyte) and an undecidable file is an error. The fabric
// dumps are read as they come (at most MaxDumpBytes), the other formats whole (at
// most MaxGraphBytes), the caps counting the text's bytes. A gzip or bzip2 file
// is decompressed as it is read (textin.Decompress: `ibnetdiscover | gzip`).
func ReadGraphFormat(r io.Reader, opt GraphReadOptions) (*Graph, error) {
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	br := bufio.NewReaderSize(textin.Decompress(r), detectBytes)
	head, err := br.Peek(detectBytes)
	if err != nil && err != io.EOF {
		return nil, err
	}
	whole := err == io.EOF // head is the whole file
	var data []byte        // the whole file, once read
	readAll := func() error {
		if data == nil {
			var err error
			if data, err = textin.ReadAll(br, MaxGraphBytes, "the file"); err != nil {
				return err
			}
		}
		return nil
	}
	f := opt.Format
	if f == "" {
		detect := opt.Detect
		if detect == nil {
			detect = DetectGraphFormat
		}
		probe := head
		if !whole {
			probe = head[:bytes.LastIndexByte(head, '\n')+1] // whole lines
		}
		if f, err = detect(probe); err != nil && !whole {
			// Nothing to go by in the first megabyte: look at the whole file.
			if err := readAll(); err != nil {
				return nil, err
			}
			f, err = detect(data)
		}
		if err != nil {
			return nil, err
		}
	}
	if opt.NodeNameMap != nil && !guidFormats[f] {
		return nil, fmt.Errorf("a node-name-map applies to ibnetdiscover, subnet-lst and opareport files, not %s", f)
	}
	if guidFormats[f] {
		var in io.Reader = textin.Capped(br, MaxDumpBytes, "the file")
		if data != nil {
			in = bytes.NewReader(data)
		}
		// Each buffer's read looks at ctx too (the readers look every few
		// thousand lines and links).
		in = textin.ContextReader(ctx, in)
		var g *Graph
		switch f {
		case "ibnetdiscover":
			g, err = readIBNetDiscover(ctx, in, opt.NodeNameMap, opt.Warn)
		case "subnet-lst":
			g, err = readSubnetLst(ctx, in, opt.NodeNameMap, opt.Warn)
		default:
			g, err = readOPAReport(ctx, in, opt.NodeNameMap, opt.Warn)
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx) // not the parser's wording of it
		}
		return g, err
	}
	if err := readAll(); err != nil {
		return nil, err
	}
	if read, ok := opt.Extra[f]; ok {
		return read(data)
	}
	if f == "edges" {
		g, err := readGraph(ctx, textin.ContextReader(ctx, bytes.NewReader(data)))
		if ctx.Err() != nil {
			return nil, context.Cause(ctx) // not the parser's wording of it
		}
		return g, err
	}
	names := slices.Clone(graphFormats)
	for k := range opt.Extra {
		names = append(names, k)
	}
	slices.Sort(names[len(graphFormats):])
	return nil, fmt.Errorf("unknown graph format %q (want %s)", f, strings.Join(names, ", "))
}

// guidFormats are the formats whose nodes a NodeNameMap names by GUID.
var guidFormats = map[string]bool{"ibnetdiscover": true, "subnet-lst": true, "opareport": true}

// UndetectedFormatError is DetectGraphFormat's error for a file whose first
// meaningful line names no format; Formats are the names to suggest.
type UndetectedFormatError struct {
	Line    string   // the first meaningful line (FirstMeaningfulLine)
	Formats []string // the format names to suggest (topo.GraphFormats, or slurm's longer list)
}

// Error names the line (clipped) and the formats --graph-format takes.
func (e *UndetectedFormatError) Error() string {
	return fmt.Sprintf("cannot tell the graph format from %q; give --graph-format (%s)", textin.Clip(e.Line), strings.Join(e.Formats, ", "))
}

// FirstMeaningfulLine returns the first line of data that is neither blank nor a '#'
// comment, trimmed ("" when there is none): the line the format detectors look at.
// A byte-order mark at the start is skipped, as the edge-list reader skips it.
func FirstMeaningfulLine(data []byte) string {
	for l := range bytes.Lines(bytes.TrimPrefix(data, []byte(textin.BOM))) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			return string(t)
		}
	}
	return ""
}

// DetectGraphFormat names the format of a network file from its first meaningful
// line: a Switch/Ca block, key=value header, ports-report line, -g chassis header, -s
// progress line, -l node list or --diff line (ibnetdiscover; the last two refused
// when read; messages ibnetdiscover printed on standard error before it are
// skipped), a "{ SW Ports:.. SystemGUID:" record (subnet-lst), XML whose
// document element is <Report> or <Topology> or the line "Link Summary"
// (opareport, its XML and -o links text), else an edge list ("U V"
// or a % directive). Anything else is an *UndetectedFormatError asking for
// --graph-format.
func DetectGraphFormat(data []byte) (string, error) {
	if err := textin.CheckStart(string(data[:min(len(data), textin.StartLen)])); err != nil {
		return "", err
	}
	t := FirstMeaningfulLine(data)
	if t == "" {
		return "", fmt.Errorf("empty graph file")
	}
	if ibDiagMsgRe.MatchString(t) {
		// ibnetdiscover's standard error saved before its output (2>&1): the
		// format is the first other line's (ibnetdiscover's when there is none:
		// its reader says the discovery failed).
		other := ""
		for l := range bytes.Lines(bytes.TrimPrefix(data, []byte(textin.BOM))) {
			if u := strings.TrimSpace(string(l)); u != "" && u[0] != '#' && !ibDiagMsgRe.MatchString(u) {
				other = u
				break
			}
		}
		if other == "" || ibnetLine(other) {
			return "ibnetdiscover", nil
		}
	}
	switch {
	case ibnetLine(t):
		return "ibnetdiscover", nil
	case lstOpen.MatchString(t):
		return "subnet-lst", nil
	case t[0] == '<' && opaRoot(data), t == "Link Summary":
		return "opareport", nil
	case t[0] == '%' || (len(strings.Fields(t)) == 2 && !strings.Contains(t, "=")):
		return "edges", nil
	}
	return "", &UndetectedFormatError{Line: t, Formats: GraphFormats()}
}

// ibnetLine reports whether t, a file's first meaningful line, is one
// ibnetdiscover output starts with (see DetectGraphFormat).
func ibnetLine(t string) bool {
	return ibNodeRe.MatchString(t) || ibPOpen.MatchString(t) || strings.HasPrefix(strings.ToLower(t), "vendid=") || strings.HasPrefix(t, "Non-Chassis") ||
		strings.HasPrefix(t, "Chassis ") || ibProgressRe.MatchString(t) || ibListRe.MatchString(t) ||
		(strings.HasPrefix(t, "< ") || strings.HasPrefix(t, "> ")) && (ibNodeRe.MatchString(t[2:]) || strings.HasPrefix(t[2:], "[") || strings.Contains(t, "="))
}

// LeafOrder returns the switches of g that have hosts (their groups), in the order in
// which ordering o first reaches one of their hosts, and for each its hosts in
// ordering order. Hosts on no switch are left out.
func LeafOrder(g *Graph, o []int) (leaves []int, hosts [][]int) {
	at := map[int]int{}
	for _, v := range o {
		leaf := g.LeafSwitch(v)
		if leaf < 0 {
			continue
		}
		i, ok := at[leaf]
		if !ok {
			i = len(leaves)
			at[leaf] = i
			leaves = append(leaves, leaf)
			hosts = append(hosts, nil)
		}
		hosts[i] = append(hosts[i], v)
	}
	return leaves, hosts
}

// SwitchLevels returns the level of every switch of g (index v-N()): 0 for a switch
// with a host, else one more than its lowest switch neighbour (breadth-first from the
// hosts); -1 for a switch no host reaches.
func SwitchLevels(g *Graph) []int {
	lv := make([]int, len(g.names)-g.hosts)
	for i := range lv {
		lv[i] = -1
	}
	var queue []int
	for v := g.hosts; v < len(g.names); v++ {
		if slices.ContainsFunc(g.adj[v], func(w int) bool { return w < g.hosts }) {
			lv[v-g.hosts] = 0
			queue = append(queue, v)
		}
	}
	for h := 0; h < len(queue); h++ {
		v := queue[h]
		for _, w := range g.adj[v] {
			if w >= g.hosts && lv[w-g.hosts] < 0 {
				lv[w-g.hosts] = lv[v-g.hosts] + 1
				queue = append(queue, w)
			}
		}
	}
	return lv
}

// UpperSwitches returns the switches of g above level 0 (SwitchLevels), in switch
// index order, each with its switch neighbours one level down: what a tree
// topology.conf lists as Switches=. Links between switches of one level (a
// dragonfly's routers) have no place in a tree and are not returned.
func UpperSwitches(g *Graph) (sws []int, children [][]int) {
	lv := SwitchLevels(g)
	for v := g.hosts; v < len(g.names); v++ {
		l := lv[v-g.hosts]
		if l <= 0 {
			continue
		}
		var ch []int
		for _, w := range g.adj[v] {
			if w >= g.hosts && lv[w-g.hosts] == l-1 {
				ch = append(ch, w)
			}
		}
		slices.Sort(ch)
		sws = append(sws, v)
		children = append(children, ch)
	}
	return sws, children
}
