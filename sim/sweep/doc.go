// Package sweep expands a sweep file (lists of traces, machines, allocators,
// schedulers, load factors, communication patterns and seeds) into replay items in
// a fixed order, names each by a hash of its parameters, and keeps results as JSON
// lines that survive being killed: each finished item is appended whole (one write
// to a file opened for appending, under an flock so that two runs never write one
// file at once), a rerun skips what is done, a torn last line is cut off and its
// item redone, a damaged line elsewhere is skipped with a warning. Everything read
// is capped (MaxSpecBytes, MaxItems, MaxLineBytes, MaxResultsBytes). Items split
// into shards by index (i mod n), the way Slurm job arrays run them; merging the
// shards' files gives exactly the file of a single run. Spec.Run runs items with
// no command line: each item's flags are decoded onto sim.Spec's fields
// (ApplyFlags, Params.Replay).
//
// Replay grids of this kind are the experiments of D. P. Bunde, V. J. Leung and
// J. Mache, "Communication Patterns and Allocation Strategies" (IPDPS 2004
// workshops, 2004; the paper file gives no DOI), §4 (2 meshes x 3 patterns x 5 load
// factors x 12 allocators) and of C. R. Johnson, D. P. Bunde and V. J. Leung, "A
// Tie-Breaking Strategy for Processor Allocation in Meshes" (ICPP workshops 2010; the
// paper file gives no DOI), whose tie-breaking search is such a grid.
package sweep
