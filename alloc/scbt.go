package alloc

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// scbt, the spatially compact binary tree of Liu et al. §4.1.1: a request of k is cut
// into the powers of two of its binary representation and each is served by walking
// the orthogonal division tree from the root, going into the left subtree when it has
// enough free processors and otherwise taking all of the left subtree's free
// processors and continuing in the right one. Taken together this gives the job the
// k free processors that come first in the left-to-right order of the tree's leaves
// (a walk that always prefers the left subtree takes free leaves in that order, and
// each request continues where the previous one stopped). procalloc implements scbt
// as exactly that: the sorted free list along the leaf order of the division tree
// (the division tree is bt's: see bintree.go), which is a Z-order curve on square
// meshes. TestSCBTMatchesTreeWalk checks the equivalence against the paper's walk.
//
// plas, the Parallel Layout Allocation Strategy of Mache, Lo, Livingston and Garg,
// "The impact of spatial layout of jobs on parallel I/O performance" (IOPADS 1999),
// as Liu et al. §1 summarise it: a job's processors lie parallel to the line of I/O
// nodes, half of them on each side of the middle of that line. The primary source
// was not found among public texts (searched for "PLAS parallel layout Mache"), so
// procalloc's rule follows that summary: the job takes the first k free nodes in the
// order of (1) distance from the I/O side (column by column for io=left or right,
// row by row for io=top or bottom), then (2) distance from the middle of the side,
// the lower coordinate first on ties. A job of one column's size on an empty
// machine takes the whole column nearest the I/O nodes, half above and half below
// the middle. Without I/O nodes plas assumes io=left.

func init() {
	register("scbt", "spatially compact binary tree (Liu et al. §4.1.1): free list in the leaf order of the orthogonal division; 2^m x 2^n meshes; no ARG",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			if arg != "" {
				return nil, fmt.Errorf("scbt takes no argument, got %q", textin.Clip(arg))
			}
			return NewSCBT(m)
		})
	register("plas", "parallel layout (Mache et al. 1999, as in Liu et al. §1): columns parallel to the I/O side, nearest first, centred on its middle; 2D meshes; no ARG",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			if arg != "" {
				return nil, fmt.Errorf("plas takes no argument, got %q", textin.Clip(arg))
			}
			return NewPLAS(m)
		})
}

// NewSCBT returns the spatially compact binary tree allocator of a 2^m x 2^n mesh.
func NewSCBT(m topo.Machine) (*CurveAllocator, error) {
	t, err := newDivTree(m, "scbt")
	if err != nil {
		return nil, err
	}
	return NewCurveAllocator("scbt", m, curves.Order(t.leafOrder), SortedFreeList, false)
}

// PLASOrder is plas's order of the nodes of a 2D mesh (see above).
func PLASOrder(g *topo.Grid) curves.Order {
	d := g.Dims()
	side := topo.IOLeft
	if io := g.IO(); io != nil {
		side = io.Side
	}
	X, Y := d[0], d[1]
	key := func(v int) (int, int, int) {
		x, y := v%X, v/X
		switch side {
		case topo.IOLeft:
			return x, abs2(2*y - (Y - 1)), y
		case topo.IORight:
			return X - 1 - x, abs2(2*y - (Y - 1)), y
		case topo.IOBottom:
			return y, abs2(2*x - (X - 1)), x
		default:
			return Y - 1 - y, abs2(2*x - (X - 1)), x
		}
	}
	o := make(curves.Order, g.N())
	for i := range o {
		o[i] = i
	}
	slices.SortFunc(o, func(a, b int) int {
		a1, a2, a3 := key(a)
		b1, b2, b3 := key(b)
		return cmp.Or(cmp.Compare(a1, b1), cmp.Compare(a2, b2), cmp.Compare(a3, b3))
	})
	return o
}

func abs2(v int) int { return max(v, -v) }

// NewPLAS returns the parallel-layout allocator of a 2D mesh.
func NewPLAS(m topo.Machine) (*CurveAllocator, error) {
	g, ok := m.(*topo.Grid)
	if !ok || g.Dim() != 2 {
		return nil, fmt.Errorf("plas needs a 2D mesh, not %s", m.Spec())
	}
	return NewCurveAllocator("plas", m, PLASOrder(g), SortedFreeList, false)
}
