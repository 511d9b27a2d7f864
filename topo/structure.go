package topo

import (
	"fmt"
	"math"
	"slices"

	"github.com/procalloc/procalloc/internal/sortedset"
)

// DragonflyShape is the structure of a dragonfly (Kim, Dally, Scott and Abts,
// "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008): Groups groups
// of RoutersPerGroup routers, every two routers of a group joined, HostsPerRouter
// hosts on each router, and at least one global link between any two groups.
// Routers are indexed group by group: router index r is in group r /
// RoutersPerGroup at position r % RoutersPerGroup. Dragonfly builds them so (host h
// on router index h / HostsPerRouter, router index r at vertex N()+r); a graph read
// from a file may number its vertices otherwise, and DragonflyRouterOf and
// DragonflyRouterVertex give its own numbering.
type DragonflyShape struct {
	HostsPerRouter, RoutersPerGroup, Groups int // hosts per router, routers per group, groups
}

// dragonflyNumbering maps a recognised dragonfly's vertices to router indices;
// nil slices when the graph numbers them as Dragonfly builds them.
type dragonflyNumbering struct {
	hostRouter   []int32 // per host: its router index
	routerVertex []int32 // per router index: its vertex
	vertexRouter []int32 // per switch vertex v: the router index of v (at v - N())
}

// Dragonfly returns the dragonfly structure of g when g has one, however g was made
// and numbered (a "dragonfly:" spec, or a fabric file with any numbering of its
// hosts and switches): the structure is recognised from the links alone, once, and
// every user of it (netsim's minimal routing, its route loads, the closed-form
// pairwise distances, the exact baseline) asks here. DragonflyReason says why a
// graph is none.
//
// A dragonfly built by Dragonfly has recorded its shape (synthLayout, which
// PairDistSum's closed form reads too): that record is returned as it is.
func (g *Graph) Dragonfly() (DragonflyShape, bool) {
	if l := g.layout; l != nil && l.span == nil && l.a > 0 {
		return DragonflyShape{HostsPerRouter: l.p, RoutersPerGroup: l.a, Groups: l.groups}, true
	}
	g.recogniseDragonflyOnce()
	return g.dragonfly, g.isDragonfly
}

func (g *Graph) recogniseDragonflyOnce() {
	g.dragonflyOnce.Do(func() {
		var num dragonflyNumbering
		g.dragonfly, num, g.dragonflyReason = recogniseDragonfly(g)
		g.isDragonfly = g.dragonflyReason == ""
		g.dfNum = num
	})
}

// DragonflyReason is why g is no dragonfly (Dragonfly reports false), "" when it
// is one.
func (g *Graph) DragonflyReason() string {
	if _, ok := g.Dragonfly(); ok {
		return ""
	}
	return g.dragonflyReason
}

// DragonflyRouterOf returns the router index of host h of a dragonfly (Dragonfly
// reports true): its group is the index / RoutersPerGroup.
func (g *Graph) DragonflyRouterOf(h int) int {
	if sh, ok := g.Dragonfly(); ok && g.dfNum.hostRouter == nil {
		return h / sh.HostsPerRouter
	}
	return int(g.dfNum.hostRouter[h])
}

// DragonflyRouterVertex returns the vertex of router index r of a dragonfly.
func (g *Graph) DragonflyRouterVertex(r int) int {
	if _, ok := g.Dragonfly(); ok && g.dfNum.routerVertex == nil {
		return g.hosts + r
	}
	return int(g.dfNum.routerVertex[r])
}

// DragonflyRouterIndex returns the router index of vertex v of a dragonfly, -1 for
// a host.
func (g *Graph) DragonflyRouterIndex(v int) int {
	switch _, ok := g.Dragonfly(); {
	case v < g.hosts:
		return -1
	case ok && g.dfNum.vertexRouter == nil:
		return v - g.hosts
	}
	return int(g.dfNum.vertexRouter[v-g.hosts])
}

