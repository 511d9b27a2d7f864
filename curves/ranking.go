package curves

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Format is a ranking-file format.
type Format string

// The ranking-file formats. Text formats allow '#' comments and blank lines.
const (
	// FormatPairs: "i r" per line, node i has rank r (the curve files PReMAS reads;
	// several pairs on one line are accepted too, as PReMAS reads a token stream).
	FormatPairs Format = "pairs"
	// FormatRanks: line i (counting data lines from 0) holds the rank of node i.
	FormatRanks Format = "ranks"
	// FormatOrder: the node indices in curve order, one per line.
	FormatOrder Format = "order"
	// FormatJSON: {"order": [...]} plus optional metadata (see RankingJSON).
	FormatJSON Format = "json"
	// FormatHosts: host names in curve order, one per line; the names of the nodes
	// (in node-index order) are given separately. As SLURM_HOSTFILE, srun
	// --distribution=arbitrary -n K puts task r on line r of the first K lines
	// (measured on Slurm 22.05).
	FormatHosts Format = "hosts"
)

// formats backs Formats; only this package changes it.
var formats = []Format{FormatPairs, FormatRanks, FormatOrder, FormatJSON, FormatHosts,
	FormatHostlist, FormatRankfile, FormatMPICHRankOrder, FormatJGF}

// Formats returns the ranking-file formats.
// (RegisterFormat adds to them: package slurm's slurm-weight).
// Each call returns a new slice: changing it changes nothing in the package.
func Formats() []Format { return slices.Clone(formats) }

// ParseFormat returns the format with the given name.
func ParseFormat(s string) (Format, error) {
	if s == "hostfile" {
		return FormatHosts, nil // one host per line in curve order: the hosts format
	}
	for _, f := range formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown ranking format %q (want %s)%s", s, strings.Join(names, ", "), textin.DidYouMean(s, names))
}

// FormatFromPath returns the format named by a file's extension (.pairs, .ranks,
// .order, .json, .hosts), if any.
func FormatFromPath(path string) (Format, bool) {
	ext := strings.TrimPrefix(filepath.Ext(path), ".")
	f, err := ParseFormat(ext)
	return f, err == nil
}

// ErrRanksOrOrder is DetectFormat's error for one number per line, which may be
// ranks or order: the caller must say which (a file's extension, a flag).
var ErrRanksOrOrder = errors.New("one number per line: cannot tell ranks from order")

// DetectFormat guesses a ranking file's format from its content: JSON when it starts
// with '{', pairs when data lines have two fields, hosts when a single field is not a
// number. One number per line cannot tell ranks from order apart: that is
// ErrRanksOrOrder (ReadRankingFile then asks for a .ranks or .order extension).
func DetectFormat(data []byte) (Format, error) {
	if f := detectSchedulerFormat(data); f != "" {
		return f, nil
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return FormatJSON, nil
	}
	lines := textin.NewLines(bytes.NewReader(data))
	for lines.Next() {
		f := lines.Fields()
		switch {
		case len(f)%2 == 0:
			return FormatPairs, nil
		case len(f) == 1:
			if _, err := strconv.Atoi(f[0]); err != nil {
				return FormatHosts, nil
			}
			return "", ErrRanksOrOrder
		default:
			return "", fmt.Errorf("cannot detect the ranking format (%d fields on a line)", len(f))
		}
	}
	if err := lines.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("empty ranking file")
}

// RankingJSON is the JSON ranking document. Only Order is required when reading; N,
// when present, must equal the machine's node count, and Order must be a permutation.
type RankingJSON struct {
	Format  string `json:"format,omitempty"`  // "procalloc-ranking"
	Machine string `json:"machine,omitempty"` // the machine's spec it was made for; when present, checked against a spec-named machine
	Curve   string `json:"curve,omitempty"`   // what made the ordering, e.g. "hilbert"; informational
	N       *int   `json:"n,omitempty"`       // node count; when present, checked against the machine
	Order   []int  `json:"order"`             // node of each rank, a permutation of 0..N-1
}

