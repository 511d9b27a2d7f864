package alloc

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo/hostlist"
)

// slurm:block: Slurm's topology/block selection (Slurm >= 23.11) as Slurm 26.05.3
// has it (tag slurm-26-05-3-1 of SchedMD/slurm: src/plugins/topology/block/
// eval_nodes_block.c, eval_nodes_block and _choose_best_bblock; block_record.c;
// topology/common/common_topo.c, common_topo_choose_nodes; the slurm.conf's node
// weights reach the plugin whole, as slurmctld's node_scheduler.c _pick_best_nodes
// calls select/cons_tres once with every node set), for the jobs and clusters of
// slurm:consec (whole-node jobs of k nodes, one CPU counted per node, no required
// nodes, no --segment, no features). The blocks are the topology.conf's BlockName
// lines in file order (base blocks, bblocks); BlockSizes makes aggregation levels:
// level l joins the 2^l base blocks j*2^l .. (j+1)*2^l-1 (slurm.Blocks).
//
//   - The block level (_get_block_level): L = ceil(log2(ceil(k/Base))); the job goes
//     into blocks of the lowest allowed level >= L; when no allowed level is that
//     high, the whole topology is one block. The "lower-level" block (llblock) is the
//     highest allowed level below L (level 0 when L = 0), and the job may use at most
//     ceil(k / llblock nodes) llblocks (max_llblock).
//   - The block (eval_nodes_block): a block is eligible when its free nodes reach k
//     (distinct nodes) and, when the block holds more llblocks than the job may use,
//     the free counts of its fullest max_llblock llblocks sum to k. Among eligible
//     blocks the one whose lowest free weight is lowest, then the one with the fewest
//     free nodes (counted per base block, a node in two counted twice); ties go to
//     the later block. No eligible block: the job waits.
//   - Weights inside the block: the free nodes grouped by weight, lowest first,
//     until k are reached; the groups before the last are taken whole (req2) and the
//     base blocks they touch are "required" (each new llblock among them uses one of
//     max_llblock; below zero the pass fails). The required base blocks, in index
//     order, are filled first from the last group's nodes.
//   - Then base blocks one at a time (_choose_best_bblock), counting each one's
//     candidate nodes (those of the weight groups up to the last) once, before the
//     loop: when llblocks are limited, a base block in an llblock already used beats
//     one that is not; between different llblocks, one whose llblock count reaches
//     what is left beats one that does not, then the smaller such llblock count, or,
//     when neither reaches it, the larger (counts fixed when the loop starts, not
//     lowered as it takes nodes). Then, and within one llblock: a base block that
//     holds what is left beats one that does not; of two that hold it the smaller
//     count wins, of two that do not the larger; ties go to the later base block. A
//     chosen base block gives its candidate nodes in node-index order until the job
//     has k. A new llblock uses one of max_llblock; none left stops the pass.
//   - A failed pass that is not "no block" (weights exceeding max_llblock, a loop
//     that stalls) is retried as common_topo_choose_nodes does for nodes of equal
//     size: the free nodes in node-index order (qsort of equal keys, stable in
//     glibc), the first of them that the failed pass had picked, or else the next
//     one, is taken out of the candidates and the pass runs again, until the
//     candidates are no more than k.
//   - No free node in any block: Slurm skips the block plugin and uses its common
//     selection (topology_block.c, topology_p_eval_nodes); emulated by slurm:consec's
//     rules.
//
// Not modelled: TopologyParam=BlockAsNodeRank (node ranks from block order), jobs
// with --segment or required nodes, nodes of different sizes, nodes outside the
// partition. Node indices are Slurm's node name order (Slurm 26.05 sorts the node
// table with strnatcmp; hostlist.NaturalCompare is that order).

// slurmBlocks is a SlurmAllocator's topology/block state.
type slurmBlocks struct {
	cfg *slurm.Blocks
	bb  [][]int32 // base block i's nodes (Slurm indices), ascending, distinct
	// by Slurm index
	inAny []bool // in some block (blocks_nodes_bitmap)
	rm    []bool // taken out of the candidates by the retry loop
	sel   []bool // picked by the current pass
	inBlk []bool // in the chosen block (or a scratch mark)
	// node s's base blocks: nodeBB[nodeOff[s]:nodeOff[s+1]]
	nodeOff, nodeBB []int32
	// retries counts the passes the last Allocate retried (for tests); noSkip makes
	// every retry a whole pass (for the test that the shortcut changes nothing).
	retries int
	noSkip  bool
	// scan makes every pass count free nodes from the node lists rather than the
	// incremental counts (blockFree), and choose base blocks by the scan of
	// _choose_best_bblock rather than by count (chooseBBlocks): the reference the
	// tests check them against. looks counts the base blocks the choices examined
	// (for tests).
	scan  bool
	looks int
}

