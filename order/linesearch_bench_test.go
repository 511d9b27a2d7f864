package order

import (
	"context"
	"fmt"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// BenchmarkMoveScore measures the incremental score of one move of the scalable path's
// line search (a swap of ranks 3 apart, a reversal of 40 ranks, an Or-opt move of 2
// ranks by 4) at 10^4 and 10^5 nodes, on a mesh and a fat tree, K = 4. The cost must
// not grow with n: O(K) to O(K^2) distance evaluations per move. The anchors cycle
// through 64 ranks, so that a graph's distance structure is warm.
func BenchmarkMoveScore(b *testing.B) {
	w := curves.Weights{1, 0.5, 0.25, 0.125}
	for _, spec := range []string{"mesh:100x100", "mesh:320x320", "fattree:16,16:16,16:40", "fattree:32,32:32,32:100"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			b.Fatal(err)
		}
		ls := newLineSearch(context.Background(), m, w, false, toInt32(curves.RowMajor(m.N())), 1)
		anchors := make([]int, 64) // 64 ranks: a graph warms a few hundred distance sources
		for i := range anchors {
			anchors[i] = (i*7919 + 13) % (m.N() - 64)
		}
		name := fmt.Sprintf("%s/n=%d", spec, m.N())
		b.Run(name+"/swap", func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := anchors[i&63]
				i++
				ls.setPos = append(ls.setPos[:0], p, p+3)
				ls.setNode = append(ls.setNode[:0], ls.ord[p+3], ls.ord[p])
				ls.deltaSet(ls.setPos, ls.setNode)
			}
		})
		b.Run(name+"/reverse", func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := anchors[i&63]
				i++
				ls.deltaReverse(p, p+40)
			}
		})
		b.Run(name+"/oropt", func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := anchors[i&63]
				i++
				ls.deltaRotate(p, p+5, 2)
			}
		})
	}
}
