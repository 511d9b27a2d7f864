package alloc_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/masktest"
	"github.com/procalloc/procalloc/topo"
)

// A Mask places every job of random multi-partition histories exactly where
// AllocateWithout does (internal/masktest.Lockstep: random overlapping
// partitions switched at random, a finished job's nodes outside the current
// partition held) for an allocator of every family that is an Occupier besides
// Slurm's emulations (TestMaskMatchesAllocateWithout): the curve allocators
// (linear and ring), paging with pages of one node, scbt, MC1x1 and its greedy
// variant with and without tie-breaking, MC, MM, MM+Inc, Gen-Alg on grids and
// networks, opt, MBS and the non-contiguous binary-tree variants. So a replay's
// partitions through a Mask keep each decision where the definition puts it
// (TestOccupyIsTakenByJobs checks AllocateWithout against it).
func TestMaskMatchesAllocateWithoutEveryOccupier(t *testing.T) {
	cases := []struct{ spec, m string }{
		{"freelist:hilbert", "mesh:8x8"}, {"ff:snake", "mesh:9x7"}, {"bf:morton:ring", "mesh:8x8"},
		{"sos:hilbert", "mesh:8x8"}, {"bf:rcm", "fattree:4,4:4,4:4"}, {"paging:snake:0", "mesh:6x6"},
		{"scbt", "mesh:8x4"}, {"plas", "mesh:6x7"},
		{"mc1x1", "mesh:9x8"}, {"mc1x1:tb=3,9,3,2", "mesh:8x8"}, {"mc1x1", "torus:4x4x4"},
		{"mc1x1-greedy", "mesh:8x7"}, {"mc1x1-greedy:tb=3,9,3,2", "torus:6x6"},
		{"mc", "mesh:7x7"}, {"mm", "mesh:7x6"}, {"mminc", "mesh:4x4x3"}, {"genalg", "torus:6x5"},
		{"genalg", "fattree:4,4:4,4:4"}, {"genalg", "dragonfly:hosts_per_router=2,routers_per_group=4,intergroup_links=1,num_groups=5"},
		{"opt", "mesh:5x4"}, {"mbs", "mesh:8x8"}, {"mbs", "mesh:7x5x2"},
		{"ind-bt", "mesh:8x8"}, {"d-sbt:4", "mesh:8x4:io=left"}, {"ind-dbt:1/4", "mesh:4x8"},
	}
	histories := 8
	if testing.Short() {
		histories = 3
	}
	decisions := lockstepEach(t, cases, histories, 2028, 80, masktest.Lockstep)
	t.Logf("%d allocators, %d decisions placed alike", len(cases), decisions)
}

// The same for the allocators whose unit is larger than a node, through their
// alloc.ForPartitions view (alloc.BlockOccupier: a job's release frees its
// whole block or pages, then the mask holds the free nodes it keeps away):
// bt, sbt and dbt (with and without I/O nodes, square and oblong meshes) and
// paging with pages of 2x2 and 4x4 nodes. TestBlockOccupiersMatchPlainModel
// checks the decisions against the definition itself.
func TestMaskMatchesAllocateWithoutBlocks(t *testing.T) {
	cases := []struct{ spec, m string }{
		{"bt", "mesh:8x8"}, {"sbt:4", "mesh:16x8"}, {"dbt:1/4", "mesh:8x16:io=left"}, {"bt", "mesh:4x4:io=top"},
		{"sbt:16", "mesh:16x16"}, {"dbt:1/8", "mesh:32x8:io=right"},
		{"paging:hilbert:1", "mesh:8x8"}, {"paging:snake:1", "mesh:10x6"}, {"paging:morton:2", "mesh:16x16"},
	}
	histories := 8
	if testing.Short() {
		histories = 4
	}
	decisions := lockstepEach(t, cases, histories, 2030, 120, masktest.Lockstep)
	t.Logf("%d allocators, %d decisions placed alike", len(cases), decisions)
}

// The same with the curve allocators' views (alloc.Viewer, curve_view.go): a
// mask that switches views in place of holding and freeing the nodes two
// partitions differ by places every job where AllocateWithout does, also with
// random nodes kept away besides a partition's outside, and the views' free
// states are the reference's (internal/masktest.LockstepViews), for every
// rule, linear and ring, on curves of every kind and machines of sizes that
// are not multiples of 64 and are; and with MBS's views (mbs_view.go: a free
// state per view, caught up node by node or, past catchUpBulk nodes, through
// the bitmap path) on meshes of one to many root blocks, layered and a torus.
func TestMaskViewsMatchAllocateWithoutCurves(t *testing.T) {
	cases := []struct{ spec, m string }{
		{"freelist:hilbert", "mesh:8x8"}, {"ff:snake", "mesh:9x7"}, {"ff:snake:ring", "mesh:13x11"},
		{"bf:hilbert-trunc", "mesh:12x10"}, {"bf:morton:ring", "mesh:8x8"}, {"bf:rcm", "fattree:4,4:4,4:4"},
		{"sos:gilbert", "mesh:16x8"}, {"sos:snake:ring", "mesh:10x7"}, {"scbt", "mesh:8x4"}, {"plas", "mesh:6x7"},
		{"bf:hilbert-trunc", "mesh:40x30"},
		{"mbs", "mesh:8x8"}, {"mbs", "mesh:7x5x2"}, {"mbs", "mesh:40x30"}, {"mbs", "mesh:128x5"}, {"mbs", "torus:13x11"},
		{"bt", "mesh:8x8"}, {"sbt:4", "mesh:16x8"}, {"dbt:1/4", "mesh:8x16:io=left"},
		{"ind-bt", "mesh:8x8"}, {"d-sbt:4", "mesh:8x4:io=left"}, {"ind-dbt:1/4", "mesh:32x16"}, {"d-bt", "mesh:16x16"},
	}
	histories := 16
	if testing.Short() {
		histories = 6
	}
	decisions := lockstepEach(t, cases, histories, 2029, 150, masktest.LockstepViews)
	t.Logf("%d allocators, %d decisions placed alike", len(cases), decisions)
}

