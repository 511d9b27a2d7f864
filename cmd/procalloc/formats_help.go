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
mesh[X,Y,Z]                the published simulators' spelling; sizes of 1 at the end are dropped
mesh:XxY:io=SIDE[:COUNT]   a 2D mesh with I/O nodes along SIDE (left, right, top, bottom), one per
                           row or column unless COUNT is given (Liu et al.), e.g. mesh:16x16:io=left
fattree:D0,U0:D1,U1:...:DL  fat tree in SST merlin's "shape" (level 0 = leaf switches):
                           Di links down and Ui up per switch of level i, e.g. fattree:4,4:4,4:8
                           (128 hosts); hosts h0.. under leaf switches rtr_l0_g0_r0..
dragonfly:hosts_per_router=P,routers_per_group=A,intergroup_links=L,num_groups=G
                           SST merlin's dragonfly (absolute global links), routers G<g>R<r>
                           all-to-all in a group, hosts h0.., e.g.
                           dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=9`

// graphFormatHelp describes the edge-list format ReadGraph accepts.
const graphFormatHelp = `One link per line: "U V" (two node names). '#' starts a comment.
Names that are all non-negative integers are node indices 0..max; otherwise nodes are
numbered in order of first appearance. Directives:
  %node NAME             declare a node (fixes its index; allows a node with no links yet)
  %group NAME: A B C     processors A, B, C sit under switch NAME (for hierarchical ordering)
  %switch NAME           NAME is a switch: it routes but gets no rank (names are then
                         names, not indices; hosts are grouped under their switch
                         unless %group lines say otherwise)
Self loops and repeated links are errors.`

// ibnetdiscoverHelp describes the ibnetdiscover output topo.ReadIBNetDiscover reads.
const ibnetdiscoverHelp = `ibnetdiscover output, either form:
  default   node blocks  Switch 36 "S-<guid>" # "desc" ...  or  Ca 2 "H-<guid>" # "desc"
            followed by port lines  [p] "S-<guid>"[q] # ...  (routers Rt/R- route as
            switches); -g's chassis lines and [ext N] ports, -s's progress lines, -f
            and -m are read too
  -p        one line per port:  CA 3 1 0x<guid> 4x EDR - SW 1 7 0x<guid> ( 'desc' - 'desc' )
