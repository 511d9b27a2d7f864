// Package alloc holds online processor allocators: each keeps a machine's free/busy
// state (State) and, when a job starts, chooses the nodes it gets.
//
//   - Curve-based (Leung et al. 2002, "Processor Allocation on Cplant", §2.3): the sorted
//     free list, First Fit, Best Fit and Sum of Squares along any 1D ordering (a built-in
//     curve or a ranking file), each with the minimum-span fallback, in a linear and a
//     ring variant.
//   - Center-based (Bender et al. 2005 §5; Bunde et al. 2004 §2; Johnson et al. 2010
//     §II): MC1x1 with plain or greedy outer shells and Johnson's tie-breaking, Gen-Alg,
//     MM and MM+Inc (MM, Gen-Alg and MM+Inc are package ptas's implementations).
//   - Block-based: the Multiple Buddy Strategy (Lo, Windisch, Liu and Nitzberg 1997) as
//     the comparator.
//   - I/O-aware (P. Liu, C.-C. Hsu and J.-J. Wu, "I/O Processor Allocation for Mesh
//     Cluster Computers", §3-§4; the paper file gives no DOI): the binary-tree family
//     bt, sbt, dbt and their independent and dependent non-contiguous variants
//     (bintree.go), the spatially compact scbt and Mache et al.'s parallel layout plas
//     (scbt.go), and the compactness measures D (Definition 1) and Lemma 1's spatial
//     compactness (compact.go). Choices where the paper is silent are in those files'
//     notes and docs/io.md.
//
// Parse builds an allocator from a spec such as "bf:hilbert" or "mc1x1:tb=3,9,3,2".
// With Options.Compat = CompatPReMAS every allocator follows the published simulator
// exactly, which is how the published tables are reproduced. The center-based
// allocators remember their decisions: a request on a free set met before gets the
// same answer without a search (a replay meets about 40% of its decisions again;
// Options.NoMemo turns that off). Every allocator but bt, sbt, dbt and paging with
// pages of several nodes can also mark given nodes busy (Occupier), deciding then as
// if jobs held them: AllocateWithout and Mask keep decisions off nodes that way (a
// replay's partitions); those take partitions through ForPartitions's view, whose
// release of a job's block or pages the Mask follows by holding again the nodes it
// keeps away (BlockOccupier). Rules, tie-breaking and measured costs: docs/alloc.md and
// docs/sim.md.
//
// Papers: V. J. Leung et al., "Processor Allocation on Cplant: Achieving General
// Processor Locality Using One-Dimensional Allocation Strategies" (IEEE Cluster 2002,
// doi:10.1109/CLUSTR.2002.1137758); M. A. Bender et al., "Communication-Aware
// Processor Allocation for Supercomputers" (WADS 2005, doi:10.1007/11534273_16);
// D. P. Bunde, V. J. Leung and J. Mache, "Communication Patterns and Allocation
// Strategies" (IPDPS 2004 workshops); C. R. Johnson, D. P. Bunde and V. J. Leung, "A
// Tie-Breaking Strategy for Processor Allocation in Meshes" (ICPP workshops 2010);
// the paper files of these two give no DOI.
package alloc
