package plan

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/alloc"
	"github.com/procalloc/procalloc/internal/sortedset"
	"github.com/procalloc/procalloc/slurm"
	"github.com/procalloc/procalloc/topo"
)

// torusBrute is the torus3d decision as it was before the summed-volume tables:
// every anchor of the job's placement (slurm.Box.Anchors) checked free node by
// node, and for each free one every anchor of the next placement checked free and
// overlapping (sortedset.Overlap). It is the reference torus3D.Allocate must
// agree with. It works on positions; hole (nil: none) marks the positions
// without a node, as Slurm 26.05.3 reads them (eval_nodes_torus3d.c): an anchor
// of the job's placement that holds one is skipped, an anchor of the next
// placement is free when the nodes it has are.
type torusBrute struct {
	st      *alloc.State
	cfg     *torusConfig
	anchors map[int][][]int
	ties    int // free anchors of the least cost at the last placement
	hole    []bool
}

func (t *torusBrute) anchorsOf(i int) [][]int {
	if a, ok := t.anchors[i]; ok {
		return a
	}
	out := t.cfg.placements[i].Anchors(t.cfg.dims)
	t.anchors[i] = out
	return out
}

// allFree reports whether every position of a holds a free node (holesFree: or
// no node).
func (t *torusBrute) allFree(a []int, holesFree bool) bool {
	for _, v := range a {
		if t.hole != nil && t.hole[v] {
			if !holesFree {
				return false
			}
			continue
		}
		if !t.st.IsFree(v) {
			return false
		}
	}
	return true
}

func (t *torusBrute) Allocate(k int) ([]int, error) {
	if err := t.st.CheckRequest(k); err != nil {
		return nil, err
	}
	cur, next := t.cfg.placementsFor(k)
	if cur < 0 {
		return nil, errRefused
	}
	var best []int
	bestCost := -1
	for _, a := range t.anchorsOf(cur) {
		if !t.allFree(a, false) {
			continue
		}
		cost := 0
		if next >= 0 {
			for _, na := range t.anchorsOf(next) {
				if t.allFree(na, true) && sortedset.Overlap(na, a) {
					cost++
				}
			}
		}
		if best == nil || cost < bestCost {
			best, bestCost, t.ties = a, cost, 0
		}
		if cost == bestCost {
			t.ties++
		}
	}
	if best == nil {
		return nil, alloc.ErrFragmented
	}
	out := slices.Clone(best)
	if err := t.st.Take(out); err != nil {
		return nil, err
	}
	return out, nil
}

// randomPlacements draws a torus3d placement list for a torus of dims: a few
// boxes with sides up to two more than their axis (boxes that wrap, and anchors
// that cover an axis more than once), in random order, sizes repeated at times
// (the first of a size is the job's), so that some sizes have no placement and
// the largest none after it.
func randomPlacements(rng *rand.Rand, dims [3]int) []slurm.Box {
	side := func(d int) int {
		if rng.IntN(4) == 0 {
			return d + rng.IntN(3) // the axis, or more: wraps onto itself
		}
		return 1 + rng.IntN(d)
	}
	out := make([]slurm.Box, 1+rng.IntN(7))
	for i := range out {
		out[i] = slurm.Box{X: side(dims[0]), Y: side(dims[1]), Z: side(dims[2])}
	}
	if rng.IntN(3) > 0 {
		slices.SortStableFunc(out, func(a, b slurm.Box) int { return a.Size() - b.Size() })
	}
	return out
}

