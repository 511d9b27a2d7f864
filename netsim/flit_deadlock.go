package netsim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/topo"
)

// names a cycle of it.
func (e *FlitEngine) deadlock(t int64) error {
	V := e.vcs
	nv := int32(len(e.iv))
	waits := func(g int32, out []int32) []int32 {
		if e.iv[g].count == 0 {
			return out
		}
		gp := g / V
		rt := &e.routers[e.portRouter[gp]]
		switch e.iv[g].state {
		case vcActive:
			gop := rt.base + e.iv[g].outP
			if d := e.outDown[gop]; d >= 0 && e.ov[gop*V+e.iv[g].outV].occ >= e.vcBuf {
				out = append(out, d*V+e.iv[g].outV)
			}
		case vcVCAlloc:
			gop := rt.base + e.iv[g].outP
			for ov := e.iv[g].lo; ov <= e.iv[g].hi; ov++ {
				if h := e.ov[gop*V+ov].use; h >= 0 {
					out = append(out, rt.base*V+h)
				}
			}
		}
		return out
	}
	// Iterative DFS with colours: 0 new, 1 on stack, 2 done.
	color := make([]uint8, nv)
	parent := make([]int32, nv)
	var cyc []int32
	var nb []int32
	type frame struct {
		g    int32
		next []int32
	}
	for s := int32(0); s < nv && cyc == nil; s++ {
		if color[s] != 0 || e.iv[s].count == 0 {
			continue
		}
		stack := []frame{{s, waits(s, nil)}}
		color[s] = 1
		parent[s] = -1
		for len(stack) > 0 && cyc == nil {
			top := &stack[len(stack)-1]
			if len(top.next) == 0 {
				color[top.g] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			w := top.next[0]
			top.next = top.next[1:]
			switch color[w] {
			case 0:
				color[w] = 1
				parent[w] = top.g
				nb = waits(w, nil)
				stack = append(stack, frame{w, nb})
			case 1:
				for x := top.g; ; x = parent[x] {
					cyc = append(cyc, x)
					if x == w {
						break
					}
				}
				slices.Reverse(cyc)
			}
		}
	}
	msg := fmt.Sprintf("%s: flit engine deadlock at cycle %d: no flit moved for %d cycles with %d flits in the network", e.spec, t, t-e.lastMove, e.inNet)
	if cyc == nil {
		return fmt.Errorf("%s (no cycle of waiting virtual channels found): %w", msg, ErrDeadlock)
	}
	var parts []string
	for i, g := range cyc {
		if i == 8 && len(cyc) > 10 {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(cyc)-9))
			g = cyc[len(cyc)-1]
			parts = append(parts, e.vcName(g))
			break
		}
		parts = append(parts, e.vcName(g))
	}
	return fmt.Errorf("%s; a cycle of %d input virtual channels, each waiting for the next: %s -> (back to the first): %w",
		msg, len(cyc), strings.Join(parts, " -> "), ErrDeadlock)
}

// vcName names global input virtual channel g: its router, port and VC.
func (e *FlitEngine) vcName(g int32) string {
	V := e.vcs
	gp := g / V
	r := e.portRouter[gp]
	rt := &e.routers[r]
	p := gp - rt.base
	var rn, pn string
	switch {
	case e.grid != nil && e.ioAttach != nil && r >= e.ncomp:
		rn = fmt.Sprintf("I/O node %d", r-e.ncomp)
		pn = "terminal input"
		if p == 0 {
			pn = "input from its attachment"
		}
	case e.grid != nil:
		nd := int32(len(e.dims))
		c := make([]string, nd)
		for j := range nd {
			c[j] = fmt.Sprint(e.coord[r*nd+j])
		}
		rn = "(" + strings.Join(c, ",") + ")"
		switch {
		case p == 2*nd:
			pn = "terminal input"
		case p == 2*nd+1:
			pn = fmt.Sprintf("input from I/O node %d", e.ioPort[r])
		default:
			axis := "xyzw"[min(p/2, 3)]
			sign := "+" // input 2j comes from the + neighbour
			if p%2 == 1 {
				sign = "-"
			}
			pn = fmt.Sprintf("input from %s%c", sign, axis)
		}
	default:
		g := e.m.(*topo.Graph)
		rn = g.Name(int(r))
		if e.inUp[gp] < 0 {
			pn = "terminal input"
		} else {
			pn = "input from " + g.Name(int(e.nbr[r][p]))
		}
	}
	return fmt.Sprintf("router %s %s vc %d", rn, pn, g%V)
}