A node list (-l, -H, -S, -R) has no links and is refused, as is --diff output.
A host is named by --node-name-map (its GUID), else by the first word of its
NodeDescription ("node01 mlx5_0" -> node01, as rdma-ndd writes it). Several HCAs of
one host (dual rail, dual port) join one host, which keeps one cable: its first
adapter's (NodeDescription order: mlx5_0 before mlx5_1), since a host forwards no
traffic; a warning says so. A CA whose NodeDescription names no host (none, or the
adapter firmware's default "MT4129 ConnectX7   Mellanox Technologies": no rdma-ndd)
is a host named H-<guid>, with a warning: name those CAs with --node-name-map. One
NodeDescription copied onto two CAs (machines described alike: which is the named
host cannot be told) or a first word that is no host name is refused, naming every
such CA: name them with --node-name-map. Messages ibnetdiscover printed on standard
error (ibwarn:, iberror:, "query_smp.c:195; ...", saved by 2>&1) are skipped with
a warning: the discovery met errors. CAs described as "Aggregation Node" (SHARP, inside switches) are
left out with a warning. A node of unknown type (?? in -p, "?-<guid>" as a peer: its
NodeType is none of CA, switch, router) is left out with a warning when cabled to one
node only, and refused when cabled to more (it may forward traffic or not). A switch
is named by --node-name-map, else "S-<guid>", a router "R-<guid>". Parallel cables count once. A node-name-map that names no node
(empty, or another fabric's) is read with a warning.
Node indices (the numbers of --format pairs, ranks, order, of sim's per-job node
lists): the hosts first, in Slurm's node name order (strnatcmp: cn9 before cn10),
then the switches and routers in that order of their names; not in the dump's order,
so every dump of one fabric (ibnetdiscover, subnet-lst, opareport) numbers it alike
and gives the same rankings. A node-name-map renames, so it can renumber.
The -p form shows port GUIDs: a node-name-map is looked up with them (a switch's port
GUID is usually its node GUID; hosts are best named by their NodeDescription). Two
lines of CA ports one after the other, with one description, ports descending and
port GUIDs apart as their ports, are one dual-port adapter (as ibnetdiscover prints
one): one node, named by its lowest port's GUID, with a warning.
Lines of ibnetdiscover output are at most 16 MiB, of a node-name-map 64 KiB; a
fabric dump (ibnetdiscover, subnet-lst, opareport) is read as it comes, up to 8 GiB,
other network files whole, up to 256 MiB. A
topology.conf or topology.yaml lists its first 20 warnings and counts the rest.
Text inputs are UTF-8; a UTF-16 file (byte-order mark FF FE or FE FF) is refused.`

// fabricDumpsHelp describes the other fabric dumps topo reads (ReadSubnetLst,
// ReadOPAReport), named as ibnetdiscover's are.
const fabricDumpsHelp = `subnet-lst: OpenSM's opensm-subnet.lst (ibdiagnet's .lst has its fields): one line
per cabled port, both ends' records, each cable twice:
  { CA Ports:01 SystemGUID:.. NodeGUID:<guid> PortGUID:.. VenID:.. DevID:.. Rev:.. {node01 HCA-1}
    LID:0015 PN:01 } { SW ... } PHY=4x LOG=ACT SPD=50      (one line)
opareport: Omni-Path's opareport -o topology (or -x -o links) XML: the <LinkSummary>'s
<Link>s, each two <Port>s with NodeGUID, PortNum, NodeType (FI or SW) and NodeDesc;
or the text of opareport -o links: "Link Summary", then two lines a link:
  100g 0x<guid>   1 SW   edge01
  <->  0x<guid>   1 FI   node01 hfi1_0
Both name nodes as ibnetdiscover output does (--node-name-map by node GUID; a host's
first NodeDescription word; S-<guid>, R-<guid>), with the same dual-rail rule, and
number them alike: hosts by name, then switches by name (see ibnetdiscover above).
Refused: a subnet.lst node of type "**", a description that cannot be told from the
record around it; opareport's partial link reports (-o extlinks, filinks, islinks,
extislinks), a Port without NodeGUID (opaxlattopology's hand-written topology.xml),
a node of type "??", opareport -d 0 (no links listed), -o links text with -T's
details and cable lines or -F's focus (free text that could pass for a link).`

// weightsHelp describes the weight specs ParseWeights accepts.
const weightsHelp = `list:W1,W2,...   w(1)=W1, w(2)=W2, ...; 0 beyond (e.g. list:1,0.5,0.25)
exp:B:K          w(t) = B^(1-t) for t = 1..K, 0 beyond (e.g. exp:2:8)`

// formatsHelp describes the formats for command-line help.
const formatsHelp = `pairs   "i r" per line: node i has rank r (PReMAS curve file)
ranks   line i holds the rank of node i
order   node indices in curve order, one per line
json    {"format":"procalloc-ranking","machine":...,"curve":...,"n":N,"order":[...]}
hosts   host names in curve order, one per line (node names from --hosts FILE or the graph)
slurm-weight      slurm.conf "NodeName=HOST Weight=RANK+1" lines, for a new slurm.conf (--slurm-conf FILE
                  merges Weight= into FILE's NodeName lines); Slurm takes the lowest free Weight first
hostfile          the same as hosts (SLURM_HOSTFILE with srun --distribution=arbitrary -n K:
                  task r on line r of the first K lines, and a job's nodes are those K hosts,
                  waited for when busy; without -n srun starts a task per line; a host twice
                  needs two CPUs or --overcommit. Open MPI: mpirun --hostfile F --map-by seq;
                  MPICH: mpiexec -f F, -ppn K for K ranks a host); names Open MPI refuses
                  or merges, and HOST:N (N slots to MPICH), are written with a warning
hostlist          the hosts in curve order as one Slurm hostlist expression; scontrol show hostnames
                  keeps that order, but Slurm sorts a --nodelist/-w (tasks in name order; sbatch -w
                  refuses more hosts than -N): for the order use hostfile
rankfile          Open MPI rankfile (mpirun --rankfile F): "rank R=HOST slot=S*", each rank
                  free on every core of its host (a rankfile binds, and --bind-to cannot
                  change it; edit slot= to bind); a name Open MPI refuses is an error
mpich-rank-order  Cray MPICH's MPICH_RANK_ORDER (MPICH_RANK_REORDER_METHOD=3): the rank of
                  each node's slot, nodes in index order, 16 a line (not run: no Cray here)
jgf               Flux resource graph (JSON Graph Format), node vertex id = curve rank: fluxion's low,
                  lonode and lonodex policies take the lowest free ids (its default, first, the highest);
                  nodes only, no cores: curve --flux-graph FILE sets the ids in Flux's own graph instead`

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
	"sbt":          "sbt:ALPHA",
	"dbt":          "dbt:RATIO",
	"ind-sbt":      "ind-sbt:ALPHA",
	"ind-dbt":      "ind-dbt:RATIO",
	"d-sbt":        "d-sbt:ALPHA",
	"d-dbt":        "d-dbt:RATIO",
	"opt":          "opt[:nodes=N]",
}

// allocHelp lists the allocator specs of --alloc with the library's summaries.
func allocHelp() string {
	var b strings.Builder
	b.WriteString(`CURVE is a built-in curve (procalloc curve --list) or a ranking file; :ring uses the
ring span; s gives pages of 2^s x 2^s nodes; tb= sets Johnson et al.'s tie-breaking
(SR, AF, WF, BF). Examples: mc1x1, mc1x1:tb=3,9,3,2, bf:hilbert, ff:snake:ring,
freelist:hilbert, paging:hilbert:1, bf:ranks.pairs. The binary-tree family (Liu et
al., 2^m x 2^n meshes; docs/io.md): ALPHA an imbalance tolerance in processors (0..N),
RATIO one relative to the block (P/Q or a decimal in [0,1]), e.g. sbt:16, d-dbt:1/4.
`)
	for _, name := range alloc.Names() {
		spec := cmp.Or(allocSyntax[name], name)
		fmt.Fprintf(&b, "  %-30s %s\n", spec, alloc.Summary(name))
	}
	return strings.TrimRight(b.String(), "\n")
}