// torus3D.Allocate makes the brute force's decision (torusBrute: the same nodes,
// or the same refusal or pending) on thousands of random free states, on several
// tori (axes of 1, odd, even; placements spaced by sides that do not divide their
// axis), with random placement lists (random, the default ones) and a job stream
// of sizes with and without placements; nodes are freed (Release) and held
// (Occupy) in between, as partitions hold them. The decisions must include many
// where the cost (overlapped free anchors of the next placement) chose another
// anchor than the first free one, and ties among several.
func TestTorus3DAgainstBruteForce(t *testing.T) {
	rounds := 500
	if testing.Short() {
		rounds = 150
	}
	rng := rand.New(rand.NewPCG(26, 5))
	tori := [][3]int{{4, 2, 2}, {5, 3, 7}, {6, 6, 1}, {3, 5, 4}, {8, 1, 9}, {1, 1, 12}, {7, 4, 3}, {4, 4, 4}, {9, 6, 5}}
	var compared, chosenByCost, tied, refused, pending int
	var counted [2]int
	for _, dims := range tori {
		n := dims[0] * dims[1] * dims[2]
		m, err := topo.ParseSpec(fmt.Sprintf("torus:%dx%dx%d", dims[0], dims[1], dims[2]))
		if err != nil {
			t.Fatal(err)
		}
		for r := range rounds {
			placements := slurm.DefaultPlacements(dims)
			if r%3 != 0 {
				placements = randomPlacements(rng, dims)
			}
			cfg := &torusConfig{dims: dims, placements: placements}
			tor, err := newTorus3D(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ref := &torusBrute{st: alloc.NewState(n), cfg: cfg, anchors: map[int][][]int{}}
			var held [][]int
			for step := range 60 {
				what := fmt.Sprintf("torus %v, placements %v, round %d, step %d", dims, placements, r, step)
				switch op := rng.IntN(10); {
				case op < 6:
					k := 1 + rng.IntN(n)
					if rng.IntN(3) > 0 {
						k = placements[rng.IntN(len(placements))].Size()
					}
					if k > n {
						k = n
					}
					first := slices.Clone(ref.firstFree(k))
					want, werr := ref.Allocate(k)
					got, gerr := tor.Allocate(k)
					if !slices.Equal(got, want) || !sameFailure(gerr, werr) {
						t.Fatalf("%s: %d nodes: %v (%v), brute force %v (%v)", what, k, got, gerr, want, werr)
					}
					compared++
					switch {
					case errors.Is(werr, errRefused):
						refused++
					case errors.Is(werr, alloc.ErrFragmented):
						pending++
					case werr == nil:
						held = append(held, want)
						if !slices.Equal(want, first) {
							chosenByCost++
						}
						if ref.ties > 1 {
							tied++
						}
					}
				case op < 8 && len(held) > 0:
					i := rng.IntN(len(held))
					if err := tor.Release(held[i]); err != nil {
						t.Fatal(err)
					}
					if err := ref.st.Release(held[i]); err != nil {
						t.Fatal(err)
					}
					held = slices.Delete(held, i, i+1)
				default:
					// Hold random free nodes, as a partition's outside is held.
					var some []int
					for v := range n {
						if ref.st.IsFree(v) && rng.IntN(4) == 0 {
							some = append(some, v)
						}
					}
					if err := tor.Occupy(some); err != nil {
						t.Fatal(err)
					}
					if err := ref.st.Take(some); err != nil {
						t.Fatal(err)
					}
					held = append(held, some)
				}
				for v := range n {
					if tor.IsFree(v) != ref.st.IsFree(v) {
						t.Fatalf("%s: node %d free %v, brute force %v", what, v, tor.IsFree(v), ref.st.IsFree(v))
					}
				}
			}
			counted[0] += tor.counted[0]
			counted[1] += tor.counted[1]
		}
	}
	t.Logf("%d decisions compared: %d placed elsewhere than the first free anchor, %d among tied anchors, %d refused, %d pending; overlaps counted in the windows %d times, by the table %d", compared, chosenByCost, tied, refused, pending, counted[0], counted[1])
	if compared < 10000 || chosenByCost < 500 || tied < 500 || refused < 100 || pending < 500 || counted[0] < 500 || counted[1] < 500 {
		t.Errorf("too few decisions of each kind: %d compared, %d chosen by cost, %d tied, %d refused, %d pending, %v counted by windows and table", compared, chosenByCost, tied, refused, pending, counted)
	}
}

// A torus whose regions leave positions without a node (nodeAt -1): torus3D
// makes the brute force's decisions with the holes (an anchor of the job's
// placement holding one skipped, the next placement's anchors free when their
// nodes are), on random tori with 5-40 % of the positions holes and the nodes
// at the others in random order, random placement lists, starts, frees and
// holds; the holes must decide (a first free anchor by the nodes alone that
// holds a hole) in many decisions.
func TestTorus3DHolesAgainstBruteForce(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 60
	}
	rng := rand.New(rand.NewPCG(26, 6))
	tori := [][3]int{{4, 2, 3}, {5, 3, 7}, {6, 6, 1}, {3, 5, 4}, {4, 4, 4}, {7, 4, 3}}
	var compared, placed, holeDecided, pending int
	for _, dims := range tori {
		n := dims[0] * dims[1] * dims[2]
		for r := range rounds {
			hole := make([]bool, n)
			frac := 0.05 + 0.35*rng.Float64()
			var real []int // positions with a node
			for pos := range hole {
				if hole[pos] = rng.Float64() < frac; !hole[pos] {
					real = append(real, pos)
				}
			}
			if len(real) == 0 || len(real) == n {
				continue
			}
			nodeAt := slices.Repeat([]int{-1}, n)
			posOf := make([]int, len(real))
			for i, v := range rng.Perm(len(real)) {
				nodeAt[real[i]], posOf[v] = v, real[i]
			}
			m, err := topo.ParseSpec(fmt.Sprintf("mesh:%dx1", len(real)))
			if err != nil {
				t.Fatal(err)
			}
			placements := slurm.DefaultPlacements(dims)
			if r%3 != 0 {
				placements = randomPlacements(rng, dims)
			}
			cfg := &torusConfig{dims: dims, placements: placements, nodeAt: nodeAt}
			tor, err := newTorus3D(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ref := &torusBrute{st: alloc.NewState(n), cfg: &torusConfig{dims: dims, placements: placements}, anchors: map[int][][]int{}, hole: hole}
			// The brute force's holes are never free nodes.
			var holes []int
			for pos, h := range hole {
				if h {
					holes = append(holes, pos)
				}
			}
			if err := ref.st.Take(holes); err != nil {
				t.Fatal(err)
			}
			nodes := func(ps []int) []int {
				out := make([]int, len(ps))
				for i, p := range ps {
					out[i] = nodeAt[p]
				}
				return out
			}
			var held [][]int // positions
			for step := range 60 {
				what := fmt.Sprintf("torus %v, holes %v, placements %v, round %d, step %d", dims, holes, placements, r, step)
				switch op := rng.IntN(10); {
				case op < 6:
					k := 1 + rng.IntN(len(real))
					if rng.IntN(3) > 0 {
						k = min(placements[rng.IntN(len(placements))].Size(), len(real))
					}
					if k > ref.st.NumFree() {
						continue
					}
					want, werr := ref.Allocate(k)
					got, gerr := tor.Allocate(k)
					if !slices.Equal(got, nodes(want)) || !sameFailure(gerr, werr) {
						t.Fatalf("%s: %d nodes: %v (%v), brute force %v at positions %v (%v)", what, k, got, gerr, nodes(want), want, werr)
					}
					compared++
					// Would the holes' rule have changed it? The first anchor
					// whose nodes are free, holes taken as free.
					ref.hole = nil
					first := ref.firstFreeExcept(k, holes)
					ref.hole = hole
					if first != nil && slices.ContainsFunc(first, func(p int) bool { return hole[p] }) {
						holeDecided++
					}
					switch {
					case errors.Is(werr, alloc.ErrFragmented):
						pending++
					case werr == nil:
						placed++
						held = append(held, want)
					}
				case op < 8 && len(held) > 0:
					i := rng.IntN(len(held))
					if err := tor.Release(nodes(held[i])); err != nil {
						t.Fatal(err)
					}
					if err := ref.st.Release(held[i]); err != nil {
						t.Fatal(err)
					}
					held = slices.Delete(held, i, i+1)
				default:
					var some []int
					for _, p := range real {
						if ref.st.IsFree(p) && rng.IntN(4) == 0 {
							some = append(some, p)
						}
					}
					if err := tor.Occupy(nodes(some)); err != nil {
						t.Fatal(err)
					}
					if err := ref.st.Take(some); err != nil {
						t.Fatal(err)
					}
					held = append(held, some)
				}
				for _, p := range real {
					if tor.IsFree(nodeAt[p]) != ref.st.IsFree(p) {
						t.Fatalf("%s: node %d free %v, brute force %v", what, nodeAt[p], tor.IsFree(nodeAt[p]), ref.st.IsFree(p))
					}
				}
			}
		}
	}
	t.Logf("%d decisions compared: %d placed, %d pending; %d where the first anchor free but for its holes held one", compared, placed, pending, holeDecided)
	if compared < 3000 || placed < 1000 || pending < 300 || holeDecided < 300 {
		t.Errorf("too few decisions of each kind: %d compared, %d placed, %d pending, %d decided by holes", compared, placed, pending, holeDecided)
	}
}

// firstFreeExcept is firstFree with the positions of except taken as free.
func (t *torusBrute) firstFreeExcept(k int, except []int) []int {
	if err := t.st.Release(except); err != nil {
		return nil
	}
	defer t.st.Take(except)
	return t.firstFree(k)
}

// sameFailure reports whether two Allocate errors are the same outcome: none,
// refused, pending, or another error.
func sameFailure(a, b error) bool {
	kind := func(err error) int {
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errRefused):
			return 1
		case errors.Is(err, alloc.ErrFragmented):
			return 2
		}
		return 3
	}
	return kind(a) == kind(b)
}