// DragonflyGroupsCertain reports whether g's groups (Dragonfly, DragonflyRouterIndex
// / RoutersPerGroup) are the only ones its input allows. A dragonfly Dragonfly built
// has its spec's groups: certain. One recognised from links (a file) is certain when
// no other split of its routers into groups of one size, each joined all to all and
// every two linked, exists: the recogniser takes one split, and with small groups (two
// routers: any matching of the routers whose pairs are all linked) or many global
// links (dragonfly:hosts_per_router=3,routers_per_group=3,intergroup_links=3,
// num_groups=11 is also 3 groups of 11) there may be others, equally dragonflies.
// One exception: routers all joined to each other are taken as one group, and their
// split into groups of one router each is not counted (the two make the same tree
// of switches). Sizes that cannot split are ruled out first by counting (links,
// and links that close triangles, below); the others are searched (dfFinder.split,
// every split tried once, refusing groups with fewer neighbours than the other
// groups they must reach), bounded by maxSplitWork per size: when the search stops
// first, the groups are not certain. why says why not ("" when certain, or when g
// is no dragonfly: false).
func (g *Graph) DragonflyGroupsCertain() (certain bool, why string) {
	sh, ok := g.Dragonfly()
	if !ok {
		return false, ""
	}
	if l := g.layout; l != nil && l.span == nil && l.a > 0 {
		return true, ""
	}
	f, _, minDeg, reason := newDfFinder(g)
	if reason != "" { // recognised, so it cannot be
		return false, reason
	}
	n, nr, a := g.N(), len(f.group), sh.RoutersPerGroup
	// mine[u]: g's group of router u (vertex n+u); seen (per size): the other
	// split's group -> g's group of its first router.
	mine := make([]int32, nr)
	for u := range mine {
		mine[u] = int32(g.DragonflyRouterIndex(n+u) / a)
	}
	// A clique of 3 or more routers that spans two groups has a link between groups
	// that closes a triangle at each of its routers. So in any split into groups of
	// s >= 3 routers a router at no such link (outside) is in a group inside its
	// group of g: no such group exists when s > a, and when s < a it reaches too
	// few others if its routers have too few links out (insideFew). A group of g
	// none of whose routers is at such a link (plain) splits into groups inside
	// it: itself (s = a), or a/s parts (s < a, s dividing a) with a link between
	// every two parts of two plain groups, (a/s)^2 links between them at least. And
	// a group of g with a router outside is a group of every split of size a.
	inTri := make([]bool, nr) // router u ends a link between groups that closes a triangle
	pairs := map[[2]int32]int{}
	for u := range int32(nr) {
		nbu := f.radj[f.off[u]:f.off[u+1]]
		for _, v := range nbu {
			if v <= u || mine[u] == mine[v] {
				continue
			}
			pairs[[2]int32{min(mine[u], mine[v]), max(mine[u], mine[v])}]++
			if sortedset.Overlap(nbu, f.radj[f.off[v]:f.off[v+1]]) {
				inTri[u], inTri[v] = true, true
			}
		}
	}
	plain := make([]bool, sh.Groups)
	for i := range plain {
		plain[i] = true
	}
	allPlain, anyPlain, anyOutside := true, false, false
	for u, t := range inTri {
		if t {
			plain[mine[u]] = false
		} else {
			anyOutside = true
		}
	}
	for _, p := range plain {
		allPlain, anyPlain = allPlain && p, anyPlain || p
	}
	fewest := math.MaxInt // between two plain groups (every two are linked)
	for pr, c := range pairs {
		if plain[pr[0]] && plain[pr[1]] {
			fewest = min(fewest, c)
		}
	}
	// A group of s routers inside a group of g's reaches its a-s others and its
	// routers' links out of the group: per group of g, its routers' links out of
	// it, most first, summed (glob[X][s] for the s first).
	glob := make([][]int, sh.Groups)
	for u := range nr {
		out := 0
		for _, w := range f.radj[f.off[u]:f.off[u+1]] {
			if mine[w] != mine[u] {
				out++
			}
		}
		glob[mine[u]] = append(glob[mine[u]], out)
	}
	for X := range glob {
		slices.SortFunc(glob[X], func(x, y int) int { return y - x })
		sum := []int{0}
		for _, d := range glob[X] {
			sum = append(sum, sum[len(sum)-1]+d)
		}
		glob[X] = sum
	}
	// insideFew reports whether a router outside every triangle of a link between
	// groups (whose group of size s lies inside its group of g) has a group of g
	// whose parts of s routers reach fewer than the G-1 other groups.
	insideFew := func(size, G int) bool {
		for u, t := range inTri {
			if !t && a-size+glob[mine[u]][size] < G-1 {
				return true
			}
		}
		return false
	}
	for size := 1; size <= min(minDeg+1, nr); size++ {
		G := nr / size
		if nr%size != 0 || size == 1 && sh.Groups == 1 || int64(G)*int64(size)*int64(size-1)/2+int64(G)*int64(G-1)/2 > int64(f.off[nr])/2 {
			continue // not a divisor, or too few links for groups of size
		}
		switch {
		case size < 3:
		case size == a && allPlain, size > a && anyOutside, size < a && anyPlain && (a%size != 0 || fewest < (a/size)*(a/size)), size < a && insideFew(size, G):
			continue // no split of this size but g's (above)
		}
		f.reach = true
		f.pre, f.preGroups = nil, 0
		if size == a && size >= 3 && anyOutside {
			// A group of g with a router outside (above) is a group of every split
			// into groups of a: fixed, the search splits the others.
			label := make([]int32, sh.Groups)
			for u, t := range inTri {
				if !t && label[mine[u]] == 0 {
					f.preGroups++
					label[mine[u]] = f.preGroups
				}
			}
			f.pre = make([]int32, nr)
			for u := range nr {
				f.pre[u] = label[mine[u]]
			}
		}
		seen := make([]int32, nr/size+1)
		f.accept = func() bool {
			if size != a {
				return true
			}
			for i := range seen {
				seen[i] = -1
			}
			for u, gp := range f.group {
				if seen[gp] < 0 {
					seen[gp] = mine[u]
				} else if seen[gp] != mine[u] {
					return true
				}
			}
			return false // g's own split
		}
		_, reason := f.split(size, G)
		switch {
		case reason == "":
			// Two routers the other split puts together and g's does not, or (a split
			// of g's groups in parts) the other way round.
			first := make([]int32, G+1)
			for i := range first {
				first[i] = -1
			}
			for u, gp := range f.group {
				if first[gp] < 0 {
					first[gp] = int32(u)
				} else if mine[first[gp]] != mine[u] {
					return false, fmt.Sprintf("its links also split its %d routers into groups of %d, one holding switches %s and %s, which the groups taken keep apart",
						nr, size, g.Name(n+int(first[gp])), g.Name(n+u))
				}
			}
			for u := range nr {
				for v := u + 1; v < nr; v++ {
					if mine[u] == mine[v] && f.group[u] != f.group[v] {
						return false, fmt.Sprintf("its links also split its %d routers into groups of %d, which keep switches %s and %s apart, one group in the groups taken",
							nr, size, g.Name(n+u), g.Name(n+v))
					}
				}
			}
			return false, fmt.Sprintf("its links also split its %d routers into groups of %d", nr, size) // not reached: the splits differ
		case f.steps > f.maxSteps:
			return false, fmt.Sprintf("the search for other splits of its %d routers into groups of %d stopped at its bound (%d steps) before it could tell", nr, size, f.maxSteps)
		}
	}
	return true, ""
}

