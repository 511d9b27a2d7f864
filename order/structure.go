package order

import (
	"context"
	"fmt"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// LowerBound is a proven lower bound on F for a machine and weights, with the name of
// the argument that proves it. Exact reports that Value was computed without rounding
// (so that a status "optimal" may rest on it when it meets an ordering's F).
type LowerBound struct {
	Value  float64 // the bound on F
	Source string  // "pairs", "ultrametric", "ultrametric-ring" or "grid-window-L"
	Exact  bool    // Value was computed without rounding
}

// StructuralBounds returns lower bounds on F computed from m's structure (its switch
// hierarchy, its grid), in memory near O(n K) and without n x n tables, so that they
// apply at 10^5 nodes. It returns no bound (and no error) for machines whose structure
// it does not recognize.
//
// A graph gets the laminar bound of the subdominant ultrametric of its hosts' hop
// distances ("ultrametric", ultrametric.go): on a switched fabric whose hosts each hang
// on one switch (fat trees, dragonflies, Slurm trees, ibnetdiscover dumps) computed
// over its leaf switches and exact on fat trees, on any other graph over its hosts
// (weak where the hosts are not clustered: on a plain graph it is the smallest distance
// times the number of pairs); a mesh or torus gets the window bound ("grid-window-L",
// gridwindow.go). Values are the largest
// float64 not above the bound computed in exact arithmetic; Exact says they are equal.
func StructuralBounds(ctx context.Context, m topo.Machine, w curves.Weights, ring bool) ([]LowerBound, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	if m.N() < 2 {
		return nil, nil
	}
	switch g := m.(type) {
	case *topo.Graph:
		h, ok, err := recognizeFabric(ctx, g)
		if err != nil || !ok {
			return nil, err
		}
		return []LowerBound{fabricBound(h, w, ring)}, nil
	case *topo.Grid:
		b, ok, err := gridWindowBound(ctx, g, w, ring)
		if err != nil || !ok {
			return nil, err
		}
		return []LowerBound{b}, nil
	}
	return nil, nil
}

// StructuredStarts returns orderings built from m's structure (for example every group
// of a switch hierarchy contiguous), to be used as starting orderings next to the
// curves. It returns none for machines whose structure it does not recognize.
//
// On a switched fabric (see StructuralBounds): "nested-switches", every cluster of the
// single-linkage hierarchy contiguous (optimal on fat trees: it meets the ultrametric
// bound), and, when leaf switches are linked to each other directly (dragonflies),
// "switch-chain", the leaf switches in a path along direct links (see leafChain). On
// other graphs the same over hosts: "nested-hosts" and "host-chain".
func StructuredStarts(ctx context.Context, m topo.Machine, w curves.Weights, ring bool) ([]Start, error) {
	g, ok := m.(*topo.Graph)
	if !ok || m.N() < 2 {
		return nil, nil
	}
	h, ok, err := recognizeFabric(ctx, g)
	if err != nil || !ok {
		return nil, err
	}
	names := [2]string{"nested-switches", "switch-chain"}
	if h.base == 0 {
		names = [2]string{"nested-hosts", "host-chain"}
	}
	nested := h.nestedLeafOrder()
	starts := []Start{{names[0], h.hostsOfLeaves(nested)}}
	linked := false
	for _, a := range h.adj {
		linked = linked || len(a) > 0
	}
	if linked {
		chain, _ := h.leafChain(ctx, nested)
		if err := context.Cause(ctx); err != nil {
			return starts, nil
		}
		starts = append(starts, Start{names[1], h.hostsOfLeaves(chain)})
	}
	return starts, nil
}
