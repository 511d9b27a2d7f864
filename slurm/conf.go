package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/internal/timelimit"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Conf is a slurm.conf read the way slurmctld's own parser reads it (Slurm's
// src/common/parse_config.c and read_config.c, read in the 26.11 source):
//
//   - a line ending in an odd number of backslashes is continued on the next one;
//   - '#' starts a comment unless escaped (an odd number of backslashes before it);
//   - then every backslash escapes the next character ("\#" is '#', "\\" is '\');
//   - a line is a sequence of KEY[op]=VALUE pairs, keys of letters, digits, '_' and
//     '.', case-insensitive, spaces allowed around '=' (op is one of + - * /); a
//     VALUE is "text in double quotes" (the quotes dropped, spaces kept) or a run of
//     non-space characters; anything left that is not a pair is a parse error;
//   - the first key of a line says what the line is (NodeName=, PartitionName=, a
//     global setting such as TopologyPlugin=); only the keys of confLineKeys take
//     pairs after it, any other line holds one pair and more is a parse error
//     (s_p_parse_file reads one pair, _parse_next_key, and refuses any text left;
//     the confLineKeys' handlers read the rest with s_p_parse_line), and so is text
//     after "Include FILE";
//   - a key that Slurm's options tables do not hold is an error ("Parsing error at
//     unrecognized key", fatal): the first key of a line against the global table,
//     the later keys of a line key's line against its handler's table
//     (confkeys.go; the union of the releases 22.05 to 26.05).
//
// Node lines follow read_config.c: NodeName=DEFAULT lines set defaults for the
// NodeName lines after them (a later DEFAULT line adds to and overrides the earlier
// ones); NodeHostname defaults to the node name and NodeAddr to the host name; a
// NodeName hostlist line gives NodeHostname, NodeAddr, BcastAddr and Port as one
// value for every node or one per node (node_conf.c: any other count is fatal in
// slurmctld, and an error here).
//
// ReadConf does not follow Include lines (the nodes of an included file are not
// seen): Conf.Includes counts them so that callers can say so. ReadConfIncluding
// follows them as slurmctld does (see there): the lines of an included file come
// right after its Include line, each ConfLine naming its file.
type Conf struct {
	// Lines are the logical lines that hold pairs, in the order Slurm reads them
	// (an Include line is one pair, Include=FILE; the lines of a followed include
	// come after it).
	Lines []ConfLine
	// Includes counts the Include lines not followed (ReadConf); 0 when
	// ReadConfIncluding followed them all.
	Includes int
	// Included are the files ReadConfIncluding read for the Include lines, as
	// opened (the slurm.conf's directory joined to a relative name), in the order
	// read; nil when none.
	Included []string
	files    []confFile // [0] is the slurm.conf
	// includedNames are the names of the Include lines of Included, %c replaced.
	includedNames []string
	// inc is how ReadConfIncluding followed the Include lines (EditLines' files
	// are read back with it); nil for ReadConf.
	inc *includer
	// reading are the included files being read, outermost first (a file that
	// includes one of them includes itself); includedBytes counts the bytes of
	// the files read for Include lines (MaxIncludedBytes).
	reading       []string
	includedBytes int64
}

// confFile is one file of a Conf: its path as opened ("" for the slurm.conf), the
// name its Include line gives (%c replaced), its content and its physical lines,
// with their line ends.
type confFile struct {
	path, name string
	data       []byte
	raw        []string
}

// ConfLine is one logical line of a slurm.conf: physical lines First..Last
// (1-based; more than one when continued with '\'), its pairs and its comment.
type ConfLine struct {
	// File is the included file that holds the line, as opened (Conf.Included);
	// "" for the slurm.conf itself.
	File        string
	First, Last int        // 1-based physical lines of File
	Pairs       []ConfPair // in the line's order
	// Comment is the comment text of the line (from '#', without the line end),
	// "" when none; of a continued line, the comments of its lines joined by spaces.
	Comment string
	file    int // index in Conf.files
	inc     int // of a followed Include line: the index in Conf.files of its file; 0 otherwise
}

// Where names the line in messages: "line N" in the slurm.conf, "FILE line N" in
// an included file.
func (l *ConfLine) Where() string { return LineRef(l.File, l.First) }

// ConfPair is one KEY[op]=VALUE of a line, the value unquoted and unescaped.
type ConfPair struct {
	Key   string // as written (case kept)
	Op    string // "", "+", "-", "*" or "/"
	Value string // unquoted and unescaped
}

// Kind is the first key of the line, lower-cased ("nodename", "partitionname",
// "topologyplugin", ...).
func (l *ConfLine) Kind() string {
	if len(l.Pairs) == 0 {
		return ""
	}
	return strings.ToLower(l.Pairs[0].Key)
}

// Get returns the value of key (case-insensitive) on the line, the last one when
// given twice.
func (l *ConfLine) Get(key string) (string, bool) {
	v, ok := "", false
	for _, p := range l.Pairs {
		if strings.EqualFold(p.Key, key) {
			v, ok = p.Value, true
		}
	}
	return v, ok
}

// ConfError is an error of one line of a slurm.conf.
type ConfError struct {
	File string // the included file of the line, "" for the slurm.conf itself
	Line int    // 1-based line of the file (of the first line of a continued one)
	Msg  string // what is wrong, without the line
	Err  error  // the cause, when another error is one (a hostlist or a number that does not parse); nil otherwise
}

// Error returns "line N: " (of an included file "FILE line N: ") and the message.
func (e *ConfError) Error() string { return LineRef(e.File, e.Line) + ": " + e.Msg }

// Unwrap returns the cause, or nil.
func (e *ConfError) Unwrap() error { return e.Err }

// ReadConf parses a slurm.conf. Errors are *ConfError values naming the line: what
// Slurm's parser refuses (text that is not KEY=VALUE, a quoted value not closed
// before the end of the line, a second pair on a line whose first key is not one
// of confLineKeys, text after "Include FILE", a key that no Slurm from 22.05 to
// 26.05 knows, named with the nearest known key when it is a near miss).
func ReadConf(data []byte) (*Conf, error) {
	return readConfLines(data, checkSlurmConfLine, nil)
}

// checkSlurmConfLine refuses a slurm.conf line of unknown keys (checkConfKeys) or of
// a second setting on a line whose first key is not one of confLineKeys.
func checkSlurmConfLine(pairs []ConfPair) error {
	if err := checkConfKeys(pairs); err != nil {
		return err
	}
	if _, lineKey := confLineKeys[strings.ToLower(pairs[0].Key)]; len(pairs) > 1 && !lineKey {
		return fmt.Errorf("%s%s= after %s= on one line: a %s line holds one setting, only %s lines take more pairs (Slurm: parse error)",
			pairs[1].Key, pairs[1].Op, pairs[0].Key+pairs[0].Op, pairs[0].Key, lineKeyNames)
	}
	return nil
}

// MaxIncludeDepth bounds the nesting of Include lines ReadConfIncluding follows:
// Slurm has no bound (parse_config.c: s_p_parse_file and _parse_include_directive
// call each other; a file that includes itself recurses until slurmctld's stack
// runs out), so a deeper nesting here is a cycle or a mistake.
const MaxIncludeDepth = 16

// MaxIncludes bounds how many Include lines ReadConfIncluding (and
// ParseTopologyConfIncluding) follow in all, and MaxIncludedBytes the bytes of
// the files they read in all. The depth bound alone let a few small files that
// each include the next several times (a0 includes a1 four times, a1 a2 four
// times, ... sixteen deep: 16 files of a few lines) make 4^15 readings, a hang
// and memory without bound; a site's configuration includes a few files, a
// file included twice being already rare, and one included file may hold 64 MiB
// (ReadIncluded), as may all of them.
const (
	MaxIncludes      = 4096
	MaxIncludedBytes = 64 << 20
)

// MaxConfFileBytes is the most one Slurm configuration file is read to: a
// slurm.conf, a topology.conf or topology.yaml read as a configuration (procalloc
// plan's --slurm-conf and --topology-conf, sim --slurm-conf), a file an Include
// line names (ReadIncluded). A network read as --graph has topo.MaxGraphBytes.
const MaxConfFileBytes = 64 << 20