// maxSplitWork bounds the search for the groups of one size (dfFinder.split), in
// neighbours visited, with 32 more per link end between routers: a dragonfly's
// groups are found in a few visits per link end; the bound stops the search on
// graphs whose triangles leave many ways to try (small groups, or no dragonfly).
const maxSplitWork = 1 << 20

// recogniseDragonfly finds the dragonfly structure of g from its links, whatever
// its numbering: the hosts are pendant on switches (the routers), each router with
// the same number of hosts; the routers split into groups of one size a, each group
// joined all to all, with a link between every two groups. First the groups of
// consecutive switches are tried, for the sizes up to the run of switches joined to
// the first (so a graph numbered as Dragonfly builds it gets the builder's groups,
// as before this search existed); then any split (dfFinder.split), the sizes from
// the largest a router's links allow down. Groups and routers are indexed in order
// of their lowest vertex. A router graph whose links admit several splits may be
// taken one way; every split found is a dragonfly's (the distances and routes hold
// for it), and a graph that has none is refused, with the reason.
func recogniseDragonfly(g *Graph) (DragonflyShape, dragonflyNumbering, string) {
	var none DragonflyShape
	var noNum dragonflyNumbering
	f, p, minDeg, reason := newDfFinder(g)
	if reason != "" {
		return none, noNum, reason
	}
	nr := len(f.group)
	links := int64(f.off[nr]) / 2
	first := ""
	try := func(a int, consecutive bool) []int32 {
		G := nr / a
		// Links inside groups and at least one between every two groups.
		if int64(G)*int64(a)*int64(a-1)/2+int64(G)*int64(G-1)/2 > links {
			if first == "" && !consecutive {
				first = fmt.Sprintf("%d groups of %d need more than its %d links between switches", G, a, links)
			}
			return nil
		}
		var order []int32
		var reason string
		if consecutive {
			order, reason = f.consecutive(a)
		} else {
			order, reason = f.split(a, G)
		}
		if reason == "" {
			reason = f.groupsLinked(G)
		}
		if reason != "" {
			if first == "" && !consecutive {
				first = fmt.Sprintf("in groups of %d, %s", a, reason)
			}
			return nil
		}
		return order
	}
	// First the groups of consecutive switches (as Dragonfly numbers them) up to the
	// run of switches joined to the first: a file numbered as the spec gets the
	// spec's groups where its links would allow others too (dragonfly:
	// hosts_per_router=3,routers_per_group=3,intergroup_links=3,num_groups=11 is
	// also 3 groups of 11). Then any split, the largest groups first.
	run := 1
	for run < nr && f.joined(0, int32(run)) {
		run++
	}
	for consecutive, top := range []int{run, min(minDeg+1, nr)} {
		for a := top; a >= 1; a-- {
			if nr%a != 0 {
				continue
			}
			if order := try(a, consecutive == 0); order != nil {
				shape := DragonflyShape{HostsPerRouter: p, RoutersPerGroup: a, Groups: nr / a}
				return shape, numbering(g, order, p), ""
			}
		}
	}
	if first == "" {
		first = "no group size fits"
	}
	return none, noNum, fmt.Sprintf("no split of its %d switches into groups joined all to all, every two linked (group sizes up to %d tried; the largest: %s)", nr, min(minDeg+1, nr), first)
}