type blockAction int

const (
	blockOK        blockAction = iota
	blockBreak                 // EVAL_ACTION_BREAK: no block; the job waits
	blockRetry                 // EVAL_ACTION_RETRY_DEFAULT
	blockRetryHint             // EVAL_ACTION_RETRY_HINT: retry without a node the pass picked
)

func (a *SlurmAllocator) initBlocks(cfg *slurm.Blocks, names []string) error {
	if cfg.Base < 1 || len(cfg.Blocks) == 0 || !cfg.LevelAllowed(0) {
		return fmt.Errorf("topology/block configuration without blocks, base size or level 0 (use slurm.ParseBlocks)")
	}
	n := len(a.at)
	byName := make(map[string]int32, n)
	for v, nm := range names {
		byName[nm] = int32(v)
	}
	b := &slurmBlocks{cfg: cfg, bb: make([][]int32, len(cfg.Blocks)), inAny: make([]bool, n), rm: make([]bool, n), sel: make([]bool, n), inBlk: make([]bool, n)}
	for i, blk := range cfg.Blocks {
		set := make([]int32, 0, len(blk.Nodes))
		for _, nm := range blk.Nodes {
			v, ok := byName[nm]
			if !ok {
				return fmt.Errorf("topology.conf line %d: block %s lists node %q, which is not a node of the machine", blk.Line, blk.Name, textin.Clip(nm))
			}
			set = append(set, a.idx[v])
			b.inAny[a.idx[v]] = true
		}
		slices.Sort(set)
		b.bb[i] = slices.Compact(set)
	}
	b.nodeOff, b.nodeBB = invertLists(n, len(b.bb), func(i int) []int32 { return b.bb[i] })
	a.blk = b
	bf := &blockFree{free: make([]int32, len(b.bb)), low: make([]uint32, len(b.bb)), nLow: make([]int32, len(b.bb)), lowDirty: make([]bool, len(b.bb)), disjoint: true}
	for i, set := range b.bb {
		bf.free[i] = int32(len(set))
		bf.lowDirty[i] = true
	}
	for s := range n {
		if b.inAny[s] {
			bf.inBlocks++
		}
		if b.nodeOff[s+1]-b.nodeOff[s] > 1 {
			bf.disjoint = false
		}
	}
	a.bf = bf
	if bf.inBlocks > 0 && bf.inBlocks < n {
		// block_record.c, block_record_validate: warning("Blocks lack access to %d
		// nodes: %s"), the nodes in no block. topology_block.c sends a job to the
		// blocks while any of its candidates is in one (eval_nodes_block), so
		// these get a job of two or more nodes only when no block node is free.
		var out []string
		for s, in := range b.inAny {
			if !in {
				out = append(out, names[a.at[s]])
			}
		}
		hl, err := hostlist.Compress(out)
		if err != nil {
			hl = strings.Join(out, ",")
		}
		a.warnings = append(a.warnings, fmt.Sprintf("%d of the machine's %d nodes are in no block (%s): slurmctld starts with \"Blocks lack access to %d nodes\", and they get a job of two or more nodes only when no node of a block is free", len(out), n, hl, len(out)))
	}
	return nil
}

// blockPass is what the passes of one job share: the levels (_get_block_level) and
// the candidates' counts per base block and block, kept up to date as the retry loop
// takes candidates out (so that a retry costs O(base blocks) plus the chosen block,
// not O(n)).
type blockPass struct {
	llLevel, bpb, nblk, bpll, maxLL int
	useLL                           bool
	cntBB                           []int    // candidates per base block
	onBlock                         []int    // per block: sum of cntBB (a node in two base blocks counts twice)
	distinct                        []int    // per block: distinct candidates
	lowW                            []uint32 // per block: lowest candidate weight
	nLow                            []int    // per block: distinct candidates of weight lowW
}

