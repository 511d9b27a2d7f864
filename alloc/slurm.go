package alloc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/sortedset"
	"github.com/procalloc/procalloc/internal/textin"
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
//     to 0; Slurm 24.11 and later lower the ancestors too and take a closer leaf
//     only when it holds the rest: SlurmConfig.Tree2411). The parent of a switch
//     no line lists is the first switch of the file (Slurm leaves the field zero);
//     where Slurm's climb would never end (roots at different depths both
//     climbing into each other) the emulation stops after as many steps as there
//     are switches and compares there.
//
// Weights come from an ordering: Weight = rank+1, what `procalloc curve --format
// slurm-weight` writes (NewSlurm takes any weights). slurm:block (topology/block)
// follows Slurm 26.05.3 instead: see slurm_block.go. Slurm 26.05 also gives one-node
// jobs a path of their own, whatever the plugin (SlurmConfig.OneNodeByWeight: the
// free node of lowest weight, first in node-index order), checked against Slurm
// 26.05.3 with topology/tree and SwitchAsNodeRank (plan/realslurm_test.go).
// The free state is kept incrementally (slurm_free.go), so that a decision costs
// what it can choose from; the scans it replaced are the tests' references.

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
	// slurm_block.go); nil: none.
	Blocks *slurm.Blocks
	// Rings is the topology/ring configuration (Slurm 26.05's selection, see
	// slurm_ring.go); nil: none. At most one of Tree, Blocks and Rings.
	Rings *slurm.Rings
	// OneNodeByWeight emulates Slurm 26.05 and later for one-node jobs: they skip
	// the plugin's selection and take the free node of lowest Weight, the first in
	// node-index order among equal ones (select/cons_tres job_test.c, _get_one_res:
	// a sort of the available nodes by scheduling weight, stable in glibc, then the
	// first that can run the job; every topology plugin but torus3d allows it,
	// topology_p_allow_one_node). Slurm 22.05 to 25.11 place them like any job:
	// with slurm:consec's best fit (the smallest free run) or topology/tree's
	// tightest leaf. slurm:block always follows 26.05.
	OneNodeByWeight bool
	// Tree2411 emulates topology/tree's leaf choice as Slurm 24.11 and later make
	// it (src/plugins/topology/tree/eval_nodes_tree.c), two changes from 24.05:
	//   - a leaf closer to the switches already used replaces the best so far only
	//     when it (or the ancestor at which the comparison stopped climbing) holds
	//     the remaining count (_topo_choose_best_switch, "(dist[i] <
	//     dist[*best_switch]) && i_fit"; Slurm commit 64263118c3), not whenever it
	//     compares at least as well (tcs >= 0), which kept a tighter, farther leaf;
	//   - a chosen leaf's count is subtracted from every switch on its parent
	//     chain up to the root (_decrement_node_cnt; commit 2ec1d02624), and after
	//     each required leaf the nodes taken on the required leaves so far (a
	//     running total, as Slurm's num_nodes_taken is), so that later comparisons
	//     climb to the counts left, not those at the job's start.
	// Both selection paths follow these rules (the sums path, treeSelectSum, and
	// the per-switch node lists, treeSelectRef, which the tests check it against).
	Tree2411 bool
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
	tr   *slurmTreeState // topology/tree state (treeSelect)
	// oneNodeByWeight: SlurmConfig.OneNodeByWeight
	oneNodeByWeight bool
	// tree2411: SlurmConfig.Tree2411
	tree2411 bool
	// ctx is AllocateContext's, during its call (nil: none).
	ctx context.Context
	// scratch
	sel      []bool
	mark     []bool
	runs     []slurmRun
	runs2    []slurmRun
	runKeys  []uint64     // consecScan: (weight, position) keys of the runs
	sortBits []uint64     // sortPicked's bitset, left zeroed
	blk      *slurmBlocks // topology/block (slurm_block.go)
	ring     *slurmRings  // topology/ring (slurm_ring.go)
	warnings []string     // what slurmctld logs at startup about the configuration (Warnings)
	// incremental free state (slurm_free.go), cloned with the allocator
	wo *weightOrder
	tf *treeFree  // slurm:tree on the sums path
	bf *blockFree // slurm:block
	rf *ringFree  // slurm:ring
	// views (slurm_view.go; nil: none): views[0] the whole machine's state,
	// the others each a partition's; st, wo, tf, bf and rf are views[vb.cur]'s;
	// vb the machine's free nodes (every change made there first) and the
	// nodes of each view (views.go)
	views []slurmView
	vb    viewBook
}

