package alloc

import (
	"fmt"
	"math/bits"
)

// Views of paging with pages of several nodes in its partition view
// (pagedBlocks, Viewer): a page is free in a view when it is free in the
// machine (none of its nodes busy: given to a job or occupied) and the view
// holds every node of it, which is what the mask's hold of the view's outside
// made of it (a node kept away takes its page). So a view is the bitmap of the
// pages it holds whole, and a change of view makes Paging's free pages (the
// current view's, on which Allocate decides) the machine's among those:
// O(pages/64), where the mask held and freed every free node two partitions'
// outsides differ by, page by page.

// AddView adds the view of the machine less away (a bitmap of the nodes) and
// returns its number (Viewer). O(n) once.
func (a *pagedBlocks) AddView(away []uint64) (int, error) {
	n := a.g.N()
	if len(away) != (n+63)/64 {
		return 0, fmt.Errorf("%s: a view less %d words of nodes for %d nodes", a.name, len(away), n)
	}
	if a.mfree == nil {
		a.mfree, a.mnfree = make([]uint64, len(a.free)), a.nfree
		copy(a.mfree, a.free)
		a.vin, a.vpages, a.cur = [][]uint64{nil}, [][]uint64{nil}, 0
	}
	in := complementOf(away, n)
	pages := make([]uint64, len(a.free))
	for r, nodes := range a.pages {
		if allIn(in, nodes) {
			pages[r/64] |= 1 << (r % 64)
		}
	}
	a.vin, a.vpages = append(a.vin, in), append(a.vpages, pages)
	return len(a.vin) - 1, nil
}

// UseView makes view v (0: the whole machine) the one the decisions, NumFree,
// IsFree and AppendFreeIn see (Viewer): Paging's free pages the machine's
// that v holds whole, O(pages/64).
func (a *pagedBlocks) UseView(v int) error {
	if v < 0 || v >= max(1, len(a.vin)) {
		return fmt.Errorf("%s: no view %d (%d)", a.name, v, len(a.vin))
	}
	if a.mfree == nil || v == a.cur {
		return nil
	}
	a.cur, a.nfree = v, 0
	pages := a.vpages[v]
	for w, x := range a.mfree {
		if pages != nil {
			x &= pages[w]
		}
		a.free[w] = x
		a.nfree += bits.OnesCount64(x)
	}
	return nil
}

// DropViews removes every view, the whole machine current again (Viewer).
func (a *pagedBlocks) DropViews() {
	if a.mfree == nil {
		return
	}
	copy(a.free, a.mfree)
	a.nfree = a.mnfree
	a.mfree, a.vin, a.vpages, a.cur = nil, nil, nil, 0
}

// inView reports whether the current view holds page r whole.
func (a *pagedBlocks) inView(r int) bool {
	p := a.vpages[a.cur]
	return p == nil || p[r/64]>>(r%64)&1 != 0
}