// ReadConfIncluding parses a slurm.conf and follows its Include lines as slurmctld
// does (parse_config.c _parse_include_directive, read in the 22.05 and 26.05
// sources): the included file is read at the Include line, its lines as if they
// were the slurm.conf's, nested Include lines too. "include" is any case; %c in
// the name is the ClusterName set before the line, lower-cased (no ClusterName:
// Slurm's "Did not get ClusterName for include path", an error here); an absolute
// name is opened as it is, a relative one in the directory of path (the
// slurm.conf's name; 23.02 on join it to SLURM_CONF's directory, 22.05 to the
// directory of the including file: a nested relative Include in a file of
// another directory is refused, as the two read different files); an empty file
// holds nothing. A name with '*' is an error (Slurm: "does not support glob
// parsing", the Include fails), and so is a file open cannot read (slurmctld:
// "Include" failed, fatal), named with its Include line. open reads a file by
// the name so made (os.ReadFile; a map for tests). Errors of the lines of an
// included file name that file (ConfError.File). A path "-" (standard input)
// or "" has no directory: a relative name is an error saying to give the file's
// path, never a guess.
func ReadConfIncluding(data []byte, path string, open func(name string) ([]byte, error)) (*Conf, error) {
	c := &Conf{}
	inc := newIncluder(path, "", open)
	if err := c.readFile(data, checkSlurmConfLine, inc, 0); err != nil {
		return nil, err
	}
	c.inc = inc
	return c, nil
}

// includer follows Include lines for ReadConfIncluding and
// ParseTopologyConfIncluding: parse_config.c's _parse_include_directive, one
// implementation for both files.
type includer struct {
	dir string // of the file read (slurm.conf, topology.conf); "" when it has none (standard input)
	// confDir is slurm.conf's directory when the file read is a topology.conf
	// given apart from it; "" otherwise. Slurm 23.02 on join a relative name to
	// slurm.conf's directory, 22.05 to the topology.conf's, which Slurm reads
	// beside slurm.conf: a relative name is refused when the two differ.
	confDir string
	open    func(string) ([]byte, error)
	// topology: the file is a topology.conf, whose options table has no
	// ClusterName (%c always fails in Slurm).
	topology bool
	stdin    bool   // the file was read from standard input ("-"): dir is ""
	path     string // of the file read first, cleaned; "" when it has none
}

// newIncluder follows the Include lines of the file at path ("-": standard
// input, no directory) through open; confPath, when given, is slurm.conf's path
// for a topology.conf read apart from it.
func newIncluder(path, confPath string, open func(string) ([]byte, error)) *includer {
	inc := &includer{open: open, stdin: path == "-"}
	if path != "-" && path != "" {
		inc.dir = filepath.Dir(path)
		inc.path = filepath.Clean(path)
	}
	if confPath != "" && confPath != "-" {
		inc.confDir = filepath.Dir(confPath)
	}
	return inc
}

// readConfLines reads the logical lines of a file in the syntax of Slurm's
// s_p_parse_file (parse_config.c), which reads slurm.conf and topology.conf alike:
// comments, '\' continuations, escapes, KEY[op]=VALUE pairs, Include lines (see
// Conf), its Include lines followed with inc (nil: counted in Conf.Includes, not
// followed). check, called on the pairs of each line that has any, in file order,
// says what the file's keys allow; its error is the line's *ConfError.
func readConfLines(data []byte, check func([]ConfPair) error, inc *includer) (*Conf, error) {
	c := &Conf{}
	if err := c.readFile(data, check, inc, 0); err != nil {
		return nil, err
	}
	c.inc = inc
	return c, nil
}

// checkSlurmFileStart is textin.CheckStart for a file Slurm reads (slurm.conf,
// its included files, topology.conf, topology.yaml): a compressed one is refused,
// gzip and bzip2 too, which procalloc's own inputs may be (textin.Decompress).
// Slurm parses these files as plain text (s_p_parse_file, the YAML parser) and
// fails on compressed ones; procalloc reads them as Slurm would, compares them
// with what it writes and writes them back edited (curve --slurm-conf, plan):
// reading one decompressed would check a file Slurm cannot read, and write back
// plain what was compressed.
func checkSlurmFileStart(data []byte) error {
	start := string(data[:min(len(data), textin.StartLen)])
	if format, undo, _ := textin.Compression(start); format != "" {
		return fmt.Errorf("the file is %s-%w, which Slurm does not read (it parses its files as plain text): %s it, and give Slurm and procalloc the plain file", format, textin.ErrCompressed, undo)
	}
	return textin.CheckStart(start)
}

// readFile appends the lines of one file (c.files[fi] once added) to c.Lines,
// following its Include lines with inc (nil: count them in c.Includes).
func (c *Conf) readFile(data []byte, check func([]ConfPair) error, inc *includer, depth int) error {
	fi := len(c.files)
	path, name := "", ""
	if fi > 0 {
		path, name = c.Included[fi-1], c.includedNames[fi-1]
	}
	if err := checkSlurmFileStart(data); err != nil {
		return &ConfError{File: path, Line: 1, Msg: err.Error(), Err: err}
	}
	raw := strings.SplitAfter(string(data), "\n")
	if n := len(raw); n > 0 && raw[n-1] == "" {
		raw = raw[:n-1]
	}
	c.files = append(c.files, confFile{path: path, name: name, data: data, raw: raw})
	c.Lines = slices.Grow(c.Lines, len(raw))
	for i := 0; i < len(raw); {
		first := i
		var text strings.Builder
		var comments []string
		joined := "" // the line, when it is one line of the file (no copy made)
		for {
			body, comment := splitComment(strings.TrimRight(raw[i], "\r\n"))
			if comment != "" {
				comments = append(comments, comment)
			}
			i++
			if cut, ok := continued(body); ok && i < len(raw) {
				text.WriteString(cut)
				continue
			} else if ok {
				body = cut
			}
			if i == first+1 {
				joined = body
			} else {
				text.WriteString(body)
				joined = text.String()
			}
			break
		}
		line := unescape(joined)
		if len(line) > 7 && strings.EqualFold(line[:7], "include") && isConfSpace(line[7]) {
			// parse_config.c _parse_include_directive: "Include FILE" at the line's start.
			f := strings.Fields(line[7:])
			if len(f) > 1 {
				// The name ends at the first space; the rest is left over.
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("%q after Include %s: Include takes one file (Slurm: parse error)", textin.Clip(strings.Join(f[1:], " ")), f[0])}
			}
			l := ConfLine{File: path, First: first + 1, Last: i, Comment: strings.Join(comments, " "), file: fi}
			if len(f) > 0 {
				l.Pairs = []ConfPair{{Key: line[:7], Value: f[0]}}
			}
			if inc == nil {
				c.Includes++
				c.Lines = append(c.Lines, l)
				continue
			}
			if len(f) == 0 {
				return &ConfError{File: path, Line: first + 1, Msg: "Include without a file name (slurmctld: \"Include\" failed, fatal)"}
			}
			name, as, err := c.includePath(f[0], inc, path)
			if err != nil {
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("Include %s: %v", f[0], err), Err: err}
			}
			if cycle := c.includeCycle(name, inc); cycle != "" {
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("Include %s: the file includes itself (%s; Slurm recurses until it crashes)", f[0], cycle)}
			}
			if depth+1 > MaxIncludeDepth {
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("Include %s: Include lines nested more than %d deep (Slurm recurses until it crashes)", f[0], MaxIncludeDepth)}
			}
			if len(c.Included) >= MaxIncludes {
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("Include %s: more than %d Include lines followed in all (files including the next several times over?)", f[0], MaxIncludes)}
			}
			b, err := inc.open(name)
			if err != nil {
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("Include %s: %v (slurmctld: \"Include\" failed, fatal)", f[0], err), Err: err}
			}
			if c.includedBytes += int64(len(b)); c.includedBytes > MaxIncludedBytes {
				return &ConfError{File: path, Line: first + 1, Msg: fmt.Sprintf("Include %s: the included files hold more than %d MiB in all (files including the next several times over?)", f[0], MaxIncludedBytes>>20)}
			}
			l.inc = len(c.files)
			c.Lines = append(c.Lines, l)
			c.Included = append(c.Included, name)
			c.includedNames = append(c.includedNames, as)
			c.reading = append(c.reading, filepath.Clean(name))
			err = c.readFile(b, check, inc, depth+1)
			c.reading = c.reading[:len(c.reading)-1]
			if err != nil {
				return err
			}
			continue
		}
		pairs, err := parsePairs(line)
		if err != nil {
			return &ConfError{File: path, Line: first + 1, Msg: err.Error(), Err: err}
		}
		if len(pairs) == 0 {
			continue
		}
		if err := check(pairs); err != nil {
			return &ConfError{File: path, Line: first + 1, Msg: err.Error(), Err: err}
		}
		c.Lines = append(c.Lines, ConfLine{File: path, First: first + 1, Last: i, Pairs: pairs, Comment: strings.Join(comments, " "), file: fi})
	}
	return nil
}

// includeCycle is, when the file name (as includePath made it) is the file read
// first or an included file being read, the chain of Include lines from it back
// to it ("a.conf includes b.conf includes a.conf"); "" otherwise.
func (c *Conf) includeCycle(name string, inc *includer) string {
	name = filepath.Clean(name)
	chain := append([]string{inc.path}, c.reading...)
	for i, p := range chain {
		if p == name {
			return strings.Join(append(slices.Clone(chain[i:]), name), " includes ")
		}
	}
	return ""
}