// slurmTreeState is a SlurmAllocator's topology/tree state. Memory is O(n +
// switches + links): the leaves' node lists and per-switch scratch. When every
// switch's descendants form a tree (no switch reachable twice below it, no node on
// two leaves: fat trees, procalloc's writers' files) a switch's counts are the sums
// of its children's, kept up to date from the leaves that changed (treeFree,
// flushTree) and summed for the candidates above their leaves only
// (treeSelectSum). Otherwise (shared descendants) the counts are taken over every
// switch's node list (ref, treeCountsRef), O(n x levels) memory: the simple
// reference the fast path is checked against.
type slurmTreeState struct {
	leaf    [][]int32 // leaf switches: their Slurm indices, ascending, distinct; nil for upper
	leaves  []int     // the leaf switches in file order
	byLevel []int     // every switch, lowest level first (file order within a level)
	ref     [][]int32 // reference path only: Slurm indices under each switch, ascending
	leafOf  []int32   // sums path only: the leaf switch of each Slurm index, -1 for none
	// sums path only: each switch's level, and the switches whose Switches= list it
	// (parents[parentOff[i]:parentOff[i+1]]), for carrying count changes upwards
	level              []int32
	parentOff, parents []int32
	levelQ             [][]int32    // treeSelectSum's per-level queues (scratch)
	seen               []bool       // treeSelectSum: switches queued (scratch, left false)
	swept              []int32      // sumUp's switches (scratch)
	chosen             []chosenLeaf // treeSelectSum's chosen leaves (scratch)
	// per switch, per decision
	cnt          []int32 // candidate nodes below each switch
	dist, tmp    []int
	cand         []int32 // treeSelect's candidate leaves (positions in leaves)
	distC        []int   // treeSelectSum: summed distance per twin class of candidates
	classes      []int32 // treeSelectSum: the twin classes with candidates
	classSeen    []bool
	groups       []candGroup // treeSelectSum: runs of equivalent candidates
	lowW         []uint32
	required, in []bool
	ws           []uint32
	stack        []int
	queue        []int32
	// twin classes of the leaves and distance rows by source (leafDistances)
	leafPos   []int32 // position in leaves of each switch, -1 for upper ones
	leafClass []int32 // twin class of each leaf (by position)
	twins     []int32 // leaves per class
	// rowKey: each switch's distance row: its twin class for a leaf, after those
	// one per class of upper switches linked to the same switches (rowKeys in all)
	rowKey     []int32
	rowKeys    int
	rowTimes   []int32 // treeSelectSum: required switches per row key (scratch, left 0)
	rowReps    []int32 // treeSelectSum: one required switch per row key (scratch)
	rows       [][]uint16
	rowBytes   int
	rowsMade   int // rows measured one by one (leafDistances), before fillRows
	passes     int // passes over the switch links measuring rows: one a single search, one a hop a batch of 64
	filled     bool
	scratchRow []uint16
	capacity   int // TreeCapacity, once computed
}

func init() {
	register("slurm", "Slurm's own selection (cons_tres): slurm:consec[:ORDER] (22.05, no topology: best fit over runs of consecutive node names), slurm:tree:TOPOLOGY.conf[:ORDER] (22.05, topology/tree), slurm:block:TOPOLOGY.conf[:ORDER] (26.05, topology/block), or TOPOLOGY.yaml[:NAME[:ORDER]] (a topology.yaml's topology NAME, default its cluster_default one), slurm:ring:TOPOLOGY.conf[:ORDER] or TOPOLOGY.yaml[:NAME[:ORDER]] (26.05, topology/ring); ORDER gives Weight=rank+1",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			return newSlurmFromSpec(arg, m, opt)
		})
}

// slurmArg splits slurm's argument as the spec's grammar says: consec[:ORDER],
// tree:FILE[:ORDER] or block:FILE[:ORDER], and for a FILE named *.yaml or
// *.yml (Slurm's is topology.yaml) tree:FILE[:TOPOLOGY[:ORDER]],
// block:FILE[:TOPOLOGY[:ORDER]] and ring:FILE[:TOPOLOGY[:ORDER]] (ring:FILE[:ORDER]
// for a topology.conf of RingName= lines), TOPOLOGY the name of one of its topologies
// ("": its cluster_default one) (hasTopology, hasOrder: the ':' before it is
// there, even with it empty). The constructor and MapSpecFiles both read
// specs through it.
func slurmArg(arg string) (mode, file, topology string, hasTopology bool, order string, hasOrder bool) {
	mode, rest, hasRest := strings.Cut(arg, ":")
	if mode == "tree" || mode == "block" || mode == "ring" {
		file, order, hasOrder = strings.Cut(rest, ":")
		if low := strings.ToLower(file); hasOrder && (strings.HasSuffix(low, ".yaml") || strings.HasSuffix(low, ".yml")) {
			topology, hasTopology = order, true
			order, hasOrder = "", false
			if t, o, ok := strings.Cut(topology, ":"); ok {
				topology, order, hasOrder = t, o, true
			}
		}
		return mode, file, topology, hasTopology, order, hasOrder
	}
	return mode, "", "", false, rest, hasRest
}

