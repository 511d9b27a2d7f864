package netsim

import (
	"math/rand/v2"
	"testing"
)

// TestAllToAllTorusLoadMatchesTrace: on tori (2D and 3D, even and odd sides, so
// that half-way ties occur and do not, rings of 2 and 3) and grids wrapped in some
// dimensions only, the counted all-to-all loads are those of tracing every route
// with GridRouter: Messages, Hops and MaxShared identical, on random node sets, on
// boxes of consecutive nodes and up to the whole machine.
func TestAllToAllTorusLoadMatchesTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	a2a, _ := ParsePattern("all-to-all")
	specs := []string{"torus:8x8", "torus:7x5", "torus:6x9", "torus:2x3", "torus:4x4x4",
		"torus:5x3x4", "torus:3x6x5", "mesh:6x5x4:wrap=y", "mesh:5x6:wrap=x", "torus:1x6", "torus:10x1x3"}
	rounds := 200
	if testing.Short() {
		rounds = 60
	}
	for _, spec := range specs {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		fast := NewRouteMeter(r, a2a, 1)
		slow := NewRouteMeter(r, a2a, 1)
		slow.grid, slow.torus = nil, nil
		if fast.torus == nil || fast.grid == nil {
			t.Fatalf("%s: the torus count is not used", spec)
		}
		n := g.N()
		for i := range rounds {
			var nodes []int
			switch i % 4 {
			case 0:
				nodes = rng.Perm(n)[:1+rng.IntN(n)] // up to the whole machine
			case 1:
				nodes = rng.Perm(n)[:1+rng.IntN(min(n, 12))]
			case 2:
				start, k := rng.IntN(n), 1+rng.IntN(n)
				for v := range k {
					nodes = append(nodes, (start+v)%n)
				}
			default:
				// a box of the grid at a random corner, wrapping round
				dims := g.Dims()
				c := make([]int, len(dims))
				side := make([]int, len(dims))
				for j, d := range dims {
					c[j], side[j] = rng.IntN(d), 1+rng.IntN(d)
				}
				var rec func(j, v, stride int)
				rec = func(j, v, stride int) {
					if j == len(dims) {
						nodes = append(nodes, v)
						return
					}
					for o := range side[j] {
						rec(j+1, v+((c[j]+o)%dims[j])*stride, stride*dims[j])
					}
				}
				rec(0, 0, 1)
				rng.Shuffle(len(nodes), func(a, b int) { nodes[a], nodes[b] = nodes[b], nodes[a] })
			}
			f, s := mustMeasure(t, fast, 0, nodes), mustMeasure(t, slow, 0, nodes)
			if f != s {
				t.Fatalf("%s nodes %v: counted %+v, traced %+v", spec, nodes, f, s)
			}
		}
	}
}

// TestRingWindow: dimension-order routing's rule round a ring is a window, read off
// ringDirection: half way round on an even ring goes the positive way.
func TestRingWindow(t *testing.T) {
	for _, tc := range []struct {
		k          int
		wrap       bool
		hPos, hNeg int
	}{{8, true, 4, 3}, {7, true, 3, 3}, {2, true, 1, 0}, {3, true, 1, 1}, {1, true, 0, 0}, {6, false, 5, 5}} {
		hp, hn, ok := ringWindow(tc.k, tc.wrap)
		if !ok || hp != tc.hPos || hn != tc.hNeg {
			t.Errorf("ring of %d (wrap %v): window +%d -%d (%v), want +%d -%d", tc.k, tc.wrap, hp, hn, ok, tc.hPos, tc.hNeg)
		}
	}
}