func (a *SlurmAllocator) newBlockPass(k int) *blockPass {
	b := a.blk
	cfg := b.cfg
	nb := len(b.bb)
	p := &blockPass{}
	L := ceilLog2((k + cfg.Base - 1) / cfg.Base)
	if L > 0 {
		for l := min(L-1, slurm.MaxBlockLevel); l >= 0; l-- {
			if cfg.LevelAllowed(l) {
				p.llLevel = l
				break
			}
		}
	}
	p.bpb, p.nblk = nb, 1 // base blocks per block, blocks
	for l := L; l <= slurm.MaxBlockLevel; l++ {
		if cfg.LevelAllowed(l) {
			p.bpb = 1 << l
			p.nblk = (nb + p.bpb - 1) / p.bpb
			break
		}
	}
	p.bpll = 1 << p.llLevel
	p.maxLL = (k + p.bpll*cfg.Base - 1) / (p.bpll * cfg.Base)
	p.useLL = p.bpb != p.bpll*p.maxLL
	p.cntBB = make([]int, nb)
	p.onBlock = make([]int, p.nblk)
	p.distinct = make([]int, p.nblk)
	p.lowW = make([]uint32, p.nblk)
	p.nLow = make([]int, p.nblk)
	if b.scan {
		for i, nodes := range b.bb {
			c := 0
			for _, s := range nodes {
				if a.free(s) {
					c++
				}
			}
			p.cntBB[i] = c
			p.onBlock[i/p.bpb] += c
		}
		for blk := range p.nblk {
			a.blockLow(p, blk)
		}
		return p
	}
	// From the incremental counts: a block's distinct free nodes are its base
	// blocks' sum when no node is in two; its lowest weight theirs.
	bf := a.bf
	for i := range b.bb {
		p.cntBB[i] = int(bf.free[i])
		p.onBlock[i/p.bpb] += int(bf.free[i])
	}
	if !bf.disjoint {
		for blk := range p.nblk {
			a.blockLow(p, blk)
		}
		return p
	}
	uniform := a.wo.uniform()
	for blk := range p.nblk {
		d := p.onBlock[blk]
		p.distinct[blk] = d
		if d == 0 {
			continue
		}
		if uniform {
			p.lowW[blk], p.nLow[blk] = a.w[0], d
			continue
		}
		low, n := uint32(0), 0
		for i := blk * p.bpb; i < min(nb, (blk+1)*p.bpb); i++ {
			if bf.free[i] == 0 {
				continue
			}
			switch l, c := a.bbLow(i); {
			case n == 0 || l < low:
				low, n = l, int(c)
			case l == low:
				n += int(c)
			}
		}
		p.lowW[blk], p.nLow[blk] = low, n
	}
	return p
}

// blockLow sets block blk's distinct candidate count, lowest weight and its count.
func (a *SlurmAllocator) blockLow(p *blockPass, blk int) {
	b := a.blk
	mark := b.inBlk
	lo, hi := blk*p.bpb, min(len(b.bb), (blk+1)*p.bpb)
	d, n, low := 0, 0, uint32(0)
	for i := lo; i < hi; i++ {
		for _, s := range b.bb[i] {
			if a.free(s) && !b.rm[s] && !mark[s] {
				mark[s] = true
				switch w := a.w[s]; {
				case d == 0 || w < low:
					low, n = w, 1
				case w == low:
					n++
				}
				d++
			}
		}
	}
	for i := lo; i < hi; i++ {
		for _, s := range b.bb[i] {
			mark[s] = false
		}
	}
	p.distinct[blk], p.lowW[blk], p.nLow[blk] = d, low, n
}

// remove takes candidate s out (the retry loop).
func (a *SlurmAllocator) blockRemove(p *blockPass, s int32) {
	b := a.blk
	b.rm[s] = true
	var done [4]int
	nd := 0
	for _, i := range b.nodeBB[b.nodeOff[s]:b.nodeOff[s+1]] {
		p.cntBB[i]--
		blk := int(i) / p.bpb
		p.onBlock[blk]--
		if slices.Contains(done[:min(nd, len(done))], blk) {
			continue
		}
		if nd < len(done) {
			done[nd] = blk
		}
		nd++
		if nd > len(done) {
			a.blockLow(p, blk) // many blocks share s: recount
			continue
		}
		p.distinct[blk]--
		if a.w[s] == p.lowW[blk] {
			if p.nLow[blk]--; p.nLow[blk] == 0 {
				a.blockLow(p, blk)
			}
		}
	}
}

