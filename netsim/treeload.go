package netsim

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/topo"
)

// treeModel is the level structure of a fat tree (or a tree) under which a
// GraphRouter's routes are known in closed form, so that the all-to-all route loads
// of a job come from subtree counts per switch instead of one in-tree per
// destination (allToAllTreeLoad).
//
// Switches are put on levels: level 0 the switches of the hosts (every host pendant),
// level l+1 the switches first met above level l. A group at level 0 is one leaf
// switch; a group at level l+1 is the set of switches with the same set of child
// groups below them; its hosts are those below. The switches of a group are numbered
// (their position) in vertex order; every group of level l has rig[l] switches. On
// SST merlin's fat tree (topo.FatTree) switch r of a group takes the up links r,
// r+R, r+2R, ... (R = rig[l]), so the GraphRouter's rule (destination-modulo, one
// digit of the destination per level, see GraphRouter) reads, for a route from s to
// d whose lowest common level is L:
//
//   - going up from level l (< L) the route takes parent number t_l(d, L) = digit
//     e = ecc-1-dist of d in base c_l (c_l = rig[l+1]/rig[l] parents per switch,
//     dist = (L-l)+L+1 hops from the switch to d), whatever the source: every source
//     below a group G of level l reaches G's switch at position P_l(d, L) =
//     sum_{m<l} t_m(d, L) rig[m] (a mixed-radix number, the same in every group);
//   - going down from level L, the route keeps the positions P_l(d, L) = P_L mod
//     rig[l]: the down path mirrors the up path.
//
// So the up channel of group G (level i) into the parent at position q carries
// n(G) x #{d outside G: P_{i+1}(d, L(G, d)) = q} routes, and the down channel from
// that parent into G carries sum_L #{d in G: P_{i+1}(d, L) = q} x (n(anc_L G) -
// n(anc_{L-1} G)), n counting the job's hosts. The model is not assumed: newTreeModel
// checks every next hop it predicts (every destination host, every switch) against
// GraphRouter's rule and returns nil on the first difference, and the meter then
// counts on in-trees.
type treeModel struct {
	n, top  int
	ecc     int
	rig     []int     // switches per group, per level
	ups     []int     // parents per switch below the top, per level
	ngroups []int     // groups per level
	hostGrp [][]int32 // hostGrp[l][host]: the group of level l above the host
	parent  [][]int32 // parent[l][g]: the group of level l+1 above group g of level l

	// per-job scratch
	cnt      [][]int32 // cnt[l][g]: the job's hosts below group g of level l (stamped)
	cntStamp [][]int32
	gen      int32
	jobGrp   [][]int32 // per level, the groups holding job hosts
	acc      []int64   // group x parent position, per level (scratch)
	accTouch []int32
	a, b     []int32 // destination histograms (scratch)
	abTouch  []int32
}

// newTreeModel returns the tree model of g, or nil (with the reason, for tests) when
// g is not a fat tree whose GraphRouter routes it predicts. It checks the structure
// the model rests on switch by switch (checkStructure): O(vertices + links + hosts x
// levels) time and O(vertices + hosts x levels) memory, no next-hop table.
func newTreeModel(g *topo.Graph) (*treeModel, string) {
	return buildTreeModel(context.Background(), g, false)
}

// treeModelEvery is how many switches or hosts the model's build handles between
// looks at its context (0.3 s for a fat tree of 131,072 hosts).
const treeModelEvery = 1 << 12

// interruptedReason is buildTreeModel's reason when its context ended.
const interruptedReason = "interrupted"

