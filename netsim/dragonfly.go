package netsim

import (
	"context"
	"slices"

	"github.com/procalloc/procalloc/topo"
)

// DragonflyRouter is the deterministic minimal routing of a dragonfly (Kim, Dally,
// Scott and Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA
// 2008, DOI 10.1109/ISCA.2008.19, §4.1): a route uses at most one global link,
// local-global-local. From host s on router R_s (group A) to host d on router R_d
// (group B):
//
//   - the same router: s, R_s, d;
//   - the same group: s, R_s, R_d, d (the group's routers are all joined);
//   - other groups: s, R_s, [x,] y, [R_d,] d, where (x, y) is the global link from A
//     to B that R_d picks: the links between A and B (parallel ones count once, as in
//     topo.Dragonfly) in ascending order of their end in A, then in B, number
//     (position of R_d in its group) mod (their count). x is left out when it is R_s,
//     R_d when it is y.
//
// Groups, routers and positions are those of topo.Graph.Dragonfly (router index r
// in group r / RoutersPerGroup at position r % RoutersPerGroup; "ascending" above is
// in router indices): a file numbered as the spec gets the spec's routes, one
// numbered otherwise the same rule over the groups and routers in order of their
// lowest vertex.
//
// It is the router NewRouter and the flit engine take for every graph with a
// dragonfly's structure (topo.Graph.Dragonfly), from a spec or a file; GraphRouter's shortest paths on the same graph also transit
// third groups (two global links) and break ties per router, so that the route
// loads of a job could only be counted per destination (O(k^2) per job), whereas
// those of minimal routing follow from the job's hosts per router and per group
// (RouteMeter, dfLoad.count). Channel ids are those of GraphRouter: the directed
// links in order of their tail, then of their head.
type DragonflyRouter struct {
	g          *topo.Graph
	n, p, a, G int     // hosts, hosts per router, routers per group, groups
	off        []int32 // off[v]+i: the channel from v to its i-th neighbour (ascending)
	adj        []int32
	// Router indices (topo.Graph.Dragonfly's): of each host, hostRouter; the vertex
	// of each, routerVertex; and each host's place among its router's neighbours,
	// hostSlot (hosts are a router's lowest neighbours).
	// vertexRouter is the router index of switch vertex v at v - n.
	hostRouter, routerVertex, hostSlot, vertexRouter []int32
	// The global links from group A to group B: lx, ly[lOff[A*G+B]:lOff[A*G+B+1]]
	// (router indices of their ends in A, in B), with their channel lc (from A to
	// B), ascending.
	lOff       []int32
	lx, ly, lc []int32
	localCh    []int32 // localCh[u*a + pos(x)]: the channel from router u to router x of its group
	hc         classMemo
}

// NewDragonflyRouter returns the minimal router of g when g has a dragonfly's
// structure (topo.Graph.Dragonfly: hosts on their routers, every group's routers
// joined, at least one link between any two groups), whether it came from a
// "dragonfly:" spec or from a file, else nil. It is NewDragonflyRouterContext
// without a context.
func NewDragonflyRouter(g *topo.Graph) *DragonflyRouter {
	r, _ := NewDragonflyRouterContext(context.Background(), g)
	return r
}

