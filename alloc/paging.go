package alloc

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

func init() {
	register("paging", "Paging (Lo et al. 1997; Bunde et al. 2004 §2.1): pages of 2^s x 2^s nodes ordered along a curve, a job takes the first free pages (s = 0 is the sorted free list)",
		func(arg string, m topo.Machine, opt Options) (Allocator, error) {
			curve, sArg, ok := cutLast(arg, ":")
			if !ok || curve == "" {
				return nil, fmt.Errorf("paging needs CURVE:s, e.g. paging:hilbert:1")
			}
			s, err := strconv.Atoi(sArg)
			if err != nil || s < 0 || s > 20 {
				return nil, fmt.Errorf("paging page size s %q: want an integer 0..20 (pages of 2^s x 2^s nodes)", textin.Clip(sArg))
			}
			g, ok := m.(*topo.Grid)
			if !ok || g.Dim() != 2 {
				return nil, fmt.Errorf("paging needs a 2D grid, not %s", m.Spec())
			}
			a, err := NewPaging("paging:"+arg, g, curve, s, opt)
			if err != nil {
				return nil, err
			}
			if s > 0 {
				return a, nil
			}
			return &pagingNodes{a}, nil
		})
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Paging is the allocator of W. Lo, K. Windisch, W. Liu and B. Nitzberg,
// "Noncontiguous processor allocation algorithms for mesh-connected multicomputers"
// (IEEE TPDS 8(7), 1997, doi:10.1109/71.598343), with the page orders of Leung et al.
// 2002: the mesh is cut into pages of 2^s x 2^s nodes, the pages are ordered along a
// curve of the grid of pages, and a job of k nodes takes the ceil(k/2^(2s)) free pages
// of lowest rank (a sorted free list of pages). It gets the first k nodes of those
// pages (row-major inside each page); the rest of its last page stays with it unused
// (internal fragmentation) and NumFree counts only nodes of free pages. The mesh's
// sides must be multiples of 2^s.
type Paging struct {
	name   string
	g      *topo.Grid
	side   int     // 2^s
	pages  [][]int // nodes of each page, by page rank, row-major inside
	pageOf []int32 // node -> page rank
	free   []uint64
	nfree  int // free pages
	busy   []bool
}

// NewPaging returns Paging with pages of 2^s x 2^s along curve (a built-in curve name,
// or an ordering of the page grid that opt.Ranking returns) on the 2D grid g.
func NewPaging(name string, g *topo.Grid, curve string, s int, opt Options) (*Paging, error) {
	side := 1 << s
	d := g.Dims()
	if d[0]%side != 0 || d[1]%side != 0 {
		return nil, fmt.Errorf("paging with s = %d needs sides that are multiples of %d; %s is not", s, side, g.Spec())
	}
	px, py := d[0]/side, d[1]/side
	pg, err := topo.NewGrid([]int{px, py}, []bool{g.Wrap()[0], g.Wrap()[1]})
	if err != nil {
		return nil, err
	}
	order, err := resolveCurve(curve, pg, opt)
	if err != nil {
		return nil, fmt.Errorf("paging: page order: %w", err)
	}
	a := &Paging{name: name, g: g, side: side, pageOf: make([]int32, g.N())}
	for r, p := range order {
		x0, y0 := (p%px)*side, (p/px)*side
		var nodes []int
		for y := y0; y < y0+side; y++ {
			for x := x0; x < x0+side; x++ {
				v := y*d[0] + x
				nodes = append(nodes, v)
				a.pageOf[v] = int32(r)
			}
		}
		a.pages = append(a.pages, nodes)
	}
	a.free = make([]uint64, (len(a.pages)+63)/64)
	for r := range a.pages {
		a.free[r/64] |= 1 << (r % 64)
	}
	a.nfree = len(a.pages)
	a.busy = make([]bool, g.N())
	return a, nil
}

// Name returns the spec the allocator was built from, e.g. "paging:hilbert:1".
func (a *Paging) Name() string { return a.name }

// Machine returns the grid the allocator was built for.
func (a *Paging) Machine() topo.Machine { return a.g }

// NumFree returns the number of free nodes: the free pages times the page's nodes.
func (a *Paging) NumFree() int { return a.nfree * a.side * a.side }

// Allocate takes the free pages of lowest rank.
func (a *Paging) Allocate(k int) ([]int, error) {
	if k < 1 {
		return nil, fmt.Errorf("request for %d nodes", k)
	}
	per := a.side * a.side
	need := (k + per - 1) / per
	if need > a.nfree {
		return nil, fmt.Errorf("request for %d nodes (%d pages), %d free pages: %w", k, need, a.nfree, ErrNotEnoughFree)
	}
	out := make([]int, 0, k)
	for w := 0; need > 0; w++ {
		for word := a.free[w]; word != 0 && need > 0; word &= word - 1 {
			r := w*64 + bits.TrailingZeros64(word)
			a.takePage(r)
			need--
			for _, v := range a.pages[r] {
				if len(out) < k {
					out = append(out, v)
					a.busy[v] = true
				}
			}
		}
	}
	return out, nil
}

// Paged is an allocator that gives jobs whole pages (Paging with pages of
// several nodes): a job keeps every node of the pages its nodes lie on busy
// until it ends, its unused nodes with them. A replay's D metric counts them
// busy (sim), as bt's whole blocks are in its State.
type Paged interface {
	Allocator
	// PageNodes returns the nodes of the page holding node v, nil when a
	// page is one node. Read them, do not change them.
	PageNodes(v int) []int
}

// PageNodes returns the nodes of the page holding node v (Paged), nil with
// pages of one node.
func (a *Paging) PageNodes(v int) []int {
	if a.side == 1 {
		return nil
	}
	return a.pages[a.pageOf[v]]
}

// takePage marks page r busy.
func (a *Paging) takePage(r int) {
	a.free[r/64] &^= 1 << (r % 64)
	a.nfree--
}

// whyNoOccupy says why Paging with pages of several nodes is not an Occupier
// (NoRestriction).
func (a *Paging) whyNoOccupy() string {
	curve, _, _ := cutLast(a.name, ":")
	return fmt.Sprintf("it gives jobs whole pages of %dx%d nodes, so a single node cannot be busy apart from its page (a job's release frees its pages whole; a replay's partitions take it through alloc.ForPartitions, a page holding a node kept away not offered); with pages of one node (%s:0) it keeps nodes busy", a.side, a.side, curve)
}

// pagingNodes is Paging with pages of one node (s = 0, the sorted free list
// along the page order): an Occupier, a node being a page.
type pagingNodes struct{ *Paging }

// Occupy marks the nodes busy (Occupier), all or nothing: the page of each is
// taken as Allocate takes a page (takePage), and Release frees it as a job's.
// The choice (the free pages of lowest rank) depends on the free pages alone,
// so the allocator decides as on a machine where jobs took those nodes.
func (a *pagingNodes) Occupy(nodes []int) error {
	for j, v := range nodes {
		if v < 0 || v >= a.g.N() || a.busy[v] {
			err := fmt.Errorf("%s: occupy: node %d is already busy", a.name, v)
			switch {
			case v < 0 || v >= a.g.N():
				err = fmt.Errorf("%s: occupy: node %d is outside 0..%d", a.name, v, a.g.N()-1)
			case slices.Contains(nodes[:j], v):
				err = fmt.Errorf("%s: occupy: node %d is listed twice", a.name, v)
			}
			for _, u := range nodes[:j] {
				a.busy[u] = false
			}
			return err
		}
		a.busy[v] = true
	}
	for _, v := range nodes {
		a.takePage(int(a.pageOf[v]))
	}
	return nil
}

// IsFree reports whether node v is free (Occupier).
func (a *pagingNodes) IsFree(v int) bool { return v >= 0 && v < a.g.N() && !a.busy[v] }

// Release frees the pages of the nodes, which must be busy (all or nothing).
func (a *Paging) Release(nodes []int) error {
	for i, v := range nodes {
		if v < 0 || v >= a.g.N() || !a.busy[v] {
			return fmt.Errorf("release of node %d (entry %d), which is not allocated", v, i)
		}
	}
	for _, v := range nodes {
		a.busy[v] = false
	}
	for _, v := range nodes {
		r := int(a.pageOf[v])
		if a.free[r/64]&(1<<(r%64)) == 0 {
			a.free[r/64] |= 1 << (r % 64)
			a.nfree++
		}
	}
	return nil
}
