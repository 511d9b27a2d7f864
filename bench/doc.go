// Package bench holds procalloc's benchmarks of hot paths (go test -bench . ./bench)
// and, alongside them, the quality reports that compare allocators.
//
// alloc_bench_test.go times one allocation plus its release for every registered
// allocator family: on a 32x32 and a 24x24x24 mesh at 50% random occupancy (curve
// allocators along a Hilbert-type curve, MBS, and the center-based allocators of
// Bender et al. 2005 §5 and Johnson et al. 2010), and the curve allocators and MBS on
// a 1,000,000-node machine (Leung et al. 2002 §2.3 targets machines where the
// allocator must stay cheap as the machine grows). Figures are reported in
// docs/alloc.md.
package bench