// NewDragonflyRouterContext is NewDragonflyRouter under ctx: it looks at ctx every
// routerBuildEvery vertices and every group (0.26 s of CPU on 199,680 hosts, 1.2 s
// under load), and returns nil and ctx's cause when ctx ends first; nil and no error
// when g is no dragonfly.
func NewDragonflyRouterContext(ctx context.Context, g *topo.Graph) (*DragonflyRouter, error) {
	shape, ok := g.Dragonfly()
	if !ok {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	r := &DragonflyRouter{g: g, p: shape.HostsPerRouter, a: shape.RoutersPerGroup, G: shape.Groups}
	r.n = g.N()
	if r.p < 1 || r.a < 1 || r.G < 1 || r.n != r.p*r.a*r.G || g.Vertices() != r.n+r.a*r.G {
		return nil, nil
	}
	nv := g.Vertices()
	r.off = make([]int32, nv+1)
	var nb []int
	for v := range nv {
		if v%routerBuildEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		for _, w := range g.Neighbors(v, nb[:0]) {
			r.adj = append(r.adj, int32(w))
		}
		r.off[v+1] = int32(len(r.adj))
	}
	G, a, n := r.G, r.a, r.n
	R := a * G
	r.hostRouter, r.routerVertex, r.hostSlot = make([]int32, n), make([]int32, R), make([]int32, n)
	r.vertexRouter = make([]int32, nv-n)
	for u := range R {
		v := g.DragonflyRouterVertex(u)
		r.routerVertex[u] = int32(v)
		r.vertexRouter[v-n] = int32(u)
	}
	for h := range n {
		r.hostRouter[h] = int32(g.DragonflyRouterOf(h))
		if nb := r.adj[r.off[h]:r.off[h+1]]; len(nb) != 1 || nb[0] != r.routerVertex[r.hostRouter[h]] {
			return nil, nil
		}
	}
	r.localCh = make([]int32, a*G*a)
	type link struct{ A, B, x, y, c int32 }
	var links []link
	for u := range R {
		if u%a == 0 && ctx.Err() != nil { // a group's routers
			return nil, context.Cause(ctx)
		}
		v := int(r.routerVertex[u])
		A := r.group(u)
		peers := 0
		for i, w := range r.adj[r.off[v]:r.off[v+1]] {
			c := r.off[v] + int32(i)
			if int(w) < n {
				if int(r.hostRouter[w]) != u {
					return nil, nil
				}
				r.hostSlot[w] = int32(i)
				continue
			}
			x := int(r.vertexRouter[int(w)-n])
			if r.group(x) == A {
				r.localCh[u*a+r.pos(x)] = c
				peers++
			} else {
				links = append(links, link{int32(A), int32(r.group(x)), int32(u), int32(x), c})
			}
		}
		if peers != a-1 {
			return nil, nil
		}
	}
	// links in order of (x, y): ascending ends in A, then in B, per group pair.
	// They were listed by router, so by group: each group's run is sorted on its
	// own, a look at ctx between them (one sort of the 606,840 links of 390 groups
	// took 0.15 s).
	for lo := 0; lo < len(links); {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		hi := lo + 1
		for hi < len(links) && links[hi].A == links[lo].A {
			hi++
		}
		slices.SortFunc(links[lo:hi], func(p, q link) int {
			switch {
			case p.B != q.B:
				return int(p.B - q.B)
			case p.x != q.x:
				return int(p.x - q.x)
			}
			return int(p.y - q.y)
		})
		lo = hi
	}
	r.lOff = make([]int32, G*G+1)
	for _, l := range links {
		r.lOff[int(l.A)*G+int(l.B)+1]++
		r.lx, r.ly, r.lc = append(r.lx, l.x), append(r.ly, l.y), append(r.lc, l.c)
	}
	for i := range G * G {
		r.lOff[i+1] += r.lOff[i]
	}
	for A := range G {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		for B := range G {
			if A != B && r.lOff[A*G+B+1] == r.lOff[A*G+B] {
				return nil, nil // two groups without a link
			}
		}
	}
	return r, nil
}

// routerBuildEvery is how many vertices a router's build handles between looks
// at its context (NewDragonflyRouterContext, NewGraphRouterContext).
const routerBuildEvery = 1 << 12

// group and pos are router index u's group and position in it.
func (r *DragonflyRouter) group(u int) int { return u / r.a }
func (r *DragonflyRouter) pos(u int) int   { return u % r.a }

// global returns the index (into lx, ly, lc) of the global link a route from group
// A to router index rd of another group takes.
func (r *DragonflyRouter) global(A, rd int) int {
	k := A*r.G + r.group(rd)
	lo, hi := int(r.lOff[k]), int(r.lOff[k+1])
	return lo + r.pos(rd)%(hi-lo)
}

// Endpoints is the number of hosts.
func (r *DragonflyRouter) Endpoints() int { return r.n }

// chanLayout is depRouter's: GraphRouter's channel ids.
func (r *DragonflyRouter) chanLayout() (off, head []int32, n int) { return r.off, r.adj, r.n }

// classes is depRouter's.
func (r *DragonflyRouter) classes() *classMemo { return &r.hc }

// chanDeps is depRouter's. Router to router a route is local, or [local,] global
// [, local]: a global link follows the local link into its end in the source
// group, from every other router of that group, and the local link after it
// leads from its end in the destination group to the destination's router.
// O(groups x routers + global links x routers per group).
func (r *DragonflyRouter) chanDeps(ctx context.Context, dep func(c1, c2 int32)) (int, error) {
	longest := 0
	if r.a > 1 {
		longest = 1 // inside a group
	}
	seen := make([]bool, len(r.lc))
	for A := range r.G {
		if ctx.Err() != nil { // a group's routes to every router: 25,000 at 2 x 10^5 hosts
			return 0, context.Cause(ctx)
		}
		for rd := range r.a * r.G {
			if r.group(rd) == A {
				continue
			}
			i := r.global(A, rd)
			x, y := int(r.lx[i]), int(r.ly[i])
			l := 1
			if y != rd {
				dep(r.lc[i], r.localCh[y*r.a+r.pos(rd)])
				l++
			}
			if r.a > 1 { // from the routers of A other than x
				l++
				if !seen[i] {
					seen[i] = true
					for u := A * r.a; u < (A+1)*r.a; u++ {
						if u != x {
							dep(r.localCh[u*r.a+r.pos(x)], r.lc[i])
						}
					}
				}
			}
			longest = max(longest, l)
		}
	}
	return longest, nil
}

// pairHops is the sum of the minimal routes' lengths over all ordered pairs of
// distinct hosts, by pairs of routers (a route's length depends on its routers
// alone, see Route): O(routers^2)
// instead of routing every pair (hours on 51,200 hosts).
func (r *DragonflyRouter) pairHops() int64 {
	R := r.a * r.G
	cnt := make([]int64, R)
	for _, u := range r.hostRouter {
		cnt[u]++
	}
	var hops int64
	for rs := range R {
		if cnt[rs] == 0 {
			continue
		}
		hops += cnt[rs] * (cnt[rs] - 1) * 2 // up and down
		A := r.group(rs)
		for rd := range R {
			if rd == rs || cnt[rd] == 0 {
				continue
			}
			l := int64(3) // up, one link between the routers, down
			if r.group(rd) != A {
				i := r.global(A, rd)
				if int(r.lx[i]) != rs {
					l++
				}
				if int(r.ly[i]) != rd {
					l++
				}
			}
			hops += cnt[rs] * cnt[rd] * l
		}
	}
	return hops
}

// Channels is the number of directed links.
func (r *DragonflyRouter) Channels() int { return int(r.off[len(r.off)-1]) }

// Spec is the graph's spec followed by " minimal".
func (r *DragonflyRouter) Spec() string { return r.g.Spec() + " minimal" }

// toHost is the channel from a host's router to the host.
func (r *DragonflyRouter) toHost(d int) int32 {
	return r.off[r.routerVertex[r.hostRouter[d]]] + r.hostSlot[d]
}

// Route appends the minimal route from src to dst.
func (r *DragonflyRouter) Route(src, dst int, buf []int32) []int32 {
	if src == dst {
		return buf
	}
	rs, rd := int(r.hostRouter[src]), int(r.hostRouter[dst])
	buf = append(buf, r.off[src])
	if rs != rd {
		if A := r.group(rs); A == r.group(rd) {
			buf = append(buf, r.localCh[rs*r.a+r.pos(rd)])
		} else {
			i := r.global(A, rd)
			x, y := int(r.lx[i]), int(r.ly[i])
			if x != rs {
				buf = append(buf, r.localCh[rs*r.a+r.pos(x)])
			}
			buf = append(buf, r.lc[i])
			if y != rd {
				buf = append(buf, r.localCh[y*r.a+r.pos(rd)])
			}
		}
	}
	return append(buf, r.toHost(dst))
}

// next is the vertex after v on the minimal route to host dst (v != dst): the flit
// engine routes hop by hop along the routes Route lists.
func (r *DragonflyRouter) next(dst, v int) int {
	if v < r.n {
		return int(r.routerVertex[r.hostRouter[v]])
	}
	rd := int(r.hostRouter[dst])
	u := int(r.vertexRouter[v-r.n])
	switch {
	case u == rd:
		return dst
	case r.group(u) == r.group(rd):
		return int(r.routerVertex[rd])
	}
	i := r.global(r.group(u), rd)
	if x := r.lx[i]; int(x) != u {
		return int(r.routerVertex[x])
	}
	return int(r.routerVertex[r.ly[i]])
}

// dfLoad is the per-job scratch of the dragonfly's all-to-all count, a route
// meter's own (RouteMeter.df): the router is only read, so that meters and
// engines may share it, also concurrently.
type dfLoad struct {
	w, rStamp    []int32 // job hosts per router (stamped)
	rGen         int32
	routers      []int32    // the job's routers, by group
	segs         [][2]int32 // the groups' runs in routers: group, start (a last {-1, end})
	grpN, gStamp []int32    // job hosts per group (stamped)
	top          []int64    // per group: the most job hosts on one of its routers (the job's groups)
	groups       []int32
	gGen         int32
	load         []int64 // per global link, indexed as lc (nonzero: listed in gTouched)
	gTouched     []int32
	in           []int64 // per local channel (router x a + position): routes entering the group there
	inTouched    []int32
	out          []int64 // per router: job hosts outside its group whose route leaves there
	outTouched   []int32
}

// count returns the all-to-all route load of DragonflyRouter r for the job
// on nodes (distinct hosts, at least 2) from counts: w_u job hosts on router u, n_A
// in group A. A host's two links carry k-1 routes each. Router to router:
//
//   - local channel u -> x (group A): w_u w_x routes inside A, w_u out_A(x) leaving
//     A by a global link at x (out_A(x): the job's hosts outside A whose router picks
//     a link from A at x), and in(u, x) w_x, in(u, x) counting the job's hosts of
//     other groups whose link to x's router lands at u;
//   - global channel x -> y from A to B: n_A times the job's hosts of B whose router
//     picks that link.
//
// The global channels and the local ones with in(u, x) > 0 are summed one by one;
// on the others the load is w_u (w_x + out_A(x)), largest for the u != x of A with
// the most job hosts, and their hops sum to n_A^2 - sum w_u^2 plus out_A(x) (n_A -
// w_x) per x. O(k + groups x routers of the job + routers per group x groups) per
// job, against O(k^2) for in-trees; the counts equal the trace's
// (TestDragonflyLoadMatchesTrace).
func (s *dfLoad) count(r *DragonflyRouter, nodes []int) RouteLoad {
	k := int64(len(nodes))
	l := RouteLoad{Messages: k * (k - 1), Hops: 2 * k * (k - 1), MaxShared: k - 1}
	a := r.a
	if s.w == nil {
		nr := a * r.G
		s.w, s.rStamp = make([]int32, nr), make([]int32, nr)
		s.grpN, s.gStamp = make([]int32, r.G), make([]int32, r.G)
		s.top = make([]int64, r.G)
		s.load = make([]int64, len(r.lc))
		s.in = make([]int64, nr*a)
		s.out = make([]int64, nr)
	}
	s.rGen = bumpGen(s.rGen, s.rStamp)
	s.gGen = bumpGen(s.gGen, s.gStamp)
	s.routers, s.groups = s.routers[:0], s.groups[:0]
	for _, h := range nodes {
		u := int(r.hostRouter[h])
		if s.rStamp[u] != s.rGen {
			s.rStamp[u], s.w[u] = s.rGen, 0
			s.routers = append(s.routers, int32(u))
		}
		s.w[u]++
		A := u / a
		if s.gStamp[A] != s.gGen {
			s.gStamp[A], s.grpN[A] = s.gGen, 0
			s.groups = append(s.groups, int32(A))
		}
		s.grpN[A]++
	}
	wOf := func(u int) int64 {
		if s.rStamp[u] != s.rGen {
			return 0
		}
		return int64(s.w[u])
	}
	// The job's routers by group: runs (segs: group, start; a last {-1, end}).
	slices.Sort(s.routers)
	s.segs = s.segs[:0]
	for i := 0; i < len(s.routers); {
		A := s.routers[i] / int32(a)
		j := i
		var sq int64
		for j < len(s.routers) && s.routers[j]/int32(a) == A {
			w := int64(s.w[s.routers[j]])
			sq += w * w
			j++
		}
		s.segs = append(s.segs, [2]int32{A, int32(i)})
		nA := int64(s.grpN[A])
		l.Hops += nA*nA - sq // inside A
		i = j
	}
	s.segs = append(s.segs, [2]int32{-1, int32(len(s.routers))})
	s.gTouched, s.inTouched, s.outTouched = s.gTouched[:0], s.inTouched[:0], s.outTouched[:0]
	// Between groups: per source group, destination group and router; the link is
	// number (position of the router) mod (links between the groups).
	for _, A := range s.groups {
		nA := int64(s.grpN[A])
		for si := 0; si+1 < len(s.segs); si++ {
			B := int(s.segs[si][0])
			if B == int(A) {
				continue
			}
			kk := int(A)*r.G + B
			lo := int(r.lOff[kk])
			L := int(r.lOff[kk+1]) - lo
			for _, rd := range s.routers[s.segs[si][1]:s.segs[si+1][1]] {
				wd := int64(s.w[rd])
				pd := int(rd) - B*a
				li := lo + pd%L
				x, y := int(r.lx[li]), int(r.ly[li])
				if s.load[li] == 0 {
					s.gTouched = append(s.gTouched, int32(li))
				}
				s.load[li] += nA * wd
				if s.out[x] == 0 {
					s.outTouched = append(s.outTouched, int32(x))
				}
				s.out[x] += wd
				if y != int(rd) {
					if j := y*a + pd; s.in[j] == 0 {
						s.inTouched = append(s.inTouched, int32(j))
					}
					s.in[y*a+pd] += nA
				}
			}
		}
	}
	for _, li := range s.gTouched {
		l.Hops += s.load[li]
		l.MaxShared = max(l.MaxShared, s.load[li])
		s.load[li] = 0
	}
	// Local channels carrying routes into their group: all three terms.
	for _, j := range s.inTouched {
		u := int(j) / a
		x := u/a*a + int(j)%a
		wx := wOf(x)
		in := s.in[j]
		s.in[j] = 0
		l.Hops += in * wx
		l.MaxShared = max(l.MaxShared, wOf(u)*(wx+s.out[x])+in*wx)
	}
	// The others: w_u (w_x + out_A(x)) for the job's routers u != x of A, x a router
	// of A with job hosts or with routes leaving A there; u the router of A with the
	// most job hosts other than x.
	for _, x := range s.outTouched {
		A := int(x) / a // a source group: grpN[A] counts its job hosts
		l.Hops += s.out[x] * (int64(s.grpN[A]) - wOf(int(x)))
	}
	for si := 0; si+1 < len(s.segs); si++ {
		A := int(s.segs[si][0])
		grp := s.routers[s.segs[si][1]:s.segs[si+1][1]]
		var b1, b2 int64 // the two largest counts of A, b1 on router u1
		u1 := -1
		for _, u := range grp {
			if w := int64(s.w[u]); w > b1 {
				b2, b1, u1 = b1, w, int(u)
			} else if w > b2 {
				b2 = w
			}
		}
		s.top[A] = b1
		for _, x := range grp {
			b := b1
			if int(x) == u1 {
				b = b2
			}
			l.MaxShared = max(l.MaxShared, b*(int64(s.w[x])+s.out[x]))
		}
	}
	for _, x := range s.outTouched {
		if wOf(int(x)) == 0 { // not among the job's routers above
			l.MaxShared = max(l.MaxShared, s.top[int(x)/a]*s.out[x])
		}
		s.out[x] = 0
	}
	return l
}