// RankingMeta is the optional metadata written into JSON ranking files.
type RankingMeta struct {
	Machine string // machine spec
	Curve   string // curve name or source
}

// WriteRanking writes o in format f. hosts, for FormatHosts and SchedulerFormats,
// are the node names in node-index order; nil writes node indices in FormatHosts and
// is an error wrapping ErrNoHostNames in SchedulerFormats, whose readers (Slurm,
// Open MPI, Flux) take what they read as host names.
func WriteRanking(w io.Writer, f Format, o Order, meta RankingMeta, hosts []string) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	switch f {
	case FormatPairs:
		for node, r := range o.Ranks() {
			buf = strconv.AppendInt(buf[:0], int64(node), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(r), 10)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	case FormatRanks:
		for _, r := range o.Ranks() {
			buf = strconv.AppendInt(buf[:0], int64(r), 10)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	case FormatOrder:
		for _, v := range o {
			buf = strconv.AppendInt(buf[:0], int64(v), 10)
			buf = append(buf, '\n')
			bw.Write(buf)
		}
	case FormatHosts:
		return WriteRanksPerHost(w, f, o, hosts, 1)
	case FormatJSON:
		n := len(o)
		doc := RankingJSON{Format: "procalloc-ranking", Machine: meta.Machine, Curve: meta.Curve, N: &n, Order: o}
		if doc.Order == nil {
			doc.Order = []int{}
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	default:
		bw.Flush()
		return writeSchedulerFormat(w, f, o, hosts)
	}
	return bw.Flush()
}

// canonicalSpec writes a grid spec the way topo does (mesh[16,16,1] and mesh:16x16
// are one machine); other specs are kept as they are.
func canonicalSpec(s string) string {
	if g, err := topo.ParseSpec(s); err == nil {
		return g.Spec()
	}
	return s
}

// ReadRankingFile reads a ranking file of an n-node machine; the format comes from the
// extension, else from the content (DetectFormat). hosts are the node names for host
// files (nil: node indices).
func ReadRankingFile(path string, n int, hosts []string) (Order, error) {
	return readRankingFile(context.Background(), path, n, "", hosts)
}

// ReadRankingFileOf is ReadRankingFile for machine m (see ReadRankingOf).
func ReadRankingFileOf(path string, m topo.Machine, hosts []string) (Order, error) {
	return readRankingFile(context.Background(), path, m.N(), m.Spec(), hosts)
}

// ReadMachineRanking reads the ranking file at path for machine m, host names matched
// against m's node names (NodeNames). Its signature fits alloc.Options.Ranking, for
// callers who name ranking files where a curve may stand.
func ReadMachineRanking(path string, m topo.Machine) (Order, error) {
	return ReadRankingFileOf(path, m, NodeNames(m))
}

// rankingBytesPerNode bounds a ranking file of an n-node machine to
// maxRankingBytes(n) bytes: a line per node with room for comments (a Flux
// resource graph has its own, jgfBytesPerNode). Ranking files are read through
// this cap, so that /dev/zero, an endless pipe or a wrong file fails at once
// instead of exhausting memory. It is a constant, not a setting: a variable would
// move the cap for every reader in the process (and race with them).
const rankingBytesPerNode int64 = 1 << 10

// maxRankingBytes is the longest ranking file of an n-node machine read:
// 1 MiB + rankingBytesPerNode per node.
func maxRankingBytes(n int) int64 { return 1<<20 + rankingBytesPerNode*int64(max(n, 0)) }

// jgfBytesPerNode is rankingBytesPerNode for a Flux resource graph (FormatJGF), and
// for input that starts with '{' while its format is still to be found (see
// MaxJGFBytes).
const jgfBytesPerNode int64 = 64 << 10

// MaxJGFBytes is the longest Flux resource graph (JGF, FormatJGF) of an n-node
// machine read: 1 MiB + 64 KiB per node, twice what Flux's own graphs take with
// every core, socket, GPU and memory vertex (about 30 KB per node in flux-sched's
// t/data/resource/jgfs/power.json, 2,148,913 bytes for 72 nodes). A ranking in
// another format is capped at 1 MiB + 1 KiB per node. Callers reading a Flux
// graph themselves (curve --flux-graph) read it through this cap.
func MaxJGFBytes(n int) int64 { return 1<<20 + jgfBytesPerNode*int64(max(n, 0)) }

func readRankingData(r io.Reader, n int, name string, limit int64) ([]byte, error) {
	data, err := textin.ReadAll(r, limit, fmt.Sprintf("%s, a ranking of %d nodes,", name, n))
	if errors.Is(err, textin.ErrTooLarge) {
		return nil, err // it names the file
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}

// readRankingFile is ReadRankingFile looking at ctx at each read of the file and
// of its content while it is parsed.
func readRankingFile(ctx context.Context, path string, n int, spec string, hosts []string) (Order, error) {
	file, err := textin.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	f, _ := ReadFormatFromPath(path)
	o, err := readRankingFrom(ctx, textin.ContextReader(ctx, file), path, f, n, spec, hosts)
	if errors.Is(err, ErrRanksOrOrder) {
		return nil, fmt.Errorf("%w; name the file .ranks or .order", err)
	}
	return o, err
}

// ReadRankingFrom reads a whole ranking of machine m from r (a file or standard
// input, named name in errors) in format f, or, f empty, the format DetectFormat
// finds in the content (which cannot tell one number per line apart: ranks or
// order must then be given). It is ReadRankingOf through the cap of 1 MiB + 1 KiB
// per node (a Flux graph: MaxJGFBytes), for input whose name says nothing of its
// format (standard input, a file named without the format's extension).
func ReadRankingFrom(r io.Reader, name string, f Format, m topo.Machine, hosts []string) (Order, error) {
	return readRankingFrom(context.Background(), r, name, f, m.N(), m.Spec(), hosts)
}

// FormatJSONOrJGF is the format of a ranking file named .json when it is read:
// procalloc's JSON ranking or a Flux resource graph (JGF, or a Flux R holding one,
// which Flux names .json too), told apart by the content (a top-level "graph" or
// "scheduling" key). ReadRankingFrom and ReadRanking take it; no writer does.
const FormatJSONOrJGF Format = "json-or-jgf"

// ReadFormatFromPath is FormatFromPath for a file to read: a .json name gives
// FormatJSONOrJGF, and compressors' endings (.gz, .bz2, .xz, .zst:
// textin.CompressedName) are passed over (the content tells that the file is
// compressed, and how often).
func ReadFormatFromPath(path string) (Format, bool) {
	// A compressed file (read as such by its content, textin.Decompress) keeps the
	// name of its format before the compressor's: order.ranks.gz is ranks, and so
	// is order.ranks.gz.gz.
	for {
		format, plain := textin.CompressedName(path)
		if format == "" {
			break
		}
		path = plain
	}
	f, ok := FormatFromPath(path)
	if f == FormatJSON {
		f = FormatJSONOrJGF
	}
	return f, ok
}

func readRankingFrom(ctx context.Context, r io.Reader, name string, f Format, n int, spec string, hosts []string) (Order, error) {
	limit := maxRankingBytes(n)
	br := bufio.NewReader(textin.Decompress(r))
	if f == "" || f == FormatJGF || f == FormatJSONOrJGF {
		// A JSON document may be a Flux resource graph, which takes more room.
		head, _ := br.Peek(4096)
		if t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte(textin.BOM)), " \t\r\n"); len(t) > 0 && t[0] == '{' {
			limit = MaxJGFBytes(n)
		}
	}
	data, err := readRankingData(br, n, name, limit)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte(textin.BOM)) // every format, JSON and hostlist too
	if f == FormatJSONOrJGF {
		f = FormatJSON
		if isJGFDocument(data) {
			f = FormatJGF
		}
	}
	if f == "" {
		if f, err = DetectFormat(data); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	o, err := readRanking(textin.ContextReader(ctx, bytes.NewReader(data)), f, n, spec, hosts)
	if err != nil {
		return nil, fmt.Errorf("%s (%s format): %w", name, f, err)
	}
	return o, nil
}

// ReadRanking reads a ranking of an n-node machine in format f and checks that it is a
// permutation of 0..n-1: a malformed line, a value out of range, a duplicate, a missing
// node or a wrong count is an error naming the line and the problem. hosts are the
// node names for FormatHosts (nil: node indices). More than 1 MiB + 1 KiB per node
// (a Flux graph: MaxJGFBytes(n)) is an error wrapping textin's ErrTooLarge.
func ReadRanking(r io.Reader, f Format, n int, hosts []string) (Order, error) {
	return readRanking(r, f, n, "", hosts)
}

// ReadRankingOf is ReadRanking for machine m: a JSON ranking that names its machine
// must name m.
func ReadRankingOf(r io.Reader, f Format, m topo.Machine, hosts []string) (Order, error) {
	return readRanking(r, f, m.N(), m.Spec(), hosts)
}

func readRanking(r io.Reader, f Format, n int, spec string, hosts []string) (Order, error) {
	if n < 1 {
		return nil, fmt.Errorf("machine has no nodes")
	}
	limit := maxRankingBytes(n)
	if f == FormatJGF || f == FormatJSONOrJGF {
		limit = MaxJGFBytes(n)
	}
	r = textin.Capped(textin.Decompress(r), limit, fmt.Sprintf("a ranking of %d nodes", n))
	if f == FormatJSONOrJGF {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		f = FormatJSON
		if isJGFDocument(data) {
			f = FormatJGF
		} else if int64(len(data)) > maxRankingBytes(n) {
			return nil, fmt.Errorf("a ranking of %d nodes is longer than %s: %w", n, textin.Size(maxRankingBytes(n)), textin.ErrTooLarge)
		}
		r = bytes.NewReader(data)
	}
	if f == FormatJSON {
		return readRankingJSON(r, n, spec)
	}
	if slices.Contains(schedulerFormats, f) {
		return readSchedulerFormat(r, f, n, hosts)
	}
	rd := rankReader{n: n, rankOf: make([]int, n), lineOf: make([]int, n), nodeAt: make([]int, n), rankLine: make([]int, n)}
	for i := range rd.rankOf {
		rd.rankOf[i] = -1
		rd.nodeAt[i] = -1
	}
	var index map[string]int
	if f == FormatHosts && hosts != nil {
		if len(hosts) != n {
			return nil, fmt.Errorf("%d host names for %d nodes", len(hosts), n)
		}
		index = make(map[string]int, n)
		for i, h := range hosts {
			index[h] = i
		}
	}
	lines := textin.NewLines(r)
	count := 0 // data items read (pairs, ranks, nodes)
	for lines.Next() {
		line, fs := lines.Line(), lines.Fields()
		switch f {
		case FormatPairs:
			if len(fs)%2 != 0 {
				return nil, fmt.Errorf("line %d: want pairs \"i r\" (node, rank), got %d fields", line, len(fs))
			}
			for k := 0; k < len(fs); k += 2 {
				node, err := rd.number(fs[k], "node", line)
				if err != nil {
					return nil, err
				}
				rank, err := rd.number(fs[k+1], "rank", line)
				if err != nil {
					return nil, err
				}
				if err := rd.set(node, rank, line); err != nil {
					return nil, err
				}
				count++
			}
		case FormatRanks, FormatOrder, FormatHosts:
			if len(fs) != 1 {
				return nil, fmt.Errorf("line %d: want one value per line, got %d fields", line, len(fs))
			}
			if count >= n {
				return nil, fmt.Errorf("line %d: more than %d entries (the machine has %d nodes)", line, n, n)
			}
			var err error
			switch f {
			case FormatRanks:
				var rank int
				if rank, err = rd.number(fs[0], "rank", line); err == nil {
					err = rd.set(count, rank, line)
				}
			case FormatOrder:
				var node int
				if node, err = rd.number(fs[0], "node", line); err == nil {
					err = rd.set(node, count, line)
				}
			case FormatHosts:
				node, ok := 0, false
				if index != nil {
					node, ok = index[fs[0]]
				} else if v, e := strconv.Atoi(fs[0]); e == nil && v >= 0 && v < n && strconv.Itoa(v) == fs[0] {
					node, ok = v, true
				}
				if !ok {
					return nil, fmt.Errorf("line %d: unknown host %q", line, textin.Clip(fs[0]))
				}
				err = rd.set(node, count, line)
			}
			if err != nil {
				return nil, err
			}
			count++
		default:
			return nil, fmt.Errorf("unknown ranking format %q", f)
		}
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if count != n {
		what := map[Format]string{FormatPairs: "pairs", FormatRanks: "ranks", FormatOrder: "nodes", FormatHosts: "hosts"}[f]
		return nil, fmt.Errorf("%d %s for a machine of %d nodes (first missing: %s)", count, what, n, rd.firstGap(f))
	}
	return Order(rd.nodeAt), nil
}

// rankReader collects node -> rank assignments and reports conflicts by line.
type rankReader struct {
	n                int
	rankOf, lineOf   []int // per node: its rank and the line that set it
	nodeAt, rankLine []int // per rank: its node and the line that set it
}

func (rd *rankReader) number(s, what string, line int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("line %d: %s %q is not an integer", line, what, textin.Clip(s))
	}
	if v < 0 || v >= rd.n {
		return 0, fmt.Errorf("line %d: %s %d is outside 0..%d", line, what, v, rd.n-1)
	}
	return v, nil
}

func (rd *rankReader) set(node, rank, line int) error {
	if rd.rankOf[node] >= 0 {
		return fmt.Errorf("line %d: node %d appears twice (first on line %d)", line, node, rd.lineOf[node])
	}
	if rd.nodeAt[rank] >= 0 {
		return fmt.Errorf("line %d: rank %d is given twice (first on line %d, to node %d)", line, rank, rd.rankLine[rank], rd.nodeAt[rank])
	}
	rd.rankOf[node], rd.lineOf[node] = rank, line
	rd.nodeAt[rank], rd.rankLine[rank] = node, line
	return nil
}

func (rd *rankReader) firstGap(f Format) string {
	if f == FormatPairs || f == FormatRanks {
		for i, r := range rd.rankOf {
			if r < 0 {
				return fmt.Sprintf("node %d", i)
			}
		}
	}
	for r, v := range rd.nodeAt {
		if v < 0 {
			return fmt.Sprintf("rank %d", r)
		}
	}
	return "none"
}

func readRankingJSON(r io.Reader, n int, spec string) (Order, error) {
	var doc RankingJSON
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("JSON: trailing data after the document")
	}
	if doc.Order == nil {
		return nil, fmt.Errorf("JSON: no \"order\" array")
	}
	if doc.Format != "" && doc.Format != "procalloc-ranking" {
		return nil, fmt.Errorf("JSON: format %q is not a procalloc ranking (want \"procalloc-ranking\")", doc.Format)
	}
	if doc.N != nil && *doc.N != n {
		return nil, fmt.Errorf("JSON: n = %d, machine has %d nodes", *doc.N, n)
	}
	if spec != "" && doc.Machine != "" && canonicalSpec(doc.Machine) != canonicalSpec(spec) {
		return nil, fmt.Errorf("JSON: the ranking is for machine %s, not %s", doc.Machine, spec)
	}
	if err := Order(doc.Order).Validate(n); err != nil {
		return nil, fmt.Errorf("JSON order: %w", err)
	}
	return Order(slices.Clone(doc.Order)), nil
}

