package alloc

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// The collector with its near candidates in buckets by sum (greedyBuckets)
// against the heap alone, center by center on 3D grids: windows of 64, 128 and
// 1,024 sums (so that candidates leave the window, go to the heap and come back,
// and the window moves down) and the default; for sampled free centers and
// several k, the same score, nodes taken in order and radius read, and for stops
// around the score the same give-up, radius and bound; every fourth center also
// against the plain definition. It requires each of the buckets' paths taken.
func TestGreedyBucketsMatchHeap(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(18, 18, 18), topo.Torus(20, 13, 17), topo.Mesh(17, 15, 16), topo.Torus(9, 9, 9),
		mustGrid(t, []int{16, 19, 13}, []bool{true, false, true}), topo.Torus(7, 12, 5)}
	rounds, sample := 4, 40
	if testing.Short() {
		rounds, sample = 2, 15
	}
	rng := rand.New(rand.NewPCG(29, 4))
	centers, gaveUps, plain := 0, 0, 0
	var scans, spills, lowered int
	nodesChecked := 0
	for gi, g := range grids {
		for r := range rounds {
			free := randomFreeSet(rng, g)
			bucketed, heap := greedyPair(t, g, free)
			bucketed.bucketWidth = []int{64, 128, 1024, 0}[(gi+r)%4]
			heap.bucketsOff = true
			nf := len(bucketed.fl)
			if nf < 2 {
				continue
			}
			for _, k := range lockstepSizes(rng, nf) {
				for range sample {
					c := bucketed.fl[rng.IntN(nf)]
					lower, L, m, _ := bucketed.shellScore(c, k, math.MaxInt)
					label := fmt.Sprintf("%s round %d, width %d, k=%d, center %d", g.Spec(), r, bucketed.bucketWidth, k, c)
					gaveUps += collectLockstep(t, label, "buckets", "heap", bucketed, heap, c, L, m, lower, centers%4 == 0, func() string {
						nodesChecked += bucketed.buckets.n
						return bucketNodesMatch(&bucketed.buckets, bucketed.candXY)
					})
					if centers%4 == 0 {
						plain++
					}
					centers++
				}
			}
			q := &bucketed.buckets
			scans, spills, lowered = scans+q.scans, spills+q.spills, lowered+q.lowered
			q.scans, q.spills, q.lowered = 0, 0, 0
		}
	}
	t.Logf("%d centers, %d give-ups, %d against the plain collector; %d taken from a bucket, %d sent from a bucket to the heap, %d windows moved down; %d bucketed candidates' copied coordinates checked",
		centers, gaveUps, plain, scans, spills, lowered, nodesChecked)
	if nodesChecked == 0 {
		t.Fatal("no bucketed candidate left after a run to check")
	}
	if centers < 500 || gaveUps < 200 || plain < 100 || scans == 0 || spills == 0 || lowered == 0 {
		t.Fatalf("only %d centers, %d give-ups, %d plain checks, %d bucket scans, %d spills, %d windows moved down",
			centers, gaveUps, plain, scans, spills, lowered)
	}
}

// Whole decisions with the buckets against the heap alone, in lockstep on random
// allocations and partial releases on 3D tori and meshes, with everything else
// on (the memo, the trees of runs, the probe, tiles; ties counted on every other
// grid, the orbit check of an empty torus where they are not): the same nodes,
// tie counts and tie statistics.
func TestGreedyBucketsDecisionsMatch(t *testing.T) {
	grids := []*topo.Grid{topo.Torus(12, 12, 12), topo.Mesh(11, 13, 10), topo.Torus(16, 9, 14), topo.Torus(10, 10, 10)}
	rng := rand.New(rand.NewPCG(4, 29))
	decisions := greedyDecisionsLockstep(t, grids, rng, "buckets", func(gi int, a *mc1x1) func() string {
		a.bucketWidth = []int{64, 0}[gi%2]
		return func() string {
			if a.buckets.scans == 0 {
				return "no candidate taken from a bucket"
			}
			return ""
		}
	}, func(a *mc1x1) { a.bucketsOff = true })
	t.Logf("%d decisions in lockstep", decisions)
}

// bucketNodesMatch walks every nonempty bucket of q after a run and reports ("" if
// none) a candidate whose copy of its coordinates (the bucket scan's node) is not
// its coordinates in xy, or a count of linked candidates other than q.n.
func bucketNodesMatch(q *greedyBuckets, xy []int32) string {
	if !q.on {
		return ""
	}
	linked := 0
	for word, m := range q.bits {
		for ; m != 0; m &= m - 1 {
			w := word<<6 | bits.TrailingZeros64(m)
			for i := q.head[w]; i >= 0; i = q.node[i][3] {
				if int(i) >= len(xy)/3 || !slices.Equal(q.node[i][:3], xy[3*i:3*i+3]) {
					return fmt.Sprintf("bucket %d: candidate %d's node %v, not its coordinates", w, i, q.node[i][:3])
				}
				if linked++; linked > q.n {
					return fmt.Sprintf("more than the %d bucketed candidates linked", q.n)
				}
			}
		}
	}
	if linked != q.n {
		return fmt.Sprintf("%d candidates linked in buckets, %d counted", linked, q.n)
	}
	return ""
}
