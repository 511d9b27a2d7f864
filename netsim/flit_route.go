package netsim

import (
	"slices"
)

// nextHopper is a graph's routing as the flit engine asks for it, one hop at a time:
// the vertex after v on the route to host dst (v != dst).
type nextHopper interface {
	next(dst, v int) int
}

// route computes the output port and virtual channel range of the head flit at the
// front of local input VC l (BookSim2's dim_order_mesh / dim_order_torus).
func (e *FlitEngine) route(rt *frouter, l int32) {
	V := e.vcs
	g := rt.base*V + l
	f := e.buf[g*e.vcBuf+e.iv[g].head]
	p := &e.pkts[f>>2]
	cur := e.portRouter[rt.base]
	inPort := l / V
	e.iv[g].state = vcVCAlloc
	lo, hi := int32(0), V-1
	var out int32
	switch {
	case e.graph != nil:
		if cur == p.dst {
			out = rt.np - 1
			break
		}
		nx := int32(e.graph.next(int(p.dst), int(cur)))
		j, _ := slices.BinarySearch(e.nbr[cur], nx)
		out = int32(j)
		if e.cfg.HopClasses {
			lo = min(p.hops, V-1)
			hi = lo
		}
	default:
		nd := int32(len(e.dims))
		out = 2 * nd // eject
		dst := p.dst
		if e.ioAttach != nil && (cur >= e.ncomp || dst >= e.ncomp) {
			// IORouter's routes: an I/O node's router sends everything over its
			// link (port 0) and ejects its own packets (port 1); towards an I/O
			// node, DOR to its attachment and then the link (port 2n+1).
			if cur >= e.ncomp {
				out = 0
				if cur == dst {
					out = 1
				}
				break
			}
			dst = e.ioAttach[dst-e.ncomp]
			if cur == dst {
				out = 2*nd + 1
				break
			}
		}
		for j := range nd {
			c, d := e.coord[cur*nd+j], e.coord[dst*nd+j]
			if c == d {
				continue
			}
			if !e.wrap[j] {
				dir, _ := ringDirection(c, d, e.dims[j], false, e.cfg.Tie, nil)
				out = 2*j + dir
				break
			}
			if inPort/2 == j { // already travelling along j: keep direction and class
				out = inPort ^ 1
			} else {
				dir, _ := ringDirection(c, d, e.dims[j], true, e.cfg.Tie, e.coin)
				out = 2*j + dir
				// BookSim2's fixed dateline between k-1 and 0: class 1 when moving +
				// past it, or when moving - without crossing it (the classes of the -
				// direction are swapped; either way one class per ring never wraps and
				// the other always does, so neither can close a cycle).
				if (dir == 0 && c > d) || (dir == 1 && d < c) {
					p.ph = 1
				} else {
					p.ph = 0
				}
			}
			half := V / 2
			if p.ph == 0 {
				hi -= half
			} else {
				lo += half
			}
			break
		}
	}
	e.iv[g].outP, e.iv[g].lo, e.iv[g].hi = out, lo, hi
}

// coin is the engine's fair coin for TieRandom.
func (e *FlitEngine) coin() bool { return e.rng.Uint64()&1 == 0 }