// newDfFinder returns the finder of g's router graph (the switches, each with p
// hosts pendant on it, and their links to each other) and the fewest links a
// router has to routers, or the reason g's hosts and switches are no dragonfly's.
func newDfFinder(g *Graph) (f *dfFinder, p, minDeg int, reason string) {
	n, nv := g.N(), g.Vertices()
	nr := nv - n
	if n < 1 || nr < 1 {
		return nil, 0, 0, "it has no hosts or no switches"
	}
	hosts := make([]int32, nr) // hosts per router
	for h := range n {
		if len(g.adj[h]) != 1 || g.adj[h][0] < n {
			return nil, 0, 0, fmt.Sprintf("host %s is not on one switch alone", g.Name(h))
		}
		hosts[g.adj[h][0]-n]++
	}
	p = int(hosts[0])
	for u, c := range hosts {
		if int(c) != p {
			return nil, 0, 0, fmt.Sprintf("switch %s has %d hosts and switch %s %d; a dragonfly's routers have as many", g.Name(n), p, g.Name(n+u), c)
		}
	}
	// The routers' links to routers (ascending: adj lists may be in file order).
	off := make([]int32, nr+1)
	for u := range nr {
		off[u+1] = off[u] + int32(len(g.adj[n+u])-p)
	}
	radj := make([]int32, off[nr])
	minDeg = int(off[1] - off[0])
	for u := range nr {
		nb := radj[off[u]:off[u]:off[u+1]]
		for _, w := range g.adj[n+u] {
			if w >= n {
				nb = append(nb, int32(w-n))
			}
		}
		slices.Sort(nb)
		minDeg = min(minDeg, len(nb))
	}
	f = &dfFinder{off: off, radj: radj, group: make([]int32, nr), mark: make([]int32, nr), work: make([]int32, nr),
		name: func(u int32) string { return g.Name(n + int(u)) }}
	return f, p, minDeg, ""
}

