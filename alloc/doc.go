// Package alloc holds online processor allocators: each keeps a machine's free/busy
// state and, when a job starts, chooses the nodes it gets.
//
// Curve-based allocators (Leung et al. 2002, §2.3) allocate along a 1D ordering of the
// nodes; center-based allocators (Bender et al. 2005 §5; Bunde et al. 2004; Johnson et
// al. 2010) pick k free nodes near a center, scored by total pairwise L1 distance.
// Papers: ../shared/papers.
package alloc