// blockSelect is topology/block's eval_nodes_block inside common_topo_choose_nodes'
// retry loop.
func (a *SlurmAllocator) blockSelect(k int) ([]int32, error) {
	b := a.blk
	b.retries = 0
	if k == 1 {
		// select/cons_tres's _get_one_res (job_test.c): a one-node job skips the block
		// plugin (topology_p_allow_one_node): the free node of lowest weight, the first
		// in node-index order among equal weights (a stable qsort), in a block or not.
		if b.scan {
			best := int32(-1)
			for s := range a.at {
				if a.free(int32(s)) && (best < 0 || a.w[s] < a.w[best]) {
					best = int32(s)
				}
			}
			return []int32{best}, nil
		}
		return []int32{a.wo.at[a.wo.kth(1)]}, nil
	}
	anyFree := a.bf.inBlocks > 0
	if b.scan {
		anyFree = false
		for s, in := range b.inAny {
			if in && a.free(int32(s)) {
				anyFree = true
				break
			}
		}
	}
	if !anyFree {
		if b.scan {
			return a.consecScan(k), nil
		}
		return a.consec(k), nil
	}
	var removed []int32
	defer func() {
		for _, s := range removed {
			b.rm[s] = false
		}
	}()
	p := a.newBlockPass(k)
	remove := func(s int32) {
		a.blockRemove(p, s)
		removed = append(removed, s)
	}
	cands := a.NumFree()
	var sorted []int32
	idx, needBitTest := 0, false
	picked, act, last := a.evalBlock(k, p)
	for {
		switch {
		case act == blockOK:
			return picked, nil
		case act == blockBreak:
			return nil, fmt.Errorf("request for %d nodes: no block (at the job's block level) has %d free nodes; Slurm leaves the job pending: %w", k, k, ErrFragmented)
		case cands <= k:
			return nil, fmt.Errorf("request for %d nodes: Slurm's topology/block passes failed until %d candidate nodes were left; the job waits: %w", k, cands, ErrFragmented)
		}
		if sorted == nil {
			for s := range a.at {
				if a.free(int32(s)) && !b.rm[s] {
					sorted = append(sorted, int32(s))
				}
			}
			idx = 0
		}
		if act == blockRetryHint && len(picked) > 0 {
			for _, s := range picked {
				b.sel[s] = true
			}
			t := idx
			for t < len(sorted) && !b.sel[sorted[t]] {
				t++
			}
			for _, s := range picked {
				b.sel[s] = false
			}
			if t == len(sorted) {
				return nil, fmt.Errorf("request for %d nodes: Slurm's topology/block retries ran out of nodes: %w", k, ErrFragmented)
			}
			remove(sorted[t])
			cands--
			if t == idx {
				idx++
			} else {
				needBitTest = true
			}
		} else {
			for needBitTest && idx < len(sorted) && b.rm[sorted[idx]] {
				idx++
			}
			if idx == len(sorted) {
				return nil, fmt.Errorf("request for %d nodes: Slurm's topology/block retries ran out of nodes: %w", k, ErrFragmented)
			}
			s := sorted[idx]
			remove(s)
			cands--
			idx++
			if !b.noSkip && idx < len(sorted) && act == blockRetry && !a.inBlockOf(p, s, last) && a.chooseBlock(k, p) == last {
				// The same block with the same candidates: the pass fails alike.
				b.retries++
				continue
			}
		}
		if idx >= len(sorted) {
			return nil, fmt.Errorf("request for %d nodes: Slurm's topology/block retries ran out of nodes: %w", k, ErrFragmented)
		}
		b.retries++
		picked, act, last = a.evalBlock(k, p)
	}
}

// inBlockOf reports whether node s is in a base block of block blk.
func (a *SlurmAllocator) inBlockOf(p *blockPass, s int32, blk int) bool {
	b := a.blk
	for _, i := range b.nodeBB[b.nodeOff[s]:b.nodeOff[s+1]] {
		if int(i)/p.bpb == blk {
			return true
		}
	}
	return false
}

// ceilLog2 returns the smallest l with 2^l >= x (x >= 1).
func ceilLog2(x int) int {
	l := 0
	for 1<<l < x {
		l++
	}
	return l
}

// evalBlock is one pass of eval_nodes_block over the candidates (free, not
// removed), p their counts. On blockRetryHint it returns the nodes the pass had
// picked. chosen is the block the pass chose (-1: none).
func (a *SlurmAllocator) evalBlock(k int, p *blockPass) (picked []int32, act blockAction, chosen int) {
	chosen = a.chooseBlock(k, p)
	if chosen < 0 {
		return nil, blockBreak, -1
	}
	picked, act = a.fillBlock(k, p, chosen)
	return picked, act, chosen
}

