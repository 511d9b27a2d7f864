package alloc

import (
	"fmt"
	"math"

	"github.com/procalloc/procalloc/slurm"
)

// parentLinks fills the sums path's per-switch levels and parent lists (the
// switches whose Switches= list each switch; on the sums path none lists a child
// twice) and sizes the per-level queues.
func (st *slurmTreeState) parentLinks(t *slurm.Tree, maxLevel int) {
	ns := len(t.Switches)
	st.level = make([]int32, ns)
	for i, s := range t.Switches {
		st.level[i] = int32(s.Level)
	}
	st.parentOff, st.parents = invertLists(ns, ns, func(i int) []int { return t.Switches[i].Children })
	st.levelQ = make([][]int32, maxLevel+1)
	st.seen = make([]bool, ns)
}

// flushTree brings every switch's free count and, with unequal weights, lowest
// free weight (tf.cnt, tf.lw) up to date. The leaves changed since the last
// decision are queued with their change in free nodes; level by level, a queued
// switch takes its change (and, with unequal weights, its new lowest weight: the
// lower of its old one and its changed children's new ones, or a rescan of its
// children when one that held its lowest weight lost it) and, when either changed,
// passes the change to its parents, queuing each once. As no switch is reached
// twice below another, a switch's count is the sum of its children's, so a change
// adds up along every path once. The cost is the links above the changed leaves,
// not every switch and link.
func (a *SlurmAllocator) flushTree(uniform bool) {
	st, tf, sw := a.tr, a.tf, a.tree.Switches
	for lv := range tf.queue {
		q := tf.queue[lv]
		for _, s := range q { // parents are queued at higher levels, never in q
			tf.queued[s] = false
			d := tf.delta[s]
			tf.delta[s] = 0
			oc, c := tf.cnt[s], tf.cnt[s]+d
			if !uniform {
				olw, lw := tf.lw[s], uint32(0)
				switch {
				case c == 0:
				case lv == 0:
					lw = a.leafLow(int(s))
				case tf.lwRescan[s]:
					first := true
					for _, ch := range sw[s].Children {
						if tf.cnt[ch] > 0 && (first || tf.lw[ch] < lw) {
							lw, first = tf.lw[ch], false
						}
					}
				default:
					// No child that held the lowest weight lost it: the lower of the
					// old one and the changed children's new ones.
					lw = tf.lwMin[s]
					if oc > 0 {
						lw = min(lw, olw)
					}
				}
				tf.lwRescan[s], tf.lwMin[s] = false, math.MaxUint32
				if d == 0 && lw == olw {
					continue
				}
				tf.lw[s] = lw
				for _, p := range st.parents[st.parentOff[s]:st.parentOff[s+1]] {
					if c > 0 {
						tf.lwMin[p] = min(tf.lwMin[p], lw)
					}
					// p's lowest weight (not yet updated) may have come from s
					if oc > 0 && olw == tf.lw[p] && (c == 0 || lw > olw) {
						tf.lwRescan[p] = true
					}
				}
			} else if d == 0 {
				continue
			}
			tf.cnt[s] = c
			for _, p := range st.parents[st.parentOff[s]:st.parentOff[s+1]] {
				tf.delta[p] += d
				if !tf.queued[p] {
					tf.queued[p] = true
					tf.queue[st.level[p]] = append(tf.queue[st.level[p]], p)
				}
			}
		}
		tf.queue[lv] = q[:0]
	}
}

// chooseTopUniform is chooseTop when every node has the same weight: every switch
// with k free nodes has the same lowest free weight, so a later one of at least the
// current top's level always replaces it, and the top switch is the last in file
// order of the highest level among those with k free nodes: the first such in
// byLevel read backwards (highest level first, file order within a level).
func (a *SlurmAllocator) chooseTopUniform(k int, cnt []int32) int {
	by := a.tr.byLevel
	for j := len(by) - 1; j >= 0; j-- {
		if int(cnt[by[j]]) >= k {
			return by[j]
		}
	}
	return -1
}

