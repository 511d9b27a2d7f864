// Package bench measures allocator speed: the library behind `procalloc bench`
// (Run: each allocator replays one workload, a trace's start and end order or a
// seeded synthetic stream, and the time inside its calls is taken by alloc.Clock,
// as decision latencies, decisions per second and memory, next to the floor of
// reading the free set once per decision), and procalloc's benchmarks of hot paths
// (go test -bench . ./bench) beside it. The library lives here rather than in sim
// because it measures allocators, not replays: it needs only a workload's order of
// starts and ends (which sim's replay supplies for traces), and keeps its
// bookkeeping out of the timed calls.
//
// alloc_bench_test.go times one allocation plus its release for every registered
// allocator family: on a 32x32 and a 24x24x24 mesh at 50% random occupancy (curve
// allocators along a Hilbert-type curve, MBS, and the center-based allocators of
// Bender et al. 2005 §5 and Johnson et al. 2010), and the curve allocators and MBS on
// a 1,000,000-node machine (Leung et al. 2002 §2.3 targets machines where the
// allocator must stay cheap as the machine grows). Figures are reported in
// docs/alloc.md. The package follows no paper of its own: the allocators it times
// name theirs, with titles and DOIs, in package alloc.
package bench