// chooseBlock is eval_nodes_block's choice of the block: eligible (enough free nodes,
// within max_llblock llblocks), lowest weight, then fewest nodes, ties to the later.
func (a *SlurmAllocator) chooseBlock(k int, p *blockPass) int {
	b := a.blk
	nb := len(b.bb)
	bpb, nblk, bpll, maxLL, useLL := p.bpb, p.nblk, p.bpll, p.maxLL, p.useLL
	var onLL []int
	llCnt := 0
	if useLL {
		llCnt = (nb + bpll - 1) / bpll
		onLL = make([]int, llCnt)
		for i, c := range p.cntBB {
			onLL[i/bpll] += c
		}
	}

	chosen, chosenCnt := -1, 0
	var chosenW uint32
	var seg []int
	for blk := range nblk {
		bnc := p.onBlock[blk]
		avail := bnc
		if useLL {
			per := bpb / bpll
			off := blk * per
			per = min(per, llCnt-off)
			seg = append(seg[:0], onLL[off:off+per]...)
			if maxLL < per {
				slices.SortFunc(seg, func(x, y int) int { return cmp.Compare(y, x) })
			}
			avail = 0
			for _, c := range seg[:min(maxLL, per)] {
				avail += c
			}
		}
		distinct, lowW := p.distinct[blk], p.lowW[blk]
		if avail < k || distinct < k {
			continue
		}
		if chosen < 0 || lowW < chosenW || (lowW == chosenW && bnc <= chosenCnt) {
			chosen, chosenW, chosenCnt = blk, lowW, bnc
		}
	}
	return chosen
}

// fillBlock is the rest of the pass inside the chosen block: the weight groups, the
// required base blocks, then _choose_best_bblock's loop.
func (a *SlurmAllocator) fillBlock(k int, p *blockPass, chosen int) ([]int32, blockAction) {
	b := a.blk
	nb := len(b.bb)
	cand := func(s int32) bool { return a.free(s) && !b.rm[s] }
	llLevel, bpb, bpll, maxLL, useLL := p.llLevel, p.bpb, p.bpll, p.maxLL, p.useLL
	var onLL []int
	if useLL {
		onLL = make([]int, (nb+bpll-1)/bpll)
	}
	mark := b.inBlk
	lo, hi := chosen*bpb, min(nb, (chosen+1)*bpb)
	var inBlk []int32 // the chosen block's candidate nodes
	for i := lo; i < hi; i++ {
		for _, s := range b.bb[i] {
			if cand(s) && !mark[s] {
				mark[s] = true
				inBlk = append(inBlk, s)
			}
		}
	}
	sel := b.sel
	var picked []int32
	defer func() {
		for _, s := range inBlk {
			mark[s] = false
		}
		for _, s := range picked {
			sel[s] = false
		}
	}()

	// Weight groups of the block's candidates: lastW is the group that reaches k.
	ws := make([]uint32, len(inBlk))
	for i, s := range inBlk {
		ws[i] = a.w[s]
	}
	slices.Sort(ws)
	lastW := ws[k-1]
	best := func(s int32) bool { return mark[s] && a.w[s] <= lastW }
	rem := k
	for _, s := range inBlk {
		if a.w[s] < lastW { // req2: the lighter groups, whole
			sel[s] = true
			picked = append(picked, s)
			rem--
		}
	}
	required := make([]bool, hi-lo)
	sameLL := func(x, y int) bool { return x>>llLevel == y>>llLevel }
	if len(picked) > 0 {
		lastLL := -1
		for i := lo; i < hi; i++ {
			touches := false
			for _, s := range b.bb[i] {
				if sel[s] {
					touches = true
					break
				}
			}
			if touches {
				required[i-lo] = true
				if !sameLL(lastLL, i) {
					maxLL--
					lastLL = i
				}
			}
		}
	}
	if maxLL < 0 {
		return nil, blockRetry // ESLURM_TOPO_WEIGHT_NO_FIT
	}
	// The block's candidates (marked) are free: takeFree's own test agrees.
	take := func(i int) bool { return a.takeFree(b.bb[i], mark, lastW, sel, &picked, &rem) }
	out := func() []int32 { return slices.Clone(picked) }
	if len(picked) > 0 {
		for i := lo; i < hi; i++ {
			if required[i-lo] && take(i) {
				return out(), blockOK
			}
		}
	}
	onBB := make([]int, hi-lo)
	for i := range onLL {
		onLL[i] = 0
	}
	for i := lo; i < hi; i++ {
		if required[i-lo] {
			continue
		}
		c := 0
		for _, s := range b.bb[i] {
			if best(s) {
				c++
			}
		}
		onBB[i-lo] = c
		if useLL {
			onLL[i/bpll] += c
		}
	}
	if !useLL && !b.scan {
		return a.chooseBBlocks(lo, hi, onBB, required, take, &rem, out)
	}
	prevRem := rem + 1
	for prevRem != rem {
		prevRem = rem
		bestI, bestFit, bestSame := -1, false, true
		for i := lo; i < hi; i++ {
			if required[i-lo] {
				continue
			}
			b.looks++
			// _choose_best_bblock
			fit := onBB[i-lo] >= rem
			if useLL && (bestI < 0 || !sameLL(bestI, i)) {
				same := false
				for j := i &^ (bpll - 1); j < hi && j <= i|(bpll-1); j++ {
					if j >= lo && required[j-lo] {
						same = true
						break
					}
				}
				if bestI < 0 || (same && !bestSame) {
					bestI, bestFit, bestSame = i, fit, same
					continue
				}
				if !same && bestSame {
					continue
				}
				bc, c := onLL[bestI>>llLevel], onLL[i>>llLevel]
				lf, blf := c >= rem, bc >= rem
				switch {
				case lf && !blf:
					bestI, bestFit, bestSame = i, fit, same
					continue
				case !lf && blf:
					continue
				case lf && blf && c != bc:
					if c < bc {
						bestI, bestFit, bestSame = i, fit, same
					}
					continue
				case !lf && !blf && c != bc:
					if c > bc {
						bestI, bestFit, bestSame = i, fit, same
					}
					continue
				}
			}
			if bestI < 0 || (fit && !bestFit) || (!fit && !bestFit && onBB[i-lo] >= onBB[bestI-lo]) || (fit && onBB[i-lo] <= onBB[bestI-lo]) {
				bestI, bestFit = i, fit
			}
		}
		if bestI < 0 || (maxLL <= 0 && !bestSame) {
			break
		}
		required[bestI-lo] = true
		if take(bestI) {
			return out(), blockOK
		}
		if !bestSame {
			maxLL--
		}
	}
	return out(), blockRetryHint
}