// treeSelectSum is treeSelect on the sums path (no node on two leaves, no switch
// reached twice below another), from the incremental free counts (slurm_free.go):
// the rules are treeSelectRef's (see the package's Slurm notes), which the tests
// check it against. Per decision:
//   - the switches' free counts are brought up to date along the links above the
//     leaves that changed since the last decision (flushTree);
//   - the top switch: with equal weights the first of the highest level with k free
//     nodes, read from the end (chooseTopUniform); else a pass over the switches as
//     in Slurm;
//   - the candidate counts (free nodes under the top switch, of weight up to the one
//     that completes the job): with equal weights and every free node under the top
//     switch, they are the free counts themselves; otherwise they are summed from
//     the leaves with candidates up to the switches above them only (sumUp), after
//     a walk of the top switch's subtree when some free node is outside it, and,
//     with unequal weights, a read of the free nodes up to that weight;
//   - the choice: O(leaves) to list the candidate leaves, then per chosen leaf
//     O(runs of equivalent candidates) to compare and O(twin classes with
//     candidates) for the distances.
//
// Slurm's own _eval_nodes_topo intersects every switch's node bitmap with the free
// nodes twice per decision and loops over every switch per leaf chosen: O(switches
// x nodes / 64) per decision.
func (a *SlurmAllocator) treeSelectSum(k int) ([]int32, error) {
	t, st, tf, o := a.tree, a.tr, a.tf, a.wo
	required := st.required // false everywhere between decisions
	uniform := o.uniform()
	var w0 uint32
	if len(a.w) > 0 {
		w0 = a.w[0]
	}
	a.flushTree(uniform)
	var top int
	if uniform {
		top = a.chooseTopUniform(k, tf.cnt)
	} else {
		top = a.chooseTop(k, tf.cnt, tf.lw)
	}
	if top < 0 {
		return nil, a.noTopSwitch(k)
	}
	// every free node on a leaf is under the top switch
	all := int(tf.cnt[top]) == tf.leafFree
	in := st.in
	if !all {
		// The switches under the top switch.
		clear(in)
		stack := append(st.stack[:0], top)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if in[v] {
				continue
			}
			in[v] = true
			stack = append(stack, t.Switches[v].Children...)
		}
		st.stack = stack[:0]
	}

	sel := a.sel
	picked := make([]int32, 0, k)
	defer func() {
		for _, s := range picked {
			sel[s] = false
		}
	}()
	// lastW, the weight group that makes k under the top switch; the candidates per
	// switch (under the top switch, free, of weight <= lastW); the lighter ones are
	// taken whole, and their switches are required.
	lastW := w0
	cnt := tf.cnt // the candidate counts: the free counts (equal weights, all under the top)
	if !uniform || !all {
		cnt = st.cnt // 0 everywhere between decisions
		touched := st.levelQ[0][:0]
		if uniform {
			for _, i := range st.leaves {
				if in[i] && tf.cnt[i] > 0 { // flushed: a leaf's free nodes
					cnt[i] = tf.cnt[i]
					touched = append(touched, int32(i))
				}
			}
		} else {
			n := len(a.at)
			p := -1
			for c := 0; c < k; {
				p = o.nextFree(p+1, n)
				if l := st.leafOf[o.at[p]]; l >= 0 && (all || in[l]) {
					c++
				}
			}
			lastW = a.w[o.at[p]]
			g := o.grp[p]
			gs, ge := int(o.gStart[g]), int(o.gStart[g+1])
			for q := o.nextFree(0, ge); q < ge; q = o.nextFree(q+1, ge) {
				s := o.at[q]
				l := st.leafOf[s]
				if l < 0 || !(all || in[l]) {
					continue
				}
				if cnt[l] == 0 {
					touched = append(touched, l)
				}
				cnt[l]++
				if q < gs {
					required[l] = true
					sel[s] = true
					picked = append(picked, s)
				}
			}
		}
		st.levelQ[0] = touched
		swept := a.sumUp(cnt, required)
		defer func() {
			for _, i := range swept {
				cnt[i], required[i] = 0, false
			}
		}()
	}
	anyRequired := len(picked) > 0

	rem := k - len(picked)
	// take gives leaf i's candidates (i is required or a candidate: under the top
	// switch) in index order until the job is complete.
	take := func(i int) bool { return a.takeFree(st.leaf[i], nil, lastW, sel, &picked, &rem) }
	// A chosen leaf's count is set to 0 (Slurm's "used all") and, from 24.11
	// (tree2411), lowered on its parent chain (lowerCounts); the old counts are
	// kept in chosen and restored, in reverse, at the end (cnt may be the free
	// counts).
	chosen := st.chosen[:0]
	defer func() {
		for j := len(chosen) - 1; j >= 0; j-- {
			cnt[chosen[j].leaf] = chosen[j].cnt
		}
		st.chosen = chosen[:0]
	}()
	if anyRequired {
		taken := 0 // on the required leaves so far (Slurm's num_nodes_taken)
		for _, i := range st.leaves {
			if !required[i] {
				continue
			}
			prev := rem
			if take(i) {
				return picked, nil
			}
			if a.tree2411 {
				taken += prev - rem
				a.lowerCounts(i, int32(taken), cnt, &chosen)
			}
		}
	}
	// The candidate leaves in file order, and their twin classes: every candidate of
	// a class has the same summed distance (they start at 0 and every addition is
	// the class's), kept once per class in distC.
	cand := st.cand[:0]
	for p, i := range st.leaves {
		if cnt[i] > 0 && !required[i] {
			cand = append(cand, int32(p))
		}
	}
	if st.distC == nil {
		st.distC = make([]int, len(st.twins))
		st.classSeen = make([]bool, len(st.twins))
	}
	distC, classes := st.distC, st.classes[:0]
	for _, p := range cand {
		if c := st.leafClass[p]; !st.classSeen[c] {
			st.classSeen[c] = true
			classes = append(classes, c)
			distC[c] = 0
		}
	}
	for _, c := range classes {
		st.classSeen[c] = false
	}
	defer func() { st.cand, st.classes = cand[:0], classes[:0] }()
	if anyRequired {
		// Every required switch adds its distances (in any order: sums, with
		// INFINITE absorbing); they are among the switches sumUp reached. Switches
		// of one distance row (twin leaves, twin upper switches) add it together.
		if st.rowTimes == nil {
			st.rowTimes = make([]int32, st.rowKeys)
		}
		reps := st.rowReps[:0]
		for _, i := range st.swept {
			if required[i] {
				if key := st.rowKey[i]; st.rowTimes[key] == 0 {
					reps = append(reps, i)
				}
				st.rowTimes[st.rowKey[i]]++
			}
		}
		for _, i := range reps {
			key := st.rowKey[i]
			a.addDistClassesTimes(int(i), classes, int(st.rowTimes[key]))
			st.rowTimes[key] = 0
		}
		st.rowReps = reps[:0]
	}
	// Candidates of one twin class with equal counts compare alike with every leaf
	// and tie with each other, so of consecutive ones (in file order) only the first
	// can replace the best so far: the scan reads groups of them, and the chosen
	// leaf, always a group's first, leaves its group.
	groups := st.groups[:0]
	for at, p := range cand {
		if l := len(groups) - 1; l >= 0 && st.leafClass[p] == groups[l].class && cnt[st.leaves[p]] == groups[l].cnt {
			groups[l].end++
			continue
		}
		groups = append(groups, candGroup{int32(at), int32(at + 1), st.leafClass[p], cnt[st.leaves[p]]})
	}
	defer func() { st.groups = groups[:0] }()
	for len(groups) > 0 {
		if err := a.stopped(); err != nil {
			return nil, err // the defers above restore the state
		}
		best, bestG, bestD := -1, -1, 0
		for gi, g := range groups {
			if gi > 0 && g.class == groups[gi-1].class && g.cnt == groups[gi-1].cnt {
				continue
			}
			i := st.leaves[cand[g.start]]
			d := distC[g.class]
			if best < 0 || d < 0 {
				if d >= 0 {
					best, bestG, bestD = i, gi, d
				}
				continue
			}
			if a.replacesBest(i, best, d, bestD, rem, cnt) {
				best, bestG, bestD = i, gi, d
			}
		}
		if best < 0 {
			break
		}
		if groups[bestG].start++; groups[bestG].start == groups[bestG].end {
			groups = append(groups[:bestG], groups[bestG+1:]...)
		}
		a.addDistClassesTimes(best, classes, 1)
		prev := rem
		if take(best) {
			return picked, nil
		}
		if a.tree2411 {
			a.lowerCounts(best, cnt[best], cnt, &chosen)
		}
		chosen = append(chosen, chosenLeaf{best, cnt[best]})
		cnt[best] = 0
		if rem == prev {
			break
		}
	}
	return nil, fmt.Errorf("request for %d nodes: %d left unplaced on the tree: %w", k, rem, ErrFragmented)
}

