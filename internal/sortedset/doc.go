// Package sortedset reads sets kept as ascending slices: how many values two such
// sets share (Common) and whether they share one (Overlap), by one merge-like walk
// of both. topo counts the triangles a dragonfly link closes with it, slurm the
// triangles of a link between separate trees, plan whether two boxes of a torus
// share a node. SortStableContext makes such slices: slices.SortStableFunc's
// order, looking at a context every few thousand elements (alloc's Slurm
// emulators sort 10^5 node names by hostlist.NaturalCompare with it).
//
// It follows no paper.
package sortedset
