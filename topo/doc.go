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
// A Graph is an irregular network read from an edge list; its hop distances come from
// breadth-first search (BreadthFirst, the module's one BFS, which the graph orderings
// of package curves and the ordering solver's starts use too). Processors may be
// grouped under switches, as Leung et al. §2.2 order hierarchical networks switch by
// switch.
//
// Machine specs on the command line (ParseSpec): "mesh:16x16", "torus:8x8",
// "mesh:8x8x5", "mesh:8x8x5:wrap=yz" (wrap letters x, y, z, w, then d4, d5, ... are not
// needed in practice), and the published simulators' "mesh[16,16,1]" (trailing
// dimensions of size 1 are dropped).
package topo