// sumUp adds the candidate counts and required marks of the leaves in st.levelQ[0]
// (set on them in cnt and required) to every switch above them, level by level,
// each switch queued once: a switch's count is the sum of its children's, as no
// switch is reached twice below another. It returns every switch it set, leaves
// included (st.swept), for the caller to clear.
func (a *SlurmAllocator) sumUp(cnt []int32, required []bool) []int32 {
	st := a.tr
	swept := st.swept[:0]
	for lv := range st.levelQ {
		q := st.levelQ[lv]
		for _, s := range q { // parents are queued at higher levels, never in q
			for _, p := range st.parents[st.parentOff[s]:st.parentOff[s+1]] {
				cnt[p] += cnt[s]
				required[p] = required[p] || required[s]
				if !st.seen[p] {
					st.seen[p] = true
					st.levelQ[st.level[p]] = append(st.levelQ[st.level[p]], p)
				}
			}
		}
		swept = append(swept, q...)
		st.levelQ[lv] = q[:0]
	}
	for _, s := range swept {
		st.seen[s] = false
	}
	st.swept = swept
	return swept
}

// chosenLeaf is a leaf treeSelectSum chose and its count before it was set to 0.
type chosenLeaf struct {
	leaf int
	cnt  int32
}

// candGroup is a run of consecutive candidate leaves (cand[start:end]) of one twin
// class and one candidate count.
type candGroup struct {
	start, end int32
	class      int32
	cnt        int32
}

// addDistClassesTimes is addDist per twin class, times times (for as many switches
// of inx's distance row): distC[c] += times x hops(inx, class c), INFINITE (-1)
// absorbing; a candidate of inx's own class (inx a leaf with twins) is 2 hops away.
func (a *SlurmAllocator) addDistClassesTimes(inx int, classes []int32, times int) {
	st := a.tr
	row := st.leafDistances(a.tree, inx)
	own := int32(-1)
	if p := st.leafPos[inx]; p >= 0 && st.twins[st.leafClass[p]] > 1 {
		own = st.leafClass[p]
	}
	for _, c := range classes {
		d := row[c]
		if c == own {
			d = 2
		}
		if d == noRoute || st.distC[c] < 0 {
			st.distC[c] = -1
		} else {
			st.distC[c] += times * int(d)
		}
	}
}