// includePath is the file an Include line of the file from (an included file's
// path, "" for the file read first) names: %c replaced by the ClusterName read so
// far, lower-cased; a relative name joined to the first file's directory. It
// returns the path to open and the name with %c replaced.
func (c *Conf) includePath(name string, inc *includer, from string) (path, as string, err error) {
	if strings.Contains(name, "%c") {
		if inc.topology {
			return "", "", fmt.Errorf("%%c is the ClusterName, which a topology.conf does not set (Slurm: \"Did not get ClusterName for include path\", the Include fails)")
		}
		cl := c.Global("ClusterName")
		if cl == "" {
			return "", "", fmt.Errorf("%%c is the ClusterName, and no ClusterName line comes before (slurmctld: \"Did not get ClusterName for include path\", fatal)")
		}
		name = strings.ReplaceAll(name, "%c", strings.ToLower(cl))
	}
	if strings.Contains(name, "*") {
		return "", "", fmt.Errorf("a '*' in the name: Slurm does not read globs (\"Slurm does not support glob parsing\"; the Include fails)")
	}
	if filepath.IsAbs(name) {
		return name, name, nil
	}
	if inc.dir == "" {
		from, what := "read from standard input", "standard input"
		if !inc.stdin {
			from, what = "in a file given without its name", "that"
		}
		return "", "", fmt.Errorf("a relative name, %s: Slurm reads it in slurm.conf's directory, which %s does not have; give the file's path (or write the Include name absolute)", from, what)
	}
	p := filepath.Join(inc.dir, name)
	if inc.confDir != "" && inc.confDir != inc.dir {
		return "", "", fmt.Errorf("a relative name in a topology.conf that is not in slurm.conf's directory: Slurm 23.02 on read %s (slurm.conf's directory), 22.05 reads %s (the topology.conf's; Slurm reads topology.conf beside slurm.conf); give the two files from one directory, or write the name absolute", filepath.Join(inc.confDir, name), p)
	}
	if from != "" {
		if q := filepath.Join(filepath.Dir(from), name); q != p {
			return "", "", fmt.Errorf("a relative name in an included file of another directory: Slurm 23.02 on read %s (the slurm.conf's directory), 22.05 reads %s (the including file's); write the absolute name", p, q)
		}
	}
	return p, name, nil
}

// lineKeyNames lists confLineKeys as slurm.conf(5) spells them, for messages.
const lineKeyNames = "NodeName, PartitionName, NodeSet, DownNodes, FrontendName and PowerAction"

// splitComment cuts a physical line at its first '#' not escaped by an odd number
// of backslashes (parse_config.c _strip_comments).
func splitComment(s string) (body, comment string) {
	bs := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '#' && bs%2 == 0:
			return s[:i], s[i:]
		case s[i] == '\\':
			bs++
		default:
			bs = 0
		}
	}
	return s, ""
}

// continued reports whether a comment-stripped line ends in an odd number of
// backslashes (trailing spaces allowed), and the line without them
// (_strip_continuation).
func continued(s string) (string, bool) {
	end := len(strings.TrimRight(s, " \t\r\n\v\f"))
	bs := 0
	for end-bs > 0 && s[end-bs-1] == '\\' {
		bs++
	}
	if bs%2 == 1 {
		return s[:end-1], true
	}
	return s, false
}

