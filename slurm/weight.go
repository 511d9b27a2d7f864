package slurm

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// FormatWeight is the ranking format slurm-weight: slurm.conf "NodeName=HOST
// Weight=RANK+1" lines, for a new slurm.conf only (a slurm.conf that already defines
// its nodes refuses a second NodeName line for a node: use MergeWeights). With
// distinct weights Slurm takes the lowest free weights first: a sorted free list
// along the ordering, not a best fit (measured on Slurm 22.05.8; docs in package
// slurm). Registered with curves at initialisation, so curves.WriteRanking,
// ReadRanking and DetectFormat handle it in every program that links this package.
const FormatWeight curves.Format = "slurm-weight"

func init() {
	if err := curves.RegisterFormat(FormatWeight, curves.Codec{Write: writeWeights, Read: readWeights, Detect: detectWeights}); err != nil {
		panic(err) // a programming error: the name is taken
	}
}

func writeWeights(w io.Writer, o curves.Order, hosts []string) error {
	if hosts != nil && len(hosts) != len(o) {
		return fmt.Errorf("%d host names for %d nodes", len(hosts), len(o))
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# slurm.conf node weights along a curve: Slurm allocates the lowest Weight first")
	for r, v := range o {
		fmt.Fprintf(bw, "NodeName=%s Weight=%d\n", curves.HostName(hosts, v), r+1)
	}
	return bw.Flush()
}

func readWeights(r io.Reader, n int, hosts []string) (curves.Order, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var es []curves.HostRank
	for i, l := range strings.Split(string(data), "\n") {
		ln := i + 1
		if l = strings.TrimSpace(textin.StripComment(l)); l == "" {
			continue
		}
		var name string
		weight := -1
		for _, kv := range strings.Fields(l) {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.ToLower(k) {
			case "nodename":
				name = v
			case "weight":
				if weight, err = strconv.Atoi(v); err != nil || weight < 1 {
					return nil, fmt.Errorf("line %d: Weight %q is not a positive integer", ln, v)
				}
			}
		}
		if name == "" || weight < 0 {
			return nil, fmt.Errorf("line %d: want NodeName=HOST Weight=N", ln)
		}
		es = append(es, curves.HostRank{Rank: weight - 1, Host: name, Line: ln})
	}
	return curves.OrderFromHostRanks(es, n, hosts)
}

func detectWeights(data []byte) bool {
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l = strings.TrimSpace(textin.StripComment(l)); l != "" {
			return strings.HasPrefix(strings.ToLower(l), "nodename=")
		}
	}
	return false
}

// nodeLine is a NodeName line of a slurm.conf: its line number (1-based), its fields
// and the hosts its NodeName hostlist expands to.
type nodeLine struct {
	line    int
	fields  []string // KEY=VALUE fields, in order
	comment string   // the '#' comment, kept
	hosts   []string
}

