package slurm

import (
	"bufio"
	"context"
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
		given := map[string]bool{}
		for _, kv := range strings.Fields(l) {
			k, v, _ := strings.Cut(kv, "=")
			if k := strings.ToLower(k); (k == "nodename" || k == "weight") && given[k] {
				// Which one would Slurm take? Not a file procalloc wrote.
				return nil, fmt.Errorf("line %d: %s given twice", ln, kv[:len(k)])
			}
			given[strings.ToLower(k)] = true
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

// MergeWeights returns slurm.conf conf with Weight=RANK+1 merged into the NodeName
// lines of the hosts of ordering o (hosts names the nodes in node-index order; nil:
// node indices). The conf is read as slurmctld reads it (ReadConf: spaces around
// '=', quoted values, escapes, continued lines, NodeName=DEFAULT lines): every other
// line is kept byte for byte, every other attribute of a NodeName line is kept, an
// existing Weight= is replaced, and a hostlist line (NodeName=node[01-16] ...) is
// split only where the weights of its hosts differ, into one line per run of hosts
// of one weight, NodeHostname=, NodeAddr=, BcastAddr= and Port= lists of one value
// per node split along (one value is copied). NodeName=DEFAULT lines are kept.
//
// An ordered host that no NodeName line defines, a host defined twice, a bad
// hostlist, a per-node list of the wrong length are errors naming the host and
// line; nothing is returned then. Hosts the conf defines but the ordering does not
// name keep their lines and the weight they have (their line's, a DEFAULT line's, or
// Slurm's default 1); a warning says so, and says whether they come before the
// ordered hosts (a weight at most the ordering's largest).
//
// It looks at ctx while it expands the NodeName lines (Conf.NodesContext) and
// every few thousand nodes it writes (a second for 131,072 nodes of distinct
// weights): a cancelled ctx returns an error wrapping its cause (errors.Is), which
// names the line it stopped at.
func MergeWeights(ctx context.Context, conf []byte, o curves.Order, hosts []string) (out []byte, warnings []string, err error) {
	c, err := ReadConf(conf)
	if err != nil {
		return nil, nil, err
	}
	nodes, err := c.NodesContext(ctx)
	if err != nil {
		return nil, nil, err
	}
	files, warnings, err := MergeWeightsConf(ctx, c, nodes, o, hosts)
	if err != nil {
		return nil, nil, err
	}
	return files.SlurmConf, warnings, nil // ReadConf follows no Include line: one file
}

// MergeWeightsConf is MergeWeights on a slurm.conf already read, with its nodes
// (c.Nodes()'s), for a caller that has them; its output is each file of the
// configuration (Conf.EditLines: with ReadConfIncluding, the weights of the nodes
// of an included file are written in that file), looking at ctx as MergeWeights
// does.
func MergeWeightsConf(ctx context.Context, c *Conf, nodes []ConfNode, o curves.Order, hosts []string) (out *ConfFiles, warnings []string, err error) {
	if hosts != nil && len(hosts) != len(o) {
		return nil, nil, fmt.Errorf("%d host names for %d nodes", len(hosts), len(o))
	}
	weight := make(map[string]int, len(o))
	for r, v := range o {
		weight[curves.HostName(hosts, v)] = r + 1
	}
	defined := make(map[string]bool, len(nodes))
	var unordered []ConfNode
	for _, n := range nodes {
		defined[n.Name] = true
		if _, ok := weight[n.Name]; !ok {
			unordered = append(unordered, n)
		}
	}
	for r, v := range o {
		if h := curves.HostName(hosts, v); !defined[h] {
			hint := ""
			if c.Includes > 0 {
				hint = " (its Include lines are not followed: merge into the file that defines the nodes)"
			}
			return nil, nil, fmt.Errorf("host %s (rank %d of the ordering) is not defined by any NodeName line of the slurm.conf%s", h, r, hint)
		}
	}
	if ctx.Err() != nil {
		return nil, nil, context.Cause(ctx)
	}
	written := 0 // nodes written, for the looks at ctx
	out, err = c.Edit(nodes, func(l *ConfLine, ns []ConfNode) ([]string, error) {
		var lines []string
		for _, run := range weightRuns(ns, weight) {
			if written += run[1] - run[0]; written >= ctxEvery {
				written = 0
				if ctx.Err() != nil {
					return nil, context.Cause(ctx)
				}
			}
			var set []ConfPair
			if w, ok := weight[ns[run[0]].Name]; ok {
				set = []ConfPair{{Key: "Weight", Value: strconv.Itoa(w)}}
				if k := weightKey(l); k != "" {
					set[0].Key = k
				}
			}
			s, err := SplitNodeLine(l, ns, run, set)
			if err != nil {
				return nil, err
			}
			lines = append(lines, s)
		}
		return lines, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(unordered) > 0 {
		warnings = append(warnings, unorderedWarning(unordered, len(o)))
	}
	return out, warnings, nil
}

// weightKey returns the Weight key as the line spells it ("" when absent).
func weightKey(l *ConfLine) string {
	for _, p := range l.Pairs[1:] {
		if strings.EqualFold(p.Key, "Weight") {
			return p.Key
		}
	}
	return ""
}

// unorderedWarning says which nodes keep their weight and what it means for the
// order in which Slurm allocates them (the lowest weight first).
func unorderedWarning(ns []ConfNode, ordered int) string {
	byW := map[uint32][]ConfNode{}
	var ws []uint32
	for _, n := range ns {
		if byW[n.Weight] == nil {
			ws = append(ws, n.Weight)
		}
		byW[n.Weight] = append(byW[n.Weight], n)
	}
	slices.Sort(ws)
	var parts []string
	for _, w := range ws {
		g := byW[w]
		names := make([]string, len(g))
		for i, n := range g {
			names[i] = n.Name
		}
		slices.SortFunc(names, hostlist.NaturalCompare)
		hl, _ := hostlist.Compress(names)
		from := "Slurm's default Weight=1"
		switch g[0].WeightFrom {
		case "line":
			from = fmt.Sprintf("Weight=%d of their line", w)
		case "default":
			at := fmt.Sprintf("line %d", g[0].WeightLine)
			if g[0].WeightFile != "" {
				at = g[0].WeightFile + " " + at
			}
			from = fmt.Sprintf("Weight=%d of NodeName=DEFAULT (%s)", w, at)
		}
		when := "after the ordered nodes"
		if int64(w) <= int64(ordered) {
			when = "before or among the ordered nodes (weights 1.." + strconv.Itoa(ordered) + "), so Slurm allocates them first"
		}
		parts = append(parts, fmt.Sprintf("%s keep %s: %s", hl, from, when))
	}
	return fmt.Sprintf("%d nodes of the slurm.conf are not in the ordering and keep their lines: %s", len(ns), strings.Join(parts, "; "))
}

// weightRuns cuts a line's nodes into maximal runs of consecutive nodes of one
// weight (nodes the ordering does not name form runs of their own, weight 0).
func weightRuns(ns []ConfNode, weight map[string]int) [][2]int {
	var runs [][2]int
	for i := 0; i < len(ns); {
		j := i + 1
		for j < len(ns) && weight[ns[j].Name] == weight[ns[i].Name] {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	return runs
}
