package plan

import "github.com/procalloc/procalloc/slurm"

// Version is a Slurm release, year.month (22.05, 23.02, 26.05): slurm.Version,
// which the slurm package's key tables are read by.
type Version = slurm.Version

// DefaultVersion is the Slurm assumed when neither --slurm-version nor scontrol
// says: Debian 12's 22.05, the oldest Slurm whose behaviour procalloc measured.
var DefaultVersion = Version{Major: 22, Minor: 5}

// ParseVersion reads "22.05", "22.05.8", "slurm 22.05.8" (scontrol --version's
// output) or "slurm-wlm 23.11.4" (slurm.ParseVersion).
func ParseVersion(s string) (Version, error) { return slurm.ParseVersion(s) }

// Releases that changed what a deployment can do (measured or read in Slurm's
// source; README, "From an ordering to a running Slurm").
var (
	// V2302 honours TopologyParam=SwitchAsNodeRank (22.05 accepts and ignores it).
	V2302 = Version{Major: 23, Minor: 2}
	// V2311 has topology/block.
	V2311 = Version{Major: 23, Minor: 11}
	// V2405 reads topology/block's BlockSizes= (23.11 BlockLevels= instead).
	V2405 = Version{Major: 24, Minor: 5}
	// V2411's topology/tree takes a closer leaf only when it holds the rest of the
	// job and lowers the counts above a used leaf (alloc.SlurmConfig.Tree2411).
	V2411 = Version{Major: 24, Minor: 11}
	// V2505 reads topology.yaml (several topologies; src/interfaces/topology.c,
	// topology_g_init) and a partition's Topology= picks one.
	V2505 = Version{Major: 25, Minor: 5}
	// V2605 has topology/torus3d in topology.yaml.
	V2605 = Version{Major: 26, Minor: 5}
)