// maxHostNamesBytes bounds a host-name file: 64 bytes for each of the at most
// hostlist.MaxHosts names; maxHostNamesLine bounds one line (a name, or a hostlist
// expression standing for many).
const (
	maxHostNamesBytes = 64 * hostlist.MaxHosts
	maxHostNamesLine  = 1 << 20
)

// ExpandHostNames expands one Slurm hostlist expression (node[0001-1024]) into
// host names in node-index order; a name given twice is an error naming it. It looks
// at ctx every few thousand names (hostlist.ExpandContext): a cancelled ctx returns
// context.Cause(ctx) itself, which the caller wraps with where the expression came
// from. With most > 0 (the machine's nodes) an expression of more names is refused
// from its count, before a name is made.
func ExpandHostNames(ctx context.Context, expr string, most int) ([]string, error) {
	if most > 0 {
		if n, err := hostlist.Count(expr); err == nil && n > most {
			return nil, fmt.Errorf("%d host names for a machine of %d nodes", n, most)
		}
	}
	names, err := hostlist.ExpandContext(ctx, expr)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]int, len(names))
	for i, name := range names {
		if i%4096 == 4095 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if j, dup := seen[name]; dup {
			return nil, fmt.Errorf("host %q is named twice (names %d and %d)", name, j+1, i+1)
		}
		seen[name] = i
	}
	return names, nil
}

