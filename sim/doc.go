// Package sim replays workload traces through a scheduler and a processor allocator
// and measures the allocations, the way the published allocation studies did
// (Leung et al. 2002 §3; Bunde et al. 2004 §3; Bender et al. 2005 §5; Johnson et al.
// 2010 §I and §III: full titles in package alloc). With alloc.CompatPReMAS it follows
// the PReMAS simulator exactly and reproduces the published tables; docs/sim.md says
// how, rule by rule.
//
// Machines are grids or graphs (switched networks: hop distances through the
// switches). Span, ring span and stretch-span are measured on the ranks of the
// allocator's ordering, as Leung et al. 2002 §2.3 define span on the ranking. Traces
// are SWF, the converted format, or Slurm accounting (sacct(1) -P output, read by
// package slurm); the as-run scheduler and the alloc as-run allocator replay
// production's recorded start times and node lists (docs/fabric.md).
//
// Jobs may be kept on the nodes of their Slurm partitions (Config.Partitions,
// Spec.SlurmConf; partition.go) under every scheduler: with jobs of several
// partitions FCFS and Cplant walk the partitions' fronts as Slurm's main
// scheduler does (job_scheduler.c, _schedule: a front that cannot start holds
// its partition and keeps later fronts off its nodes), and EASY reserves, by
// count, for each partition's front and starts a job only if it delays no
// reservation ahead of it (sched.go; docs/sim.md, "Partitions"); the jobs of
// a partition of a higher PriorityTier come first (Config.PartitionTiers), as
// Slurm sorts its queue. Jobs slurm.conf's partition State or limits would have
// kept pending are replayed as the history ran them, with a Warning. Each job's
// partition (sacct's, comma-joined for several; none or a removed one: the
// default) comes from AssignPartitions, which procalloc plan uses too.
//
// Spec is one replay with every choice typed (trace, window and scaling, machine,
// allocator, scheduler, conventions, network model, baseline): Validate reports every
// mistake as a FieldError naming its field, Run returns a Report (the summary with
// per-size rows; its JSON is "procalloc sim --json"), and Grid and RunGrid run many
// on one pool of workers, results in input order. The procalloc commands sim,
// compare and sweep are this library with flags; docs/sim.md, "The replay library".
// Metric names (the Metric constants, Metrics) are defined here once.
//
// Batch is the I/O experiment of Liu, Hsu and Wu, "I/O Processor Allocation for Mesh
// Cluster Computers" (§5): a batch of tasks that communicate and then write to the
// I/O nodes, on the network model of package netsim; docs/io.md.
package sim
