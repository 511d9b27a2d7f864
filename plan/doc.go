// Package plan is the first user's job in one call: a site's network, its
// slurm.conf (and topology.conf or topology.yaml) and its job history in; the certified ordering of
// its compute hosts, every way the site's Slurm can be told to follow it (a
// deployment: weights, names, tree, block, torus3d, next to the current
// configuration and where production ran the jobs), each replayed on the history
// through procalloc's emulation of Slurm's node selection, a recommendation with its
// caveats, and the files that deploy it (slurm.conf merged, topology file, report,
// steps) out. Make does the work and returns the files; it writes nothing.
//
// The parts are the project's own: the ordering is order.SolveOrdering (procalloc
// order's machinery, within a time limit, with its bound and gap), the files are
// package slurm's readers and writers (slurm.conf read as slurmctld reads it), the
// emulation is alloc's Slurm selection (alloc.NewSlurm: Slurm 22.05's cons_tres
// without and with topology/tree, 26.05.3's topology/block) and this package's
// torus3d, the replay is sim.Run with production's schedule (sim.SchedAsRun) when
// the history is an sacct trace. Each Deployment gives the alloc.Allocator that
// predicts Slurm's placements under it (Deployment.Allocator), the check against a
// real Slurm builds on that.
//
// It sits above sim (it replays) and below cmd/procalloc, which maps the flags of
// procalloc plan onto Options and writes Plan.Files atomically.
//
// The problem: Leung et al., "Processor Allocation on Cplant: Achieving General
// Processor Locality Using One-Dimensional Allocation Strategies", IEEE Cluster
// 2002, doi:10.1109/CLUSTR.2002.1137758 (orderings and F); Slurm: Yoo, Jette,
// Grondona, "SLURM: Simple Linux Utility for Resource Management", JSSPP 2003,
// doi:10.1007/10968987_3.
package plan