// The same through the center-based allocators' bulk path (alloc.BulkOccupier:
// a mask holds and frees the nodes two sets differ by as bitmaps, the tables
// made out of date once a call, from the least coordinates of the bitmap's
// nodes): every job where AllocateWithout places it, also with random nodes
// kept away besides a partition's outside, and the free states the
// reference's (internal/masktest.LockstepBulk), for MC1x1 (plain, greedy, with
// tie-breaking), MC, MM, MM+Inc, Gen-Alg on grids and a network, opt, MBS
// (its free blocks made anew from the free nodes of the root blocks changed), on
// meshes and tori of one to four dimensions, first sides shorter and longer
// than a word, sizes multiple of 64 and not; and the non-contiguous binary
// trees (each node a leaf block, the tree's counts made again over the span of
// the leaves changed: BinaryTree.setLeaves).
func TestMaskBulkMatchesAllocateWithoutCenters(t *testing.T) {
	cases := []struct{ spec, m string }{
		{"mc1x1", "mesh:9x8"}, {"mc1x1", "mesh:40x30"}, {"mc1x1", "mesh:128x5"}, {"mc1x1", "mesh:70x9"},
		{"mc1x1", "torus:12x9"}, {"mc1x1", "torus:4x4x4"}, {"mc1x1", "mesh:66x3x4"}, {"mc1x1", "mesh:130"},
		{"mc1x1", "torus:5x4x3x2"}, {"mc1x1:tb=3,9,3,2", "mesh:12x10"}, {"mc1x1:tb=3,9,3,2", "torus:6x5x7"},
		{"mc1x1-greedy", "mesh:13x11"}, {"mc1x1-greedy:tb=3,9,3,2", "torus:6x6"},
		{"mc", "mesh:7x7"}, {"mc", "mesh:70x5"}, {"mc", "mesh:6x5x4"},
		{"mm", "mesh:7x6"}, {"mminc", "mesh:4x4x3"}, {"genalg", "torus:6x5"}, {"genalg", "fattree:4,4:4,4:4"},
		{"opt", "mesh:5x4"}, {"mbs", "mesh:8x8"}, {"mbs", "mesh:7x5x2"}, {"mbs", "mesh:40x30"}, {"mbs", "mesh:128x5"},
		{"mbs", "torus:13x11"},
		{"ind-bt", "mesh:8x8"}, {"d-sbt:4", "mesh:8x4:io=left"}, {"ind-dbt:1/4", "mesh:32x16"}, {"d-bt", "mesh:16x16"},
	}
	histories := 8
	if testing.Short() {
		histories = 3
	}
	decisions := lockstepEach(t, cases, histories, 2030, 100, masktest.LockstepBulk)
	t.Logf("%d allocators, %d decisions placed alike", len(cases), decisions)
}

// lockstepEach plays lockstep (masktest.Lockstep or LockstepViews) on two fresh
// allocators of each case, histories times with steps decisions each, seeded by
// the case's index and seed, and returns the decisions placed alike.
func lockstepEach(t *testing.T, cases []struct{ spec, m string }, histories int, seed uint64, steps int,
	lockstep func(testing.TB, *rand.Rand, alloc.Occupier, alloc.Occupier, int, string) int) int {
	t.Helper()
	decisions := 0
	for ci, c := range cases {
		m, err := topo.ParseMachine(c.m)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), seed))
		for h := range histories {
			var pair [2]alloc.Occupier
			for i := range pair {
				a, err := alloc.Parse(c.spec, m, alloc.Options{})
				if err != nil {
					t.Fatalf("%s on %s: %v", c.spec, c.m, err)
				}
				oc, err := alloc.ForPartitions(a)
				if err != nil {
					t.Fatalf("%s on %s: %v", c.spec, c.m, err)
				}
				pair[i] = oc
			}
			decisions += lockstep(t, rng, pair[0], pair[1], steps, fmt.Sprintf("%s on %s, history %d", c.spec, c.m, h))
		}
	}
	return decisions
}