// ReadHostNames reads host names, one per line in node-index order ('#' comments and
// blank lines skipped); a line may hold a Slurm hostlist expression (node[01-16]),
// which stands for its names in order. Names must be unique and free of spaces and
// of control characters (a NUL, an escape: a binary file read as names).
//
// The input is read through caps of 256 MiB (64 bytes for each of the at most 2^22
// names, hostlist.MaxHosts) and of 1 MiB a line (maxHostNamesBytes, maxHostNamesLine).
// It looks at ctx at each read of r, while it expands a line's hostlist
// (hostlist.ExpandContext) and every few thousand names: a cancelled ctx returns
// its cause (errors.Is), after the line whose hostlist it stopped; the caller adds
// the file's name.
//
// With most > 0 (the machine's nodes, when the caller knows them) a line's hostlist
// is counted before its names are made and refused when it brings the names to
// more than most, so that a line such as n[0-4194303] costs a count, not half a
// gigabyte of names (a name a line costs its bytes; the count of names is the
// caller's to check).
func ReadHostNames(ctx context.Context, r io.Reader, most int) ([]string, error) {
	var names []string
	seen := map[string]int{}
	lines := textin.NewLinesMax(textin.Capped(textin.Decompress(textin.ContextReader(ctx, r)), maxHostNamesBytes, "the host names"), maxHostNamesLine)
	for lines.Next() {
		line, fs := lines.Line(), lines.Fields()
		if len(fs) != 1 {
			return nil, fmt.Errorf("line %d: want one host name per line, got %d fields", line, len(fs))
		}
		if c := strings.IndexFunc(fs[0], isControl); c >= 0 {
			// No host is so named: a binary file, or text pasted with its escapes
			// (a NUL, an escape sequence), was read as names.
			return nil, fmt.Errorf("line %d: host name %q holds the control character %U (a binary file?)", line, textin.Clip(fs[0]), fs[0][c])
		}
		here := fs[:1]
		if strings.ContainsAny(fs[0], "[,") {
			n, err := hostlist.Count(fs[0])
			if err == nil && most > 0 && len(names)+n > most {
				return nil, fmt.Errorf("line %d: %d host names with the lines before, for a machine of %d nodes", line, len(names)+n, most)
			}
			if here, err = hostlist.ExpandContext(ctx, fs[0]); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
		}
		for i, h := range here {
			if i%4096 == 4095 && ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			if first, dup := seen[h]; dup {
				return nil, fmt.Errorf("line %d: host %q already named on line %d", line, h, first)
			}
			seen[h] = line
			names = append(names, h)
			if len(names) > hostlist.MaxHosts {
				return nil, fmt.Errorf("line %d: more than %d host names", line, hostlist.MaxHosts)
			}
		}
	}
	if err := lines.Err(); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no host names")
	}
	return names, nil
}

// isControl says r is an ASCII control character (U+0000 to U+001F, U+007F).
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