// buildTreeModel is newTreeModel; with checkRows it checks every predicted next hop
// against GraphRouter's rule instead, one leaf switch's breadth-first row at a time
// (checkRows, the reference of checkStructure in tests). When ctx ends it returns
// nil with interruptedReason.
func buildTreeModel(ctx context.Context, g *topo.Graph, checkRows bool) (*treeModel, string) {
	n, nv := g.N(), g.Vertices()
	tl, reason := g.TreeLevels()
	if tl == nil {
		return nil, reason
	}
	level, byLevel := tl.Level, tl.ByLevel
	var nb []int
	top := len(byLevel) - 1
	m := &treeModel{n: n, top: top}
	group := make([]int32, nv)
	pos := make([]int32, nv)
	sw := make([][]int32, top+1) // sw[l][g*rig+p]: the switch
	for l := 0; l <= top; l++ {
		ids := map[string]int32{}
		var members [][]int32
		for i, v := range byLevel[l] {
			if i%treeModelEvery == 0 && ctx.Err() != nil {
				return nil, interruptedReason
			}
			key := ""
			if l == 0 {
				key = fmt.Sprint(v)
			} else {
				var cg []int32
				for _, w := range g.Neighbors(int(v), nb[:0]) {
					if level[w] == int32(l-1) {
						cg = append(cg, group[w])
					}
				}
				slices.Sort(cg)
				cg = slices.Compact(cg)
				var sb strings.Builder
				for _, c := range cg {
					fmt.Fprintf(&sb, "%d,", c)
				}
				key = sb.String()
			}
			id, ok := ids[key]
			if !ok {
				id = int32(len(members))
				ids[key] = id
				members = append(members, nil)
			}
			group[v] = id
			pos[v] = int32(len(members[id]))
			members[id] = append(members[id], v)
		}
		rig := len(members[0])
		for _, ms := range members {
			if len(ms) != rig {
				return nil, fmt.Sprintf("groups of level %d differ in size", l)
			}
		}
		m.rig = append(m.rig, rig)
		m.ngroups = append(m.ngroups, len(members))
		sw[l] = slices.Concat(members...)
	}
	if m.ngroups[top] != 1 {
		return nil, "more than one group at the top"
	}
	for l := range top {
		if m.rig[l+1]%m.rig[l] != 0 {
			return nil, fmt.Sprintf("level %d: %d switches per group above groups of %d", l+1, m.rig[l+1], m.rig[l])
		}
		m.ups = append(m.ups, m.rig[l+1]/m.rig[l])
		par := make([]int32, m.ngroups[l])
		for i := range par {
			par[i] = -1
		}
		for _, v := range byLevel[l+1] {
			for _, w := range g.Neighbors(int(v), nb[:0]) {
				if level[w] != int32(l) {
					continue
				}
				if p := par[group[w]]; p >= 0 && p != group[v] {
					return nil, fmt.Sprintf("a group of level %d is below two groups", l)
				}
				par[group[w]] = group[v]
			}
		}
		m.parent = append(m.parent, par)
	}
	m.hostGrp = make([][]int32, top+1)
	for l := range m.hostGrp {
		m.hostGrp[l] = make([]int32, n)
	}
	for h := range n {
		if h%treeModelEvery == 0 && ctx.Err() != nil {
			return nil, interruptedReason
		}
		gr := group[g.Neighbors(h, nb[:0])[0]]
		for l := 0; l <= top; l++ {
			m.hostGrp[l][h] = gr
			if l < top {
				gr = m.parent[l][gr]
			}
		}
	}
	// ecc: the highest level at which two hosts meet gives the farthest host.
	lmax := 0
	for l := 1; l <= top; l++ {
		if m.ngroups[l] < m.ngroups[l-1] {
			lmax = l
		}
	}
	m.ecc = 2 + 2*lmax
	check := m.checkStructure
	if checkRows {
		check = m.checkRows
	}
	if ctx.Err() != nil {
		return nil, interruptedReason
	}
	if why := check(g, level, group, pos, sw); why != "" {
		return nil, why
	}
	if ctx.Err() != nil {
		return nil, interruptedReason
	}
	m.cnt = make([][]int32, top+1)
	m.cntStamp = make([][]int32, top+1)
	m.jobGrp = make([][]int32, top+1)
	for l := range m.cnt {
		m.cnt[l] = make([]int32, m.ngroups[l])
		m.cntStamp[l] = make([]int32, m.ngroups[l])
	}
	return m, ""
}