// MergeWeights returns slurm.conf conf with Weight=RANK+1 merged into the NodeName
// lines of the hosts of ordering o (hosts names the nodes in node-index order; nil:
// node indices): every other line is kept byte for byte, every other attribute of a
// NodeName line is kept, an existing Weight= is replaced, and a hostlist line
// (NodeName=node[01-16] ...) is split only where the weights of its hosts differ,
// into one line per run of hosts of one weight (NodeHostname=, NodeAddr= and Port=
// lists as long as the host list are split along). NodeName=DEFAULT lines are kept
// as they are.
//
// An ordered host that no NodeName line defines, a host defined twice, a NodeName
// line continued with a backslash and a bad hostlist are errors naming the host and
// line; nothing is returned then. Hosts the conf defines but the ordering does not
// name keep their lines, and a warning says so: Slurm gives them its default weight
// 1, the lowest, so they are allocated first.
func MergeWeights(conf []byte, o curves.Order, hosts []string) (out []byte, warnings []string, err error) {
	if hosts != nil && len(hosts) != len(o) {
		return nil, nil, fmt.Errorf("%d host names for %d nodes", len(hosts), len(o))
	}
	weight := make(map[string]int, len(o))
	for r, v := range o {
		weight[curves.HostName(hosts, v)] = r + 1
	}
	lines := strings.SplitAfter(string(conf), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	defined := map[string]int{} // host -> line
	nodeLines := map[int]*nodeLine{}
	var unordered []string
	includes := 0
	for i, raw := range lines {
		body, comment := raw, ""
		if j := strings.IndexByte(raw, '#'); j >= 0 {
			body, comment = raw[:j], strings.TrimRight(raw[j:], "\r\n")
		}
		fields := strings.Fields(body)
		if len(fields) == 0 {
			continue
		}
		if strings.EqualFold(fields[0], "Include") {
			includes++
		}
		k, v, _ := strings.Cut(fields[0], "=")
		if !strings.EqualFold(k, "NodeName") || strings.EqualFold(v, "DEFAULT") {
			continue
		}
		if strings.HasSuffix(strings.TrimSpace(body), "\\") {
			return nil, nil, fmt.Errorf("line %d: a NodeName line continued with '\\'; join it into one line", i+1)
		}
		hs, err := hostlist.Expand(v)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: NodeName=%s: %w", i+1, v, err)
		}
		for _, h := range hs {
			if first, dup := defined[h]; dup {
				return nil, nil, fmt.Errorf("line %d: host %s is defined again (first on line %d); Slurm refuses a node defined twice", i+1, h, first)
			}
			defined[h] = i + 1
			if _, ok := weight[h]; !ok {
				unordered = append(unordered, h)
			}
		}
		nodeLines[i] = &nodeLine{line: i + 1, fields: fields, comment: comment, hosts: hs}
	}
	for r, v := range o {
		if h := curves.HostName(hosts, v); defined[h] == 0 {
			hint := ""
			if includes > 0 {
				hint = " (its Include lines are not followed: merge into the file that defines the nodes)"
			}
			return nil, nil, fmt.Errorf("host %s (rank %d of the ordering) is not defined by any NodeName line of the slurm.conf%s", h, r, hint)
		}
	}
	var b strings.Builder
	for i, raw := range lines {
		nl := nodeLines[i]
		if nl == nil {
			b.WriteString(raw)
			continue
		}
		eol := raw[len(strings.TrimRight(raw, "\r\n")):]
		if eol == "" {
			eol = "\n"
		}
		for _, run := range weightRuns(nl.hosts, weight) {
			b.WriteString(nodeLineFor(nl, run, weight))
			b.WriteString(eol)
		}
	}
	if len(unordered) > 0 {
		slices.SortFunc(unordered, hostlist.NaturalCompare)
		hl, _ := hostlist.Compress(unordered)
		warnings = append(warnings, fmt.Sprintf("%d nodes of the slurm.conf are not in the ordering and keep their lines (%s); Slurm's default Weight=1 is the lowest, so they are allocated first", len(unordered), hl))
	}
	return []byte(b.String()), warnings, nil
}

// weightRuns cuts hosts into maximal runs of consecutive hosts of one weight
// (hosts the ordering does not name form runs of their own, weight 0).
func weightRuns(hosts []string, weight map[string]int) [][2]int {
	var runs [][2]int
	for i := 0; i < len(hosts); {
		j := i + 1
		for j < len(hosts) && weight[hosts[j]] == weight[hosts[i]] {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	return runs
}

// splitKeys are the NodeName attributes that may list one value per host.
var splitKeys = []string{"nodehostname", "nodeaddr", "port"}

// nodeLineFor writes the NodeName line of hosts run[0]..run[1]-1 of nl: the same
// fields, NodeName and the per-host lists cut to the run, Weight set.
func nodeLineFor(nl *nodeLine, run [2]int, weight map[string]int) string {
	whole := run[0] == 0 && run[1] == len(nl.hosts)
	w, named := weight[nl.hosts[run[0]]]
	var out []string
	sawWeight := false
	for fi, f := range nl.fields {
		k, v, _ := strings.Cut(f, "=")
		lk := strings.ToLower(k)
		switch {
		case fi == 0:
			if !whole {
				hl, err := hostlist.Compress(nl.hosts[run[0]:run[1]])
				if err == nil {
					f = k + "=" + hl
				}
			}
		case lk == "weight":
			sawWeight = true
			if named {
				f = k + "=" + strconv.Itoa(w)
			}
		case !whole && slices.Contains(splitKeys, lk):
			if vals, err := hostlist.Expand(v); err == nil && len(vals) == len(nl.hosts) {
				if hl, err := hostlist.Compress(vals[run[0]:run[1]]); err == nil {
					f = k + "=" + hl
				}
			}
		}
		out = append(out, f)
	}
	if named && !sawWeight {
		out = append(out, "Weight="+strconv.Itoa(w))
	}
	s := strings.Join(out, " ")
	if nl.comment != "" {
		s += " " + nl.comment
	}
	return s
}
