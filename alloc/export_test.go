package alloc

// forceLists makes an MC1x1 allocator work tied node sets out on lists, as on
// machines too large for the ball-mask table, however small its machine, and
// tell them apart from counts on tori and 3D grids (mayShareArcs) whatever the
// job size: the tests run both paths against the reference.
func forceLists(a Allocator) {
	a.(*mc1x1).x.maskWords = 0
	a.(*mc1x1).arcShareMin = 0
}

// For the real-Slurm comparison (package alloc_test, slurm_real_test.go), which
// drives Slurm through internal/slurmtest, itself importing alloc.

// RandomSlurmBlocks is randomSlurmBlocks (slurm_block_test.go).
var RandomSlurmBlocks = randomSlurmBlocks

// BlockRetried says whether the last topology/block selection had to be retried
// with fewer candidates (common_topo_choose_nodes).
func (a *SlurmAllocator) BlockRetried() bool { return a.blk != nil && a.blk.retries > 0 }

// ScoreEveryCenter makes an MC1x1 allocator find its centers by the plain
// definition (every free node scored, every tied one given its tie score), the
// reference its fast paths are checked against (center_workload_test.go).
func ScoreEveryCenter(a Allocator) { a.(*mc1x1).centers = centersPlain }

// GreedyCounts returns how an mc1x1-greedy allocator decided its centers so far
// (greedyCounts), by name: decided, by the memo, translated, collected, of them
// resumed and gave up, the nodes its collections took, and the slack (best score
// less the least count bound, summed over decisions).
func GreedyCounts(a Allocator) map[string]int64 {
	c := a.(*mc1x1).counts
	return map[string]int64{"decided": c.decided, "memo": c.memo, "translated": c.translated,
		"collected": c.collected, "resumed": c.resumed, "gaveup": c.gaveUp, "taken": c.taken, "slack": c.slack}
}

// For the Mask's lockstep test (package alloc_test, mask_test.go), which uses
// internal/masktest, itself importing alloc.

// RandomSlurmWeights is randomSlurmWeights (slurm_free_test.go).
var RandomSlurmWeights = randomSlurmWeights

// TwoSpineTree is twoSpineTree (slurm_free_test.go).
var TwoSpineTree = twoSpineTree

// RandomSharedTree is randomSharedTree (slurm_test.go).
var RandomSharedTree = randomSharedTree

// SlurmNames is slurmNames (slurm_test.go).
var SlurmNames = slurmNames
