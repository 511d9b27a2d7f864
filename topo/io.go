package topo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// IOSide is the side of a 2D mesh along which I/O nodes are attached (Liu, Hsu and
// Wu, "I/O Processor Allocation for Mesh Cluster Computers", §2 and §5.1: all I/O
// nodes on one side of the mesh, one per row on the left in their experiments).
type IOSide int

const (
	IOLeft   IOSide = iota // x = 0, one I/O node per row by default
	IORight                // x = X-1
	IOBottom               // y = 0, one I/O node per column by default
	IOTop                  // y = Y-1
)

var ioSideNames = [...]string{"left", "right", "bottom", "top"}

// String returns "left", "right", "bottom" or "top", as a spec's io= names the side.
func (s IOSide) String() string {
	if s >= 0 && int(s) < len(ioSideNames) {
		return ioSideNames[s]
	}
	return "IOSide(" + strconv.Itoa(int(s)) + ")"
}

// Vertical reports whether the side is a column of the mesh (left or right), so that
// its I/O nodes are spread over the rows.
func (s IOSide) Vertical() bool { return s == IOLeft || s == IORight }

// IO describes the I/O nodes of a mesh: Count of them along Side, I/O node j linked
// to the compute node Attach(j) on that side. The I/O nodes are not machine nodes:
// the grid's nodes 0..N-1 stay the compute nodes, and the network model (package
// netsim) adds the I/O nodes as endpoints N..N+Count-1 with one link each.
type IO struct {
	Side  IOSide // the mesh side the I/O nodes hang off
	Count int    // I/O nodes, numbered 0..Count-1
	// attach[j] is the compute node linked to I/O node j.
	attach []int
}

// Attach returns the compute node that I/O node j (0..Count-1) is linked to.
func (io *IO) Attach(j int) int { return io.attach[j] }

// Length is the number of compute nodes along the I/O side, the default Count.
func ioSideLength(dims []int, s IOSide) int {
	if s.Vertical() {
		return dims[1]
	}
	return dims[0]
}

// newIO places count I/O nodes along side s of a 2D mesh of the given sizes: I/O
// node j sits at position floor((2j+1)·L/(2·count)) along the side of length L (the
// middle of the j-th of count equal stretches), so that count = L puts one at every
// row (or column) and fewer are spread evenly.
func newIO(dims []int, s IOSide, count int) (*IO, error) {
	if len(dims) != 2 {
		return nil, fmt.Errorf("I/O nodes need a 2D mesh, not %d dimensions", len(dims))
	}
	if s < IOLeft || s > IOTop {
		return nil, fmt.Errorf("no I/O side %d", int(s))
	}
	L := ioSideLength(dims, s)
	if count < 1 || count > L {
		return nil, fmt.Errorf("%d I/O nodes on the %s side: must be 1..%d (one per compute node of the side at most)", count, s, L)
	}
	io := &IO{Side: s, Count: count, attach: make([]int, count)}
	for j := range count {
		pos := (2*j + 1) * L / (2 * count)
		var x, y int
		switch s {
		case IOLeft:
			x, y = 0, pos
		case IORight:
			x, y = dims[0]-1, pos
		case IOBottom:
			x, y = pos, 0
		case IOTop:
			x, y = pos, dims[1]-1
		}
		io.attach[j] = x + y*dims[0]
	}
	return io, nil
}

// WithIO returns a copy of the 2D mesh g with count I/O nodes along side s (count 0
// means one per row or column of that side). Tori are refused: the I/O nodes of Liu
// et al. sit on a boundary, which a wrapped dimension does not have.
func (g *Grid) WithIO(s IOSide, count int) (*Grid, error) {
	if g.Wraps() {
		return nil, fmt.Errorf("I/O nodes need a mesh without wraparound, not %s", g.Spec())
	}
	if len(g.dims) == 2 && count == 0 {
		count = ioSideLength(g.dims, s)
	}
	io, err := newIO(g.dims, s, count)
	if err != nil {
		return nil, err
	}
	c := *g
	c.io = io
	return &c, nil
}

// IO returns the grid's I/O nodes, or nil when it has none.
func (g *Grid) IO() *IO { return g.io }

// parseIOOption parses the value of the spec option io=SIDE[:COUNT].
func parseIOOption(g *Grid, val string) (*Grid, error) {
	side, cnt, hasCount := strings.Cut(val, ":")
	s := -1
	for i, n := range ioSideNames {
		if side == n {
			s = i
		}
	}
	if s < 0 {
		return nil, fmt.Errorf("io=%s: no side %q (want left, right, top or bottom, optionally :COUNT, e.g. io=left or io=top:4)%s", val, side, textin.DidYouMean(side, ioSideNames[:]))
	}
	count := 0
	if hasCount {
		v, err := strconv.Atoi(cnt)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("io=%s: count %q is not a positive integer", val, cnt)
		}
		count = v
	}
	out, err := g.WithIO(IOSide(s), count)
	if err != nil {
		return nil, fmt.Errorf("io=%s: %w", val, err)
	}
	return out, nil
}

// ioSpec is the spec suffix of the grid's I/O nodes ("" without them): ":io=left",
// with ":COUNT" when it is not the default one per row or column.
func (g *Grid) ioSpec() string {
	if g.io == nil {
		return ""
	}
	s := ":io=" + g.io.Side.String()
	if g.io.Count != ioSideLength(g.dims, g.io.Side) {
		s += ":" + strconv.Itoa(g.io.Count)
	}
	return s
}
