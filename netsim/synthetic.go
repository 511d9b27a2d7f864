package netsim

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
	"github.com/procalloc/procalloc/topo"
)

// SyntheticKind is one of BookSim2's synthetic traffic patterns (Dally and Towles
// 2004 §3.2; BookSim2's traffic.cpp, commit 28f43299): where a packet created at a
// source goes.
type SyntheticKind uint8

const (
	// Uniform: a uniformly random node, the source itself included.
	Uniform SyntheticKind = iota
	// Transpose: with N = 2^(2b) nodes, swap the high and low b bits of the
	// source (on a k x k grid with k a power of two, (x, y) -> (y, x)).
	Transpose
	// BitComp: the complement of every bit of the source (N a power of two).
	BitComp
	// BitRev: the source's bits in reverse order (N a power of two).
	BitRev
	// Shuffle: the source's bits rotated left by one (N a power of two).
	Shuffle
	// Tornado: every coordinate c of a k-node dimension moved to
	// (c + ceil(k/2) - 1) mod k (grids).
	Tornado
	// Neighbor: every coordinate c of a k-node dimension moved to (c + 1) mod k
	// (grids).
	Neighbor
	// RandPerm: a random permutation of the nodes, fixed by a seed.
	RandPerm
	// Hotspot: one of a list of nodes, each with probability proportional to its
	// weight.
	Hotspot
)

// syntheticKinds backs SyntheticKinds; only this package changes it.
var syntheticKinds = []string{"uniform", "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "randperm", "hotspot"}

// SyntheticKinds returns the pattern names ParseSynthetic accepts, in SyntheticKind order.
// Each call returns a new slice: changing it changes nothing in the package.
func SyntheticKinds() []string { return slices.Clone(syntheticKinds) }

// String returns the pattern's name in SyntheticKinds, e.g. "transpose".
func (k SyntheticKind) String() string {
	if int(k) < len(syntheticKinds) {
		return syntheticKinds[k]
	}
	return fmt.Sprintf("SyntheticKind(%d)", k)
}

// Synthetic is a synthetic traffic pattern with its parameters. The zero value is
// uniform traffic.
type Synthetic struct {
	Kind SyntheticKind // the pattern; the zero value is Uniform
	// Hotspots are Hotspot's destinations and Weights their weights (nil: 1 each;
	// BookSim2's hotspot({nodes},{rates})).
	Hotspots, Weights []int
	// PermSeed fixes RandPerm's permutation (BookSim2's perm_seed); HasPermSeed
	// false takes the experiment's seed.
	PermSeed    uint64
	HasPermSeed bool // PermSeed was given ("randperm:SEED")
}

// ParseSynthetic reads a pattern: a name of SyntheticKinds, "randperm:SEED",
// "hotspot:N1,N2,..." or "hotspot:N1,N2,...:W1,W2,..." (node numbers and their
// weights; BookSim2's hotspot({N1,N2},{W1,W2})).
func ParseSynthetic(s string) (Synthetic, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	var p Synthetic
	kind := -1
	for i, k := range syntheticKinds {
		if k == name {
			kind = i
		}
	}
	if kind < 0 {
		return p, fmt.Errorf("unknown traffic pattern %q%s; valid: %s (hotspot:NODES[:WEIGHTS], randperm[:SEED])", s, textin.DidYouMean(name, syntheticKinds), strings.Join(syntheticKinds, ", "))
	}
	p.Kind = SyntheticKind(kind)
	switch {
	case p.Kind == RandPerm && hasArg:
		seed, err := strconv.ParseUint(arg, 10, 64)
		if err != nil {
			return p, fmt.Errorf("traffic %q: the permutation's seed must be a non-negative integer", s)
		}
		p.PermSeed, p.HasPermSeed = seed, true
	case p.Kind == Hotspot:
		if !hasArg || arg == "" {
			return p, fmt.Errorf("traffic %q: hotspot needs its nodes, e.g. hotspot:0 or hotspot:0,63:3,1 (nodes, then weights)", s)
		}
		nodes, weights, hasW := strings.Cut(arg, ":")
		var err error
		if p.Hotspots, err = intList(nodes, 0); err != nil {
			return p, fmt.Errorf("traffic %q: hotspot nodes: %w", s, err)
		}
		if hasW {
			if p.Weights, err = intList(weights, 1); err != nil {
				return p, fmt.Errorf("traffic %q: hotspot weights: %w", s, err)
			}
			if len(p.Weights) != len(p.Hotspots) {
				return p, fmt.Errorf("traffic %q: %d hotspot nodes but %d weights", s, len(p.Hotspots), len(p.Weights))
			}
		}
	case hasArg:
		return p, fmt.Errorf("traffic %q: %s takes no parameter", s, name)
	}
	return p, nil
}

// intList reads comma-separated integers of at least lo (and below 2^31).
func intList(s string, lo int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo || v >= 1<<31 {
			return nil, fmt.Errorf("%q is not an integer of at least %d", f, lo)
		}
		out = append(out, v)
	}
	return out, nil
}

// String is the pattern as ParseSynthetic reads it.
func (p Synthetic) String() string {
	join := func(v []int) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return strings.Join(s, ",")
	}
	switch {
	case p.Kind == Hotspot && p.Weights != nil:
		return "hotspot:" + join(p.Hotspots) + ":" + join(p.Weights)
	case p.Kind == Hotspot:
		return "hotspot:" + join(p.Hotspots)
	case p.Kind == RandPerm && p.HasPermSeed:
		return "randperm:" + strconv.FormatUint(p.PermSeed, 10)
	}
	return p.Kind.String()
}

