// Package sim replays workload traces through a scheduler and a processor allocator
// and measures the allocations, the way the published allocation studies did
// (Leung et al. 2002 §3; Bunde et al. 2004 §3; Bender et al. 2005 §5; Johnson et al.
// 2010 §I and §III). With alloc.CompatPReMAS it follows the PReMAS simulator exactly
// (../shared/reference/reference-simulators.md) and reproduces the published tables;
// see docs/sim.md.
//
// Batch is the I/O experiment of Liu, Hsu and Wu, "I/O Processor Allocation for Mesh
// Cluster Computers" (§5): a batch of tasks that communicate and then write to the
// I/O nodes, on the network model of package netsim; docs/io.md.
package sim
