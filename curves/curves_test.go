package curves

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/procalloc/procalloc/internal/ctxtest"
	"github.com/procalloc/procalloc/internal/oracle"
	"github.com/procalloc/procalloc/topo"
)

// testMachines returns a spread of machines: degenerate, odd, power-of-two, 3D, tori,
// and graphs (connected and not).
func testMachines(t *testing.T) []topo.Machine {
	t.Helper()
	var ms []topo.Machine
	for _, spec := range []string{
		"mesh:1", "mesh:7", "mesh:1x1", "mesh:1x9", "mesh:9x1", "mesh:2x2", "mesh:3x3", "mesh:5x7",
		"mesh:7x4", "mesh:16x16", "mesh:16x22", "mesh:13x8", "mesh:32x32", "mesh:1x1x1",
		"mesh:2x2x2", "mesh:4x4x4", "mesh:8x8x5", "mesh:3x5x7", "mesh:1x4x3", "mesh:2x3x2x3",
		"torus:8x8", "torus:5x7", "torus:9", "mesh:8x8x5:wrap=yz", "torus:3x3x3",
	} {
		g, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, g)
	}
	// A connected irregular graph: a 5-cycle with a tail and a chord; a disconnected one.
	g1, err := topo.NewGraphFromEdges(8, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {4, 5}, {5, 6}, {6, 7}, {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := topo.NewGraphFromEdges(6, [][2]int{{0, 1}, {1, 2}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	return append(ms, g1, g2, topo.GraphOf(topo.Mesh(4, 5)))
}

func TestRegistry(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || len(names) < 15 {
		t.Fatalf("Names() = %v", names)
	}
	for _, n := range names {
		if Summary(n) == "" {
			t.Errorf("curve %q has no summary", n)
		}
	}
	m := topo.Mesh(16, 16)
	if _, err := Generate("nope", m); err == nil || !strings.Contains(err.Error(), "hilbert, hilbert-trunc") {
		t.Errorf("unknown curve: error %v should list the valid names", err)
	}
	if _, err := Generate("hilbert", topo.Mesh(16, 22)); err == nil || !strings.Contains(err.Error(), "power of two") {
		t.Errorf("hilbert on 16x22: error %v", err)
	}
	if _, err := Generate("snake", mustGraph(t)); err == nil || !strings.Contains(err.Error(), "mesh or torus") {
		t.Errorf("snake on a graph: error %v", err)
	}
	app := Applicable(m)
	for _, want := range []string{"hilbert", "gilbert", "hindex", "snake", "rowmajor", "bfs", "spectral"} {
		if !slices.Contains(app, want) {
			t.Errorf("Applicable(16x16) = %v lacks %s", app, want)
		}
	}
	if slices.Contains(app, "hilbert3d") {
		t.Errorf("Applicable(16x16) contains hilbert3d")
	}
	if err := Register(Curve{Name: "hilbert", Applies: func(topo.Machine) error { return nil }, Generate: func(topo.Machine) (Order, error) { return nil, nil }}); err == nil {
		t.Errorf("registering a duplicate name succeeded")
	}
}

func mustGraph(t *testing.T) *topo.Graph {
	g, err := topo.NewGraphFromEdges(3, [][2]int{{0, 1}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Every applicable curve is a permutation of the nodes, on every test machine.
func TestEveryCurveIsAPermutation(t *testing.T) {
	for _, m := range testMachines(t) {
		for _, name := range Applicable(m) {
			if name == "spectral" && m.N() > 400 {
				continue // dense eigendecomposition: slow; covered on the smaller machines
			}
			o, err := Generate(name, m)
			if name == "spectral" && err != nil && strings.Contains(err.Error(), "connected") {
				continue // the disconnected graph
			}
			if err != nil {
				t.Errorf("%s on %s: %v", name, m.Spec(), err)
				continue
			}
			if err := o.Validate(m.N()); err != nil {
				t.Errorf("%s on %s: %v", name, m.Spec(), err)
			}
		}
	}
}

// xy2dReference is the Hilbert rank written from the geometric definition: split the
// n x n square into quadrants visited (0,0), (0,1), (1,1), (1,0); the lower-left
// quadrant holds the curve transposed, the upper ones as is, the lower-right one
// reflected in its anti-diagonal; recurse into the quadrant with local coordinates.
func xy2dReference(n, x, y int) int {
	if n == 1 {
		return 0
	}
	h := n / 2
	switch {
	case x < h && y < h:
		return xy2dReference(h, y, x)
	case x < h:
		return h*h + xy2dReference(h, x, y-h)
	case y >= h:
		return 2*h*h + xy2dReference(h, x-h, y-h)
	default:
		lx, ly := x-h, y
		return 3*h*h + xy2dReference(h, h-1-ly, h-1-lx)
	}
}

func TestHilbertPublished16x16(t *testing.T) {
	m := topo.Mesh(16, 16)
	o, err := Generate("hilbert", m)
	if err != nil {
		t.Fatal(err)
	}
	ranks := o.Ranks()
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			if r, want := ranks[x+16*y], xy2dReference(16, x, y); r != want {
				t.Fatalf("(%d,%d): rank %d, reference xy2d %d", x, y, r, want)
			}
			if HilbertXY2D(16, x, y) != ranks[x+16*y] {
				t.Fatalf("HilbertXY2D(16,%d,%d) disagrees", x, y)
			}
		}
	}
	if o[0] != 0 || o[255] != 15 {
		t.Errorf("endpoints: rank 0 at node %d, rank 255 at node %d; want (0,0) and (15,0)", o[0], o[255])
	}
	// The first steps of the published curve: (0,0) (1,0) (1,1) (0,1) (0,2) ...
	if want := []int{0, 1, 17, 16, 32}; !slices.Equal(o[:5], Order(want)) {
		t.Errorf("first nodes %v, want %v", o[:5], want)
	}
	if s := StepStats(m, o, false); s.Jumps != 0 {
		t.Errorf("Hilbert 16x16 has %d jumps", s.Jumps)
	}
}

func TestHilbertMatchesReferenceAllPowers(t *testing.T) {
	for n := 1; n <= 128; n *= 2 {
		g := topo.Mesh(n, n)
		for name, f := range map[string]func(*topo.Grid) (Order, error){"hilbert": Hilbert, "hilbert-trunc": HilbertTrunc, "gilbert": Gilbert} {
			o, err := f(g)
			if err != nil {
				t.Fatal(err)
			}
			for r, v := range o {
				if xy2dReference(n, v%n, v/n) != r {
					t.Fatalf("%s %dx%d: rank %d is node %d, not the reference", name, n, n, r, v)
				}
			}
		}
	}
}

// The truncated curve keeps exactly the grid's nodes in the enclosing curve's order.
func TestHilbertTruncIsSortedByEnclosingRank(t *testing.T) {
	for _, d := range [][2]int{{1, 1}, {1, 9}, {9, 1}, {5, 7}, {16, 22}, {13, 8}, {33, 3}} {
		g := topo.Mesh(d[0], d[1])
		o, err := HilbertTrunc(g)
		if err != nil {
			t.Fatal(err)
		}
		side := nextPow2(max(d[0], d[1]))
		want := RowMajor(g.N())
		slices.SortFunc(want, func(a, b int) int {
			return xy2dReference(side, a%d[0], a/d[0]) - xy2dReference(side, b%d[0], b/d[0])
		})
		if !slices.Equal(o, want) {
			t.Errorf("%v: truncated Hilbert differs from sorting by enclosing rank", d)
		}
	}
}

func TestGilbertContinuousOnEveryRectangle(t *testing.T) {
	size := 64
	if testing.Short() {
		size = 24
	}
	for w := 1; w <= size; w++ {
		for h := 1; h <= size; h++ {
			g := topo.Mesh(w, h)
			o, err := Gilbert(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Validate(g.N()); err != nil {
				t.Fatalf("%dx%d: %v", w, h, err)
			}
			if s := StepStats(g, o, false); s.Jumps != 0 {
				t.Fatalf("%dx%d: %d jumps (max step %d)", w, h, s.Jumps, s.Max)
			}
			if o[0] != 0 {
				t.Fatalf("%dx%d: starts at node %d", w, h, o[0])
			}
			end := w - 1
			if !gilbertAlongX(w, h) {
				end = (h - 1) * w
			}
			if o[len(o)-1] != end {
				t.Fatalf("%dx%d: ends at node %d, want %d", w, h, o[len(o)-1], end)
			}
		}
	}
}

func TestHIndexClosed(t *testing.T) {
	for n := 1; n <= 128; n *= 2 {
		g := topo.Mesh(n, n)
		o, err := HIndex(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Validate(g.N()); err != nil {
			t.Fatal(err)
		}
		if s := StepStats(g, o, true); s.Jumps != 0 || (n > 1 && s.Max != 1) {
			t.Fatalf("%dx%d: steps %+v; want a closed one-hop cycle", n, n, s)
		}
		if n >= 2 && (o[0] != 0 || o[len(o)-1] != 1) {
			t.Errorf("%dx%d: endpoints %d, %d", n, n, o[0], o[len(o)-1])
		}
	}
	// The triangle T(4) of the H-index: a column, then a U (its "H" shape).
	o, _ := HIndex(topo.Mesh(4, 4))
	if want := (Order{0, 4, 8, 12, 13, 9, 10, 14}); !slices.Equal(o[:8], want) {
		t.Errorf("H-index 4x4 first half %v, want %v", o[:8], want)
	}
	// Locality: the H-index beats the Hilbert curve on the objective with w(1..2)
	// (Niedermeier et al.'s point), on a 32x32 ring.
	g := topo.Mesh(32, 32)
	h, _ := Hilbert(g)
	w := Weights{1, 1, 1, 1}
	fh, _ := Objective(g, o, w, true)
	_ = fh
	oh, _ := HIndex(g)
	fH, _ := Objective(g, oh, w, true)
	fHil, _ := Objective(g, h, w, true)
	if fH >= fHil {
		t.Logf("note: H-index F %g, Hilbert F %g", fH, fHil)
	}
}

func TestMortonOrder(t *testing.T) {
	g := topo.Mesh(4, 4)
	o := Morton(g)
	if want := (Order{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}); !slices.Equal(o, want) {
		t.Errorf("Morton 4x4 = %v, want %v", o, want)
	}
	// On a 3x5x2 box: sorted by interleaved bits, checked by a direct comparison of
	// the highest differing bit.
	g3 := topo.Mesh(3, 5, 2)
	o = Morton(g3)
	less := func(a, b []int) bool {
		for bit := 3; bit >= 0; bit-- {
			for j := 2; j >= 0; j-- {
				x, y := a[j]>>bit&1, b[j]>>bit&1
				if x != y {
					return x < y
				}
			}
		}
		return false
	}
	for r := 1; r < len(o); r++ {
		if !less(g3.Coord(o[r-1], nil), g3.Coord(o[r], nil)) {
			t.Fatalf("Morton 3x5x2: rank %d (node %d) not after rank %d (node %d)", r, o[r], r-1, o[r-1])
		}
	}
}

func TestSnakes(t *testing.T) {
	g := topo.Mesh(3, 3)
	if o := Snake(g); !slices.Equal(o, Order{0, 1, 2, 5, 4, 3, 6, 7, 8}) {
		t.Errorf("snake 3x3 = %v", o)
	}
	for _, spec := range []string{"mesh:1x5", "mesh:5x1", "mesh:4x3", "mesh:7x6", "mesh:3x4x5", "mesh:4x3x3", "mesh:2x3x2x3"} {
		g, _ := topo.ParseSpec(spec)
		if s := StepStats(g, SnakeReflected(g), false); s.Jumps != 0 {
			t.Errorf("snake3d on %s: %d jumps", spec, s.Jumps)
		}
		if g.Dim() <= 2 {
			if !slices.Equal(Snake(g), SnakeReflected(g)) {
				t.Errorf("%s: snake and snake3d differ in 2D", spec)
			}
		}
	}
	// SST: y reversed on odd z layers.
	g3 := topo.Mesh(2, 3, 2)
	o, err := Generate("snake-sst", g3)
	if err != nil {
		t.Fatal(err)
	}
	c := g3.Coord(o[6], nil) // first node of layer z = 1
	if c[2] != 1 || c[1] != 2 {
		t.Errorf("snake-sst: layer 1 starts at %v, want y = 2", c)
	}
	// The plain snake keeps y increasing in every layer (and jumps between layers).
	o = Snake(g3)
	if c := g3.Coord(o[6], nil); c[1] != 0 || c[2] != 1 {
		t.Errorf("snake: layer 1 starts at %v, want y = 0", c)
	}
}

// Closed orderings are closed exactly where a Hamiltonian cycle exists.
func TestRingCurvesClose(t *testing.T) {
	size := 24
	if testing.Short() {
		size = 10
	}
	for w := 1; w <= size; w++ {
		for h := 1; h <= size; h++ {
			for wr := 0; wr < 4; wr++ {
				g, _ := topo.NewGrid([]int{w, h}, []bool{wr&1 == 1, wr&2 == 2})
				n := g.N()
				canClose := n <= 2 || (n%2 == 0 && w >= 2 && h >= 2) || (wr&1 == 1 && w >= 3) || (wr&2 == 2 && h >= 3)
				oc, closedC := RingComb(g)
				og, closedG, err := GilbertRing(g)
				if err != nil {
					t.Fatal(err)
				}
				for name, r := range map[string]struct {
					o      Order
					closed bool
				}{"snake-ring": {oc, closedC}, "gilbert-ring": {og, closedG}} {
					if err := r.o.Validate(n); err != nil {
						t.Fatalf("%s %s: %v", name, g.Spec(), err)
					}
					if r.closed != canClose {
						t.Errorf("%s %s: closed = %v, want %v", name, g.Spec(), r.closed, canClose)
					}
					if s := StepStats(g, r.o, r.closed); s.Jumps != 0 {
						t.Errorf("%s %s (closed %v): %d jumps", name, g.Spec(), r.closed, s.Jumps)
					}
				}
			}
		}
	}
	for _, spec := range []string{"mesh:4x3x3", "torus:3x3x3", "mesh:3x3x3:wrap=z", "mesh:2x3x5x3"} {
		g, _ := topo.ParseSpec(spec)
		o, closed := RingComb(g)
		if !closed || StepStats(g, o, true).Jumps != 0 {
			t.Errorf("snake-ring %s: closed %v, steps %+v", spec, closed, StepStats(g, o, true))
		}
	}
	g, _ := topo.ParseSpec("mesh:3x3x3")
	if _, closed := RingComb(g); closed {
		t.Errorf("snake-ring on odd mesh claims to be closed")
	}
}

func TestHilbert3D(t *testing.T) {
	for b := 0; b <= 5; b++ {
		n := 1 << b
		g := topo.Mesh(n, n, n)
		o, err := Hilbert3D(g)
		if err != nil {
			t.Fatal(err)
		}
		for r, v := range o {
			x, y, z := hilbert3DIndexToAxes(uint64(r), b)
			if v != x+n*y+n*n*z {
				t.Fatalf("side %d rank %d: node %d, Skilling gives (%d,%d,%d)", n, r, v, x, y, z)
			}
		}
		if err := o.Validate(g.N()); err != nil {
			t.Fatal(err)
		}
		if s := StepStats(g, o, false); s.Jumps != 0 {
			t.Fatalf("side %d: %d jumps", n, s.Jumps)
		}
		if o[len(o)-1] != n-1 {
			t.Errorf("side %d: ends at node %d, want (n-1,0,0)", n, o[len(o)-1])
		}
	}
	for _, d := range [][3]int{{8, 8, 5}, {3, 5, 7}, {1, 1, 9}, {16, 16, 16}} {
		g := topo.Mesh(d[0], d[1], d[2])
		o, err := Hilbert3DTrunc(g)
		if err != nil {
			t.Fatal(err)
		}
		side := nextPow2(max(d[0], d[1], d[2]))
		b := 0
		for 1<<b < side {
			b++
		}
		var want Order
		for r := 0; r < side*side*side; r++ {
			x, y, z := hilbert3DIndexToAxes(uint64(r), b)
			if x < d[0] && y < d[1] && z < d[2] {
				want = append(want, g.Index([]int{x, y, z}))
			}
		}
		if !slices.Equal(o, want) {
			t.Errorf("%v: hilbert3d-trunc differs from filtering the enclosing curve", d)
		}
	}
}

func TestGilbert3DContinuous(t *testing.T) {
	size := 12
	if testing.Short() {
		size = 6
	}
	check := func(x, y, z int) {
		g := topo.Mesh(x, y, z)
		o, err := Gilbert3D(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Validate(g.N()); err != nil {
			t.Fatalf("%dx%dx%d: %v", x, y, z, err)
		}
		if s := StepStats(g, o, false); s.Jumps != 0 {
			t.Fatalf("%dx%dx%d: %d jumps", x, y, z, s.Jumps)
		}
		if o[0] != 0 {
			t.Fatalf("%dx%dx%d: starts at %d", x, y, z, o[0])
		}
		// It ends at the far end of an axis of even length when there is one.
		c := g.Coord(o[len(o)-1], nil)
		nonzero := 0
		for j, v := range c {
			if v != 0 {
				nonzero++
				if v != g.Dims()[j]-1 || (g.N()%2 == 0 && g.Dims()[j]%2 == 1) {
					t.Fatalf("%dx%dx%d: ends at %v", x, y, z, c)
				}
			}
		}
		if nonzero > 1 {
			t.Fatalf("%dx%dx%d: ends at %v, not next to a corner along one axis", x, y, z, c)
		}
	}
	for x := 1; x <= size; x++ {
		for y := 1; y <= size; y++ {
			for z := 1; z <= size; z++ {
				check(x, y, z)
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 60; i++ {
		check(1+rng.IntN(48), 1+rng.IntN(48), 1+rng.IntN(48))
	}
	// Locality close to the true Hilbert curve on a cube.
	g := topo.Mesh(16, 16, 16)
	o, _ := Gilbert3D(g)
	h, _ := Hilbert3D(g)
	w, _ := ParseWeights("exp:2:8")
	fo, _ := Objective(g, o, w, false)
	fh, _ := Objective(g, h, w, false)
	if fo > 1.1*fh {
		t.Errorf("gilbert3d F = %g, more than 10%% above hilbert3d's %g", fo, fh)
	}
}

func TestGraphOrders(t *testing.T) {
	// On a path, BFS, RCM and spectral all walk the path from one end.
	path := topo.Mesh(9)
	for _, name := range []string{"bfs", "rcm", "cuthill-mckee", "spectral"} {
		o, err := Generate(name, path)
		if err != nil {
			t.Fatal(err)
		}
		if s := StepStats(path, o, false); s.Jumps != 0 {
			t.Errorf("%s on a path: %v (steps %+v)", name, o, s)
		}
	}
	// Spectral on a 6x2 ladder: monotone along the long side (the Fiedler vector is
	// cos(pi (x+1/2)/6), constant across the rungs).
	lad := topo.Mesh(6, 2)
	o, err := Spectral(lad)
	if err != nil {
		t.Fatal(err)
	}
	inc, dec := true, true
	for r := 2; r < len(o); r++ {
		inc = inc && o[r]%6 >= o[r-2]%6
		dec = dec && o[r]%6 <= o[r-2]%6
	}
	if !inc && !dec {
		t.Errorf("spectral on 6x2 is not monotone in x: %v", o)
	}
	// RCM is Cuthill-McKee reversed.
	cm, rcm := CuthillMcKee(lad), ReverseCuthillMcKee(lad)
	for i := range cm {
		if cm[i] != rcm[len(rcm)-1-i] {
			t.Fatalf("rcm %v is not cuthill-mckee %v reversed", rcm, cm)
		}
	}
	// Deterministic.
	o2, _ := Spectral(lad)
	if !slices.Equal(o, o2) {
		t.Errorf("spectral not deterministic")
	}
	// RCM has small bandwidth on a long mesh: every rank step at most 2 hops... check
	// bandwidth (max |rank difference| of a link) <= the short side + 1.
	g := topo.Mesh(20, 4)
	rk := ReverseCuthillMcKee(g).Ranks()
	bw := 0
	var nb []int
	for a := 0; a < g.N(); a++ {
		for _, b := range g.Neighbors(a, nb[:0]) {
			bw = max(bw, iabs(rk[a]-rk[b]))
		}
	}
	if bw > 5 {
		t.Errorf("RCM bandwidth on 20x4 = %d, want <= 5", bw)
	}
	// Refusals.
	if _, err := Generate("spectral", topo.Mesh(50, 50)); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("spectral on 2500 nodes: %v", err)
	}
	dis, _ := topo.NewGraphFromEdges(4, [][2]int{{0, 1}, {2, 3}})
	if _, err := Generate("spectral", dis); err == nil || !strings.Contains(err.Error(), "connected") {
		t.Errorf("spectral on a disconnected graph: %v", err)
	}
	if o, err := Generate("bfs", dis); err != nil || o.Validate(4) != nil {
		t.Errorf("bfs on a disconnected graph: %v %v", o, err)
	}
}

// Objective agrees with the O(n^2) definition on random orders of lines, rings, grids
// and graphs, including small n where ring offsets wrap and K >= n.
func TestObjectiveMatchesBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	machines := []topo.Machine{topo.Mesh(1), topo.Mesh(2), topo.Mesh(3), topo.Torus(4), topo.Torus(5),
		topo.Mesh(4, 4), topo.Torus(3, 5), topo.Mesh(3, 2, 2), mustGraph(t),
		plainMachine{topo.Torus(3, 5)}, plainMachine{topo.Mesh(2, 3, 2)}, plainMachine{mustGraph(t)}}
	for i := 0; i < 20; i++ {
		w, h := 1+rng.IntN(7), 1+rng.IntN(7)
		g, _ := topo.NewGrid([]int{w, h}, []bool{rng.IntN(2) == 0, rng.IntN(2) == 0})
		machines = append(machines, g)
	}
	for _, m := range machines {
		n := m.N()
		for trial := 0; trial < 10; trial++ {
			o := RowMajor(n)
			rng.Shuffle(n, func(i, j int) { o[i], o[j] = o[j], o[i] })
			k := 1 + rng.IntN(n+3) // K may exceed n
			w := make(Weights, k)
			for i := range w {
				w[i] = float64(rng.IntN(8)) / 4
			}
			w[0] = 1
			for _, ring := range []bool{false, true} {
				f, err := Objective(m, o, w, ring)
				if err != nil {
					t.Fatal(err)
				}
				if b := oracle.ObjectiveBrute(m, o, w, ring); f != b {
					t.Fatalf("%s order %v w %v ring %v: Objective %g, brute %g", m.Spec(), o, w, ring, f, b)
				}
			}
		}
	}
}

// plainMachine hides a machine's concrete type, so Objective takes its generic path.
type plainMachine struct{ topo.Machine }

// The grid, graph and generic paths of Objective sum the same integers, so they agree
// exactly even with weights that are not binary fractions.
func TestObjectivePathsAgree(t *testing.T) {
	w, _ := ParseWeights("exp:3:9")
	rng := rand.New(rand.NewPCG(3, 4))
	for _, spec := range []string{"mesh:7x5", "torus:6x4", "mesh:4x3x5:wrap=xz", "torus:9"} {
		g, _ := topo.ParseSpec(spec)
		gr := topo.GraphOf(g)
		o := RowMajor(g.N())
		rng.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
		for _, ring := range []bool{false, true} {
			a, _ := Objective(g, o, w, ring)
			b, _ := Objective(gr, o, w, ring)
			c, _ := Objective(plainMachine{g}, o, w, ring)
			if a != b || a != c {
				t.Errorf("%s ring %v: grid %v, graph %v, generic %v", spec, ring, a, b, c)
			}
		}
	}
	dis, _ := topo.NewGraphFromEdges(3, [][2]int{{0, 1}})
	if _, err := Objective(dis, Order{0, 1, 2}, w, false); err == nil {
		t.Errorf("disconnected graph: no error")
	}
	if _, err := Objective(topo.Mesh(3), Order{0, 1}, w, false); err == nil {
		t.Errorf("short order: no error")
	}
}

func TestStepStats(t *testing.T) {
	g := topo.Mesh(4)
	s := StepStats(g, Order{0, 2, 1, 3}, false)
	if s.Max != 2 || s.Jumps != 2 || s.Mean != 5.0/3 {
		t.Errorf("StepStats = %+v", s)
	}
	s = StepStats(g, Order{0, 1, 2, 3}, true)
	if s.Max != 3 || s.Jumps != 1 {
		t.Errorf("ring StepStats = %+v", s)
	}
}

func ExampleGenerate() {
	m, _ := topo.ParseSpec("mesh:4x4")
	o, _ := Generate("hilbert", m)
	fmt.Println(o)
	// Output: [0 1 5 4 8 12 13 9 10 14 15 11 7 6 2 3]
}

func TestHIndexTrunc(t *testing.T) {
	for _, n := range []int{2, 4, 16, 32} {
		g := topo.Mesh(n, n)
		a, err := HIndex(g)
		if err != nil {
			t.Fatal(err)
		}
		b, err := HIndexTrunc(g)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("%dx%d: truncated H-index differs from the H-index", n, n)
		}
	}
	// 16x22 (Bunde et al. 2004 Fig. 6): a permutation; the only jumps are where the
	// 32x32 curve leaves the mesh at its top rows.
	g := topo.Mesh(16, 22)
	o, err := HIndexTrunc(g)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, g.N())
	for _, v := range o {
		if seen[v] {
			t.Fatalf("node %d twice", v)
		}
		seen[v] = true
	}
	if len(o) != g.N() {
		t.Fatalf("%d of %d nodes", len(o), g.N())
	}
	for i := 1; i < len(o); i++ {
		if d := g.Dist(o[i-1], o[i]); d > 1 && o[i-1]/16 < 16 && o[i]/16 < 16 {
			t.Fatalf("jump of %d hops between %d and %d, both below the top rows", d, o[i-1], o[i])
		}
	}
}

// The strip curves are permutations of any grid; inside a strip every step is one hop,
// the step between strips at most the strip width; on mesh:32x32 with exp:2:3 the
// 2-wide strips score the hand-made value of issue 20 (F = 2574).
func TestStrips(t *testing.T) {
	for _, spec := range []string{"mesh:1", "mesh:7", "mesh:5x3", "mesh:6x4", "torus:5x4", "mesh:4x3x2", "torus:6x5x3", "mesh:3x2x2x2"} {
		g, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []int{1, 2, 3, 4} {
			o, err := Strips(g, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.Validate(g.N()); err != nil {
				t.Fatalf("%s s=%d: %v", spec, s, err)
			}
			c := make([]int, g.Dim())
			for r := 1; r < len(o); r++ {
				d := g.Dist(o[r-1], o[r])
				x0 := g.Coord(o[r-1], c)[0]
				x1 := g.Coord(o[r], c)[0]
				if x0/s == x1/s && d != 1 {
					t.Fatalf("%s s=%d: step %d inside a strip is %d hops", spec, s, r, d)
				}
				if d < 1 || d > s {
					t.Fatalf("%s s=%d: step %d is %d hops", spec, s, r, d)
				}
			}
		}
	}
	if _, err := Strips(topo.Mesh(3), 0); err == nil {
		t.Error("width 0 accepted")
	}
	o, err := Generate("strips2", topo.Mesh(32, 32))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := ParseWeights("exp:2:3")
	if f, _ := Objective(topo.Mesh(32, 32), o, w, false); f != 2574 {
		t.Errorf("strips2 on mesh:32x32, exp:2:3: F = %g, want 2574", f)
	}
	for _, s := range stripWidths {
		if !slices.Contains(Applicable(topo.Torus(4, 4, 4)), fmt.Sprintf("strips%d", s)) {
			t.Errorf("strips%d does not apply to a torus", s)
		}
	}
}

// GenerateContext answers a cancelled context at once, skips spectral when the
// deadline is nearer than its estimate, and otherwise equals Generate.
func TestGenerateContext(t *testing.T) {
	m := topo.Mesh(6, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GenerateContext(ctx, "spectral", m); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	big := topo.Mesh(32, 32)
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer dcancel()
	t0 := time.Now()
	if _, err := GenerateContext(dctx, "spectral", big); !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > time.Second {
		t.Errorf("spectral on 32x32 with 10 ms left: %v after %v", err, time.Since(t0))
	}
	// Skipped with more than its estimate left (but less than twice): the message
	// says so truthfully, in the user's words (order's notes print it).
	est := time.Duration(spectralSeconds(big) * float64(time.Second))
	hctx, hcancel := context.WithTimeout(context.Background(), est*3/2)
	defer hcancel()
	_, err := GenerateContext(hctx, "spectral", big)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("spectral on 32x32 with 1.5 times its estimate left: %v, want a skip", err)
	}
	if msg := err.Error(); strings.Contains(msg, "context deadline exceeded") || strings.Contains(msg, "more than the") ||
		!strings.Contains(msg, "curve spectral on mesh:32x32: skipped") || !strings.Contains(msg, "twice its estimate") {
		t.Errorf("spectral skipped: %q", msg)
	}
	for _, name := range []string{"spectral", "hilbert", "strips3"} {
		a, err1 := GenerateContext(context.Background(), name, m)
		b, err2 := Generate(name, m)
		if (err1 == nil) != (err2 == nil) || !slices.Equal(a, b) {
			t.Errorf("%s: GenerateContext %v %v, Generate %v %v", name, a, err1, b, err2)
		}
	}
}

// Issue 31 item 1: the truncated H-index walks only the triangles that meet the
// grid: the same order as cutting the whole enclosing square (checked against
// that), in memory O(n) (mesh:1x20000 built the 32768 x 32768 square, 8 GB;
// torus:33000 and mesh:2x40000 panicked on a square of more than 2^31 nodes).
func TestHIndexTruncIsLinear(t *testing.T) {
	for _, d := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {3, 5}, {16, 22}, {1, 100}, {100, 1}, {7, 64}, {33, 2}, {64, 65}} {
		g := topo.Mesh(d[0], d[1])
		_, _, side, _ := enclosingSquare(g)
		sq, err := HIndex(topo.Mesh(side, side))
		if err != nil {
			t.Fatal(err)
		}
		var want Order
		for _, v := range sq {
			if cx, cy := v%side, v/side; cx < d[0] && cy < d[1] {
				want = append(want, cy*d[0]+cx)
			}
		}
		got, err := HIndexTrunc(g)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%dx%d: %v, differs from the cut square's H-index", d[0], d[1], err)
		}
	}
	for _, spec := range []string{"mesh:1x20000", "mesh:2x40000", "torus:33000", "mesh:20000"} {
		m, err := topo.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		o, err := Generate("hindex-trunc", m)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if bytes := after.TotalAlloc - before.TotalAlloc; bytes > uint64(64*m.N()) {
			t.Errorf("%s: %d bytes allocated for %d nodes, want O(n)", spec, bytes, len(o))
		}
	}
}

// Issue 31 item 5: the breadth-first curves stop between their searches (one of
// several O(n) searches, not the whole walk, after an interrupt), and give the same
// order as Generate when not stopped.
func TestGraphCurvesStopBetweenSearches(t *testing.T) {
	m := topo.Mesh(300, 300)
	for _, name := range []string{"bfs", "cuthill-mckee", "rcm"} {
		want, err := Generate(name, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := GenerateContext(context.Background(), name, m)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: GenerateContext differs from Generate (%v)", name, err)
		}
		if _, err := GenerateContext(ctxtest.StopAfter(3), name, m); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: interrupted after 3 polls: %v", name, err)
		}
	}
}

// ObjectiveContext returns its context's cause once the context ends, on grids
// (polled every lagPoll pairs) and on other machines (every row of pairs), and is
// Objective otherwise. evaluate on mesh:1000x1000 with exp:2:3000 ran on after
// Ctrl-C until the command's watchdog stopped it.
func TestObjectiveContextStops(t *testing.T) {
	stop := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	for _, spec := range []string{"mesh:64x64", "fattree:4,4:4,4:8"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Generate("rowmajor", m)
		if err != nil {
			t.Fatal(err)
		}
		w := Weights(make([]float64, m.N()-1))
		for i := range w {
			w[i] = 1
		}
		want, err := Objective(m, o, w, false)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ObjectiveContext(context.Background(), m, o, w, false); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", spec, got, err, want)
		}
		if _, err := ObjectiveContext(ctx, m, o, w, false); !errors.Is(err, stop) {
			t.Errorf("%s: cancelled: %v, want %v", spec, err, stop)
		}
	}
}

// distCountingMachine counts its Dist calls; pollGapCtx records, at each look at
// its Err, the most Dist calls made since the previous look.
type distCountingMachine struct {
	topo.Machine
	calls *int
}

func (m distCountingMachine) Dist(a, b int) int {
	*m.calls++
	return m.Machine.Dist(a, b)
}

type pollGapCtx struct {
	context.Context
	calls        *int
	last, maxGap int
	polls        int
}

func (c *pollGapCtx) Err() error {
	c.maxGap = max(c.maxGap, *c.calls-c.last)
	c.last = *c.calls
	c.polls++
	return nil
}

// On machines other than grids, the objective and the step statistics look at their
// context every distPoll distances at most: a graph's Dist may be a search of the
// whole graph (milliseconds at 2 x 10^5 nodes). The objective counted its polls in
// pairs of grid coordinates and looked once per 2^20 / K rows, so an edge list of
// mesh:448x448 with K = 4 was polled once in 35 s of evaluate and Ctrl-C waited
// for the watchdog; the step statistics did not look at all.
func TestObjectiveContextPollsPerDistance(t *testing.T) {
	g := topo.Mesh(100, 100) // a *topo.Grid: wrapped, it is summed through Dist
	o, err := Generate("snake", g)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	m := distCountingMachine{Machine: g, calls: &calls}
	w := Weights{1, 0.5, 0.25, 0.125}
	ctx := &pollGapCtx{Context: context.Background(), calls: &calls}
	f, err := ObjectiveContext(ctx, m, o, w, false)
	if want, _ := Objective(g, o, w, false); err != nil || f != want {
		t.Fatalf("F %v %v, want %v", f, err, want)
	}
	ctx.maxGap = max(ctx.maxGap, calls-ctx.last)
	if ctx.maxGap > distPoll || ctx.polls < calls/distPoll {
		t.Errorf("objective: %d distances, %d polls, up to %d distances between two, want at most %d", calls, ctx.polls, ctx.maxGap, distPoll)
	}
	calls = 0
	ctx = &pollGapCtx{Context: context.Background(), calls: &calls}
	s, err := StepStatsContext(ctx, m, o, true)
	if want := StepStats(g, o, true); err != nil || s != want {
		t.Fatalf("steps %+v %v, want %+v", s, err, want)
	}
	ctx.maxGap = max(ctx.maxGap, calls-ctx.last)
	if ctx.maxGap > distPoll || ctx.polls < calls/distPoll {
		t.Errorf("steps: %d distances, %d polls, up to %d distances between two, want at most %d", calls, ctx.polls, ctx.maxGap, distPoll)
	}
	if _, err := StepStatsContext(ctxtest.StopAfter(3), m, o, false); !errors.Is(err, context.Canceled) {
		t.Errorf("steps interrupted after 3 polls: %v", err)
	}
}