// firstFree returns the first free anchor of the placement of a k-node job in
// Slurm's order, nil if none: the decision without the cost.
func (t *torusBrute) firstFree(k int) []int {
	for i, b := range t.cfg.placements {
		if b.Size() > k {
			return nil
		}
		if b.Size() == k {
			for _, a := range t.anchorsOf(i) {
				if t.allFree(a, false) {
					return a
				}
			}
			return nil
		}
	}
	return nil
}

// BenchmarkTorus3DDecision times one torus3d decision (Allocate, then Release of
// its nodes) on torus:16x16x40 with the default placements, at about 60 % of
// the nodes busy, for 16 job sizes of plan's synthetic workload's kind (one node,
// 2 to n/8 nodes, half rounded to powers of two): tables is torus3D, brute the brute force that was
// the emulator before (torusBrute).
func BenchmarkTorus3DDecision(b *testing.B) { benchTorus3D(b, [3]int{16, 16, 40}, true) }

// BenchmarkTorus3DDecision200000 is BenchmarkTorus3DDecision on torus:50x50x80
// (200,000 hosts), torus3D alone (the brute force would keep gigabytes of
// anchors).
func BenchmarkTorus3DDecision200000(b *testing.B) { benchTorus3D(b, [3]int{50, 50, 80}, false) }