// unescape drops every backslash and keeps the character after it
// (_strip_escapes).
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i == len(s) {
				break
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isConfSpace is C's isspace in the C locale, as Slurm's parsers and strtol see
// white space.
func isConfSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isKeyChar(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parsePairs reads the pairs of an unescaped logical line as parse_config.c's
// keyvalue regex does, repeatedly from what the last match left.
func parsePairs(s string) ([]ConfPair, error) {
	var out []ConfPair
	i := 0
	for {
		for i < len(s) && isConfSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		k := i
		for i < len(s) && isKeyChar(s[i]) {
			i++
		}
		key := s[k:i]
		j := i
		for j < len(s) && isConfSpace(s[j]) {
			j++
		}
		op := ""
		if j < len(s) && strings.IndexByte("+-*/", s[j]) >= 0 {
			op = s[j : j+1]
			j++
		}
		if key == "" || j >= len(s) || s[j] != '=' {
			rest := strings.TrimSpace(s[k:])
			if strings.HasPrefix(rest, textin.BOM) {
				// Saved by Windows Notepad. Slurm 22.05 refuses it too (sinfo:
				// "Parse error in file slurm.conf line 1", fatal).
				return nil, fmt.Errorf("the file starts with a UTF-8 byte-order mark, which Slurm reads as part of the first line and refuses (parse error); save it without the mark")
			}
			return nil, fmt.Errorf("%q is not KEY=VALUE (Slurm: parse error)", textin.Clip(rest))
		}
		j++
		for j < len(s) && isConfSpace(s[j]) {
			j++
		}
		var val string
		if j < len(s) && s[j] == '"' {
			if q := strings.IndexByte(s[j+1:], '"'); q >= 0 && (j+1+q+1 == len(s) || isConfSpace(s[j+1+q+1])) {
				val = s[j+1 : j+1+q]
				j += q + 2
				out = append(out, ConfPair{Key: key, Op: op, Value: val})
				i = j
				continue
			}
		}
		v := j
		for j < len(s) && !isConfSpace(s[j]) {
			j++
		}
		if j == v {
			// KEY= followed by nothing: the regex needs a value.
			return nil, fmt.Errorf("%s= has no value (Slurm: parse error)", key)
		}
		val = s[v:j]
		out = append(out, ConfPair{Key: key, Op: op, Value: val})
		i = j
	}
}

// confEscaper escapes backslashes and '#' in slurm.conf values; built once (built per
// value it took half of MergeWeights' time: 0.9 s of a 131,072-node slurm.conf).
var confEscaper = strings.NewReplacer(`\`, `\\`, `#`, `\#`)

// quoteConfValue writes a value so that ReadConf reads it back: backslashes and
// '#' escaped, in double quotes when it has spaces (or is empty).
func quoteConfValue(v string) (string, error) {
	e := confEscaper.Replace(v)
	if v == "" || strings.ContainsFunc(v, func(r rune) bool { return r < 128 && isConfSpace(byte(r)) }) {
		e = `"` + e + `"`
	}
	// Escapes are undone before the pairs are matched, so a value whose quotes
	// would be read as quoting cannot be written: check by reading it back.
	if ps, err := parsePairs("K=" + unescape(e)); err != nil || len(ps) != 1 || ps[0].Value != v {
		return "", fmt.Errorf("value %q cannot be written in slurm.conf so that Slurm reads it back (quotes and spaces)", textin.Clip(v))
	}
	return e, nil
}

// FormatPairs writes pairs as one slurm.conf line (no line end): KEY[op]=VALUE
// separated by spaces, values quoted and escaped as needed.
func FormatPairs(pairs []ConfPair) (string, error) {
	var b strings.Builder
	for i, p := range pairs {
		v, err := quoteConfValue(p.Value)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.Key + p.Op + "=" + v)
	}
	// A quote in one value can pair with a quote in the next: read the line back.
	if ps, err := parsePairs(unescape(b.String())); err != nil || !slices.Equal(ps, pairs) {
		return "", fmt.Errorf("the values %q cannot be written on one slurm.conf line so that Slurm reads them back (quotes and spaces)", textin.Clip(b.String()))
	}
	return b.String(), nil
}

// ConfNode is one node as slurmctld builds it from a NodeName line and the
// NodeName=DEFAULT lines before it.
type ConfNode struct {
	Name string // the NodeName (one name of the line's hostlist)
	// File is the included file of its NodeName line, "" for the slurm.conf.
	File string
	// Line is the first physical line of its NodeName line (in File); Index the
	// index of that line in Conf.Lines, Pos the node's position in the line's
	// hostlist.
	Line, Index, Pos int
	// Hostname, Addr, BcastAddr and Port are the node's own values of the line's
	// NodeHostname (default: the name), NodeAddr (default: the host name),
	// BcastAddr and Port ("" when not given).
	Hostname, Addr, BcastAddr, Port string
	// Weight is the node's Weight=, its line's or inherited from a DEFAULT line;
	// Slurm's default is 1. WeightFrom says where it came from: "line", "default"
	// (a NodeName=DEFAULT line, WeightLine) or "slurm" (Slurm's own default).
	Weight     uint32
	WeightFrom string // "line", "default" or "slurm"
	WeightLine int    // first physical line of the line that set Weight (its own or a DEFAULT line); 0 for "slurm"
	WeightFile string // the included file of WeightLine, "" for the slurm.conf
	// CPUs is the node's CPUs= (or Procs=), its line's or inherited; 0 when not
	// given (slurmd then reports the hardware's).
	CPUs int
	// State is the node's State= as written (FUTURE, CLOUD, DOWN, ...), its line's
	// or inherited from a NodeName=DEFAULT line; "" when not given. Slurm
	// allocates no FUTURE node until an administrator makes it available.
	State string
	// Defaults are the NodeName=DEFAULT pairs in effect at its line (the last value
	// of each key, in the order keys first appeared), whether or not the line sets
	// the key itself; shared by the nodes of a line.
	Defaults []ConfPair
}

// MaxConfNodes bounds the nodes a slurm.conf's NodeName lines define in all, and
// the names a topology file's hostlists list in all: five times the largest
// machine procalloc is built for (200,000 nodes), so that a typo such as
// NodeName=n[1-3000000] is refused at once. It took 47 s and 2.7 GB (found by
// FuzzMergeWeights); two topology.conf lines of Nodes=a[1-4000000] made a network
// of 8 million hosts (54 s, 2.6 GB); hostlist.MaxHosts bounds one list only.
const MaxConfNodes = 1 << 20

// nameBudget expands the hostlists of one file, at most MaxConfNodes names in all,
// counting each list before making its names; with ctx set it looks at ctx every
// few thousand names (hostlist.ExpandContext).
type nameBudget struct {
	used int
	ctx  context.Context
}

func (b *nameBudget) expand(list string) ([]string, error) {
	n, err := hostlist.Count(list)
	if err != nil {
		return nil, err
	}
	if b.used+n > MaxConfNodes {
		if b.used == 0 {
			return nil, fmt.Errorf("%d names: more than %d, the most a file read here may list (a typo?)", n, MaxConfNodes)
		}
		return nil, fmt.Errorf("%d names, %d with the lines before: more than %d, the most a file read here may list (a typo?)", n, b.used+n, MaxConfNodes)
	}
	b.used += n
	if b.ctx != nil {
		return hostlist.ExpandContext(b.ctx, list)
	}
	return hostlist.Expand(list)
}

// perNodeKeys are the NodeName attributes that may list one value per node
// (node_conf.c: NodeAddr, BcastAddr, NodeHostname, Port).
var perNodeKeys = []string{"NodeHostname", "NodeAddr", "BcastAddr", "Port"}

// Nodes returns every node the NodeName lines define, in file order, with what
// each inherits. A node defined twice, a bad hostlist, NodeName=ALL, a per-node
// list whose length is neither 1 nor the number of names, a bad Weight= are
// *ConfError values naming the line.
func (c *Conf) Nodes() ([]ConfNode, error) {
	return c.NodesContext(context.Background())
}

// NodesContext is Nodes looking at ctx every few thousand nodes (131,072 nodes take
// a tenth of a second or more): a cancelled ctx returns a *ConfError naming the
// line being expanded whose Err is context.Cause(ctx).
func (c *Conf) NodesContext(ctx context.Context) ([]ConfNode, error) {
	var out []ConfNode
	budget := nameBudget{ctx: ctx}
	look := timelimit.NewLooker(ctx)
	seen := map[string]string{}   // name -> where its line is
	dflt := map[string]ConfPair{} // lower-cased key -> pair, of the DEFAULT lines so far
	dfltLine := map[string]*ConfLine{}
	var dfltKeys []string // lower-cased, in first-appearance order
	var dfltPairs []ConfPair
	for li := range c.Lines {
		l := &c.Lines[li]
		if l.Kind() != "nodename" {
			continue
		}
		name := l.Pairs[0].Value
		if strings.EqualFold(name, "DEFAULT") {
			for _, p := range l.Pairs[1:] {
				switch strings.ToLower(p.Key) {
				case "nodehostname", "nodeaddr", "bcastaddr":
					return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("%s not allowed with NodeName=DEFAULT (Slurm refuses it)", p.Key)}
				}
				if _, ok := dflt[strings.ToLower(p.Key)]; !ok {
					dfltKeys = append(dfltKeys, strings.ToLower(p.Key))
				}
				dflt[strings.ToLower(p.Key)] = p
				dfltLine[strings.ToLower(p.Key)] = l
			}
			dfltPairs = make([]ConfPair, len(dfltKeys))
			for i, k := range dfltKeys {
				dfltPairs[i] = dflt[k]
			}
			continue
		}
		if strings.EqualFold(name, "ALL") {
			return nil, &ConfError{File: l.File, Line: l.First, Msg: "NodeName=ALL: ALL is a reserved word Slurm refuses as a node name"}
		}
		if err := look.Stopped(1); err != nil {
			return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("NodeName=%s: %v", textin.Clip(name), err), Err: err}
		}
		names, err := budget.expand(name)
		if err != nil {
			return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("NodeName=%s: %v", name, err), Err: err}
		}
		lists, err := perNodeLists(l, len(names))
		if err != nil {
			return nil, err
		}
		w, from, wline, wfile := uint32(1), "slurm", 0, ""
		if v, ok := l.Get("Weight"); ok {
			if w, err = parseWeight(v); err != nil {
				return nil, &ConfError{File: l.File, Line: l.First, Msg: err.Error(), Err: err}
			}
			from, wline, wfile = "line", l.First, l.File
		} else if p, ok := dflt["weight"]; ok {
			if w, err = parseWeight(p.Value); err != nil {
				return nil, &ConfError{File: dfltLine["weight"].File, Line: dfltLine["weight"].First, Msg: err.Error(), Err: err}
			}
			from, wline, wfile = "default", dfltLine["weight"].First, dfltLine["weight"].File
		}
		cpus := 0
		for _, k := range []string{"CPUs", "Procs"} {
			if cpus != 0 {
				break
			}
			v, ok := l.Get(k)
			if !ok {
				if p, dok := dflt[strings.ToLower(k)]; dok {
					v, ok = p.Value, true
				}
			}
			if ok {
				if cpus, err = strconv.Atoi(v); err != nil || cpus < 1 {
					return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("%s=%s is not a positive number", k, textin.Clip(v))}
				}
			}
		}
		state, ok := l.Get("State")
		if p, dok := dflt["state"]; !ok && dok {
			state = p.Value
		}
		if p, ok := dflt["port"]; ok && lists["port"] == nil {
			if lists["port"], err = expandPort(p.Value, len(names)); err != nil {
				return nil, &ConfError{File: dfltLine["port"].File, Line: dfltLine["port"].First, Msg: err.Error(), Err: err}
			}
		}
		for pos, n := range names {
			if err := look.Stopped(1); err != nil {
				return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("NodeName=%s: %v", textin.Clip(name), err), Err: err}
			}
			if first, dup := seen[n]; dup {
				return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("node %s is defined again (first on %s); Slurm refuses a node defined twice", n, first)}
			}
			seen[n] = l.Where()
			nd := ConfNode{Name: n, File: l.File, Line: l.First, Index: li, Pos: pos, Weight: w, WeightFrom: from, WeightFile: wfile, WeightLine: wline, CPUs: cpus, State: state, Defaults: dfltPairs}
			at := func(key string) string {
				vs := lists[key]
				switch len(vs) {
				case 0:
					return ""
				case 1:
					return vs[0]
				}
				return vs[pos]
			}
			nd.Hostname, nd.Addr, nd.BcastAddr, nd.Port = at("nodehostname"), at("nodeaddr"), at("bcastaddr"), at("port")
			if nd.Hostname == "" {
				nd.Hostname = n
			}
			if nd.Addr == "" {
				nd.Addr = nd.Hostname
			}
			out = append(out, nd)
		}
	}
	return out, nil
}

func parseWeight(v string) (uint32, error) {
	w, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("node weight %s (Weight=) is not a number from 0 to 4294967295", textin.Clip(v))
	}
	return uint32(w), nil
}

// expandPort reads a Port value as node_conf.c does: a range or list without
// brackets ("17101-17116") is taken as one in brackets.
func expandPort(v string, names int) ([]string, error) {
	if v != "" && v[0] != '[' && strings.ContainsAny(v, "-,") {
		v = "[" + v + "]"
	}
	vs, count, err := perNodeExpand(v, names)
	if err != nil {
		return nil, fmt.Errorf("port list %s (Port=): %w", textin.Clip(v), err)
	}
	if count != 1 && count != names {
		return nil, fmt.Errorf("port list %s (Port=) has %d ports for %d node names; Slurm wants one, or one per node", textin.Clip(v), count, names)
	}
	for _, p := range vs {
		if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 0xffff {
			return nil, fmt.Errorf("port list %s (Port=): %q is not a port (1-65535)", textin.Clip(v), textin.Clip(p))
		}
	}
	return vs, nil
}

