package netsim

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/procalloc/procalloc/topo"
)

// TestSyntheticDestinationsMatchBookSim checks every permutation pattern's
// destination map against BookSim2's definitions (traffic.cpp, commit 28f43299),
// written here in another way: on coordinates, or on the node number's binary
// string.
func TestSyntheticDestinationsMatchBookSim(t *testing.T) {
	bitsOf := func(s, b int) string { // b binary digits, most significant first
		return fmt.Sprintf("%0*b", b, s)
	}
	fromBits := func(s string) int {
		v, err := strconv.ParseInt(s, 2, 64)
		if err != nil {
			t.Fatal(err)
		}
		return int(v)
	}
	reverse := func(s string) string {
		r := []byte(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	}
	for _, spec := range []string{"mesh:8x8", "torus:4x4", "mesh:4x4x4", "mesh:2x2", "mesh:8x4", "torus:5x3", "mesh:16x16"} {
		m, err := topo.ParseMachine(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := m.(*topo.Grid)
		n, dims := g.N(), g.Dims()
		b := 0
		for 1<<b < n {
			b++
		}
		pow2 := 1<<b == n
		coords := func(s int) []int {
			c := make([]int, len(dims))
			for j, k := range dims {
				c[j] = s % k
				s /= k
			}
			return c
		}
		node := func(c []int) int {
			v, stride := 0, 1
			for j, k := range dims {
				v += c[j] * stride
				stride *= k
			}
			return v
		}
		want := map[SyntheticKind]func(s int) int{
			BitComp: func(s int) int { return n - 1 - s },
			BitRev:  func(s int) int { return fromBits(reverse(bitsOf(s, b))) },
			Shuffle: func(s int) int { x := bitsOf(s, b); return fromBits(x[1:] + x[:1]) },
			Transpose: func(s int) int { // the upper half of the bits swapped with the lower half
				x := bitsOf(s, b)
				return fromBits(x[b/2:] + x[:b/2])
			},
			Tornado: func(s int) int {
				c := coords(s)
				for j, k := range dims {
					c[j] = (c[j] + (k+1)/2 - 1) % k // half way round, less one (rounded up)
				}
				return node(c)
			},
			Neighbor: func(s int) int {
				c := coords(s)
				for j, k := range dims {
					c[j] = (c[j] + 1) % k
				}
				return node(c)
			},
		}
		for kind, f := range want {
			d, err := Synthetic{Kind: kind}.Bind(m, n, 1)
			bitPattern := kind == BitComp || kind == BitRev || kind == Shuffle || kind == Transpose
			switch {
			case bitPattern && !pow2:
				if err == nil || !strings.Contains(err.Error(), "power-of-two") {
					t.Errorf("%s on %s (%d nodes): error %v, want a power-of-two refusal", kind, spec, n, err)
				}
				continue
			case kind == Transpose && b%2 == 1:
				if err == nil || !strings.Contains(err.Error(), "even power of two") {
					t.Errorf("transpose on %s (%d nodes): error %v, want an even-power refusal", spec, n, err)
				}
				continue
			case err != nil:
				t.Fatalf("%s on %s: %v", kind, spec, err)
			}
			seen := make([]bool, n)
			for s := range n {
				got := d.Dest(s, nil)
				if got != f(s) {
					t.Fatalf("%s on %s: %d -> %d, BookSim2's formula gives %d", kind, spec, s, got, f(s))
				}
				if seen[got] {
					t.Fatalf("%s on %s: %d is the destination of two sources", kind, spec, got)
				}
				seen[got] = true
			}
		}
		if spec == "mesh:8x8" { // transpose is (x, y) -> (y, x) on a square of side 2^h
			d, _ := Synthetic{Kind: Transpose}.Bind(m, n, 1)
			for s := range n {
				c := coords(s)
				if d.Dest(s, nil) != node([]int{c[1], c[0]}) {
					t.Fatalf("transpose on 8x8: %v -> node %d", c, d.Dest(s, nil))
				}
			}
		}
	}
}

// TestSyntheticRandomPatterns: randperm is a permutation fixed by its seed;
// uniform reaches every node, the source included, evenly; hotspot reaches only its
// nodes, in proportion to their weights.
func TestSyntheticRandomPatterns(t *testing.T) {
	m := topo.Mesh(6, 5)
	n := m.N()
	perm := func(p Synthetic, seed uint64) []int {
		d, err := p.Bind(m, n, seed)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]int, n)
		seen := make([]bool, n)
		for s := range n {
			out[s] = d.Dest(s, nil)
			if seen[out[s]] {
				t.Fatalf("%s: not a permutation: %v", p, out)
			}
			seen[out[s]] = true
		}
		return out
	}
	a, b := perm(Synthetic{Kind: RandPerm}, 1), perm(Synthetic{Kind: RandPerm}, 1)
	c := perm(Synthetic{Kind: RandPerm}, 2)
	e := perm(Synthetic{Kind: RandPerm, PermSeed: 2, HasPermSeed: true}, 1)
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) || fmt.Sprint(c) != fmt.Sprint(e) {
		t.Errorf("randperm: seed 1 %v and %v, seed 2 %v, perm seed 2 %v", a, b, c, e)
	}
	const draws = 300000
	rng := NewRand(5, 0)
	u, _ := Synthetic{}.Bind(m, n, 1)
	count := make([]int, n)
	for range draws {
		count[u.Dest(0, rng)]++
	}
	for v, x := range count {
		if f := float64(x) / draws; math.Abs(f-1/float64(n)) > 0.15/float64(n) {
			t.Errorf("uniform: node %d drawn %.4f of the time, want %.4f", v, f, 1/float64(n))
		}
	}
	h, err := ParseSynthetic("hotspot:3,17,29:3,1,4")
	if err != nil {
		t.Fatal(err)
	}
	hd, err := h.Bind(m, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	clear(count)
	for range draws {
		count[hd.Dest(7, rng)]++
	}
	for v, x := range count {
		want := map[int]float64{3: 3.0 / 8, 17: 1.0 / 8, 29: 4.0 / 8}[v]
		if f := float64(x) / draws; math.Abs(f-want) > 0.01 {
			t.Errorf("hotspot %s: node %d drawn %.4f of the time, want %.4f", h, v, f, want)
		}
	}
	if h.String() != "hotspot:3,17,29:3,1,4" {
		t.Errorf("hotspot String %q", h.String())
	}
	for _, bad := range []string{"hotspot", "hotspot:", "hotspot:1,x", "hotspot:1:0", "randperm:-1", "transpose:2", "diagonal"} {
		if _, err := ParseSynthetic(bad); err == nil {
			t.Errorf("ParseSynthetic(%q) accepted", bad)
		}
	}
	ft, _ := topo.ParseMachine("fattree:4,2:4")
	if _, err := (Synthetic{Kind: Tornado}).Bind(ft, ft.N(), 1); err == nil || !strings.Contains(err.Error(), "mesh or torus") {
		t.Errorf("tornado on a fat tree: %v", err)
	}
	if _, err := (Synthetic{Kind: BitComp}).Bind(ft, ft.N(), 1); err != nil {
		t.Errorf("bitcomp on a fat tree of %d hosts: %v", ft.N(), err)
	}
}

