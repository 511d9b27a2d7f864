// Package topo describes machines: the nodes a job can be given and the hop distance
// between them.
//
// A Grid is a mesh or torus of any dimension with wraparound chosen per dimension
// (Cplant, the machine of Leung et al. 2002 §1, was a 3D mesh with wraparound in two
// dimensions). Node i of an X x Y x Z grid has coordinates (x, y, z) with
// i = x + y*X + z*X*Y, x fastest, the numbering of the published simulators PReMAS
// and SST (docs/sim.md). The hop distance is the L1 distance,
// each wrapped dimension taking the shorter way around.
//
// A Graph is an irregular network. Its hop distances are breadth-first distances,
// answered without an n x n table by a
// hop index built on the first Graph.Dist call, or beforehand by Graph.BuildHopIndex
// with a context that can stop it (hopdist.go), which is exact, safe for
// concurrent use and near O(vertices) in memory: hosts on one link drop out (their
// distance is one hop to their switch), switches with the same neighbours (a fat
// tree's leaf switches of one pod, its top switches of one residue) merge into one
// class two hops from each other, and distances between the classes hosts hang off
// come from a table when there are at most 4,096 of them (a fat tree of 200,704 hosts
// has 196 such classes, a dragonfly of 10,240 hosts its 2,560 routers), else from
// pruned landmark labels (Akiba, Iwata, Yoshida, SIGMOD 2013,
// doi:10.1145/2463676.2465315) when they stay small, else from a search: A* guided by
// the lower bound of 8 landmarks (Goldberg and Harrelson, SODA 2005; exact on a
// mesh's edge list, where it walks one shortest path) for pairs the bound puts 16 or
// more hops apart, a breadth-first search from both ends otherwise or when the guided
// search gives up, and a bounded cache of rows for repeated sources. Graph.DistRow is
// a fresh breadth-first row, never cached: callers after pairs use Dist. BreadthFirst
// is the search behind orderings (BFSOrder, the graph curves of package curves, the
// ordering solver's starts). The hop distances, which search millions of times, keep
// int32 loops: HopRow over a CSR adjacency is the one breadth-first row (the hop
// index's table, landmarks and cached rows, slurm's switches_dist, netsim's
// GraphRouter); DistRow walks the Graph's adjacency lists, the hop index's pruned
// labels and searches from both ends stop early, and HostSpacing and SwitchLevels
// are multi-source labelled searches.
// Processors may be grouped under switches, as Leung et al. §2.2 order
// hierarchical networks switch by switch. A switched network keeps its switches as
// vertices after the hosts: they route and count in hop distances, only hosts
// (0..N()-1) get ranks and jobs, and hosts are grouped under their leaf switch.
// Graphs are read from an edge list (ReadGraph, %switch lines for switches),
// ibnetdiscover output in its default and -p forms with an optional node-name-map
// (ReadIBNetDiscover; infiniband-diags ibnetdiscover(8)), the link list OpenSM and
// ibdiagnet write (ReadSubnetLst: opensm-subnet.lst, ibdiagnet2.lst) and Omni-Path's
// opareport -o topology XML or -o links text (ReadOPAReport), the last three named
// alike (one builder, ibFabric); ReadGraphFormat detects which. Slurm's
// topology.conf and topology.yaml are read by package slurm, whose ReadGraphFormat
// adds them and falls back to this one: topo knows nothing of Slurm.
// Node sets are Slurm hostlist expressions (package hostlist).
//
// Synthetic switched machines follow SST merlin's topology builders
// (sst-elements src/sst/elements/merlin/topology): "fattree:4,4:4,4:8" is merlin's
// fattree "shape", "dragonfly:hosts_per_router=...,routers_per_group=...,
// intergroup_links=...,num_groups=..." its dragonfly with absolute global links. Their
// hosts, switches and links are counted (overflow-safely) before anything is
// allocated, and a machine past MaxSyntheticHosts hosts, 2^20 switches or
// MaxSyntheticLinks links is refused with the counts and a memory estimate.
//
// A graph's structure is typed data, recognised once, wherever the graph came from:
// Graph.Dragonfly (hosts per router, routers per group, groups: the builder's record,
// or found from the links of a graph read from a file, however it numbers its hosts
// and switches, with the routers' numbering in DragonflyRouterOf and
// DragonflyRouterVertex, the reason a graph is none in DragonflyReason, and in
// DragonflyGroupsCertain whether a file's links allow other groups as well) and
// Graph.TreeLevels (the switch levels of a tree fabric). netsim routes by them;
// nothing re-parses a spec.
//
// Machine specs on the command line (ParseSpec): "mesh:16x16", "torus:8x8",
// "mesh:8x8x5", "mesh:8x8x5:wrap=yz" (wrap letters x, y, z, w, then d4, d5, ... are not
// needed in practice), and the published simulators' "mesh[16,16,1]" (trailing
// dimensions of size 1 are dropped).
package topo