// perNodeExpand expands v, a per-node list of a NodeName line of names nodes, and
// returns its count: a list of neither one value nor one per node is counted, not
// made (nil values), for the caller's error (NodeAddr=a[0-4194303] on a line of one
// node made 4,194,304 names to say so). Errors are hostlist.Expand's.
func perNodeExpand(v string, names int) ([]string, int, error) {
	n, err := hostlist.Count(v)
	if err != nil || n != 1 && n != names {
		return nil, n, err
	}
	vs, err := hostlist.Expand(v)
	return vs, len(vs), err
}

// perNodeLists expands the per-node attributes of a NodeName line of names nodes
// (lower-cased keys); a list of neither one value nor one per node is an error.
func perNodeLists(l *ConfLine, names int) (map[string][]string, error) {
	out := map[string][]string{}
	for _, key := range perNodeKeys {
		v, ok := l.Get(key)
		if !ok {
			continue
		}
		lk := strings.ToLower(key)
		if lk == "port" {
			vs, err := expandPort(v, names)
			if err != nil {
				return nil, &ConfError{File: l.File, Line: l.First, Msg: err.Error(), Err: err}
			}
			out[lk] = vs
			continue
		}
		vs, count, err := perNodeExpand(v, names)
		if err != nil {
			return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("%s=%s: %v", key, textin.Clip(v), err), Err: err}
		}
		if count != 1 && count != names {
			more := "more"
			if count < names {
				more = "fewer"
			}
			return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("%s=%s gives %d values for %d node names (%s); Slurm wants one, or one per node (slurmctld: \"%s count must equal that of NodeName records or there must be no more than one\")", key, textin.Clip(v), count, names, more, key)}
		}
		out[lk] = vs
	}
	return out, nil
}

// Global returns the value of a global setting (TopologyPlugin, SelectType, ...):
// the last line whose first key is key, case-insensitive (Slurm: "specified more
// than once, latest value used"); "" when absent. Such a line holds one pair
// (ReadConf refuses more, as Slurm does).
func (c *Conf) Global(key string) string {
	v := ""
	for i := range c.Lines {
		if c.Lines[i].Kind() == strings.ToLower(key) {
			v = c.Lines[i].Pairs[0].Value
		}
	}
	return v
}

// ConfPartition is one PartitionName line (DEFAULT lines folded in).
type ConfPartition struct {
	Name string // the PartitionName
	Line int    // first physical line of its PartitionName line
	// File is the included file of its line (ConfLine.File); "" for
	// slurm.conf itself.
	File string
	// Nodes is the Nodes= expression ("ALL" for every node).
	Nodes string
	// Hosts are the nodes Nodes= names, as slurmctld reads it (read_config.c
	// nodespec_to_hostlist): the hostlist expanded, each name of a NodeSet line
	// replaced by that set's nodes (its Nodes=, ALL for every node (Slurm 23.11
	// on), and the nodes whose Feature= lists its Feature=), feature{F} by the
	// nodes whose Feature= lists F (Slurm 24.11's hostlist function; switch{S},
	// block{B} and the like are an error), repeats dropped, in the expression's
	// order; nil for ALL.
	Hosts []string
	// NodeSets are the NodeSet names Nodes= uses, in the order of the NodeSet lines.
	NodeSets []string
	// OverSubscribe is the partition's OverSubscribe= (or Shared=), upper-cased;
	// "" when not given (Slurm's default NO: with select/cons_tres jobs share nodes
	// unless they ask for --exclusive).
	OverSubscribe string
	// Default is Default=YES (or from a PartitionName=DEFAULT line). slurmctld
	// takes the last such partition as the default one, where jobs submitted
	// without -p go (read_config.c; with none it refuses them: "No partition
	// specified or system default partition"); DefaultPartition says which.
	Default bool
	// PriorityTier orders the queue: slurmctld's schedulers take the jobs of
	// a higher tier first, whatever their priority (job_scheduler.c,
	// sort_job_queue2). 1 when not given; the older Priority= sets it (and
	// PriorityJobFactor) and wins over PriorityTier=, of the line or of a
	// DEFAULT line, as read_config.c reads them.
	PriorityTier int
	// State is UP (not given), DOWN, DRAIN or INACTIVE, read as read_config.c
	// does (a value that starts with one of them, case-insensitive). DOWN: jobs
	// are queued and not started; DRAIN: queued jobs start, no new one is
	// taken; INACTIVE: neither (job_mgr.c, job_limits_check; _alt_part_test).
	State string
	// MaxNodes and MinNodes bound a job's node count (job_mgr.c,
	// _part_access_check): -1 for MaxNodes UNLIMITED (not given, INFINITE or
	// 4294967295); MinNodes 0 when not given.
	MaxNodes, MinNodes int64
	// MaxTime is the longest time limit a job may ask for, in minutes (Slurm's
	// time_str2mins: seconds rounded up); -1 for UNLIMITED (not given).
	MaxTime int64
	// Topology is its Topology= (Slurm 25.05 on; of the line, else of a DEFAULT
	// line, as read_config.c reads it): the topology of topology.yaml its jobs
	// are placed by ("default" when the topology comes from TopologyPlugin and
	// topology.conf); "" when not given: the cluster's default topology
	// (partition_mgr.c, set_part_topology_idx: index 0).
	Topology string
}

// Where names the partition's line in messages: "line N", or "FILE line N"
// in an included file.
func (p *ConfPartition) Where() string { return LineRef(p.File, p.Line) }

// DefaultPartition is the partition jobs submitted without -p go to: the last of
// parts with Default=YES, as slurmctld reads them (a later one replaces an
// earlier, "changing default partition"); -1 when none.
func DefaultPartition(parts []ConfPartition) int {
	d := -1
	for i, p := range parts {
		if p.Default {
			d = i
		}
	}
	return d
}

// EveryPartition is the name under which MachinePartitions.DefaultNodes gives
// the nodes of every partition, where the replays put jobs that name no
// partition when slurm.conf has no Default=YES partition.
const EveryPartition = "(every partition)"

// MachinePartitions is slurm.conf's partitions on a machine's nodes: the one
// reading of them that procalloc sim (--slurm-conf) and procalloc plan share.
type MachinePartitions struct {
	Conf []ConfPartition // the partitions, as Conf.Partitions read them
	// Nodes[i] is Conf[i]'s nodes on the machine (indices into the names
	// PartitionsOn was given), ascending: Nodes=ALL every node, a partition
	// without Nodes= none (slurmctld's build_part_bitmap: "No nodes in
	// partition"), else the nodes its Hosts names that the machine has.
	Nodes [][]int
	// Default is DefaultPartition(Conf): the index of the default partition,
	// -1 when no partition has Default=YES.
	Default int
}

// PartitionsOn places parts on a machine whose node v is named names[v]
// (index, when not nil, is names' inverse, name -> v).
func PartitionsOn(parts []ConfPartition, names []string, index map[string]int) *MachinePartitions {
	if index == nil {
		index = make(map[string]int, len(names))
		for v, name := range names {
			index[name] = v
		}
	}
	mp := &MachinePartitions{Conf: parts, Nodes: make([][]int, len(parts)), Default: DefaultPartition(parts)}
	for i := range parts {
		var in []int
		if strings.EqualFold(parts[i].Nodes, "ALL") {
			in = make([]int, len(names))
			for v := range in {
				in[v] = v
			}
		} else {
			for _, h := range parts[i].Hosts {
				if v, ok := index[h]; ok {
					in = append(in, v)
				}
			}
			slices.Sort(in) // Hosts has no repeat
		}
		mp.Nodes[i] = in
	}
	return mp
}

// Index returns the index of partition name, -1 when there is none.
func (mp *MachinePartitions) Index(name string) int {
	for i := range mp.Conf {
		if mp.Conf[i].Name == name {
			return i
		}
	}
	return -1
}

// DefaultNodes is where a job that names no partition goes: the default
// partition (its name and nodes; union false). Without a Default=YES
// partition slurmctld refuses such a job (job_mgr.c, _get_job_parts:
// ESLURM_DEFAULT_PARTITION_NOT_SET, "No partition specified or system default
// partition") unless a job_submit plugin names its partitions, as
// job_submit/all_partitions does with every partition; a history whose jobs
// name none ran so, or is not Slurm's (SWF, a synthetic workload). The replays
// then put such jobs on the nodes of every partition, under the name
// EveryPartition (union true), and say so (NoDefaultWarning); nodes is empty
// when no partition has a node on the machine.
func (mp *MachinePartitions) DefaultNodes() (name string, nodes []int, union bool) {
	if mp.Default >= 0 {
		return mp.Conf[mp.Default].Name, mp.Nodes[mp.Default], false
	}
	n := 0
	for _, in := range mp.Nodes {
		if len(in) > 0 {
			n = max(n, in[len(in)-1]+1)
		}
	}
	seen := make([]bool, n)
	for _, in := range mp.Nodes {
		for _, v := range in {
			seen[v] = true
		}
	}
	for v, ok := range seen {
		if ok {
			nodes = append(nodes, v)
		}
	}
	return EveryPartition, nodes, true
}