// TestRingPeakIsLargestCount: the largest route count of a source group and a
// destination group round a ring, found at the sources' positions only (ringPeak),
// is the largest of the counts at every position (ringCounts), in both directions,
// on rings of even and odd size, wrapped or not, with sparse and dense groups.
func TestRingPeakIsLargestCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 9))
	m := &RouteMeter{}
	for range 3000 {
		k := 1 + rng.IntN(17)
		wrap := rng.IntN(4) != 0
		hp, hn, ok := ringWindow(k, wrap)
		if !ok {
			t.Fatalf("ring of %d: no window", k)
		}
		src, dst := make([]int32, k), make([]int32, k)
		density := 1 + rng.IntN(k)
		for c := range k {
			if rng.IntN(k) < density {
				src[c] = int32(rng.IntN(4))
			}
			if rng.IntN(k) < density {
				dst[c] = int32(rng.IntN(4))
			}
		}
		var pos, cnt []int32
		for c, x := range src {
			if x != 0 {
				pos, cnt = append(pos, int32(c)), append(cnt, x)
			}
		}
		for dir, h := range []int{hp, hn} {
			if h == 0 {
				continue
			}
			// The pruning bound: the most nodes within h positions.
			for _, circular := range []bool{false, wrap} {
				var want int32
				for y := range k + h - 1 {
					if !circular && y >= k {
						break
					}
					var sum int32
					for x := max(0, y-h+1); x <= y; x++ {
						if x < k || circular {
							sum += src[x%k]
						}
					}
					want = max(want, sum)
				}
				rows := &groupRows{off: []int32{0, int32(len(pos))}, pos: pos, cnt: cnt}
				if got := rows.windowMax(nil, k, h, circular)[0]; got != want {
					t.Fatalf("ring of %d, h %d, circular %v, counts %v: window max %d, want %d", k, h, circular, src, got, want)
				}
			}
			mirror := dir == 1
			row := src
			if mirror {
				row = make([]int32, k)
				for c, x := range src {
					row[k-1-c] = x
				}
			}
			var dp, dc []int32
			for c, x := range dst {
				if x != 0 {
					dp, dc = append(dp, int32(c)), append(dc, x)
				}
			}
			pd := make([]int64, 2*k+1)
			destPrefix(pd, dp, dc, k, wrap, mirror)
			_, want := m.ringCounts(row, pd, k, h)
			if got := ringPeak(pos, cnt, pd, k, h, mirror); got != want {
				t.Fatalf("ring of %d (wrap %v, h %d, mirrored %v), sources %v, destinations %v: peak %d, largest count %d",
					k, wrap, h, mirror, src, dst, got, want)
			}
		}
	}
}

// TestAllToAllTorusLoad3DMatchesTrace: on larger 3D tori, even and odd sides, the
// counted loads of random and clustered allocations are the traced ones (the middle
// dimension pairs many source groups with many destination groups there).
func TestAllToAllTorusLoad3DMatchesTrace(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 10))
	a2a, _ := ParsePattern("all-to-all")
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	for _, spec := range []string{"torus:8x8x8", "torus:7x9x5", "torus:6x7x10", "mesh:8x9x7:wrap=y"} {
		g := mustSpec(t, spec)
		r := NewGridRouter(g)
		fast := NewRouteMeter(r, a2a, 1)
		slow := NewRouteMeter(r, a2a, 1)
		slow.grid, slow.torus = nil, nil
		n := g.N()
		for i := range rounds {
			k := 2 + rng.IntN(160)
			var nodes []int
			if i%2 == 0 {
				nodes = rng.Perm(n)[:k]
			} else {
				// k nodes near a random one: a few planes of the middle dimension
				dims := g.Dims()
				c0 := []int{rng.IntN(dims[0]), rng.IntN(dims[1]), rng.IntN(dims[2])}
				seen := map[int]bool{}
				for len(nodes) < k {
					v, stride := 0, 1
					for j, d := range dims {
						v += ((c0[j] + rng.IntN(4) + d) % d) * stride
						stride *= d
					}
					if !seen[v] {
						seen[v] = true
						nodes = append(nodes, v)
					}
					if len(seen) >= 64 {
						break
					}
				}
			}
			f, s := mustMeasure(t, fast, 0, nodes), mustMeasure(t, slow, 0, nodes)
			if f != s {
				t.Fatalf("%s nodes %v: counted %+v, traced %+v", spec, nodes, f, s)
			}
		}
	}
}
