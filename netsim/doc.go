// Package netsim is procalloc's network model: routes, channels, messages and their
// contention, so that a replay can let communication decide how long a job runs.
//
// It follows the experiments of D. P. Bunde, V. J. Leung and J. Mache,
// "Communication Patterns and Allocation Strategies" (IPDPS 2004 workshops, 2004;
// the paper file gives no DOI), §3.2: every job sends a quota of messages in a
// pattern (all-to-all, n-body, random) over a mesh with x-y routing, and ends when
// they have all arrived. Bunde et al. used ProcSimity's flit-level wormhole model
// (Windisch, Miller and Lo, "ProcSimity: an experimental tool for processor
// allocation and scheduling in highly parallel systems", Frontiers '95, 1995,
// doi:10.1109/FMPC.1995.380463); Engine models wormhole switching at message level,
// as described in W. J. Dally and B. Towles, "Principles and Practices of
// Interconnection Networks" (Morgan Kaufmann, 2004), §13.2 (wormhole flow control),
// §14.2 (dimension-order routing) and §3.3 (bisection bounds). docs/comm.md states
// the model, its approximations and its validation.
//
// The pieces:
//   - Router: the one routing layer of the message engine, the flit engine and the
//     static route metrics: dimension-ordered routes on meshes and tori (dateline
//     virtual channels on wrapped dimensions; ringDirection with a TiePolicy),
//     IORouter's I/O links, minimal routing on dragonflies (their structure from
//     topo.Graph.Dragonfly), shortest paths with destination-modulo ties on other
//     graphs (fat trees: their levels from topo.Graph.TreeLevels).
//   - Engine: the discrete-event wormhole model, deterministic, integer cycles;
//     distance classes (hopclass.go) on graphs whose routes could wait in a cycle.
//   - FlitEngine: a cycle-level model of BookSim2's input-queued virtual-channel
//     router network (Jiang et al., ISPASS 2013, doi:10.1109/ISPASS.2013.6557149):
//     per-VC buffers, credits, iSLIP allocators, BookSim2's pipeline timing;
//     FlitUniformTraffic is BookSim2's synthetic-traffic experiment on it (the
//     patterns of Synthetic: uniform, transpose, bitcomp, bitrev, shuffle, tornado,
//     neighbor, randperm, hotspot; the message engine's UniformTraffic takes them
//     too). Its files: flit_config.go (FlitConfig), flit_build.go (ports and
//     links), flit.go (the cycle loop), flit_route.go (routing), flit_alloc.go (the
//     allocators and switch traversal), flit_deadlock.go (the watchdog). It matches
//     BookSim2's saturation throughput and zero-load latency within a few percent
//     (docs/comm.md, "The flit engine against BookSim2").
//   - Pattern and Workload: jobs' communication patterns and message quotas.
//   - UniformTraffic: the open-loop latency/throughput experiment.
//   - RouteMeter: static per-job metrics (message distance, routes sharing a link);
//     all-to-all loads are counted without tracing the p(p-1) routes, per line on a
//     mesh, per line and pair of line groups on a torus (prefix sums on the ring
//     unrolled twice), per subtree on a fat tree or tree (treeModel: the structure
//     behind the router's rule checked switch by switch, no next-hop table), per
//     router and group on a dragonfly, else on the destinations' in-trees on a graph
//     (its routes are destination-based), identical to the trace; in-tree counts of
//     a repeated node list are remembered.
//   - GraphRouter stores a hosts x vertices next-hop table (pendant hosts aside: their
//     one link is their next hop) and refuses one of more
//     than MaxRouteTable entries (1 GiB) before allocating it.
//   - IORouter and Disks: I/O nodes attached along one side of a mesh and their disks
//     (P. Liu, C.-C. Hsu and J.-J. Wu, "I/O Processor Allocation for Mesh Cluster
//     Computers", §2 and §5.1); docs/io.md.
package netsim
