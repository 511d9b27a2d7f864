// Package sim replays workload traces through a scheduler and a processor allocator
// and measures the allocations, the way the published allocation studies did
// (Leung et al. 2002 §3; Bunde et al. 2004 §3; Bender et al. 2005 §5; Johnson et al.
// 2010 §I and §III: full titles in package alloc). With alloc.CompatPReMAS it follows
// the PReMAS simulator exactly and reproduces the published tables; docs/sim.md says
// how, rule by rule.
package sim
