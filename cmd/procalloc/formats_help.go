package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/procalloc/procalloc/alloc"
)

// The command-line help of the text formats and specs the library parses; the
// library's doc comments describe the same syntax for Go callers.

// specHelp describes the accepted machine specs, for command-line help.
const specHelp = `mesh:XxY[xZ...]            mesh, e.g. mesh:16x16, mesh:8x8x5
torus:XxY[xZ...]           torus (wraparound in every dimension), e.g. torus:8x8
mesh:XxYxZ:wrap=LETTERS    wraparound in the named dimensions (x, y, z, w), e.g. mesh:8x8x5:wrap=yz
mesh[X,Y,Z]                the published simulators' spelling; sizes of 1 at the end are dropped`

// graphFormatHelp describes the edge-list format ReadGraph accepts.
const graphFormatHelp = `One link per line: "U V" (two node names). '#' starts a comment.
Names that are all non-negative integers are node indices 0..max; otherwise nodes are
numbered in order of first appearance. Directives:
  %node NAME             declare a node (fixes its index; allows a node with no links yet)
  %group NAME: A B C     processors A, B, C sit under switch NAME (for hierarchical ordering)
Self loops and repeated links are errors.`

// weightsHelp describes the weight specs ParseWeights accepts.
const weightsHelp = `list:W1,W2,...   w(1)=W1, w(2)=W2, ...; 0 beyond (e.g. list:1,0.5,0.25)
exp:B:K          w(t) = B^(1-t) for t = 1..K, 0 beyond (e.g. exp:2:8)`

// formatsHelp describes the formats for command-line help.
const formatsHelp = `pairs   "i r" per line: node i has rank r (PReMAS curve file)
ranks   line i holds the rank of node i
order   node indices in curve order, one per line
json    {"format":"procalloc-ranking","machine":...,"curve":...,"n":N,"order":[...]}
hosts   host names in curve order, one per line (node names from --hosts FILE or the graph)
slurm-weight      slurm.conf "NodeName=HOST Weight=RANK+1" lines (Slurm takes the lowest Weight first)
hostfile          the same as hosts (SLURM_HOSTFILE, mpirun --hostfile with --map-by seq)
hostlist          the hosts in curve order as one Slurm hostlist expression
rankfile          Open MPI rankfile: "rank R=HOST slot=0"
mpich-rank-order  MPICH_RANK_ORDER: the MPI rank of each node slot, nodes in index order
jgf               Flux JSON Graph Format resource graph, node vertex id = curve rank`

// allocSyntax is the --alloc spelling of the allocator families that take an argument
// (alloc.Parse); the others are named alone.
var allocSyntax = map[string]string{
	"freelist":     "freelist:CURVE",
	"ff":           "ff:CURVE[:ring]",
	"bf":           "bf:CURVE[:ring]",
	"sos":          "sos:CURVE[:ring]",
	"paging":       "paging:CURVE:s",
	"mc1x1":        "mc1x1[:tb=SR,AF,WF,BF]",
	"mc1x1-greedy": "mc1x1-greedy[:tb=SR,AF,WF,BF]",
}

// allocHelp lists the allocator specs of --alloc with the library's summaries.
func allocHelp() string {
	var b strings.Builder
	b.WriteString(`CURVE is a built-in curve (procalloc curve --list) or a ranking file; :ring uses the
ring span; s gives pages of 2^s x 2^s nodes; tb= sets Johnson et al.'s tie-breaking
(SR, AF, WF, BF). Examples: mc1x1, mc1x1:tb=3,9,3,2, bf:hilbert, ff:snake:ring,
freelist:hilbert, paging:hilbert:1, bf:ranks.pairs.
`)
	for _, name := range alloc.Names() {
		spec := cmp.Or(allocSyntax[name], name)
		fmt.Fprintf(&b, "  %-30s %s\n", spec, alloc.Summary(name))
	}
	return strings.TrimRight(b.String(), "\n")
}