// NoDefaultWarning is the replays' warning, about a slurm.conf, when jobs jobs
// name no partition and it has no Default=YES partition (DefaultNodes).
func NoDefaultWarning(jobs int) string {
	return fmt.Sprintf("no Default=YES partition: Slurm refuses a job submitted without -p (\"No partition specified or system default partition\") unless a job_submit plugin names its partitions; the %d jobs that name no partition are replayed on the nodes of every partition, as job_submit/all_partitions would submit them", jobs)
}

// readLimits reads the partition's PriorityTier (Priority), State, MaxNodes,
// MinNodes and MaxTime from get (the line's value, else the DEFAULT line's) as
// read_config.c's _parse_partitionname does.
func (p *ConfPartition) readLimits(get func(string) string) error {
	p.PriorityTier, p.State, p.MaxNodes, p.MinNodes, p.MaxTime = 1, "UP", -1, 0, -1
	for _, k := range []string{"PriorityTier", "Priority"} { // Priority= last: it wins
		if v := get(k); v != "" {
			x, err := confUint(k, v, 0xffff)
			if err != nil {
				return err
			}
			p.PriorityTier = int(x)
		}
	}
	if v := get("State"); v != "" {
		p.State = ""
		for _, s := range []string{"DOWN", "UP", "DRAIN", "INACTIVE"} {
			if len(v) >= len(s) && strings.EqualFold(v[:len(s)], s) {
				p.State = s
				break
			}
		}
		if p.State == "" {
			return fmt.Errorf("bad value %q for State (want UP, DOWN, DRAIN or INACTIVE)", v)
		}
	}
	if v := get("MaxNodes"); v != "" {
		x, err := confUint("MaxNodes", v, 0xffffffff)
		if err != nil {
			return err
		}
		if p.MaxNodes = x; x == 0xffffffff {
			p.MaxNodes = -1
		}
	}
	if v := get("MinNodes"); v != "" {
		x, err := confUint("MinNodes", v, 0xffffffff)
		if err != nil {
			return err
		}
		p.MinNodes = x
	}
	if v := get("MaxTime"); v != "" {
		x, err := TimeStrMins(v)
		if err != nil {
			return fmt.Errorf("bad value %q for MaxTime: %w", v, err)
		}
		p.MaxTime = x
	}
	return nil
}

// confUint reads an unsigned number of slurm.conf as parse_config.c's
// s_p_handle_uint16 and s_p_handle_uint32 do (strtoul base 0: decimal, 0x hex,
// 0 octal; a K suffix multiplies by 1024 for 32 bits), UNLIMITED and INFINITE
// being max.
func confUint(key, v string, max uint64) (int64, error) {
	if strings.EqualFold(v, "UNLIMITED") || strings.EqualFold(v, "INFINITE") {
		return int64(max), nil
	}
	s, mult := v, uint64(1)
	if max > 0xffff && (strings.HasSuffix(s, "k") || strings.HasSuffix(s, "K")) {
		s, mult = s[:len(s)-1], 1024
	}
	s = strings.TrimPrefix(s, "+")
	base, digits := 10, s
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if strings.HasPrefix(v, "-") {
		return 0, fmt.Errorf("%s value (%s) is less than zero", key, v)
	}
	x, err := strconv.ParseUint(digits, base, 64)
	if err != nil || digits == "" || strings.ContainsAny(digits, "+-_") {
		return 0, fmt.Errorf("%s value (%s) is not a valid number", key, v)
	}
	if x > max/mult {
		return 0, fmt.Errorf("%s value (%s) is greater than %d", key, v, max)
	}
	return int64(x * mult), nil
}

// TimeStrMins reads a time limit as Slurm's time_str2mins does (parse_time.c):
// minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes or days-hours:minutes:seconds, in minutes with the seconds
// rounded up; -1, INFINITE and UNLIMITED are -1 (no limit).
func TimeStrMins(v string) (int64, error) {
	if v == "-1" || strings.EqualFold(v, "INFINITE") || strings.EqualFold(v, "UNLIMITED") {
		return -1, nil
	}
	// _is_valid_timespec
	digit, dash, colon, inDigit := 0, 0, 0, false
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			if !inDigit {
				digit++
				inDigit = true
			}
		case c == '-':
			inDigit = false
			dash++
			if colon > 0 {
				return 0, errors.New("not a time")
			}
		case c == ':':
			inDigit = false
			colon++
		default:
			return 0, errors.New("not a time")
		}
	}
	if digit == 0 || dash > 1 || colon > 2 || (colon == 1 && digit < 2+dash) || (colon == 2 && digit < 3+dash) {
		return 0, errors.New("not a time")
	}
	// sscanf's %d: a sign and digits; the fields after the first that fails stay 0.
	pos, overflow := 0, false
	scan := func() (int64, bool) {
		start := pos
		if pos < len(v) && (v[pos] == '-' || v[pos] == '+') {
			pos++
		}
		d := pos
		for pos < len(v) && v[pos] >= '0' && v[pos] <= '9' {
			pos++
		}
		if pos == d {
			pos = start
			return 0, false
		}
		x, err := strconv.ParseInt(v[start:pos], 10, 32)
		if err != nil {
			overflow = true
		}
		return x, err == nil
	}
	lit := func(c byte) bool {
		if pos < len(v) && v[pos] == c {
			pos++
			return true
		}
		return false
	}
	// %d-%d:%d:%d with a dash, else %d:%d:%d.
	var f [4]int64
	n := 0
	seps := []byte{'-', ':', ':'}
	if dash == 0 {
		seps = seps[1:]
	}
	for i := 0; i <= len(seps); i++ {
		x, ok := scan()
		if !ok {
			break
		}
		f[i], n = x, n+1
		if i == len(seps) || !lit(seps[i]) {
			break
		}
	}
	var secs int64
	switch {
	case dash > 0:
		secs = f[0]*86400 + f[1]*3600 + f[2]*60 + f[3]
	case n == 3:
		secs = f[0]*3600 + f[1]*60 + f[2]
	default: // minutes[:seconds]
		secs = f[0]*60 + f[1]
	}
	if overflow || secs < 0 || secs > math.MaxInt32 {
		return 0, errors.New("out of range")
	}
	return (secs + 59) / 60, nil
}

// confNodeSet is one NodeSet line: its name, Nodes= and Feature=.
type confNodeSet struct {
	name, nodes, feature string
	where                string // its line (ConfLine.Where)
}

// Partitions returns the partitions, with the values of PartitionName=DEFAULT
// lines before them, their Nodes= read as slurmctld reads it (ConfPartition). A
// name of Nodes= that is neither a node of the NodeName lines nor a NodeSet is an
// error, as in slurmctld ("Invalid node names in partition", fatal), unless the
// file has Include lines (the name may be a node of an included file); so is ALL
// within a list ("ALL,n1": ALL means every node only as the whole value). nodes are
// c.Nodes()'s, passed in so that a caller that has them does not expand every
// hostlist again (nil: Partitions reads them when a partition lists nodes).
func (c *Conf) Partitions(nodes []ConfNode) ([]ConfPartition, error) {
	var out []ConfPartition
	dflt := map[string]string{}
	// Every NodeSet line counts, before or after the partition's (slurmctld reads
	// them all before it builds the partitions).
	var sets []confNodeSet
	for i := range c.Lines {
		if l := &c.Lines[i]; l.Kind() == "nodeset" {
			ns := confNodeSet{name: l.Pairs[0].Value, where: l.Where()}
			ns.nodes, _ = l.Get("Nodes")
			ns.feature, _ = l.Get("Feature")
			sets = append(sets, ns)
		}
	}
	var defined map[string]bool
	for i := range c.Lines {
		l := &c.Lines[i]
		if l.Kind() != "partitionname" {
			continue
		}
		get := func(k string) string {
			if v, ok := l.Get(k); ok {
				return v
			}
			return dflt[strings.ToLower(k)]
		}
		if strings.EqualFold(l.Pairs[0].Value, "DEFAULT") {
			for _, p := range l.Pairs[1:] {
				dflt[strings.ToLower(p.Key)] = p.Value
			}
			continue
		}
		p := ConfPartition{Name: l.Pairs[0].Value, Line: l.First, File: l.File, Nodes: get("Nodes"), Topology: get("Topology")}
		os := get("OverSubscribe")
		if os == "" {
			os = get("Shared")
		}
		p.OverSubscribe = strings.ToUpper(os)
		p.Default = strings.EqualFold(get("Default"), "YES")
		if err := p.readLimits(get); err != nil {
			return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("PartitionName=%s: %v", p.Name, err), Err: err}
		}
		if p.Nodes != "" && !strings.EqualFold(p.Nodes, "ALL") {
			if defined == nil {
				if nodes == nil {
					var err error
					if nodes, err = c.Nodes(); err != nil {
						return nil, err
					}
				}
				defined = make(map[string]bool, len(nodes))
				for _, n := range nodes {
					defined[n.Name] = true
				}
			}
			hs, used, err := c.partitionHosts(p.Nodes, sets, nodes, defined)
			if err != nil {
				return nil, &ConfError{File: l.File, Line: l.First, Msg: fmt.Sprintf("PartitionName=%s Nodes=%s: %v", p.Name, textin.Clip(p.Nodes), err), Err: err}
			}
			p.Hosts, p.NodeSets = hs, used
		}
		out = append(out, p)
	}
	return out, nil
}