// dfFinder splits a router graph (routers 0..nr-1, ascending neighbour lists
// radj[off[u]:off[u+1]]) into a dragonfly's groups.
type dfFinder struct {
	off, radj   []int32
	group, mark []int32 // group + 1 per router (0: none yet); stamps
	stamp       int32
	a, G, steps int
	work        []int32              // per router, a stamp (maximal)
	maxSteps    int                  // the bound on steps (maxSplitWork and more)
	why         string               // the first reason a search step failed
	name        func(u int32) string // router u's vertex name
	// accept, when set, is asked of every split found (in group): false goes on
	// searching for another (DragonflyGroupsCertain: a split other than g's).
	accept func() bool
	// reach: refuse a group whose routers have fewer neighbours outside it than
	// the G-1 other groups it must be linked to (each neighbour is in one group).
	// DragonflyGroupsCertain sets it: it cuts the parts of a group (a group of 8 of
	// a dragonfly's 16 reaches 8 + its global links) at once.
	reach bool
	// pre, when set, are groups fixed before the search (group + 1 per router, 0
	// for none; groups 1..preGroups), which split keeps.
	pre       []int32
	preGroups int32
}

// reaches reports whether the group of u and pick has at least G-1 neighbours
// outside it (reach).
func (f *dfFinder) reaches(u int32, pick []int32) bool {
	f.stamp++
	f.mark[u] = f.stamp
	for _, v := range pick {
		f.mark[v] = f.stamp
	}
	out := 0
	for _, v := range append([]int32{u}, pick...) {
		f.steps += int(f.off[v+1] - f.off[v])
		for _, w := range f.radj[f.off[v]:f.off[v+1]] {
			if f.mark[w] != f.stamp {
				f.mark[w] = f.stamp
				out++
			}
		}
	}
	return out >= f.G-1
}

// joined reports whether routers u and v are joined.
func (f *dfFinder) joined(u, v int32) bool {
	_, ok := slices.BinarySearch(f.radj[f.off[u]:f.off[u+1]], v)
	return ok
}

// consecutive puts routers ua..ua+a-1 in group u+1 and returns them in order, or
// the reason they are not joined all to all.
func (f *dfFinder) consecutive(a int) ([]int32, string) {
	order := make([]int32, len(f.group))
	for u := range order {
		order[u] = int32(u)
		f.group[u] = int32(u/a + 1)
	}
	for u := range order {
		local := 0
		for _, w := range f.radj[f.off[u]:f.off[u+1]] {
			if f.group[w] == f.group[u] {
				local++
			}
		}
		if local != a-1 {
			return nil, fmt.Sprintf("switch %s is joined to %d of the %d others of its group", f.name(int32(u)), local, a-1)
		}
	}
	return order, ""
}

// split puts the routers into G groups of a routers joined all to all, with a
// link between every two groups, and returns the routers in group order, or the
// reason it cannot. The first router not yet in a group starts one with a - 1 of
// its neighbours not yet in a group that share at least a - 2 neighbours with it
// (as routers of one group do) and are joined to each other, the first such set in
// vertex order, those that are maximal cliques first; when that leaves a router
// without a group or two groups unlinked, the next set is tried (a search that
// tries every set once, bounded by maxSplitWork).
func (f *dfFinder) split(a, G int) ([]int32, string) {
	clear(f.group)
	var done int32
	if f.pre != nil {
		copy(f.group, f.pre)
		done = f.preGroups
	}
	f.steps, f.a, f.G, f.why = 0, a, G, ""
	f.maxSteps = maxSplitWork + 32*len(f.radj)
	if !f.cover(0, done) {
		switch {
		case f.steps > f.maxSteps:
			return nil, "the search for the groups took too long"
		case f.why == "":
			f.why = "no split"
		}
		return nil, f.why
	}
	order := make([]int32, 0, len(f.group))
	members := make([]int32, G+1) // group g's routers at order[members[g-1]:members[g]]
	for _, gp := range f.group {
		members[gp]++
	}
	for g := range G {
		members[g+1] += members[g]
	}
	order = order[:len(f.group)]
	for u, gp := range f.group {
		order[members[gp-1]] = int32(u)
		members[gp-1]++
	}
	return order, ""
}