func benchTorus3D(b *testing.B, dims [3]int, brute bool) {
	n := dims[0] * dims[1] * dims[2]
	m, err := topo.ParseSpec(fmt.Sprintf("torus:%dx%dx%d", dims[0], dims[1], dims[2]))
	if err != nil {
		b.Fatal(err)
	}
	cfg := &torusConfig{dims: dims, placements: slurm.DefaultPlacements(dims)}
	rng := rand.New(rand.NewPCG(40, 16))
	size := func() int {
		if rng.IntN(5) == 0 {
			return 1
		}
		k := int(2 * math.Pow(float64(n/16), rng.Float64()))
		if rng.IntN(2) == 0 {
			k = 1 << bits.Len(uint(k-1))
		}
		return k
	}
	fill, err := newTorus3D(m, cfg)
	if err != nil {
		b.Fatal(err)
	}
	for fill.NumFree() > 4*n/10 {
		fill.Allocate(size()) // refused and pending sizes are drawn again
	}
	var busy []int
	for v := range n {
		if !fill.IsFree(v) {
			busy = append(busy, v)
		}
	}
	sizes := make([]int, 16)
	for i := range sizes {
		sizes[i] = size()
	}
	for _, c := range []struct {
		name string
		new  func() interface{ Allocate(int) ([]int, error) }
	}{
		{"tables", func() interface{ Allocate(int) ([]int, error) } { tor, _ := newTorus3D(m, cfg); return tor }},
		{"brute", func() interface{ Allocate(int) ([]int, error) } {
			return &torusBrute{st: alloc.NewState(n), cfg: cfg, anchors: map[int][][]int{}}
		}},
	} {
		if c.name == "brute" && !brute {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			a := c.new()
			var st interface{ Take([]int) error }
			var release func([]int) error
			switch a := a.(type) {
			case *torus3D:
				st, release = a.st, a.Release
				a.stale = true
			case *torusBrute:
				st, release = a.st, a.st.Release
				for _, k := range sizes { // the anchors' cache, outside the timing, as a replay's
					for i, p := range cfg.placements {
						if p.Size() >= k {
							a.anchorsOf(i)
						}
						if p.Size() > k {
							break
						}
					}
				}
			}
			if err := st.Take(busy); err != nil {
				b.Fatal(err)
			}
			placed := 0
			b.ResetTimer()
			for i := range b.N {
				nodes, err := a.Allocate(sizes[i%len(sizes)])
				if err == nil {
					placed++
					if err := release(nodes); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(placed)/float64(b.N), "placed/op")
		})
	}
}
