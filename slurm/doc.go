// Package slurm reads and writes Slurm's files: the one home of what procalloc knows
// about Slurm's formats, so that a change in Slurm is a change here.
//
// Reading: topology.conf (ParseTopologyConf; topology.conf(5): tree lines
// SwitchName=/Nodes=/Switches=, block lines BlockName=/BlockSizes=, or 23.11's
// BlockLevels=) and topology.yaml
// (ParseTopologyYAML; topology.yaml(5): tree, block, torus3d) are parsed once, with
// slurmctld's rules, into one typed Topology: a Tree (switches in file order, leaves,
// levels, parents), Blocks (blocks in file order, block sizes) or a Torus, plus the
// warnings of what Slurm accepts but logs. Everything else derives from it: the
// network of --graph (Topology.Graph; ReadTopologyConf and ReadTopologyYAML are that
// shortcut), alloc's slurm:tree and slurm:block (ReadTopology, ParseTree, ParseBlocks:
// the file order the selection depends on), and WriteTopology, which builds a Tree and
// checks it by the same rules. ReadGraphFormat and DetectGraphFormat add the two
// formats to topo's generic ones (edge lists, ibnetdiscover, subnet.lst, opareport),
// which topo reads without knowing Slurm. Node sets everywhere are hostlist expressions (package topo/hostlist,
// checked against scontrol show hostnames); node order is Slurm's strnatcmp
// (hostlist.NaturalCompare).
//
// Writing an ordering (package curves) so that Slurm follows it:
//   - slurm-weight (FormatWeight, a ranking format registered with curves):
//     NodeName=HOST Weight=RANK+1 lines for a new slurm.conf, and MergeWeights, which
//     merges Weight= into the NodeName lines of an existing slurm.conf. With distinct
//     weights Slurm allocates the lowest free weights: a sorted free list along the
//     ordering (alloc's freelist:ORDER), not Best Fit (measured on 16 slurmd of Slurm
//     22.05.8: after freeing ranks {0}, {3,4,5}, {10-15} of a 4x4 Hilbert ordering a
//     2-node job got ranks 0 and 3). Weights win over topology/tree.
//   - slurm-topology (WriteTopology): a tree topology.conf with leaf switches in
//     ordering order, one tree for every machine (virtual group and root switches
//     over a dragonfly's routers, a virtual tree along the ordering on a grid). With TopologyParam=SwitchAsNodeRank (Slurm 23.02+; 22.05
//     accepts and ignores it) the leaf order is the node rank, and inside a leaf the
//     order of slurm.conf's NodeName lines, never the order written in the leaf
//     (measured on Slurm 26.05.3); WriteTopology returns these as warnings.
//   - slurm-block (WriteBlock): a topology/block topology.conf whose blocks are
//     consecutive runs of the ordering, BlockSizes doubling from the base. Slurm
//     26.05.3 loads it and keeps every job inside the smallest aligned aggregation of
//     blocks that holds it; among equally free blocks it takes the later one, and
//     inside a block natural name order.
//   - slurm-torus3d (WriteTorus3D): a topology.yaml in Slurm 26.05's torus3d schema
//     (toruses, placements); Slurm 26.05.3 loads it and places every job on a
//     placement box; a job whose size matches no placement is refused at submission
//     ("Requested topology configuration is not available").
//
// Which Slurm: the formats follow the man pages and source of Slurm 26.11-rc
// (SchedMD/slurm: src/plugins/topology/{tree,block,torus3d}, topology.yaml(5),
// slurm.conf(5), scontrol(1)); the writers were loaded into Debian 12's Slurm 22.05.8
// and into Slurm 26.05.3 built from source (scripts/slurm-build.sh; the tests
// OnSlurmNew); the README's Slurm recipe has the commands and what Slurm did.
//
// slurm.conf: ReadConf reads it as slurmctld's parser does (parse_config.c: spaces
// around '=', quoted values, escapes, continued lines; read_config.c: NodeName=DEFAULT
// inheritance; node_conf.c: per-node NodeAddr/NodeHostname/Port lists);
// ReadConfIncluding follows its Include lines as slurmctld does, each line naming
// its file, and Conf.EditLines then writes each file as its own (ConfFiles: the
// slurm.conf with its Include lines kept, each included file with its edited
// lines); ParseTopologyConfIncluding follows a topology.conf's Include lines by the
// same code. Conf.Edit
// and SplitNodeLine rewrite node lines keeping every other line byte for byte:
// MergeWeights and package plan's deployments are built on them.
//
// It follows no paper: Slurm's man pages and source are its reference (above).
//
// Accounting: ReadSacct reads sacct -P output (SacctFields) into jobs with their
// times, sizes and node lists; package sim replays them.
//
// In the architecture it sits above topo and curves (it reads into topo's graphs and
// writes curves' orderings) and below ilp, alloc and sim, which may read Slurm's
// files through it.
package slurm