// cover puts the routers from u on in groups numbered from done+1 (cover's search).
func (f *dfFinder) cover(u int32, done int32) bool {
	nr := int32(len(f.group))
	for u < nr && f.group[u] != 0 {
		u++
	}
	if u == nr {
		if r := f.groupsLinked(f.G); r != "" {
			f.why = r
			return false
		}
		return f.accept == nil || f.accept()
	}
	// Candidates: neighbours not yet in a group sharing a - 2 neighbours with u
	// (none needed in groups of one).
	f.stamp++
	nbu := f.radj[f.off[u]:f.off[u+1]]
	if f.a == 1 {
		nbu = nil
	}
	for _, w := range nbu {
		f.mark[w] = f.stamp
	}
	var cand, common []int32
	for _, v := range nbu {
		if f.group[v] != 0 {
			continue
		}
		c := 0
		f.steps += int(f.off[v+1] - f.off[v])
		for _, w := range f.radj[f.off[v]:f.off[v+1]] {
			if f.mark[w] == f.stamp {
				c++
			}
		}
		if c >= f.a-2 {
			cand, common = append(cand, v), append(common, int32(c))
		}
	}
	if len(cand) < f.a-1 && f.why == "" {
		f.why = fmt.Sprintf("switch %s has %d neighbours that could share its group, not %d", f.name(u), len(cand), f.a-1)
	}
	// Fewest common neighbours first: a group's routers share the group and little
	// else, whereas routers of several groups that happen to be joined all to all
	// (in merlin's layout, the first router of each of the first groups) share
	// their whole clique. Groups that are maximal cliques first, then any.
	idx := make([]int, len(cand))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return int(common[i] - common[j]) })
	sorted := make([]int32, len(cand))
	for i, k := range idx {
		sorted[i] = cand[k]
	}
	cand = sorted
	pick := make([]int32, 0, f.a-1)
	f.group[u] = done + 1
	// Groups of 1 or 2 are seldom maximal cliques: one pass over all. Otherwise the
	// maximal cliques, then the others, so that each set is tried once.
	passes := []int{maximalOnly, notMaximal}
	if f.a <= 2 {
		passes = []int{anyClique}
	}
	var found bool
	for _, pass := range passes {
		found = f.clique(cand, pick, 0, f.a-1, func(pick []int32) bool {
			if pass != anyClique && f.maximal(u, pick) != (pass == maximalOnly) {
				return false
			}
			if f.reach && !f.reaches(u, pick) {
				return f.steps > f.maxSteps
			}
			for _, v := range pick {
				f.group[v] = done + 1
			}
			if f.cover(u+1, done+1) {
				return true
			}
			for _, v := range pick {
				f.group[v] = 0
			}
			return f.steps > f.maxSteps
		})
		if found {
			break
		}
	}
	if !found {
		f.group[u] = 0
	}
	return found && f.steps <= f.maxSteps
}

// The passes of cover over the cliques that may be u's group.
const (
	anyClique = iota
	maximalOnly
	notMaximal
)

// maximal reports whether no router outside u and pick is joined to all of them.
func (f *dfFinder) maximal(u int32, pick []int32) bool {
	// Count for each router the picks it is joined to (stamped: work[w] - base).
	base := f.stamp + 1
	f.stamp += int32(len(pick)) + 2
	for _, v := range pick {
		f.steps += int(f.off[v+1] - f.off[v])
		for _, w := range f.radj[f.off[v]:f.off[v+1]] {
			if f.work[w] < base {
				f.work[w] = base
			}
			f.work[w]++
		}
	}
	for _, v := range pick {
		f.work[v] = 0
	}
	f.steps += int(f.off[u+1] - f.off[u])
	for _, w := range f.radj[f.off[u]:f.off[u+1]] {
		if f.work[w]-base == int32(len(pick)) {
			return false
		}
	}
	return true
}

// clique extends pick by need routers from cand[from:] joined to each other and to
// every router picked, in candidate order, and calls done with each such set until
// it reports true; it reports whether one did.
func (f *dfFinder) clique(cand, pick []int32, from, need int, done func([]int32) bool) bool {
	if need == 0 {
		return done(pick)
	}
	for i := from; i+need <= len(cand); i++ {
		if f.steps += 1 + len(pick); f.steps > f.maxSteps {
			return true // stop; cover reports the bound
		}
		v := cand[i]
		ok := true
		for _, w := range pick {
			if !f.joined(v, w) {
				ok = false
				break
			}
		}
		if ok && f.clique(cand, append(pick, v), i+1, need-1, done) {
			return true
		}
	}
	return false
}