// checkStructure checks, switch by switch, the facts under which the model's next
// hops are GraphRouter's for every destination host, so that no route is traced:
//
//   - every switch of a group of level l+1 has one down link into each group of
//     level l below it, to the switch at its own position mod rig[l] there, and no
//     other down link;
//   - every switch v of a group below the top has as up links exactly the switches
//     at positions pos(v) + t rig[l] (t < ups[l]) of its parent group;
//   - every host's farthest host meets it at level lmax (the model's ecc).
//
// Then, the groups forming a tree, a switch of level l whose group is below host
// d's group of level L (the lowest they share) is 2L-l+1 hops from d, its parents
// one hop closer and its children one further: GraphRouter's closer neighbours are
// the ups[l] parents in ascending order (positions follow vertex order), and it
// takes number digit(d, l, L), the model's choice; a switch above d has one child
// in d's group below, the only closer neighbour, the one at its position mod rig.
// O(vertices + links + hosts x levels).
func (m *treeModel) checkStructure(g *topo.Graph, level, group, pos []int32, sw [][]int32) string {
	n, nv := g.N(), g.Vertices()
	// Child groups per group, per level.
	children := make([][]int32, m.top+1)
	for l := 1; l <= m.top; l++ {
		children[l] = make([]int32, m.ngroups[l])
		for _, p := range m.parent[l-1] {
			children[l][p]++
		}
	}
	var nb []int
	seen := make([]int32, m.ngroups[0]) // stamp v+1 of the switch whose child groups are counted
	for _, gs := range m.ngroups {
		if len(seen) < gs {
			seen = make([]int32, gs)
		}
	}
	for v := n; v < nv; v++ {
		l := int(level[v])
		gv, p := group[v], int(pos[v])
		ups, downs := 0, 0
		for _, w := range g.Neighbors(v, nb[:0]) {
			if w < n {
				continue // a host on a leaf switch: TreeLevels checked it hangs there
			}
			lw := int(level[w])
			switch {
			case lw == l+1:
				if l == m.top || group[w] != m.parent[l][gv] {
					return "a switch links up into a group other than its parent group"
				}
				q := int(pos[w])
				if q < p || (q-p)%m.rig[l] != 0 {
					return fmt.Sprintf("switch %s links up to %s, not at its position plus a multiple of %d", g.Name(v), g.Name(w), m.rig[l])
				}
				ups++
			case lw == l-1:
				if m.parent[l-1][group[w]] != gv {
					return "a switch links down into a group below another group"
				}
				if int(pos[w]) != p%m.rig[l-1] {
					return fmt.Sprintf("switch %s links down to %s, not at its position mod %d", g.Name(v), g.Name(w), m.rig[l-1])
				}
				if seen[group[w]] == int32(v+1) {
					return fmt.Sprintf("switch %s has two links into one group below it", g.Name(v))
				}
				seen[group[w]] = int32(v + 1)
				downs++
			default:
				return "a link does not join adjacent levels"
			}
		}
		if l < m.top && ups != m.ups[l] {
			return fmt.Sprintf("switch %s has %d up links, its group %d", g.Name(v), ups, m.ups[l])
		}
		if l > 0 && downs != int(children[l][gv]) {
			return fmt.Sprintf("switch %s links into %d of the %d groups below it", g.Name(v), downs, children[l][gv])
		}
	}
	// Every host's farthest host: the highest level whose group above it has two
	// child groups (every group has hosts below it).
	for h := range n {
		lh := 0
		for l := 1; l <= m.top; l++ {
			if children[l][m.hostGrp[l][h]] >= 2 {
				lh = l
			}
		}
		if 2+2*lh != m.ecc {
			return fmt.Sprintf("host %s's farthest host is %d hops away, not %d", g.Name(h), 2+2*lh, m.ecc)
		}
	}
	return ""
}

// lca returns the lowest level above l at which host d and group gv of level l meet.
func (m *treeModel) lca(d, l int, gv int32) int {
	for L := l + 1; L <= m.top; L++ {
		gv = m.parent[L-1][gv]
		if m.hostGrp[L][d] == gv {
			return L
		}
	}
	return m.top + 1 // not reached on a model with one top group
}

// digit returns the parent number a route to d whose lowest common level is L takes
// when it climbs from level l: GraphRouter's rule with dist = (L-l)+L+1.
func (m *treeModel) digit(d, l, L int) int {
	c := m.ups[l]
	q := d
	for e := m.ecc - 1 - (2*L - l + 1); e > 0 && q > 0; e-- {
		q /= c
	}
	return q % c
}

// position returns P_{i+1}(d, L): the position at level i+1 of the routes to d whose
// lowest common level is L (> i).
func (m *treeModel) position(d, i, L int) int {
	p := 0
	for l := 0; l <= i; l++ {
		p += m.digit(d, l, L) * m.rig[l]
	}
	return p
}

// load returns the all-to-all route load of the job on nodes (distinct hosts, at
// least 2): the counts of the trace, from subtree counts (see treeModel).
func (m *treeModel) load(nodes []int) RouteLoad {
	k := int64(len(nodes))
	l := RouteLoad{Messages: k * (k - 1), MaxShared: k - 1} // a host's own links carry k-1
	m.gen = bumpGen(m.gen, nil)
	if m.gen == 1 {
		for lv := range m.cntStamp {
			clear(m.cntStamp[lv])
		}
	}
	gen := m.gen
	for lv := 0; lv <= m.top; lv++ {
		cnt, st, hg := m.cnt[lv], m.cntStamp[lv], m.hostGrp[lv]
		jg := m.jobGrp[lv][:0]
		for _, d := range nodes {
			gr := hg[d]
			if st[gr] != gen {
				st[gr], cnt[gr] = gen, 0
				jg = append(jg, gr)
			}
			cnt[gr]++
		}
		m.jobGrp[lv] = jg
	}
	// Hops: a pair meeting first at level L is 2L+2 hops apart.
	var prev int64
	for lv := 0; lv <= m.top; lv++ {
		var pairs int64
		for _, gr := range m.jobGrp[lv] {
			c := int64(m.cnt[lv][gr])
			pairs += c * (c - 1)
		}
		l.Hops += (pairs - prev) * int64(2*lv+2)
		prev = pairs
	}
	n := func(lv int, gr int32) int64 { return int64(m.cnt[lv][gr]) } // stamped by the loop above
	for i := range m.top {
		ru := m.rig[i+1]
		size := m.ngroups[i] * ru
		if len(m.acc) < size {
			m.acc = make([]int64, size)
		}
		// Down channels into the groups of level i.
		acc := m.acc
		m.accTouch = m.accTouch[:0]
		for _, d := range nodes {
			gi := m.hostGrp[i][d]
			for L := i + 1; L <= m.top; L++ {
				w := n(L, m.hostGrp[L][d]) - n(L-1, m.hostGrp[L-1][d])
				if w == 0 {
					continue
				}
				j := int32(int(gi)*ru + m.position(d, i, L))
				if acc[j] == 0 {
					m.accTouch = append(m.accTouch, j)
				}
				acc[j] += w
			}
		}
		for _, j := range m.accTouch {
			l.MaxShared = max(l.MaxShared, acc[j])
			acc[j] = 0
		}
		// Up channels out of the groups of level i: per level L of the meeting, the
		// destinations below each group of level L and of level L-1, by position.
		for L := i + 1; L <= m.top; L++ {
			sa, sb := m.ngroups[L]*ru, m.ngroups[L-1]*ru
			if len(m.a) < sa {
				m.a = make([]int32, sa)
			}
			if len(m.b) < sb {
				m.b = make([]int32, sb)
			}
			m.abTouch = m.abTouch[:0]
			for _, d := range nodes {
				q := m.position(d, i, L)
				ja, jb := int(m.hostGrp[L][d])*ru+q, int(m.hostGrp[L-1][d])*ru+q
				m.a[ja]++
				m.b[jb]++
				m.abTouch = append(m.abTouch, int32(ja), int32(jb))
			}
			for _, gi := range m.jobGrp[i] {
				ga, gb := gi, gi
				for lv := i; lv < L; lv++ {
					ga = m.parent[lv][ga]
					if lv < L-1 {
						gb = m.parent[lv][gb]
					}
				}
				ra, rb, rc := m.a[int(ga)*ru:int(ga+1)*ru], m.b[int(gb)*ru:int(gb+1)*ru], acc[int(gi)*ru:int(gi+1)*ru]
				for q := range rc {
					rc[q] += int64(ra[q] - rb[q])
				}
			}
			for t, j := range m.abTouch {
				if t%2 == 0 {
					m.a[j] = 0
				} else {
					m.b[j] = 0
				}
			}
		}
		for _, gi := range m.jobGrp[i] {
			c := n(i, gi)
			rc := acc[int(gi)*ru : int(gi+1)*ru]
			for q, x := range rc {
				l.MaxShared = max(l.MaxShared, c*x)
				rc[q] = 0
			}
		}
	}
	return l
}

// checkRows checks every next hop the model predicts against GraphRouter's rule, one
// leaf switch's breadth-first row at a time (no hosts x vertices table): O(leaf
// switches x (vertices + links) + hosts x switches). It is the reference of
// checkStructure (TestTreeModelStructureCheckIsRowCheck).
func (m *treeModel) checkRows(g *topo.Graph, level, group, pos []int32, sw [][]int32) string {
	n, nv := g.N(), g.Vertices()
	byLevel0 := []int32{}
	for v := n; v < nv; v++ {
		if level[v] == 0 {
			byLevel0 = append(byLevel0, int32(v))
		}
	}
	var nb []int
	// For a host d below leaf a and a switch v, dist(v, d) = dist(v, a) + 1, the
	// neighbours one hop closer are v's switches one hop closer to a (d itself from
	// a), and ecc(d) = 1 + the largest dist(a, x) over hosts x.
	adjOff := make([]int32, nv-n+1) // switches' switch neighbours, ascending
	var adj []int32
	for v := n; v < nv; v++ {
		for _, w := range g.Neighbors(v, nb[:0]) {
			if w >= n {
				adj = append(adj, int32(w))
			}
		}
		adjOff[v-n+1] = int32(len(adj))
	}
	cOff := make([]int32, nv-n+1) // per leaf row: each switch's closer neighbours
	closer := make([]int32, 0, len(adj))
	for _, a := range byLevel0 {
		dist := g.DistRow(int(a))
		ecc := int32(0)
		for _, x := range dist[:n] {
			if x < 0 {
				return "hosts are not connected"
			}
			ecc = max(ecc, x)
		}
		ecc++
		closer = closer[:0]
		for v := n; v < nv; v++ {
			for _, w := range adj[adjOff[v-n]:adjOff[v-n+1]] {
				if dist[w] == dist[v]-1 {
					closer = append(closer, w)
				}
			}
			cOff[v-n+1] = int32(len(closer))
		}
		for _, d := range g.Neighbors(int(a), nb[:0]) {
			if d >= n {
				continue
			}
			for v := n; v < nv; v++ {
				l := int(level[v])
				gv, p := group[v], int(pos[v])
				var want int32
				if m.hostGrp[l][d] == gv {
					if l == 0 {
						want = int32(d)
					} else {
						c := m.hostGrp[l-1][d]
						want = sw[l-1][int(c)*m.rig[l-1]+p%m.rig[l-1]]
					}
				} else {
					L := m.lca(d, l, gv)
					t := m.digit(d, l, L)
					want = sw[l+1][int(m.parent[l][gv])*m.rig[l+1]+p+t*m.rig[l]]
				}
				// The router's choice.
				got := int32(d)
				if int32(v) != a {
					cl := closer[cOff[v-n]:cOff[v-n+1]]
					if len(cl) == 0 {
						return "a switch has no way to a host"
					}
					q := d
					for e := ecc - 1 - (dist[v] + 1); e > 0 && q > 0; e-- {
						q /= len(cl)
					}
					got = cl[q%len(cl)]
				}
				if got != want {
					return fmt.Sprintf("the route from %s to %s does not follow the model", g.Name(v), g.Name(d))
				}
			}
		}
	}
	return ""
}