// partitionHosts reads a partition's Nodes= (not ALL) as read_config.c's
// nodespec_to_hostlist does: expand the hostlist, replace each NodeSet's name by
// its nodes (NodeSet lines are read in file order, each once), drop repeats; then
// every name must be a node (unless the file has Include lines).
func (c *Conf) partitionHosts(expr string, sets []confNodeSet, nodes []ConfNode, defined map[string]bool) (hosts, used []string, err error) {
	// The names are read one at a time (hostlist.Each), each kept once, so that a
	// list costs its distinct names, not its length (repeats and NodeSet names make
	// a list longer than the nodes legal). Without Include lines each distinct
	// name must be a node, a NodeSet or a hostlist function, checked as it comes:
	// what is kept is bounded by the nodes defined (themselves at most
	// MaxConfNodes), the NodeSets and the bytes of the functions written. With
	// Include lines a name may be a node of an unread file: at most MaxConfNodes
	// distinct names a partition. The list's length is bounded by hostlist.MaxHosts.
	isSet := make(map[string]bool, len(sets))
	for _, s := range sets {
		isSet[s.name] = true
	}
	seen := map[string]bool{}
	var hs []string
	kept := 0 // the names kept that are not functions
	add := func(h string) error {
		if seen[h] {
			return nil
		}
		if strings.IndexByte(h, '{') >= 0 {
			if _, err := hostFunction(h); err != nil {
				return err
			}
		} else {
			if c.Includes == 0 && !defined[h] && !isSet[h] {
				return undefinedPartitionNode(h)
			}
			if kept++; kept > MaxConfNodes {
				return fmt.Errorf("more than %d distinct names, the most a file read here may list (a typo?)", MaxConfNodes)
			}
		}
		seen[h] = true
		hs = append(hs, h)
		return nil
	}
	if err := hostlist.Each(context.Background(), expr, add); err != nil {
		return nil, nil, err
	}
	for _, s := range sets {
		at := slices.Index(hs, s.name)
		if at < 0 {
			continue
		}
		hs = slices.Delete(hs, at, at+1)
		used = append(used, s.name)
		if s.feature != "" {
			for _, n := range nodes {
				if hasFeature(c.nodeFeatures(n), s.feature) {
					hs = append(hs, n.Name)
				}
			}
		}
		switch {
		case strings.EqualFold(s.nodes, "ALL"):
			// Slurm 23.11 on (nodespec_to_hostlist); 22.05 to 23.02 look up a node
			// "ALL" and stop.
			for _, n := range nodes {
				hs = append(hs, n.Name)
			}
		case s.nodes != "":
			if err := hostlist.Each(context.Background(), s.nodes, add); err != nil {
				return nil, nil, fmt.Errorf("NodeSet=%s (%s) Nodes=%s: %w", s.name, s.where, textin.Clip(s.nodes), err)
			}
		}
	}
	// Slurm 24.11 on: hostlist functions (node_conf.c parse_hostlist_functions).
	for i := 0; i < len(hs); i++ {
		h := hs[i]
		if strings.IndexByte(h, '{') < 0 {
			continue
		}
		feature, err := hostFunction(h)
		if err != nil {
			return nil, nil, err
		}
		var more []string
		for _, n := range nodes {
			if hasFeature(c.nodeFeatures(n), feature) {
				more = append(more, n.Name)
			}
		}
		hs = slices.Replace(hs, i, i+1, more...)
		i += len(more) - 1
	}
	clear(seen)
	out := hs[:0]
	for _, h := range hs {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if c.Includes == 0 {
		for _, h := range out {
			if !defined[h] {
				return nil, nil, undefinedPartitionNode(h)
			}
		}
	}
	return out, used, nil
}

// hostFunction is the feature F of a partition's name feature{F}, Slurm 24.11's
// hostlist function (node_conf.c parse_hostlist_functions); the others are errors.
func hostFunction(h string) (string, error) {
	open := strings.IndexByte(h, '{')
	fn, arg, closed := h[:open], h[open+1:], strings.HasSuffix(h, "}")
	arg = strings.TrimSuffix(arg, "}")
	switch {
	case fn == "feature" && closed:
		return arg, nil
	case closed && slices.Contains([]string{"switch", "block", "ring", "torus", "switchwith", "blockwith", "ringwith", "toruswith"}, fn):
		return "", fmt.Errorf("%s is a hostlist function of Slurm 24.11 on whose nodes come from the topology plugin's switches or blocks: not read here; list the nodes, or a NodeSet of them", textin.Clip(h))
	default:
		return "", fmt.Errorf("%s is not a hostlist function Slurm knows (feature{F}, switch{S}, block{B}, ring{R}, torus{T}, switchwith{N}, ...; slurmctld: \"Invalid hostlist_function\"); a '{' in a node name is read only so", textin.Clip(h))
	}
}

// undefinedPartitionNode is the error of a partition's name h that is neither a
// node nor a NodeSet.
func undefinedPartitionNode(h string) error {
	hint := ""
	if strings.EqualFold(h, "ALL") {
		hint = "; ALL means every node only as the whole value"
	}
	return fmt.Errorf("%s is neither a node of the NodeName lines nor a NodeSet%s (slurmctld: \"Invalid node names in partition\", fatal)", textin.Clip(h), hint)
}

// nodeFeatures is node n's Feature= (or Features=), its line's or inherited from
// a NodeName=DEFAULT line, as read_config.c takes it: Feature of the line,
// Features of the line, Feature of the defaults, Features of the defaults.
func (c *Conf) nodeFeatures(n ConfNode) string {
	l := &c.Lines[n.Index]
	for _, k := range []string{"Feature", "Features"} {
		if v, ok := l.Get(k); ok {
			return v
		}
	}
	for _, k := range []string{"Feature", "Features"} {
		if p, ok := findPair(n.Defaults, k); ok {
			return p.Value
		}
	}
	return ""
}

// hasFeature reports whether the comma-separated list features holds f (case
// matters: read_config.c compares with xstrcmp).
func hasFeature(features, f string) bool {
	for _, x := range strings.Split(features, ",") {
		if x == f {
			return true
		}
	}
	return false
}

// Edit rewrites NodeName lines of a Conf: nodes are c.Nodes()'s, passed in so
// that a caller that has them does not expand every hostlist again (150 MB for a
// 131,072-node slurm.conf). edit is called with every NodeName line that defines
// nodes, in order (its nodes and the line) and returns the lines that replace it
// (nil: keep it byte for byte). Every other line is kept byte for byte; the
// output is each file of the configuration (EditLines).
func (c *Conf) Edit(nodes []ConfNode, edit func(l *ConfLine, nodes []ConfNode) ([]string, error)) (*ConfFiles, error) {
	// Nodes lists a line's nodes together, lines in file order: a line's nodes are
	// the next run of nodes.
	out, err := c.EditLines(func(li int, l *ConfLine) ([]string, error) {
		j := 0
		for j < len(nodes) && nodes[j].Index == li {
			j++
		}
		if j == 0 {
			return nil, nil
		}
		ns := nodes[:j:j]
		nodes = nodes[j:]
		return edit(l, ns)
	}, nil)
	if err == nil && len(nodes) > 0 {
		// Not c.Nodes() (another Conf's, or out of order): say so rather than
		// leave lines unedited.
		return nil, fmt.Errorf("slurm.conf edit: %d nodes from %s on are not this file's NodeName lines in order", len(nodes), nodes[0].Name)
	}
	return out, err
}

// ConfFiles is a configuration as an edit writes it (Conf.EditLines, Conf.Edit):
// the slurm.conf and, when its Include lines were followed (ReadConfIncluding),
// every file they include, each as its own file with its own lines (edited) and
// the Include lines kept as they are: the site's layout.
type ConfFiles struct {
	// SlurmConf is the slurm.conf (the file read first; of Topology.EditLines,
	// the topology.conf).
	SlurmConf []byte
	// Included are the included files, in the order first read, each once; nil
	// when no Include line was followed.
	Included []IncludedFile
	inc      *includer
	topology bool // the files of a topology.conf (Topology.EditLines): read back by ReadTopology
}

// IncludedFile is one included file of a ConfFiles.
type IncludedFile struct {
	// Path is the file as read (Conf.Included: a relative name joined to
	// slurm.conf's directory); Name is the name of its Include line, %c replaced
	// (relative to slurm.conf's directory, or absolute).
	Path, Name string
	Data       []byte // its content, edited
	// Changed says Data differs from the site's file (the file first read, also
	// after edits of a configuration read back with ConfFiles.Read).
	Changed bool
	orig    []byte // the site's file
}

// Read reads the files back as the Conf they came from was read
// (ReadConfIncluding with the same directory, the included files from f; ReadConf
// when its Include lines were not followed).
func (f *ConfFiles) Read() (*Conf, error) {
	if f.topology {
		return nil, fmt.Errorf("the files of a topology.conf: read them with ReadTopology")
	}
	if f.inc == nil {
		return ReadConf(f.SlurmConf)
	}
	inc := f.includer()
	c := &Conf{}
	if err := c.readFile(f.SlurmConf, checkSlurmConfLine, inc, 0); err != nil {
		return nil, err
	}
	c.inc = inc
	f.siteData(c)
	return c, nil
}

// siteData gives the included files of c, read back from f, the site's content
// as the one they came from: Changed, after another edit, is against the site's
// file.
func (f *ConfFiles) siteData(c *Conf) {
	for fi := 1; fi < len(c.files); fi++ {
		for _, x := range f.Included {
			if x.Path == c.files[fi].path {
				c.files[fi].data = x.orig
			}
		}
	}
}

// ReadTopology reads the files of a topology.conf (Topology.EditLines) back as
// the Topology they came from was read (ParseTopologyConfIncluding with the same
// directories, the included files from f; ParseTopologyConf when its Include
// lines were not followed), looking at ctx as ParseTopologyConfContext does.
func (f *ConfFiles) ReadTopology(ctx context.Context) (*Topology, error) {
	if !f.topology {
		return nil, fmt.Errorf("the files of a slurm.conf, not of a topology.conf: read them with Read")
	}
	var inc *includer
	if f.inc != nil {
		inc = f.includer()
	}
	t, err := parseTopologyConf(ctx, f.SlurmConf, inc)
	if err != nil {
		return nil, err
	}
	f.siteData(t.conf)
	return t, nil
}

// includer is the includer f's files were read with, opening f's files.
func (f *ConfFiles) includer() *includer {
	inc := *f.inc
	inc.open = func(name string) ([]byte, error) {
		for _, x := range f.Included {
			if x.Path == name {
				return x.Data, nil
			}
		}
		return nil, fmt.Errorf("%s: not a file of the configuration written (an Include line changed?)", name)
	}
	return &inc
}

// EditLines rewrites a Conf line by line: edit is called with every logical line
// (its index in Lines) and returns the lines that replace it (nil: keep it byte for
// byte; an empty non-nil slice: delete it); add are lines appended at the end of
// the slurm.conf. Errors name the line.
//
// The output is the configuration's files: the slurm.conf and each file its
// followed Include lines (ReadConfIncluding) name, each with its own lines,
// edited where edit says. An Include line is not given to edit and is kept as it
// is, so that Slurm reads the files so written as it read the site's; a file
// included twice whose two readings are edited differently is an error.
func (c *Conf) EditLines(edit func(li int, l *ConfLine) ([]string, error), add []string) (*ConfFiles, error) {
	type at struct{ file, line int } // physical line (0-based) of a file
	repl := map[at][]string{}        // first physical line -> replacement
	skip := map[at]bool{}
	for li := range c.Lines {
		l := &c.Lines[li]
		if l.inc > 0 {
			continue // kept byte for byte
		}
		out, err := edit(li, l)
		if err != nil {
			var ce *ConfError
			if errors.As(err, &ce) {
				return nil, err
			}
			return nil, &ConfError{File: l.File, Line: l.First, Msg: err.Error(), Err: err}
		}
		if out == nil {
			continue
		}
		repl[at{l.file, l.First - 1}] = out
		for p := l.First; p < l.Last; p++ {
			skip[at{l.file, p}] = true
		}
	}
	write := func(fi int, add []string) []byte {
		var b strings.Builder
		eolAll := "\n"
		for i, raw := range c.files[fi].raw {
			if skip[at{fi, i}] {
				continue
			}
			// A line's break is "\n" or "\r\n"; a last line without one keeps none, even
			// when it ends in '\r' ("NodeName=n[0-7]\r" was split into lines ended by a
			// bare '\r', which Slurm and ReadConf read as one line: FuzzMergeWeights).
			eol := ""
			switch {
			case strings.HasSuffix(raw, "\r\n"):
				eol = "\r\n"
			case strings.HasSuffix(raw, "\n"):
				eol = "\n"
			}
			if eol != "" {
				eolAll = eol
			}
			out, ok := repl[at{fi, i}]
			if !ok {
				b.WriteString(raw)
				continue
			}
			if eol == "" {
				eol = eolAll
			}
			for _, s := range out {
				b.WriteString(s)
				b.WriteString(eol)
			}
		}
		if len(add) > 0 {
			if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
				b.WriteString(eolAll)
			}
			for _, s := range add {
				b.WriteString(s)
				b.WriteString(eolAll)
			}
		}
		return []byte(b.String())
	}
	out := &ConfFiles{inc: c.inc}
	if len(c.files) > 0 {
		out.SlurmConf = write(0, add)
	} else {
		out.SlurmConf = write0(add)
	}
	first := map[string]int{} // path -> index in out.Included
	for fi := 1; fi < len(c.files); fi++ {
		f := &c.files[fi]
		data := write(fi, nil)
		if k, ok := first[f.path]; ok {
			if !bytes.Equal(out.Included[k].Data, data) {
				return nil, fmt.Errorf("%s is included twice and the edit changes its two readings differently: include it once", f.path)
			}
			continue
		}
		first[f.path] = len(out.Included)
		out.Included = append(out.Included, IncludedFile{Path: f.path, Name: f.name, Data: data, Changed: !bytes.Equal(data, f.data), orig: f.data})
	}
	return out, nil
}