// groupsLinked checks that every two of the G groups found are linked.
func (f *dfFinder) groupsLinked(G int) string {
	// Per group, the other groups its routers reach, as stamps.
	seen := make([]int32, G)
	for i := range seen {
		seen[i] = -1
	}
	members := make([][]int32, G)
	for u, gp := range f.group {
		members[gp-1] = append(members[gp-1], int32(u))
	}
	for A := range G {
		reached := 0
		for _, u := range members[A] {
			for _, w := range f.radj[f.off[u]:f.off[u+1]] {
				if B := f.group[w] - 1; int(B) != A && seen[B] != int32(A) {
					seen[B] = int32(A)
					reached++
				}
			}
		}
		if reached != G-1 {
			return fmt.Sprintf("the group of switch %s is linked to %d of the %d other groups", f.name(members[A][0]), reached, G-1)
		}
	}
	return ""
}

// numbering returns the numbering of the groups found (routers in order, a group's
// routers ascending; groups in order of their lowest router), nil slices when it is
// the one Dragonfly builds.
func numbering(g *Graph, order []int32, p int) dragonflyNumbering {
	n := g.N()
	identity := true
	for i, u := range order {
		if u != int32(i) {
			identity = false
			break
		}
	}
	if identity {
		for h := range n {
			if g.adj[h][0] != n+h/p {
				identity = false
				break
			}
		}
	}
	if identity {
		return dragonflyNumbering{}
	}
	num := dragonflyNumbering{hostRouter: make([]int32, n), routerVertex: make([]int32, len(order)), vertexRouter: make([]int32, len(order))}
	for r, u := range order {
		num.routerVertex[r] = int32(n) + u
		num.vertexRouter[u] = int32(r)
	}
	for h := range n {
		num.hostRouter[h] = num.vertexRouter[g.adj[h][0]-n]
	}
	return num
}

// TreeLevels is the level structure of a tree-like fabric (a fat tree, a Slurm
// tree, an ibnetdiscover fat tree): level 0 holds the switches of the hosts, every
// host pendant on one; level l+1 the switches first met above level l; every link
// between switches joins adjacent levels and hosts hang below level 0 only.
type TreeLevels struct {
	// Level is each vertex's level (-1 for a host).
	Level []int32
	// ByLevel lists the switches of each level in ascending order.
	ByLevel [][]int32
}

// TreeLevels returns g's level structure, or ok false with the reason g has none.
// It is recognised once; every user (netsim's closed-form route loads of a fat
// tree) asks here.
func (g *Graph) TreeLevels() (levels *TreeLevels, reason string) {
	g.treeOnce.Do(func() { g.tree, g.treeReason = recogniseTreeLevels(g) })
	return g.tree, g.treeReason
}

func recogniseTreeLevels(g *Graph) (*TreeLevels, string) {
	n, nv := g.N(), g.Vertices()
	if n < 2 || nv == n {
		return nil, "fewer than 2 hosts or no switch"
	}
	level := make([]int32, nv)
	for v := range level {
		level[v] = -1
	}
	var front []int32
	for h := range n {
		nb := g.adj[h]
		if len(nb) != 1 || nb[0] < n {
			return nil, fmt.Sprintf("host %s is not pendant on a switch", g.Name(h))
		}
		if level[nb[0]] < 0 {
			level[nb[0]] = 0
			front = append(front, int32(nb[0]))
		}
	}
	t := &TreeLevels{Level: level}
	for l := int32(0); len(front) > 0; l++ {
		slices.Sort(front)
		t.ByLevel = append(t.ByLevel, front)
		var next []int32
		for _, v := range front {
			for _, w := range g.adj[v] {
				if w >= n && level[w] < 0 {
					level[w] = l + 1
					next = append(next, int32(w))
				}
			}
		}
		front = next
	}
	for v := n; v < nv; v++ {
		if level[v] < 0 {
			return nil, "a switch is not above any host"
		}
		for _, w := range g.adj[v] {
			if w < n {
				if level[v] != 0 {
					return nil, "a host hangs below level 0"
				}
				continue
			}
			if d := level[w] - level[v]; d != 1 && d != -1 {
				return nil, "a link does not join adjacent levels"
			}
		}
	}
	return t, ""
}
