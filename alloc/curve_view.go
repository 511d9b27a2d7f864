package alloc

import (
	"fmt"
	"math/bits"
)

// Views of the curve allocators (Viewer): the free state of each view (the
// machine less a node set: a replay's partition's outside; view 0 the whole
// machine), so that a decision in a partition other than the last one's holds
// and frees no node (alloc.Mask). A curve allocator's rules read its free
// intervals alone (curve.go), and those are a function of the free nodes, so
// each view keeps its own interval index, and a decision reads the current
// one's as it reads the machine's without views.
//
// The bookkeeping is the Slurm emulations' (viewBook, views.go): the
// machine's free nodes as a bitmap (every change checked there first, so
// errors are the machine's), a change made in the current view's state (the
// nodes it holds, in runs of ranks as Occupy and Release make them), and a
// view caught up when it is made current: the nodes it holds that were freed
// and taken since it was last current, found word by word, released and
// occupied in its index as two bulk calls. A change of view costs O(n/64) and
// O(log n) a run of changed ranks, where Mask.Set without views held or freed
// every free node the two partitions differ by (up to O(n) a decision when
// jobs of partitions of different sizes alternate).

// curveFree is a curve allocator's free state: the State and the interval
// index (curve.go) of one view.
type curveFree struct {
	st         *State
	starts     *bitTree
	length     []int32
	byPos      *maxTree
	bySize     *sizeIndex
	freeR      []uint64
	nIntervals int
}

// save returns the allocator's current free state.
func (a *CurveAllocator) save() curveFree {
	return curveFree{st: a.st, starts: a.starts, length: a.length, byPos: a.byPos, bySize: a.bySize, freeR: a.freeR, nIntervals: a.nIntervals}
}

// load makes f the allocator's current free state.
func (a *CurveAllocator) load(f curveFree) {
	a.st, a.starts, a.length, a.byPos, a.bySize, a.freeR, a.nIntervals = f.st, f.starts, f.length, f.byPos, f.bySize, f.freeR, f.nIntervals
}

// AddView adds the view of the machine less away (a bitmap of the nodes) and
// returns its number (Viewer): its free nodes are the machine's outside away,
// now and after every change. O(n log n) once.
func (a *CurveAllocator) AddView(away []uint64) (int, error) {
	if a.views == nil {
		a.vb.begin(a.st)
		a.views = []curveFree{{}} // view 0's state is the current one until another is made current
	}
	id, in, err := a.vb.add(a.name, away)
	if err != nil {
		if len(a.views) == 1 {
			a.views = nil
			a.vb.drop()
		}
		return 0, err
	}
	// The view's busy nodes: the machine's, and those it does not hold.
	busy := a.catchTaken[:0]
	for w, f := range a.vb.truth.free {
		for x := ^(f & in[w]); x != 0; x &= x - 1 {
			v := w<<6 + bits.TrailingZeros64(x)
			if v >= a.n {
				break
			}
			busy = append(busy, v)
		}
	}
	a.catchTaken = busy[:0]
	cur := a.save()
	a.load(a.emptyFree())
	err = a.occupyNodes(busy)
	f := a.save()
	a.load(cur)
	if err != nil {
		return 0, fmt.Errorf("%s: internal error: making a view: %w", a.name, err)
	}
	a.views = append(a.views, f)
	return id, nil
}

// UseView makes view v (0: the whole machine) the one the decisions, NumFree,
// IsFree, AppendFreeIn and State see (Viewer): O(n/64) and the runs of ranks
// of the view that changed since it was last current.
func (a *CurveAllocator) UseView(v int) error {
	return switchView(&a.vb, a.name, a.views, v, a.save, a.load, a.catchUp)
}

// DropViews removes every view, the whole machine's state current again
// (Viewer).
func (a *CurveAllocator) DropViews() {
	if a.views == nil {
		return
	}
	endViews(&a.vb, a.views, a.load, a.catchUp)
	a.views = nil
}

// catchUp brings the current free state, view v's, up to the machine's: the
// nodes it holds freed and taken since it was last current (viewBook.changed).
func (a *CurveAllocator) catchUp(v int) error {
	freed, taken := a.vb.changed(v, a.st.free, a.catchFreed[:0], a.catchTaken[:0])
	a.catchFreed, a.catchTaken = freed[:0], taken[:0]
	if err := a.releaseNodes(freed); err != nil {
		return fmt.Errorf("alloc: %s: internal error: view %d out of step with the machine: %w", a.name, v, err)
	}
	if err := a.occupyNodes(taken); err != nil {
		return fmt.Errorf("alloc: %s: internal error: view %d out of step with the machine: %w", a.name, v, err)
	}
	return nil
}