func newSlurmFromSpec(arg string, m topo.Machine, opt Options) (Allocator, error) {
	mode, file, topology, _, o, _ := slurmArg(arg)
	var cfg SlurmConfig
	names, err := opt.nodeNames(m)
	if err != nil {
		return nil, err
	}
	cfg.Names = names
	var order string
	switch mode {
	case "consec":
		order = o
	case "tree":
		if file == "" {
			return nil, fmt.Errorf("slurm:tree needs a topology.conf: slurm:tree:FILE[:ORDER]")
		}
		if opt.SlurmTree == nil {
			return nil, fmt.Errorf("slurm:tree:%s: no reader for topology.conf files (Options.SlurmTree)", file)
		}
		t, err := opt.SlurmTree(file, topology)
		if err != nil {
			return nil, err
		}
		cfg.Tree, order = t, o
	case "block":
		if file == "" {
			return nil, fmt.Errorf("slurm:block needs a topology.conf: slurm:block:FILE[:ORDER]")
		}
		if opt.SlurmBlocks == nil {
			return nil, fmt.Errorf("slurm:block:%s: no reader for topology.conf files (Options.SlurmBlocks)", file)
		}
		b, err := opt.SlurmBlocks(file, topology)
		if err != nil {
			return nil, err
		}
		cfg.Blocks, order = b, o
	case "ring":
		if file == "" {
			return nil, fmt.Errorf("slurm:ring needs a topology.conf or topology.yaml: slurm:ring:FILE[:ORDER] or slurm:ring:FILE.yaml[:NAME[:ORDER]]")
		}
		if opt.SlurmRings == nil {
			return nil, fmt.Errorf("slurm:ring:%s: no reader for topology files (Options.SlurmRings)", file)
		}
		r, err := opt.SlurmRings(file, topology)
		if err != nil {
			return nil, err
		}
		cfg.Rings, order = r, o
	default:
		return nil, fmt.Errorf("slurm needs a mode: slurm:consec[:ORDER], slurm:tree:TOPOLOGY.conf[:ORDER], slurm:block:TOPOLOGY.conf[:ORDER] or slurm:ring:TOPOLOGY.conf[:ORDER], not %q%s", textin.Clip(arg), textin.DidYouMean(mode, []string{"consec", "tree", "block", "ring"}))
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
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	a, err := newSlurm(ctx, m, cfg)
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
	return newSlurm(context.Background(), m, cfg)
}

// newSlurm is NewSlurm looking at ctx around its sort of the names and while it
// builds topology/tree's state (a second on a 131,072-host fat tree): a cancelled
// ctx returns its cause.
func newSlurm(ctx context.Context, m topo.Machine, cfg SlurmConfig) (*SlurmAllocator, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
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
	if (cfg.Tree != nil) && (cfg.Blocks != nil || cfg.Rings != nil) || cfg.Blocks != nil && cfg.Rings != nil {
		return nil, fmt.Errorf("two of a topology/tree, topology/block and topology/ring configuration: Slurm has one topology plugin")
	}
	a := &SlurmAllocator{name: "slurm", m: m, st: NewState(n), idx: make([]int32, n), at: make([]int32, n), w: make([]uint32, n), tree: cfg.Tree, sel: make([]bool, n), oneNodeByWeight: cfg.OneNodeByWeight, tree2411: cfg.Tree2411}
	for i := range a.at {
		a.at[i] = int32(i)
	}
	// Slurm's node table order; 0.3 s for 131,072 names in no order (a
	// ranked tree's or renamed nodes), more under load: looking at ctx.
	if err := sortedset.SortStableContext(ctx, a.at, func(x, y int32) int { return hostlist.NaturalCompare(names[x], names[y]) }); err != nil {
		return nil, err
	}
	for s, v := range a.at {
		if s > 0 && names[a.at[s-1]] == names[v] {
			return nil, fmt.Errorf("node name %q given twice", textin.Clip(names[v]))
		}
		a.idx[v] = int32(s)
		if cfg.Weights != nil {
			a.w[s] = cfg.Weights[v]
		}
	}
	a.wo = newWeightOrder(a.w)
	if cfg.Tree != nil {
		tr, err := newSlurmTreeState(ctx, cfg.Tree, names, a.idx, false)
		if err != nil {
			return nil, err
		}
		a.setTreeState(tr)
	}
	if cfg.Blocks != nil {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		if err := a.initBlocks(cfg.Blocks, names); err != nil {
			return nil, err
		}
	}
	if cfg.Rings != nil {
		if err := a.initRings(cfg.Rings, names); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// setTreeState installs topology/tree state tr, with its incremental counts on the
// sums path (every node free).
func (a *SlurmAllocator) setTreeState(tr *slurmTreeState) {
	a.tr, a.tf = tr, nil
	if tr.ref != nil {
		return
	}
	ns := len(a.tree.Switches)
	tf := &treeFree{cnt: make([]int32, ns), delta: make([]int32, ns), queued: make([]bool, ns),
		queue: make([][]int32, len(tr.levelQ))}
	if !a.wo.uniform() {
		tf.low, tf.lowDirty, tf.lw = make([]uint32, ns), make([]bool, ns), make([]uint32, ns)
		tf.lwMin, tf.lwRescan = make([]uint32, ns), make([]bool, ns)
		for i := range tf.lwMin {
			tf.lwMin[i] = math.MaxUint32
		}
	}
	for _, i := range tr.leaves {
		c := int32(len(tr.leaf[i]))
		tf.delta[i], tf.queued[i] = c, true
		if tf.lowDirty != nil {
			tf.lowDirty[i] = true
		}
		tf.queue[0] = append(tf.queue[0], int32(i))
		tf.leafFree += int(c)
	}
	a.tf = tf
}

// Name returns the spec the allocator was built from, e.g. "slurm:consec".
func (a *SlurmAllocator) Name() string { return a.name }

// Machine returns the machine the allocator was built for.
func (a *SlurmAllocator) Machine() topo.Machine { return a.m }

// NumFree returns the number of free nodes.
func (a *SlurmAllocator) NumFree() int { return a.st.NumFree() }

// Release marks the nodes free again.
func (a *SlurmAllocator) Release(nodes []int) error {
	return a.change(nodes, true)
}

// MayFragment reports whether the emulation can leave a job pending although enough
// nodes are free (Fragmenting): under topology/tree, topology/block and
// topology/ring it can, without a topology it cannot.
func (a *SlurmAllocator) MayFragment() bool { return a.tree != nil || a.blk != nil || a.ring != nil }

// Warnings returns what slurmctld logs at startup about the configuration and that
// changes where jobs go: on topology/block, the machine's nodes that no block lists
// (block_record.c, block_record_validate: "Blocks lack access to N nodes").
func (a *SlurmAllocator) Warnings() []string { return slices.Clone(a.warnings) }

// Clone returns an independent copy in the same state (Fragmenting). The
// configuration is shared, read-only; so are the scratch buffers, which every
// call leaves clean or overwrites before use.
func (a *SlurmAllocator) Clone() Fragmenting {
	c := *a
	s := a.cloneState(a)
	c.st, c.wo, c.tf, c.bf, c.rf = s.st, s.wo, s.tf, s.bf, s.rf
	a.cloneViews(&c)
	return &c
}

// IsFree reports whether node v is free.
func (a *SlurmAllocator) IsFree(v int) bool { return a.st.IsFree(v) }

// AppendFreeIn appends the free nodes of set (a bitmap of the nodes) to dst
// (State.AppendFreeIn; Mask's bulk path).
func (a *SlurmAllocator) AppendFreeIn(dst []int, set []uint64) []int {
	return a.st.AppendFreeIn(dst, set)
}

// Occupy marks the nodes busy without choosing them: for following a real cluster
// whose placement differed from the emulation's.
func (a *SlurmAllocator) Occupy(nodes []int) error {
	return a.change(nodes, false)
}

func (a *SlurmAllocator) free(s int32) bool { return a.st.IsFree(int(a.at[s])) }

// Allocate chooses k free nodes as Slurm would, in Slurm's node-index order.
func (a *SlurmAllocator) Allocate(k int) ([]int, error) {
	if err := a.st.CheckRequest(k); err != nil {
		return nil, err
	}
	var picked []int32
	var err error
	switch {
	case a.ring != nil:
		if picked, err = a.ringSelect(k); err != nil {
			return nil, err
		}
	case k == 1 && a.oneNodeByWeight && a.blk == nil:
		picked = []int32{a.wo.at[a.wo.kth(1)]} // _get_one_res (blockSelect has its own)
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
	a.sortPicked(picked)
	out := make([]int, len(picked))
	for i, s := range picked {
		out[i] = int(a.at[s])
	}
	if err := a.change(out, false); err != nil {
		return nil, err
	}
	return out, nil
}

// AllocateContext is Allocate that stops when ctx ends (ContextAllocator), with
// the state unchanged: topology/tree's choice of leaves (treeSelectSum) asks ctx
// before each leaf it adds, a decision of seconds for a job of 10^5 nodes on a
// fat tree of 2 x 10^5 hosts.
func (a *SlurmAllocator) AllocateContext(ctx context.Context, k int) ([]int, error) {
	a.ctx = ctx
	defer func() { a.ctx = nil }()
	return a.Allocate(k)
}

// stopped returns the cause of AllocateContext's context when it has ended.
func (a *SlurmAllocator) stopped() error {
	if a.ctx == nil {
		return nil
	}
	return context.Cause(a.ctx)
}

// sortPicked sorts the distinct Slurm indices picked ascending: through a bitset
// over their range when it is small beside their count (a job's nodes usually are
// close together), else by comparison.
func (a *SlurmAllocator) sortPicked(picked []int32) {
	if len(picked) < 16 || slices.IsSorted(picked) {
		slices.Sort(picked)
		return
	}
	lo, hi := slices.Min(picked), slices.Max(picked)
	words := int(hi-lo)/64 + 1
	if words > 4*len(picked) {
		slices.Sort(picked)
		return
	}
	if cap(a.sortBits) < words {
		a.sortBits = make([]uint64, words)
	}
	set := a.sortBits[:words]
	for _, s := range picked {
		d := s - lo
		set[d>>6] |= 1 << (d & 63)
	}
	i := 0
	for w, word := range set {
		for word != 0 {
			picked[i] = lo + int32(w<<6+bits.TrailingZeros64(word))
			i++
			word &= word - 1
		}
		set[w] = 0
	}
}

type slurmRun struct {
	start, n int32
	w        uint32
}

// consecScan is _eval_nodes' best fit over runs of consecutive indices of equal
// weight, from a scan of every node: the reference consec (slurm_free.go) is checked
// against. Slurm rescans every run for each run it takes; the same choices come from one pass:
// runs lighter than the weight W at which the free count reaches k are all taken
// whole (each is smaller than what is left to place when Slurm reaches it); among the
// runs of weight W, while none holds the rest the largest is taken (the earliest of
// equal ones), then the smallest that holds it (the earliest of equal ones).
func (a *SlurmAllocator) consecScan(k int) []int32 {
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
	if byWeight := func(x, y slurmRun) int { return cmp.Compare(x.w, y.w) }; slices.IsSortedFunc(runs, byWeight) {
		byW = append(byW, runs...) // equal weights (no Weight=) need no sort
	} else {
		// A stable sort by weight, as a sort of distinct keys (weight, position).
		keys := a.runKeys[:0]
		for p, r := range runs {
			keys = append(keys, uint64(r.w)<<32|uint64(p))
		}
		slices.Sort(keys)
		for _, key := range keys {
			byW = append(byW, runs[uint32(key)])
		}
		a.runKeys = keys
	}
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
				picked = appendRun(picked, r.start, r.n)
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
				picked = appendRun(picked, r.start, r.n)
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
			picked = appendRun(picked, group[q].start, rem)
			rem = 0
		}
		break
	}
	return picked
}

// treeLookEvery is how many nodes listed and switches walked newSlurmTreeState
// takes between looks at its context.
const treeLookEvery = 1 << 12

// newSlurmTreeState checks the leaves' nodes against the machine (names, Slurm
// indices idx) and builds the per-switch state; forceRef keeps the per-switch node
// lists whatever the tree (for the test that compares the two paths). It looks at
// ctx every treeLookEvery nodes listed and switches walked: a cancelled ctx returns
// its cause.
func newSlurmTreeState(ctx context.Context, t *slurm.Tree, names []string, idx []int32, forceRef bool) (*slurmTreeState, error) {
	work := 0
	stopped := func(w int) error {
		if work += w; work < treeLookEvery {
			return nil
		}
		work = 0
		return context.Cause(ctx)
	}
	n, ns := len(names), len(t.Switches)
	byName := make(map[string]int32, n)
	for v, nm := range names {
		byName[nm] = int32(v)
	}
	st := &slurmTreeState{leaf: make([][]int32, ns), cnt: make([]int32, ns), dist: make([]int, ns), lowW: make([]uint32, ns), required: make([]bool, ns), in: make([]bool, ns)}
	onLeaf := make([]int32, n) // leaves holding each Slurm index
	shared := forceRef
	maxLevel := 0
	for i, s := range t.Switches {
		maxLevel = max(maxLevel, s.Level)
		if s.Level != 0 {
			continue
		}
		st.leaves = append(st.leaves, i)
		set := make([]int32, 0, len(s.Nodes))
		for _, nm := range s.Nodes {
			v, ok := byName[nm]
			if !ok {
				return nil, fmt.Errorf("topology.conf line %d: switch %s lists node %q, which is not a node of the machine", s.Line, s.Name, textin.Clip(nm))
			}
			set = append(set, idx[v])
		}
		slices.Sort(set)
		st.leaf[i] = slices.Compact(set)
		for _, x := range st.leaf[i] {
			if onLeaf[x]++; onLeaf[x] > 1 {
				shared = true
			}
		}
		if err := stopped(1 + len(s.Nodes)); err != nil {
			return nil, err
		}
	}
	for lv := 0; lv <= maxLevel; lv++ {
		for i, s := range t.Switches {
			if s.Level == lv {
				st.byLevel = append(st.byLevel, i)
			}
		}
	}
	// Is any switch reachable twice below an upper switch (two children over one
	// leaf, a child listed twice)? Then counts do not add up.
	stamp := make([]int32, ns)
	for i := range stamp {
		stamp[i] = -1
	}
	for u := 0; u < ns && !shared; u++ {
		if t.Switches[u].Level == 0 {
			continue
		}
		stack := append(st.stack[:0], t.Switches[u].Children...)
		for len(stack) > 0 && !shared {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if stamp[v] == int32(u) {
				shared = true
				break
			}
			stamp[v] = int32(u)
			stack = append(stack, t.Switches[v].Children...)
			if err := stopped(1); err != nil {
				return nil, err
			}
		}
		st.stack = stack[:0]
	}
	st.leafClasses(t)
	if !shared {
		st.parentLinks(t, maxLevel)
		st.leafOf = make([]int32, n)
		for x := range st.leafOf {
			st.leafOf[x] = -1
		}
		for _, i := range st.leaves {
			for _, x := range st.leaf[i] {
				st.leafOf[x] = int32(i)
			}
		}
	}
	if shared {
		st.ref = make([][]int32, ns)
		for _, i := range st.byLevel {
			if t.Switches[i].Level == 0 {
				st.ref[i] = st.leaf[i]
				continue
			}
			var set []int32
			for _, c := range t.Switches[i].Children {
				set = append(set, st.ref[c]...)
			}
			slices.Sort(set)
			st.ref[i] = slices.Compact(set)
		}
	}
	return st, nil
}

// treeSelect is _eval_nodes_topo without required nodes.
func (a *SlurmAllocator) treeSelect(k int) ([]int32, error) {
	if a.tr.ref == nil {
		return a.treeSelectSum(k)
	}
	return a.treeSelectRef(k)
}

// treeSelectRef is treeSelect over every switch's node list (treeCountsRef), every
// candidate leaf's own distance: the path for trees whose switches share nodes
// below them, and the reference the sums path (treeSelectSum) is checked against.
func (a *SlurmAllocator) treeSelectRef(k int) ([]int32, error) {
	t, st := a.tree, a.tr
	top, lastW, err := a.treeCountsRef(k)
	if err != nil {
		return nil, err
	}
	cnt, required := st.cnt, st.required
	// A candidate is under the top switch (a node marked in a.mark: a leaf may be
	// partly under it), free, of the weight groups up to the last.
	inTopNode := a.tmpMark(st.ref[top])
	defer func() {
		for _, s := range st.ref[top] {
			inTopNode[s] = false
		}
	}()
	under := func(leaf int, s int32) bool { return inTopNode[s] }
	sel := a.sel
	picked := make([]int32, 0, k)
	rem := k
	defer func() {
		for _, s := range picked {
			sel[s] = false
		}
	}()
	for _, i := range st.leaves {
		for _, s := range st.leaf[i] {
			if under(i, s) && a.free(s) && a.w[s] < lastW && !sel[s] {
				sel[s] = true
				picked = append(picked, s)
				rem--
			}
		}
	}
	take := func(i int) bool { return a.takeFree(st.leaf[i], inTopNode, lastW, sel, &picked, &rem) }
	out := func() []int32 { return slices.Clone(picked) }
	if len(picked) > 0 {
		taken := 0 // on the required leaves so far (Slurm's num_nodes_taken)
		for _, i := range st.leaves {
			if !required[i] {
				continue
			}
			prev := rem
			if take(i) {
				return out(), nil
			}
			if a.tree2411 {
				taken += prev - rem
				a.lowerCounts(i, int32(taken), cnt, nil)
			}
		}
	}
	// The candidates: leaves with candidate nodes and none of a lighter group (the
	// others are never chosen, so only the candidates' distances are kept), by
	// position in file order; a chosen leaf leaves the list.
	cand := st.cand[:0]
	for p, i := range st.leaves {
		if cnt[i] > 0 && !required[i] {
			cand = append(cand, int32(p))
		}
	}
	defer func() { st.cand = cand[:0] }()
	dist := st.dist
	for _, p := range cand {
		dist[st.leaves[p]] = 0
	}
	for i := range t.Switches {
		if required[i] {
			a.addDist(i, cand)
		}
	}
	for len(cand) > 0 {
		best, bestAt := -1, -1
		for at, p := range cand {
			i := st.leaves[p]
			if best < 0 || dist[i] < 0 {
				if dist[i] >= 0 {
					best, bestAt = i, at
				}
				continue
			}
			if a.replacesBest(i, best, dist[i], dist[best], rem, cnt) {
				best, bestAt = i, at
			}
		}
		if best < 0 {
			break
		}
		cand = slices.Delete(cand, bestAt, bestAt+1)
		a.addDist(best, cand)
		prev := rem
		if take(best) {
			return out(), nil
		}
		if a.tree2411 {
			a.lowerCounts(best, cnt[best], cnt, nil)
		}
		cnt[best] = 0
		if rem == prev {
			break // nothing left to take there (leaves sharing nodes)
		}
	}
	return nil, fmt.Errorf("request for %d nodes: %d left unplaced on the tree: %w", k, rem, ErrFragmented)
}

// noTopSwitch is treeSelect's error when no switch holds k free nodes: Slurm leaves
// the job pending; a job larger than every switch's node count never starts.
func (a *SlurmAllocator) noTopSwitch(k int) error {
	if c := a.TreeCapacity(); k > c {
		return fmt.Errorf("request for %d nodes: the largest switch holds %d nodes (separate trees, or nodes on no leaf); Slurm leaves the job pending forever: %w", k, c, ErrFragmented)
	}
	return fmt.Errorf("request for %d nodes: no switch reaches %d free nodes; Slurm leaves the job pending: %w", k, k, ErrFragmented)
}

// TreeCapacity returns the largest job slurm:tree can ever place: the most nodes
// below one switch (Slurm places a job under one switch; a topology.conf of several
// trees, or with nodes on no leaf, has none that holds every node). Without a tree
// it is the machine's node count.
func (a *SlurmAllocator) TreeCapacity() int {
	if a.tr == nil {
		return len(a.at)
	}
	if a.tr.capacity == 0 {
		best := 0
		for i := range a.tree.Switches {
			if a.tr.ref != nil {
				best = max(best, len(a.tr.ref[i]))
			}
		}
		if a.tr.ref == nil {
			size := make([]int, len(a.tree.Switches))
			for _, i := range a.tr.byLevel {
				size[i] = len(a.tr.leaf[i])
				for _, c := range a.tree.Switches[i].Children {
					size[i] += size[c]
				}
				best = max(best, size[i])
			}
		}
		a.tr.capacity = best
	}
	return a.tr.capacity
}

// chooseTop is the top switch: the first in file order with at least k free nodes
// (cnt), replaced by a later one of at least its level whose lowest free weight
// (lowW) is not higher; -1 when none has k.
func (a *SlurmAllocator) chooseTop(k int, cnt []int32, lowW []uint32) int {
	t := a.tree
	top := -1
	for i := range t.Switches {
		if int(cnt[i]) < k {
			continue
		}
		if top < 0 || (t.Switches[i].Level >= t.Switches[top].Level && lowW[i] <= lowW[top]) {
			top = i
		}
	}
	return top
}

// treeCountsRef gives the top switch, the weight that completes the job, and every
// switch's candidate count and required mark, from a scan of every switch's node
// list (st.ref): the reference treeSelectSum's counts are checked against, and the
// path for trees whose switches share nodes below them.
func (a *SlurmAllocator) treeCountsRef(k int) (top int, lastW uint32, err error) {
	t, st := a.tree, a.tr
	for i := range t.Switches {
		c, lw := 0, uint32(0)
		for _, s := range st.ref[i] {
			if a.free(s) {
				if c == 0 || a.w[s] < lw {
					lw = a.w[s]
				}
				c++
			}
		}
		st.cnt[i], st.lowW[i] = int32(c), lw
	}
	top = a.chooseTop(k, st.cnt, st.lowW)
	if top < 0 {
		return 0, 0, a.noTopSwitch(k)
	}
	inTop := st.ref[top]
	ws := st.ws[:0]
	for _, s := range inTop {
		if a.free(s) {
			ws = append(ws, a.w[s])
		}
	}
	st.ws = ws
	if len(ws) < k {
		return 0, 0, fmt.Errorf("request for %d nodes: the top switch has %d: %w", k, len(ws), ErrFragmented)
	}
	slices.Sort(ws)
	lastW = ws[k-1]
	mark := a.tmpMark(inTop)
	defer func() {
		for _, s := range inTop {
			mark[s] = false
		}
	}()
	for i := range t.Switches {
		c, req := 0, false
		for _, s := range st.ref[i] {
			if mark[s] && a.free(s) && a.w[s] <= lastW {
				c++
				req = req || a.w[s] < lastW
			}
		}
		st.cnt[i], st.required[i] = int32(c), req
	}
	return top, lastW, nil
}

// distLess compares summed distances, -1 standing for Slurm's INFINITE.
func distLess(x, y int) bool {
	if x < 0 {
		return false
	}
	return y < 0 || x < y
}

// addDist is _topo_add_dist: dist[i] += hops(inx, i), INFINITE (-1) absorbing, for
// the candidate leaf switches i (by position in leaves; the only ones whose dist the
// selection reads).
func (a *SlurmAllocator) addDist(inx int, cand []int32) {
	st := a.tr
	row := st.leafDistances(a.tree, inx)
	own := int32(-1) // inx's twin class when it is a leaf
	if p := st.leafPos[inx]; p >= 0 && st.twins[st.leafClass[p]] > 1 {
		own = st.leafClass[p]
	}
	for _, p := range cand {
		i := st.leaves[p]
		c := st.leafClass[p]
		d := row[c]
		switch {
		case i == inx:
			d = 0
		case c == own:
			d = 2 // a twin: the same switches above
		}
		if d == noRoute || st.dist[i] < 0 {
			st.dist[i] = -1
		} else {
			st.dist[i] += int(d)
		}
	}
}

// noRoute marks an unreachable leaf class in a leafDistances row (Slurm's INFINITE).
const noRoute = 1<<16 - 1

// maxLeafRowBytes bounds the cache of leaf distance rows: slurmctld keeps a
// switches x switches distance matrix; procalloc keeps, for the switches the
// selection has measured from, the hops to every class of twin leaves, up to this
// many bytes, two per class (then rows are measured again when needed).
const maxLeafRowBytes = 128 << 20

// fillAfter is the number of rows leafDistances measures one search each before
// it fills the rest (fillRows): about what the fill costs, ceil(nc/64) passes over
// the links per hop of the longest route (8 assumed: a fat tree's is 6), and at
// most nc (the fill measures no more than nc searches would).
func fillAfter(nc int) int { return min(nc, 8*((nc+63)/64)) }

// leafClasses groups the leaf switches into twins: leaves linked to the same
// switches (a fat tree's leaves of one pod) are at the same distance from every
// other switch, so a distance row needs one entry per class, and the rows of twin
// sources are one row (leafDistances). A leaf linked to no switch is a class of its
// own.
func (st *slurmTreeState) leafClasses(t *slurm.Tree) {
	ns := len(t.Switches)
	st.leafPos = make([]int32, ns)
	for i := range st.leafPos {
		st.leafPos[i] = -1
	}
	st.leafClass = make([]int32, len(st.leaves))
	byLinks := map[string]int32{}
	var key []byte
	var links []int32
	for p, i := range st.leaves {
		st.leafPos[i] = int32(p)
		if len(t.Links(i)) == 0 {
			st.leafClass[p] = int32(len(st.twins))
			st.twins = append(st.twins, 1)
			continue
		}
		key, links = linkSetKey(key, links, t.Links(i))
		c, ok := byLinks[string(key)]
		if !ok {
			c = int32(len(st.twins))
			byLinks[string(key)] = c
			st.twins = append(st.twins, 0)
		}
		st.leafClass[p] = c
		st.twins[c]++
	}
	// Upper switches linked to the same switches (a fat tree's roots over the same
	// pods) are at the same distance from every leaf: one row for them.
	st.rowKey = make([]int32, ns)
	for p, i := range st.leaves {
		st.rowKey[i] = st.leafClass[p]
	}
	clear(byLinks)
	next := int32(len(st.twins))
	for i := range ns {
		if st.leafPos[i] >= 0 {
			continue
		}
		key, links = linkSetKey(key, links, t.Links(i))
		c, ok := byLinks[string(key)]
		if !ok || len(links) == 0 {
			c = next
			next++
			byLinks[string(key)] = c
		}
		st.rowKey[i] = c
	}
	st.rowKeys = int(next)
}

// linkSetKey returns, in key, the set of switches a switch links to (its Links,
// sorted, repeats dropped) as bytes for a map key, and that set in links (both
// buffers reused): two switches with the same key are twins.
func linkSetKey(key []byte, links, of []int32) ([]byte, []int32) {
	links = append(links[:0], of...)
	slices.Sort(links)
	links = slices.Compact(links)
	key = key[:0]
	for _, l := range links {
		key = append(key, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
	}
	return key, links
}

// leafDistances returns the hops from switch from to every class of twin leaves,
// noRoute where there is no path (for from's own class: the hops to its other
// members, see addDist): a breadth-first search over the switch links, kept while the
// cache has room; twin leaves share one row.
func (st *slurmTreeState) leafDistances(t *slurm.Tree, from int) []uint16 {
	nc := len(st.twins)
	key := st.rowKey[from]
	if st.rows == nil {
		st.rows = make([][]uint16, st.rowKeys)
	}
	if row := st.rows[key]; row != nil {
		return row
	}
	if st.rowsMade++; st.rowsMade >= fillAfter(nc) && !st.filled && st.rowBytes+2*nc*(st.rowKeys-st.rowsMade+1) <= maxLeafRowBytes {
		// As many rows measured as filling them all costs: the remaining rows are
		// measured by class instead, 64 classes a search (fillRows), instead of
		// one search per row key, which a fat tree's topology.conf has thousands
		// of (its upper switches: 131,072 hosts, 28,672 switches, three such
		// replays took 38 s of 75).
		st.fillRows(t)
		return st.rows[key]
	}
	st.tmp, st.queue = t.DistancesQueue(from, st.tmp, st.queue)
	st.passes++
	var row []uint16
	if st.rowBytes+2*nc <= maxLeafRowBytes {
		row = make([]uint16, nc)
		st.rows[key] = row
		st.rowBytes += 2 * nc
	} else {
		if cap(st.scratchRow) < nc {
			st.scratchRow = make([]uint16, nc)
		}
		row = st.scratchRow[:nc]
	}
	own := int32(-1)
	if p := st.leafPos[from]; p >= 0 {
		own = st.leafClass[p]
	}
	for p, i := range st.leaves {
		c := st.leafClass[p]
		if c == own && i == from && st.twins[c] > 1 {
			continue // the row of from's own class holds the other members' hops
		}
		if d := st.tmp[i]; d < 0 {
			row[c] = noRoute
		} else {
			row[c] = uint16(min(d, noRoute-1)) // Slurm's switch indices are 16 bits
		}
	}
	return row
}

// replacesBest is _topo_choose_best_switch's test whether candidate leaf i, at
// summed distance di, replaces the best leaf so far, at distance dBest: when it is
// closer and compares at least as well (Slurm up to 24.05) or fits (24.11 and
// later: tree2411), or at the same distance compares better.
// A farther leaf never replaces the best, whatever the comparison: it is not
// made (compareSwitches climbs the tree; most candidates are farther once a leaf
// is chosen, and the scan compares every candidate group for each chosen leaf).
func (a *SlurmAllocator) replacesBest(i, best, di, dBest, rem int, cnt []int32) bool {
	less := distLess(di, dBest)
	if !less && di != dBest {
		return false
	}
	tcs, iFit := a.compareSwitches(i, best, rem, cnt)
	closer := tcs >= 0
	if a.tree2411 {
		closer = iFit
	}
	return (less && closer) || (di == dBest && tcs > 0)
}

// lowerCounts is Slurm 24.11's _decrement_node_cnt: x off the count of switch i
// and of every switch on its parent chain up to a root, none below 0. The old
// counts are appended to undo, when given, for the caller to restore in reverse.
func (a *SlurmAllocator) lowerCounts(i int, x int32, cnt []int32, undo *[]chosenLeaf) {
	sw := a.tree.Switches
	for range len(sw) { // a parent chain visits each switch once
		if undo != nil {
			*undo = append(*undo, chosenLeaf{i, cnt[i]})
		}
		cnt[i] = max(cnt[i]-x, 0)
		if sw[i].IsRoot {
			return
		}
		i = sw[i].Parent
	}
}

// fillRows measures every row key's row not measured yet, by columns: a search
// from one leaf of each twin class gives the hops from every switch to that class
// (links go both ways), so nc searches fill the rows of all row keys. The rows are
// those leafDistances would measure one by one: for a switch's own class, the hops
// to another member of it. The searches go 64 classes at a time, one bit of a word
// per class (topo.HopRows64): a pass over the links serves 64 searches, so filling
// costs about nc/64 x (diameter+1) passes instead of nc (on the 196,608-host fat
// tree's topology.conf, 768 classes and 40,960 switches: 5.9 s -> 0.39 s,
// BenchmarkSlurmTreeFillRows).
func (st *slurmTreeState) fillRows(t *slurm.Tree) {
	st.filled = true
	nc := len(st.twins)
	ns := len(t.Switches)
	keyRep := make([]int32, st.rowKeys) // one switch of each row key
	for i := range keyRep {
		keyRep[i] = -1
	}
	for i, k := range st.rowKey {
		if keyRep[k] < 0 {
			keyRep[k] = int32(i)
		}
	}
	rep, rep2 := make([]int32, nc), make([]int32, nc) // two members of each class
	for c := range rep {
		rep[c], rep2[c] = -1, -1
	}
	for p, i := range st.leaves {
		switch c := st.leafClass[p]; {
		case rep[c] < 0:
			rep[c] = int32(i)
		case rep2[c] < 0:
			rep2[c] = int32(i)
		}
	}
	// todoOf[u]: the row key to fill whose switch is u, -1 for none
	todoOf := make([]int32, ns)
	for i := range todoOf {
		todoOf[i] = -1
	}
	todo := 0
	for k, row := range st.rows {
		if row == nil && keyRep[k] >= 0 {
			todoOf[keyRep[k]] = int32(k)
			todo++
		}
	}
	slab := make([]uint16, todo*nc)
	for i := range slab {
		slab[i] = noRoute // unless a search reaches it
	}
	j := 0
	for k, row := range st.rows {
		if row == nil && keyRep[k] >= 0 {
			st.rows[k] = slab[j*nc : (j+1)*nc : (j+1)*nc]
			j++
		}
	}
	st.rowBytes += 2 * len(slab)
	// own[c]: the hops from rep[c] to rep2[c], the row entry of rep[c]'s own class
	own := make([]uint16, nc)
	seen, front, next := make([]uint64, ns), make([]uint64, ns), make([]uint64, ns)
	for base := 0; base < nc; base += 64 {
		srcs := rep[base:min(base+64, nc)]
		st.passes += topo.HopRows64(t.LinkCSR(), srcs, seen, front, next, func(u int32, bitsNew uint64, d int) {
			hops := uint16(min(d, noRoute-1)) // Slurm's switch indices are 16 bits
			k := todoOf[u]
			for w := bitsNew; w != 0; w &= w - 1 {
				c := base + bits.TrailingZeros64(w)
				if u == rep2[c] {
					own[c] = hops
				}
				if k >= 0 {
					st.rows[k][c] = hops
				}
			}
		})
		for b, r := range srcs {
			c := base + b
			if k := todoOf[r]; k >= 0 && st.twins[c] > 1 {
				st.rows[k][c] = noRoute // the hops to another member: rep2's, if reached
				if rep2[c] >= 0 && seen[rep2[c]]&(1<<b) != 0 {
					st.rows[k][c] = own[c]
				}
			}
		}
	}
}

// compareSwitches is _topo_compare_switches: 1 when switch i is the better choice,
// -1 when j is, 0 on a tie; and whether i (or the ancestor of i the comparison
// climbed to last) holds rem candidates, Slurm's i_fit_out.
func (a *SlurmAllocator) compareSwitches(i, j, rem int, cnt []int32) (tcs int, iFit bool) {
	sw := a.tree.Switches
	for step := 0; step <= len(sw); step++ {
		var jFit bool
		iFit, jFit = int(cnt[i]) >= rem, int(cnt[j]) >= rem
		if iFit && jFit {
			if cnt[i] < cnt[j] {
				return 1, iFit
			}
			if cnt[i] > cnt[j] {
				return -1, iFit
			}
			break
		} else if iFit {
			return 1, iFit
		} else if jFit {
			return -1, iFit
		}
		if (sw[i].Parent != i || sw[j].Parent != j) && sw[i].Parent != sw[j].Parent {
			i, j = sw[i].Parent, sw[j].Parent
			continue
		}
		break
	}
	switch {
	case cnt[i] > cnt[j]:
		return 1, iFit
	case cnt[i] < cnt[j]:
		return -1, iFit
	case sw[i].Level < sw[j].Level:
		return 1, iFit
	case sw[i].Level > sw[j].Level:
		return -1, iFit
	}
	return 0, iFit
}

// takeFree is the tree's and the block's selection taking a leaf's (a base
// block's) nodes: in list order (Slurm's node order within it), every free node of
// weight up to lastW, marked in in (all when in is nil) and not in sel yet, is
// marked in sel and appended to picked, until rem, counted down, reaches 0; it
// reports whether it did.
func (a *SlurmAllocator) takeFree(list []int32, in []bool, lastW uint32, sel []bool, picked *[]int32, rem *int) bool {
	for _, s := range list {
		if sel[s] || !a.free(s) || a.w[s] > lastW || (in != nil && !in[s]) {
			continue
		}
		sel[s] = true
		*picked = append(*picked, s)
		if *rem--; *rem == 0 {
			return true
		}
	}
	return false
}

// invertLists inverts m lists of targets 0..n-1 (list(i), i < m): target t is named
// by the lists inv[off[t]:off[t+1]], in ascending order (a counting sort). The
// base blocks of a node and the parents of a switch are read this way.
func invertLists[T int | int32](n, m int, list func(i int) []T) (off, inv []int32) {
	off = make([]int32, n+1)
	for i := range m {
		for _, t := range list(i) {
			off[t+1]++
		}
	}
	for t := range n {
		off[t+1] += off[t]
	}
	inv = make([]int32, off[n])
	fill := slices.Clone(off[:n])
	for i := range m {
		for _, t := range list(i) {
			inv[fill[t]] = int32(i)
			fill[t]++
		}
	}
	return off, inv
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
