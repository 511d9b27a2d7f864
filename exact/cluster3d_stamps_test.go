package exact

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestPlaneSearchStampsWrapAround: the 3D search's caches are keyed by 32-bit
// stamps (one per bound evaluation, boundW, and one per pushed layer, push); a long
// search (k in the thousands of millions of evaluations) wraps them around, and
// entries written 2^32 evaluations earlier would then match again. A search whose
// counters wrap at once, with every cache entry left from a former round stamped
// with the first stamp after the wrap, must give what a fresh search gives: the
// same layers, cost, bound and node count.
func TestPlaneSearchStampsWrapAround(t *testing.T) {
	for _, k := range []int{12, 20} {
		inc := [][]int{{k}} // a poor incumbent: the search finds the optimum itself
		wantLayers, wantCost, wantBound, wantOK, wantNodes := planeOptimum(context.Background(), k, inc)
		// Both counters wrap to 1 after d steps, d = 0 .. 2k (the first bottom
		// layer with layers above it is the k-th push, k = 12 and 20); every cache
		// entry is stamped 1 from the former round, with a cost that prunes
		// everything.
		for d := range uint32(2 * k) {
			s := &planeSearch{ctx: context.Background(), k: k, openLB: infCost}
			s.stamp, s.pushes = math.MaxUint32-d, math.MaxUint32-d
			n := k + 2
			stale := func(c []int64, st []uint32) {
				for i := range c {
					c[i], st[i] = infCost, 1
				}
			}
			s.zC, s.zS = make([]int64, 2*k+4), make([]uint32, 2*k+4)
			stale(s.zC, s.zS)
			s.xyC, s.xyS = make([]int64, 2*n*n), make([]uint32, 2*n*n)
			stale(s.xyC, s.xyS)
			for range k + 1 {
				c, st := make([]int64, 2*n*n), make([]uint32, 2*n*n)
				stale(c, st)
				s.pzC, s.pzS = append(s.pzC, c), append(s.pzS, st)
			}
			layers, cost, bound, ok, nodes := s.optimum(inc)
			if s.stamp > math.MaxUint32/2 || s.pushes > math.MaxUint32/2 {
				t.Fatalf("k %d, d %d: no wrap-around (stamp %d, pushes %d)", k, d, s.stamp, s.pushes)
			}
			if cost != wantCost || bound != wantBound || ok != wantOK || nodes != wantNodes || !slices.EqualFunc(layers, wantLayers, slices.Equal) {
				t.Fatalf("k %d, wrap after %d steps: cost %d bound %d optimal %v nodes %d layers %v; fresh %d %d %v %d %v",
					k, d, cost, bound, ok, nodes, layers, wantCost, wantBound, wantOK, wantNodes, wantLayers)
			}
		}
		if wantCost >= planeCost(inc) {
			t.Errorf("k %d: the incumbent is optimal (%d): the test does not make the search work", k, wantCost)
		}
	}
}