// TestMessageEngineRunsPatterns: the message engine takes the same patterns; its
// zero-load latency is r x (the pattern's mean hops) + S, and a light load of
// tornado traffic is carried in full.
func TestMessageEngineRunsPatterns(t *testing.T) {
	m := topo.Torus(8, 8)
	r := NewGridRouter(m)
	p := DefaultParams()
	res, err := UniformTraffic(context.Background(), r, p, TrafficConfig{Rate: 0.05, Warmup: 2000, Measure: 10000, Seed: 3, Pattern: Synthetic{Kind: Tornado}})
	if err != nil {
		t.Fatal(err)
	}
	// Tornado on an 8-ring moves every coordinate 3 ahead: 3 hops per dimension.
	if want := 6*float64(p.RouterDelay) + float64(p.MessageFlits); math.Abs(res.ZeroLoadLatency-want) > 1e-9 {
		t.Errorf("tornado zero-load latency %.3f, want %.3f", res.ZeroLoadLatency, want)
	}
	if res.Undelivered != 0 || res.Saturated() || math.Abs(res.Accepted/0.05-1) > 0.1 {
		t.Errorf("tornado at 0.05: %+v", res)
	}
	if _, err := UniformTraffic(context.Background(), NewGridRouter(topo.Mesh(6, 4)), p, TrafficConfig{Rate: 0.05, Pattern: Synthetic{Kind: BitRev}}); err == nil {
		t.Error("bitrev on 24 nodes accepted by the message engine")
	}
}