// Destinations is a pattern bound to n nodes: Dest gives a source's destination.
type Destinations struct {
	kind SyntheticKind
	n    int
	// perm is the destination of every source for the permutation patterns.
	perm []int32
	// hot and cum: Hotspot's nodes and the running sums of their weights.
	hot, cum []int
}

// Bind checks that the pattern is defined on the n nodes of machine m (a grid's
// nodes, numbered with the first dimension fastest as BookSim2's k-ary n-cube does,
// or a graph's hosts) and returns its destination map. seed is the experiment's
// seed, used by RandPerm without a seed of its own.
func (p Synthetic) Bind(m topo.Machine, n int, seed uint64) (*Destinations, error) {
	d := &Destinations{kind: p.Kind, n: n}
	if n < 1 {
		return nil, fmt.Errorf("%s traffic on %s: no nodes", p, m.Spec())
	}
	grid, _ := m.(*topo.Grid)
	pow2 := n&(n-1) == 0
	b := bits.Len(uint(n)) - 1 // log2 n when pow2
	switch p.Kind {
	case Uniform:
		return d, nil
	case Transpose, BitComp, BitRev, Shuffle:
		if !pow2 {
			return nil, fmt.Errorf("%s traffic on %s: a bit-permutation pattern needs a power-of-two number of nodes, not %d", p, m.Spec(), n)
		}
		if p.Kind == Transpose && b%2 != 0 {
			return nil, fmt.Errorf("transpose traffic on %s: needs an even power of two nodes (4, 16, 64, ...), not %d", m.Spec(), n)
		}
	case Tornado, Neighbor:
		if grid == nil {
			return nil, fmt.Errorf("%s traffic on %s: the pattern moves every coordinate, so it needs a mesh or torus", p, m.Spec())
		}
	case RandPerm:
	case Hotspot:
		total := 0
		for i, h := range p.Hotspots {
			if h >= n {
				return nil, fmt.Errorf("%s traffic on %s: hotspot node %d is not one of the nodes 0..%d", p, m.Spec(), h, n-1)
			}
			w := 1
			if p.Weights != nil {
				w = p.Weights[i]
			}
			total += w
			d.hot = append(d.hot, h)
			d.cum = append(d.cum, total)
		}
		if len(d.hot) == 0 {
			return nil, fmt.Errorf("hotspot traffic on %s: no hotspot nodes", m.Spec())
		}
		return d, nil
	default:
		return nil, fmt.Errorf("traffic pattern %d: unknown", p.Kind)
	}
	d.perm = make([]int32, n)
	switch p.Kind {
	case RandPerm:
		s := seed
		if p.HasPermSeed {
			s = p.PermSeed
		}
		rng := NewRand(s, 11)
		for i := range d.perm {
			d.perm[i] = int32(i)
		}
		for i := n - 1; i > 0; i-- { // Fisher-Yates
			j := int(rng.Uint64n(uint64(i + 1)))
			d.perm[i], d.perm[j] = d.perm[j], d.perm[i]
		}
		return d, nil
	case Tornado, Neighbor:
		dims := grid.Dims()
		for s := range n {
			v, stride, dst := s, 1, 0
			for _, k := range dims {
				c := v % k
				v /= k
				shift := 1
				if p.Kind == Tornado {
					shift = (k+1)/2 - 1
				}
				dst += stride * ((c + shift) % k)
				stride *= k
			}
			d.perm[s] = int32(dst)
		}
		return d, nil
	}
	mask := n - 1
	for s := range n {
		var dst int
		switch p.Kind {
		case Transpose:
			h := b / 2
			lo := 1<<h - 1
			dst = (s>>h)&lo | (s<<h)&(lo<<h)
		case BitComp:
			dst = ^s & mask
		case BitRev:
			dst = int(bits.Reverse64(uint64(s)) >> (64 - b))
			if b == 0 {
				dst = 0
			}
		case Shuffle:
			dst = (s<<1)&mask | (s>>(b-1))&1
			if b == 0 {
				dst = 0
			}
		}
		d.perm[s] = int32(dst)
	}
	return d, nil
}

// Dest is the destination of a packet from src; rng draws uniform and hotspot
// destinations.
func (d *Destinations) Dest(src int, rng *Rand) int {
	switch {
	case d.perm != nil:
		return int(d.perm[src])
	case d.hot != nil:
		if len(d.hot) == 1 {
			return d.hot[0]
		}
		x := int(rng.Uint64n(uint64(d.cum[len(d.cum)-1])))
		for i, c := range d.cum {
			if x < c {
				return d.hot[i]
			}
		}
	}
	return int(rng.Uint64n(uint64(d.n)))
}

// meanHops is the mean of hops(src, dst) over the pattern's packets, every source
// equally likely (a random pattern: its destinations by their probability). ok is
// false for uniform traffic, whose mean the caller knows in closed form.
func (d *Destinations) meanHops(hops func(src, dst int) int) (mean float64, ok bool) {
	switch {
	case d == nil:
		return 0, false
	case d.perm != nil:
		var s int64
		for src, dst := range d.perm {
			s += int64(hops(src, int(dst)))
		}
		return float64(s) / float64(d.n), true
	case d.hot != nil:
		total := float64(d.cum[len(d.cum)-1])
		prev := 0
		for i, h := range d.hot {
			w := float64(d.cum[i]-prev) / total
			prev = d.cum[i]
			var s int64
			for src := range d.n {
				s += int64(hops(src, h))
			}
			mean += w * float64(s) / float64(d.n)
		}
		return mean, true
	}
	return 0, false
}
