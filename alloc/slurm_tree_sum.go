package alloc

import "fmt"

// treeSelectSum is treeSelect on the sums path (no node on two leaves, no switch
// reached twice below another), from the incremental free counts (slurm_free.go):
// per decision O(switches + links) for the counts, O(free nodes up to the weight
// bound) with unequal weights, and per chosen leaf O(candidate leaves) for the
// choice and O(twin classes with candidates) for the distances. The rules are
// treeSelectRef's (see the package's Slurm notes), which the tests check it against.
func (a *SlurmAllocator) treeSelectSum(k int) ([]int32, error) {
	t, st, tf, o := a.tree, a.tr, a.tf, a.wo
	cnt, lowW, required, in := st.cnt, st.lowW, st.required, st.in
	uniform := o.uniform()
	var w0 uint32
	if len(a.w) > 0 {
		w0 = a.w[0]
	}
	// Free nodes and lowest free weight per switch, bottom-up from the leaves'.
	for _, i := range st.byLevel {
		if t.Switches[i].Level == 0 {
			c := int(tf.free[i])
			cnt[i] = c
			switch {
			case c == 0:
				lowW[i] = 0
			case uniform:
				lowW[i] = w0
			default:
				lowW[i] = a.leafLow(i)
			}
			continue
		}
		c, lw := 0, uint32(0)
		for _, ch := range t.Switches[i].Children {
			if cnt[ch] > 0 {
				if c == 0 || lowW[ch] < lw {
					lw = lowW[ch]
				}
				c += cnt[ch]
			}
		}
		cnt[i], lowW[i] = c, lw
	}
	top := a.chooseTop(k)
	if top < 0 {
		return nil, a.noTopSwitch(k)
	}
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

	sel := a.sel
	picked := make([]int32, 0, k)
	defer func() {
		for _, s := range picked {
			sel[s] = false
		}
	}()
	// lastW, the weight group that makes k under the top switch; the candidates per
	// leaf (under the top switch, free, of weight <= lastW); the lighter ones are
	// taken whole, and their leaves are required.
	lastW := w0
	if uniform {
		for _, i := range st.leaves {
			cnt[i], required[i] = 0, false
			if in[i] {
				cnt[i] = int(tf.free[i])
			}
		}
	} else {
		for _, i := range st.leaves {
			cnt[i], required[i] = 0, false
		}
		n := len(a.at)
		p := -1
		for c := 0; c < k; {
			p = o.nextFree(p+1, n)
			if l := st.leafOf[o.at[p]]; l >= 0 && in[l] {
				c++
			}
		}
		lastW = a.w[o.at[p]]
		g := o.grp[p]
		gs, ge := int(o.gStart[g]), int(o.gStart[g+1])
		for q := o.nextFree(0, ge); q < ge; q = o.nextFree(q+1, ge) {
			s := o.at[q]
			l := st.leafOf[s]
			if l < 0 || !in[l] {
				continue
			}
			cnt[l]++
			if q < gs {
				required[l] = true
				sel[s] = true
				picked = append(picked, s)
			}
		}
	}
	for _, i := range st.byLevel {
		if t.Switches[i].Level == 0 {
			continue
		}
		c, req := 0, false
		for _, ch := range t.Switches[i].Children {
			c += cnt[ch]
			req = req || required[ch]
		}
		cnt[i], required[i] = c, req
	}

	rem := k - len(picked)
	// take gives leaf i's candidates (i is required or a candidate: under the top
	// switch) in index order until the job is complete.
	take := func(i int) bool {
		for _, s := range st.leaf[i] {
			if sel[s] || !a.free(s) || a.w[s] > lastW {
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
	if len(picked) > 0 {
		for _, i := range st.leaves {
			if required[i] && take(i) {
				return picked, nil
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
	for i := range t.Switches {
		if required[i] {
			a.addDistClasses(i, classes)
		}
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
			tcs := a.compareSwitches(i, best, rem, cnt)
			if (distLess(d, bestD) && tcs >= 0) || (d == bestD && tcs > 0) {
				best, bestG, bestD = i, gi, d
			}
		}
		if best < 0 {
			break
		}
		if groups[bestG].start++; groups[bestG].start == groups[bestG].end {
			groups = append(groups[:bestG], groups[bestG+1:]...)
		}
		a.addDistClasses(best, classes)
		prev := rem
		if take(best) {
			return picked, nil
		}
		cnt[best] = 0
		if rem == prev {
			break
		}
	}
	return nil, fmt.Errorf("request for %d nodes: %d left unplaced on the tree: %w", k, rem, ErrFragmented)
}

// candGroup is a run of consecutive candidate leaves (cand[start:end]) of one twin
// class and one candidate count.
type candGroup struct {
	start, end int32
	class      int32
	cnt        int
}

// addDistClasses is addDist per twin class: distC[c] += hops(inx, class c), INFINITE
// (-1) absorbing; a candidate of inx's own class (inx a leaf with twins) is 2 hops
// away.
func (a *SlurmAllocator) addDistClasses(inx int, classes []int32) {
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
			st.distC[c] += int(d)
		}
	}
}
