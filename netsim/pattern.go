package netsim

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/procalloc/procalloc/internal/textin"
)

// Pattern is a communication pattern: a job's messages as a cycle of phases over its
// processors 0..p-1, numbered in the order the allocator returned them. A phase ends
// when all its messages have arrived (a barrier); within a phase each processor
// sends its messages in the order Phase emits them.
type Pattern interface {
	// Name is the pattern's name as given to ParsePattern.
	Name() string
	// Phases is the number of phases of one cycle for p >= 2 processors.
	Phases(p int) int
	// Phase emits the messages of phase k (0 <= k < Phases(p)) as (source,
	// destination) pairs, source != destination, step by step (every source's first
	// message, then every source's second, ...), until emit returns false. rng is
	// the job's own generator, for patterns with random choices.
	Phase(p, k int, rng *Rand, emit func(src, dst int) bool)
}

// patterns backs Patterns; only this package changes it.
var patterns = []string{"all-to-all", "n-body", "random", "halo2d", "tree"}

// Patterns returns the pattern names ParsePattern accepts.
// Each call returns a new slice: changing it changes nothing in the package.
func Patterns() []string { return slices.Clone(patterns) }

// otherSpellings are the other names ParsePattern accepts, each with its
// pattern's own name: matched by a misspelling's "did you mean" (nbdy is
// nbody's, said n-body) as the names are.
var otherSpellings = map[string]string{"alltoall": "all-to-all", "nbody": "n-body", "halo": "halo2d"}

// ParsePattern returns the pattern of that name.
func ParsePattern(name string) (Pattern, error) {
	if own, ok := otherSpellings[name]; ok {
		name = own
	}
	switch name {
	case "all-to-all":
		return allToAll{}, nil
	case "n-body":
		return nBody{}, nil
	case "random":
		return randomPairs{}, nil
	case "halo2d":
		return halo2D{}, nil
	case "tree":
		return binaryTree{}, nil
	}
	names := slices.Concat(patterns, slices.Sorted(maps.Keys(otherSpellings)))
	ownName := func(n string) string {
		if own, ok := otherSpellings[n]; ok {
			return own
		}
		return n
	}
	return nil, fmt.Errorf("unknown communication pattern %q%s; valid: %s", name, textin.DidYouMean(name, names, ownName), strings.Join(patterns, ", "))
}

// allToAll: one phase in which every processor sends to every other; in step s
// (1..p-1) processor i sends to i+s mod p, so that no processor receives twice in a
// step (Bunde et al. 2004 §3.2).
type allToAll struct{}

func (allToAll) Name() string   { return "all-to-all" }
func (allToAll) Phases(int) int { return 1 }
func (allToAll) Phase(p, _ int, _ *Rand, emit func(int, int) bool) {
	for s := 1; s < p; s++ {
		for i := range p {
			if !emit(i, (i+s)%p) {
				return
			}
		}
	}
}

// nBody: the processors form a ring; floor(p/2) ring subphases in which each sends to
// its successor, then one chordal subphase in which each sends to the processor
// floor(p/2) places on (Bunde et al. 2004 §3.2, Fig. 5).
type nBody struct{}

func (nBody) Name() string     { return "n-body" }
func (nBody) Phases(p int) int { return p/2 + 1 }
func (nBody) Phase(p, k int, _ *Rand, emit func(int, int) bool) {
	step := 1
	if k == p/2 {
		step = p / 2
	}
	for i := range p {
		if !emit(i, (i+step)%p) {
			return
		}
	}
}

// randomPairs: each phase every processor sends one message to another processor
// chosen uniformly at random (the job's seeded generator). Bunde et al. 2004 draw a
// random pair per message; drawing the destination per source keeps every
// processor's share of the quota equal, which the one-message-at-a-time sources of
// the engine need to make the pattern's duration depend on the network, not on
// the luck of the draw.
type randomPairs struct{}

func (randomPairs) Name() string   { return "random" }
func (randomPairs) Phases(int) int { return 1 }
func (randomPairs) Phase(p, _ int, rng *Rand, emit func(int, int) bool) {
	for i := range p {
		d := int(rng.Uint64n(uint64(p - 1)))
		if d >= i {
			d++
		}
		if !emit(i, d) {
			return
		}
	}
}

// halo2D: the processors form a virtual px x py grid, px the largest divisor of p
// not above sqrt(p), processor i at (i mod px, i / px); one phase in which each
// sends to its neighbours in +x, -x, +y, -y order (no wraparound), the exchange
// of a 2D stencil code.
type halo2D struct{}

func (halo2D) Name() string   { return "halo2d" }
func (halo2D) Phases(int) int { return 1 }
func (halo2D) Phase(p, _ int, _ *Rand, emit func(int, int) bool) {
	px := 1
	for d := 1; d*d <= p; d++ {
		if p%d == 0 {
			px = d
		}
	}
	py := p / px
	for dir := range 4 {
		for i := range p {
			x, y := i%px, i/px
			switch dir {
			case 0:
				x++
			case 1:
				x--
			case 2:
				y++
			case 3:
				y--
			}
			if x < 0 || x >= px || y < 0 || y >= py {
				continue
			}
			if !emit(i, y*px+x) {
				return
			}
		}
	}
}

// binaryTree: a binomial-tree broadcast from processor 0 followed by the reduction
// back to it: in broadcast round l processors i < 2^l send to i + 2^l; the reduction
// runs the rounds backwards with the messages reversed. Each round is a phase.
type binaryTree struct{}

func (binaryTree) Name() string { return "tree" }
func (binaryTree) Phases(p int) int {
	return 2 * int(math.Ceil(math.Log2(float64(p))))
}
func (t binaryTree) Phase(p, k int, _ *Rand, emit func(int, int) bool) {
	rounds := t.Phases(p) / 2
	l, reduce := k, false
	if k >= rounds {
		l, reduce = 2*rounds-1-k, true
	}
	for i := range 1 << l {
		j := i + 1<<l
		if j >= p {
			break
		}
		src, dst := i, j
		if reduce {
			src, dst = j, i
		}
		if !emit(src, dst) {
			return
		}
	}
}

// Rand is a small deterministic generator (SplitMix64, Steele et al. 2014) so that a
// job's random choices depend only on the seed and the job, not on the order in
// which jobs run.
type Rand struct{ s uint64 }

// NewRand returns a generator seeded by seed and stream (for instance a job id).
func NewRand(seed, stream uint64) *Rand {
	r := &Rand{s: seed ^ (stream * 0x9e3779b97f4a7c15)}
	r.Uint64()
	return r
}

// Uint64 returns the next pseudo-random number.
func (r *Rand) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint64n returns a number in 0..n-1 (n > 0), without modulo bias.
func (r *Rand) Uint64n(n uint64) uint64 {
	lim := -n % n // 2^64 mod n
	for {
		v := r.Uint64()
		if v >= lim {
			return v % n
		}
	}
}

// Float64 returns a number in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }
