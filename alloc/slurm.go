package alloc

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// Slurm's own node selection (Slurm: Yoo, Jette, Grondona, "SLURM: Simple Linux
// Utility for Resource Management", JSSPP 2003, LNCS 2862, doi:10.1007/10968987_3),
// so that a replay shows what a Slurm cluster does with the weights and topology.conf
// it is given, next to curves and optimal orderings. The rules are those of Slurm 22.05's select/cons_tres (src/plugins/select/
// cons_tres/job_test.c: _eval_nodes and _eval_nodes_topo; slurmctld's node_scheduler.c
// and topology_tree.c), for whole-node jobs on nodes of equal size (every free node
// can take one task of the job), no required nodes, no --switches, no features, no
// reservations; they are checked placement by placement against a running Slurm 22.05
// (alloc/slurm_real_test.go, `make test-slurm`; docs/alloc.md, "Slurm"). Node indices
// are Slurm's node table order: the node names sorted with strnatcmp, as slurmctld
// sorts them at startup (hostlist.NaturalCompare; x010 comes before x1).
//
//   - slurm:consec (no topology plugin): the free nodes form runs of consecutive node
//     indices of equal Weight; the run of lowest weight wins; among equal weights the
//     first run large enough for the rest of the job, replaced by a later run only if
//     it is large enough and smaller (the tightest fit, earliest on ties); when no run
//     is large enough, the largest (earliest on ties). The job takes the run's first
//     nodes in index order, the run is used up, and the choice repeats for the
//     remaining nodes. So lower weights are always taken whole before a higher one,
//     and with distinct weights the job gets the k free nodes of lowest weight (a
//     sorted free list).
//   - slurm:tree (topology/tree): the top switch is the first switch in file order
//     with at least k free nodes, replaced by a later one of at least its level whose
//     lowest free weight is not higher; nodes outside it are out. Weight groups of its
//     free nodes, lowest first, are added until k nodes are reached: the groups
//     before the last are taken whole ("required"), and every switch holding one of
//     them is required. Then the required leaves (file order) are filled from the
//     last group's nodes, index order. Then leaves are chosen one at a time, in file
//     order, a leaf replacing the best so far when its summed distance (hops between
//     switches, summed over the required and already chosen switches) is smaller and
//     it compares at least as well, or the distance is equal and it compares better;
//     a chosen leaf gives its nodes in index order. Comparing two leaves climbs both
//     at once through their parents: if both have at least the remaining count of
//     nodes the smaller count is better, if one has, it is better; otherwise at a
//     common parent (or at the roots) the larger count is better, then the lower
//     level. Counts are of the switch's candidate nodes when the job starts (an
//     ancestor's count is not lowered as its leaves are used; a chosen leaf's is set
//     to 0). The parent of a switch no line lists is the first switch of the file
//     (Slurm leaves the field zero); where Slurm's climb would never end (roots at
//     different depths both climbing into each other) the emulation stops after as
//     many steps as there are switches and compares there.
//
// Weights come from an ordering: Weight = rank+1, what `procalloc curve --format
// slurm-weight` writes (NewSlurm takes any weights). slurm:block (topology/block)
// follows Slurm 26.05.3 instead: see slurm_block.go.

// SlurmConfig describes a Slurm cluster to emulate.
type SlurmConfig struct {
	// Names are the Slurm node names of the machine's nodes (node i is Names[i]); nil:
	// the node indices in decimal, the names procalloc's writers use without --hosts.
	Names []string
	// Weights are the nodes' Weight= (node i has Weights[i]); nil: all equal.
	Weights []uint32
	// Tree is the topology/tree configuration; nil: no topology plugin (consec).
	Tree *slurm.Tree
	// Blocks is the topology/block configuration (Slurm 26.05's selection, see
	// slurm_block.go); nil: none. At most one of Tree and Blocks.
	Blocks *slurm.Blocks
}

// SlurmAllocator emulates Slurm's node selection (see above).
type SlurmAllocator struct {
	name string
	m    topo.Machine
	st   *State
	idx  []int32  // Slurm node index of each node
	at   []int32  // node at each Slurm index
	w    []uint32 // weight by Slurm index
	tree *slurm.Tree
	sw   [][]int32 // tree: Slurm indices under each switch, ascending (upper: union)
	// scratch
	sel   []bool
	mark  []bool
	runs  []slurmRun
	runs2 []slurmRun
	dist  []int
	tmp   []int
	blk   *slurmBlocks // topology/block (slurm_block.go)
}

func init() {
	register("slurm", "Slurm's own selection (cons_tres): slurm:consec[:ORDER] (22.05, no topology: best fit over runs of consecutive node names), slurm:tree:TOPOLOGY.conf[:ORDER] (22.05, topology/tree), slurm:block:TOPOLOGY.conf[:ORDER] (26.05, topology/block); ORDER gives Weight=rank+1",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newSlurmFromSpec(arg, m, opt)
		})
}

func newSlurmFromSpec(arg string, m topo.Machine, opt Options) (Allocator, error) {
	mode, rest, _ := strings.Cut(arg, ":")
	var cfg SlurmConfig
	cfg.Names = curves.NodeNames(m)
	var order string
	switch mode {
	case "consec":
		order = rest
	case "tree":
		file, o, _ := strings.Cut(rest, ":")
		if file == "" {
			return nil, fmt.Errorf("slurm:tree needs a topology.conf: slurm:tree:FILE[:ORDER]")
		}
		if opt.SlurmTree == nil {
			return nil, fmt.Errorf("slurm:tree:%s: no reader for topology.conf files (Options.SlurmTree)", file)
		}
		t, err := opt.SlurmTree(file)
		if err != nil {
			return nil, err
		}
		cfg.Tree, order = t, o
	case "block":
		file, o, _ := strings.Cut(rest, ":")
		if file == "" {
			return nil, fmt.Errorf("slurm:block needs a topology.conf: slurm:block:FILE[:ORDER]")
		}
		if opt.SlurmBlocks == nil {
			return nil, fmt.Errorf("slurm:block:%s: no reader for topology.conf files (Options.SlurmBlocks)", file)
		}
		b, err := opt.SlurmBlocks(file)
		if err != nil {
			return nil, err
		}
		cfg.Blocks, order = b, o
	default:
		return nil, fmt.Errorf("slurm needs a mode: slurm:consec[:ORDER], slurm:tree:TOPOLOGY.conf[:ORDER] or slurm:block:TOPOLOGY.conf[:ORDER], not %q", arg)
	}
	if order != "" {
		o, err := resolveCurve(order, m, opt)
		if err != nil {
			return nil, err
		}
		cfg.Weights = make([]uint32, m.N())
		for r, v := range o {
			cfg.Weights[v] = uint32(r + 1)
		}
	}
	a, err := NewSlurm(m, cfg)
	if err != nil {
		return nil, err
	}
	a.name = "slurm:" + arg
	return a, nil
}

// NewSlurm returns an allocator that places jobs as Slurm does on cluster cfg (see
// above). Names must be distinct; every node a leaf switch lists must be a node of
// the machine (Slurm would ignore it with a warning; here it is taken for a typo).
func NewSlurm(m topo.Machine, cfg SlurmConfig) (*SlurmAllocator, error) {
	n := m.N()
	names := cfg.Names
	if names == nil {
		names = make([]string, n)
		for i := range names {
			names[i] = strconv.Itoa(i)
		}
	}
	if len(names) != n {
		return nil, fmt.Errorf("%d node names for %d nodes", len(names), n)
	}
	if cfg.Weights != nil && len(cfg.Weights) != n {
		return nil, fmt.Errorf("%d weights for %d nodes", len(cfg.Weights), n)
	}
	if cfg.Tree != nil && cfg.Blocks != nil {
		return nil, fmt.Errorf("a topology/tree and a topology/block configuration: Slurm has one topology plugin")
	}
	a := &SlurmAllocator{name: "slurm", m: m, st: NewState(n), idx: make([]int32, n), at: make([]int32, n), w: make([]uint32, n), tree: cfg.Tree, sel: make([]bool, n)}
	for i := range a.at {
		a.at[i] = int32(i)
	}
	slices.SortStableFunc(a.at, func(x, y int32) int { return hostlist.NaturalCompare(names[x], names[y]) })
	for s, v := range a.at {
		if s > 0 && names[a.at[s-1]] == names[v] {
			return nil, fmt.Errorf("node name %q given twice", names[v])
		}
		a.idx[v] = int32(s)
		if cfg.Weights != nil {
			a.w[s] = cfg.Weights[v]
		}
	}
	if t := cfg.Tree; t != nil {
		byName := make(map[string]int32, n)
		for v, nm := range names {
			byName[nm] = int32(v)
		}
		a.sw = make([][]int32, len(t.Switches))
		done := make([]bool, len(t.Switches))
		var fill func(i int) []int32
		fill = func(i int) []int32 {
			if done[i] {
				return a.sw[i]
			}
			done[i] = true
			var set []int32
			for _, c := range t.Switches[i].Children {
				set = append(set, fill(c)...)
			}
			slices.Sort(set)
			a.sw[i] = slices.Compact(set)
			return a.sw[i]
		}
		for i, s := range t.Switches {
			if s.Level != 0 {
				continue
			}
			set := make([]int32, 0, len(s.Nodes))
			for _, nm := range s.Nodes {
				v, ok := byName[nm]
				if !ok {
					return nil, fmt.Errorf("topology.conf line %d: switch %s lists node %q, which is not a node of the machine", s.Line, s.Name, nm)
				}
				set = append(set, a.idx[v])
			}
			slices.Sort(set)
			a.sw[i] = slices.Compact(set)
			done[i] = true
		}
		for i := range t.Switches {
			fill(i)
		}
		a.dist = make([]int, len(t.Switches))
	}
	if cfg.Blocks != nil {
		if err := a.initBlocks(cfg.Blocks, names); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *SlurmAllocator) Name() string          { return a.name }
func (a *SlurmAllocator) Machine() topo.Machine { return a.m }
func (a *SlurmAllocator) NumFree() int          { return a.st.NumFree() }

// Release marks the nodes free again.
func (a *SlurmAllocator) Release(nodes []int) error { return a.st.Release(nodes) }

// MayFragment reports whether the emulation can leave a job pending although enough
// nodes are free (Fragmenting): under topology/tree and topology/block it can,
// without a topology it cannot.
func (a *SlurmAllocator) MayFragment() bool { return a.tree != nil || a.blk != nil }

// Clone returns an independent copy in the same state (Fragmenting). The
// configuration is shared, read-only; so are the scratch buffers, which every
// call leaves clean or overwrites before use.
func (a *SlurmAllocator) Clone() Fragmenting {
	c := *a
	c.st = a.st.Clone()
	return &c
}

// IsFree reports whether node v is free.
func (a *SlurmAllocator) IsFree(v int) bool { return a.st.IsFree(v) }

// Occupy marks the nodes busy without choosing them: for following a real cluster
// whose placement differed from the emulation's.
func (a *SlurmAllocator) Occupy(nodes []int) error { return a.st.Take(nodes) }

func (a *SlurmAllocator) free(s int32) bool { return a.st.IsFree(int(a.at[s])) }

// Allocate chooses k free nodes as Slurm would, in Slurm's node-index order.
func (a *SlurmAllocator) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	var picked []int32
	var err error
	switch {
	case a.blk != nil:
		if picked, err = a.blockSelect(k); err != nil {
			return nil, err
		}
	case a.tree == nil:
		picked = a.consec(k)
	default:
		if picked, err = a.treeSelect(k); err != nil {
			return nil, err
		}
	}
	slices.Sort(picked)
	out := make([]int, len(picked))
	for i, s := range picked {
		out[i] = int(a.at[s])
	}
	if err := a.st.Take(out); err != nil {
		return nil, err
	}
	return out, nil
}

type slurmRun struct {
	start, n int32
	w        uint32
}

// consec is _eval_nodes' best fit over runs of consecutive indices of equal weight.
// Slurm rescans every run for each run it takes; the same choices come from one pass:
// runs lighter than the weight W at which the free count reaches k are all taken
// whole (each is smaller than what is left to place when Slurm reaches it); among the
// runs of weight W, while none holds the rest the largest is taken (the earliest of
// equal ones), then the smallest that holds it (the earliest of equal ones).
func (a *SlurmAllocator) consec(k int) []int32 {
	runs := a.runs[:0]
	for s := int32(0); s < int32(len(a.at)); s++ {
		if !a.free(s) {
			continue
		}
		if l := len(runs) - 1; l >= 0 && runs[l].start+runs[l].n == s && runs[l].w == a.w[s] {
			runs[l].n++
			continue
		}
		runs = append(runs, slurmRun{s, 1, a.w[s]})
	}
	a.runs = runs
	// W: sort the runs by weight (stable: index order within a weight).
	byW := a.runs2[:0]
	byW = append(byW, runs...)
	slices.SortStableFunc(byW, func(x, y slurmRun) int { return cmp.Compare(x.w, y.w) })
	a.runs2 = byW
	picked := make([]int32, 0, k)
	rem := int32(k)
	i := 0
	for i < len(byW) {
		j, c := i, int32(0)
		for j < len(byW) && byW[j].w == byW[i].w {
			c += byW[j].n
			j++
		}
		if c < rem { // the whole weight group
			for _, r := range byW[i:j] {
				for s := r.start; s < r.start+r.n; s++ {
					picked = append(picked, s)
				}
			}
			rem -= c
			i = j
			continue
		}
		group := byW[i:j]
		slices.SortStableFunc(group, func(x, y slurmRun) int { return cmp.Compare(y.n, x.n) }) // largest first, index order on ties
		p := 0
		for rem > 0 {
			if group[p].n < rem {
				r := group[p]
				for s := r.start; s < r.start+r.n; s++ {
					picked = append(picked, s)
				}
				rem -= r.n
				p++
				continue
			}
			// The smallest size >= rem: the last such block of the prefix; its first run.
			q := p
			for q+1 < len(group) && group[q+1].n >= rem {
				q++
			}
			for q > p && group[q-1].n == group[q].n {
				q--
			}
			for s := group[q].start; s < group[q].start+rem; s++ {
				picked = append(picked, s)
			}
			rem = 0
		}
		break
	}
	return picked
}

// treeSelect is _eval_nodes_topo without required nodes.
func (a *SlurmAllocator) treeSelect(k int) ([]int32, error) {
	t := a.tree
	ns := len(t.Switches)
	cnt := make([]int, ns)
	lowW := make([]uint32, ns)
	top := -1
	var topW uint32
	for i := range t.Switches {
		c, lw := 0, uint32(0)
		for _, s := range a.sw[i] {
			if a.free(s) {
				if c == 0 || a.w[s] < lw {
					lw = a.w[s]
				}
				c++
			}
		}
		cnt[i], lowW[i] = c, lw
		if c < k {
			continue
		}
		if top < 0 || (t.Switches[i].Level >= t.Switches[top].Level && lw <= topW) {
			top, topW = i, lw
		}
	}
	if top < 0 {
		return nil, fmt.Errorf("request for %d nodes: no switch reaches %d free nodes; Slurm leaves the job pending: %w", k, k, ErrFragmented)
	}
	// Candidates: the free nodes under the top switch, grouped by weight.
	inTop := a.sw[top]
	var ws []uint32
	for _, s := range inTop {
		if a.free(s) {
			ws = append(ws, a.w[s])
		}
	}
	slices.Sort(ws)
	ws = slices.Compact(ws)
	// best: the nodes of the groups up to the one that makes k; req2: those before it.
	var lastW uint32
	got := 0
	for _, w := range ws {
		c := 0
		for _, s := range inTop {
			if a.free(s) && a.w[s] == w {
				c++
			}
		}
		got += c
		lastW = w
		if got >= k {
			break
		}
	}
	if got < k {
		return nil, fmt.Errorf("request for %d nodes: the top switch has %d: %w", k, got, ErrFragmented)
	}
	inTopSet := a.tmpMark(inTop)
	candidate := func(s int32) bool { return inTopSet[s] && a.free(s) && a.w[s] <= lastW }
	isReq2 := func(s int32) bool { return inTopSet[s] && a.free(s) && a.w[s] < lastW }
	defer func() {
		for _, s := range inTop {
			inTopSet[s] = false
		}
	}()
	sel := a.sel
	picked := make([]int32, 0, k)
	rem := k
	required := make([]bool, ns)
	for i := range t.Switches {
		c := 0
		for _, s := range a.sw[i] {
			if candidate(s) {
				c++
				if isReq2(s) {
					required[i] = true
				}
			}
		}
		cnt[i] = c
	}
	for _, s := range inTop {
		if isReq2(s) {
			sel[s] = true
			picked = append(picked, s)
			rem--
		}
	}
	defer func() {
		for _, s := range picked {
			sel[s] = false
		}
	}()
	take := func(i int) bool {
		for _, s := range a.sw[i] {
			if !candidate(s) || sel[s] {
				continue
			}
			sel[s] = true
			picked = append(picked, s)
			rem--
			if rem == 0 {
				return true
			}
		}
		return false
	}
	out := func() []int32 { return slices.Clone(picked) }
	if len(picked) > 0 {
		for i, s := range t.Switches {
			if required[i] && s.Level == 0 && take(i) {
				return out(), nil
			}
		}
	}
	dist := a.dist
	for i := range dist {
		dist[i] = 0
	}
	for i := range t.Switches {
		if required[i] {
			a.addDist(i)
		}
	}
	prev := rem + 1
	for prev != rem {
		prev = rem
		best := -1
		for i, s := range t.Switches {
			if required[i] || s.Level != 0 {
				continue
			}
			if best < 0 || dist[i] < 0 || cnt[i] == 0 {
				if cnt[i] > 0 && dist[i] >= 0 {
					best = i
				}
				continue
			}
			tcs := a.compareSwitches(i, best, rem, cnt)
			if (distLess(dist[i], dist[best]) && tcs >= 0) || (dist[i] == dist[best] && tcs > 0) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		a.addDist(best)
		if take(best) {
			return out(), nil
		}
		cnt[best] = 0
	}
	return nil, fmt.Errorf("request for %d nodes: %d left unplaced on the tree: %w", k, rem, ErrFragmented)
}

// distLess compares summed distances, -1 standing for Slurm's INFINITE.
func distLess(x, y int) bool {
	if x < 0 {
		return false
	}
	return y < 0 || x < y
}

// addDist is _topo_add_dist: dist[i] += hops(inx, i), INFINITE (-1) absorbing.
func (a *SlurmAllocator) addDist(inx int) {
	a.tmp = a.tree.Distances(inx, a.tmp)
	for i, d := range a.tmp {
		if d < 0 || a.dist[i] < 0 {
			a.dist[i] = -1
		} else {
			a.dist[i] += d
		}
	}
}

// compareSwitches is _topo_compare_switches: 1 when switch i is the better choice,
// -1 when j is, 0 on a tie.
func (a *SlurmAllocator) compareSwitches(i, j, rem int, cnt []int) int {
	sw := a.tree.Switches
	for step := 0; step <= len(sw); step++ {
		iFit, jFit := cnt[i] >= rem, cnt[j] >= rem
		if iFit && jFit {
			if cnt[i] < cnt[j] {
				return 1
			}
			if cnt[i] > cnt[j] {
				return -1
			}
			break
		} else if iFit {
			return 1
		} else if jFit {
			return -1
		}
		if (sw[i].Parent != i || sw[j].Parent != j) && sw[i].Parent != sw[j].Parent {
			i, j = sw[i].Parent, sw[j].Parent
			continue
		}
		break
	}
	switch {
	case cnt[i] > cnt[j]:
		return 1
	case cnt[i] < cnt[j]:
		return -1
	case sw[i].Level < sw[j].Level:
		return 1
	case sw[i].Level > sw[j].Level:
		return -1
	}
	return 0
}

// tmpMark returns a per-index mark slice with the given indices set (reused).
func (a *SlurmAllocator) tmpMark(set []int32) []bool {
	if a.mark == nil {
		a.mark = make([]bool, len(a.at))
	}
	for _, s := range set {
		a.mark[s] = true
	}
	return a.mark
}