// chooseBBlocks is fillBlock's _choose_best_bblock loop without llblocks (every
// base block of the chosen block may be used), from base blocks bucketed by their
// candidate count instead of a scan of the block per base block chosen: the scan
// takes, among the base blocks not yet required, the one of fewest candidates that
// holds the rem nodes still wanted, else the one of most candidates, the last in
// index order on ties; a bucket per count, in index order, gives that base block
// from its end. O(base blocks + chosen x largest count) against O(base blocks x
// chosen): a job of 10^5 nodes in blocks of 16 chose about 6,000 base blocks, each
// after a scan of them all (the 196,608-host fat tree's 400-job replay, 11 s of CPU).
func (a *SlurmAllocator) chooseBBlocks(lo, hi int, onBB []int, required []bool, take func(i int) bool, rem *int, out func() []int32) ([]int32, blockAction) {
	a.blk.looks += hi - lo
	most := 0
	for i := lo; i < hi; i++ {
		if !required[i-lo] {
			most = max(most, onBB[i-lo])
		}
	}
	// byCnt[c]: the base blocks of c candidates not required, ascending
	off := make([]int32, most+2)
	for i := lo; i < hi; i++ {
		if !required[i-lo] {
			off[onBB[i-lo]+1]++
		}
	}
	for c := range most + 1 {
		off[c+1] += off[c]
	}
	end := slices.Clone(off[:most+1]) // the end of each bucket's live part
	byCnt := make([]int32, off[most+1])
	for i := lo; i < hi; i++ {
		if !required[i-lo] {
			c := onBB[i-lo]
			byCnt[end[c]] = int32(i)
			end[c]++
		}
	}
	for prevRem := *rem + 1; prevRem != *rem; {
		prevRem = *rem
		a.blk.looks += most + 1
		c := -1
		for f := max(*rem, 0); f <= most; f++ { // the fewest that fit
			if end[f] > off[f] {
				c = f
				break
			}
		}
		for f := most; c < 0 && f >= 0; f-- { // else the most
			if end[f] > off[f] {
				c = f
			}
		}
		if c < 0 {
			break
		}
		end[c]--
		best := int(byCnt[end[c]])
		required[best-lo] = true
		if take(best) {
			return out(), blockOK
		}
	}
	return out(), blockRetryHint
}