// write0 is the slurm.conf of a Conf read from nothing: the added lines.
func write0(add []string) []byte {
	var b strings.Builder
	for _, s := range add {
		b.WriteString(s)
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// SplitNodeLine writes the NodeName line of nodes[run[0]:run[1]] of line l: the
// same pairs, NodeName and the per-node lists (NodeHostname, NodeAddr, BcastAddr,
// Port) cut to the run when the run is not the whole line, then set applied (a key
// in set replaces the line's value, or is appended; an empty value removes the
// key; a NodeName pair renames the nodes). The line's comment is kept.
func SplitNodeLine(l *ConfLine, nodes []ConfNode, run [2]int, set []ConfPair) (string, error) {
	whole := run[0] == 0 && run[1] == len(nodes)
	lists, err := perNodeLists(l, len(nodes))
	if err != nil {
		return "", err
	}
	var pairs []ConfPair
	done := map[string]bool{}
	for i, p := range l.Pairs {
		lk := strings.ToLower(p.Key)
		switch {
		case i == 0:
			if q, ok := findPair(set, p.Key); ok {
				p.Value = q.Value // a new name (the caller's hostlist)
			} else if !whole {
				names := make([]string, 0, run[1]-run[0])
				for _, n := range nodes[run[0]:run[1]] {
					names = append(names, n.Name)
				}
				hl, err := hostlist.Compress(names)
				if err != nil {
					return "", err
				}
				p.Value = hl
			}
		case !whole && len(lists[lk]) > 1:
			hl, err := hostlist.Compress(lists[lk][run[0]:run[1]])
			if err != nil {
				return "", err
			}
			p.Value = hl
		}
		if i > 0 {
			if q, ok := findPair(set, p.Key); ok {
				if done[lk] {
					continue
				}
				done[lk] = true
				if q.Value == "" {
					continue
				}
				p.Value, p.Op = q.Value, q.Op
			}
		}
		pairs = append(pairs, p)
	}
	for _, q := range set {
		if lk := strings.ToLower(q.Key); !done[lk] && q.Value != "" {
			if strings.EqualFold(q.Key, l.Pairs[0].Key) {
				continue
			}
			done[lk] = true
			pairs = append(pairs, q)
		}
	}
	s, err := FormatPairs(pairs)
	if err != nil {
		return "", err
	}
	if l.Comment != "" {
		s += " " + l.Comment
	}
	return s, nil
}

func findPair(ps []ConfPair, key string) (ConfPair, bool) {
	for _, p := range ps {
		if strings.EqualFold(p.Key, key) {
			return p, true
		}
	}
	return ConfPair{}, false
}
