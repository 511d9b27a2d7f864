package order

// Bounds that scale, part 2: meshes and tori of any dimension (topo.Grid), through
// windows of L > K consecutive ranks whose cheapest placement is found by a small
// branch and bound in the infinite lattice (see docs/ilp.md, "Bounds that scale"), for
// the objective F of V. J. Leung et al., "Processor Allocation on Cplant: Achieving
// General Processor Locality Using One-Dimensional Allocation Strategies" (IEEE
// Cluster 2002, doi:10.1109/CLUSTR.2002.1137758), §2.2.
//
// Window bound. Fix L > K and charge a pair at lag t <= K the coefficient c(t) = w(t) /
// (L - t). Take the n + L - 1 windows of L consecutive positions starting at s =
// -(L-1), ..., n-1, cut to the positions 0..n-1 that exist: a pair (r, r+t) lies in
// exactly the L - t windows with s in [r + t - L + 1, r], so F is the sum over
// windows of Φ(window) = Σ_{pairs inside at lag t} c(t) d. The n - L + 1 full windows
// each cost at least m_L and the 2 (L - 1) cut windows (lengths 1..L-1 at either end)
// at least m_l, where m_l is the least Φ over l distinct nodes in sequence:
//
//	F >= (n - L + 1) m_L + 2 Σ_{l < L} m_l.
//
// On a ring (n >= 2L) the n cyclic windows each hold every pair at lag t exactly L - t
// times and F_ring >= n m_L. This is the idea of WindowBound (windows over the whole
// node set, for small machines), made scalable: a torus is vertex-transitive, so the
// first node of a window may be put at the origin, and a mesh's distance is the L1
// distance of Z^d, so mesh windows relax to sequences of distinct points of Z^d (the
// offsets from the first node stay within ±(size - 1) per axis); a mixed grid takes
// each axis as what it is. m_l is then a branch and bound over sequences of lattice
// points starting at the origin: each next point is taken within the step radius the
// incumbent allows (c(1) (step - 1) <= incumbent - cost so far - bound on the rest),
// the rest bounded by m of the remaining length (computed first) plus one hop per
// pair across, with reflections of every axis and permutations of equal axes broken
// at the first points. The costs are integers: c(t) scaled by 2^S lcm(L-1..L-K) and
// rounded down (rounding down keeps the bound valid; Exact only when nothing was
// rounded, as with dyadic weights exp:2:K).
//
// Compared with the eigenvalue bound of G. Finke, R. E. Burkard and F. Rendl,
// "Quadratic assignment problems" (Annals of Discrete Mathematics 31, 1987,
// doi:10.1016/S0304-0208(08)73235-3) and the projection bound of S. W. Hadley, F. Rendl
// and H. Wolkowicz, "A new lower bound via projection for the quadratic assignment
// problem" (Mathematics of Operations Research 17, 1992, doi:10.1287/moor.17.3.727):
// docs/ilp.md gives the measurement; both are far below the window bound here.

import (
	"context"
	"fmt"
	"math"
	"math/big"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// gridWindowMaxK caps the lags the grid window bound looks at: weights beyond are
// dropped (w >= 0, so F with fewer lags is a lower bound).
const gridWindowMaxK = 8

// gridWindowBudget caps the search nodes of all window lengths together (about a
// second); lengths are tried from K+1 up, and the best that finished gives the bound
// (a work count, not a time, so the bound is deterministic).
const gridWindowBudget = 1_000_000

// gridWindowExtra is how many window lengths beyond K+1 are tried at most.
const gridWindowExtra = 16

// latticeAxis is one active axis of a grid window search.
type latticeAxis struct {
	size int
	wrap bool
}

type windowSearch struct {
	ctx  context.Context
	axes []latticeAxis
	dim  int
	k    int     // lags considered (< window length)
	c    []int64 // c[t] scaled integer coefficient, t = 1..k
	// offsets[δ] lists the step vectors of L1 norm δ (per-axis ranges respected).
	offsets [][]int32
	// equal[a] is the previous axis equal to a (same size and wrap), -1 if none.
	equal []int
	m     []int64 // m[l] for the lengths done so far
	diam  int     // the largest distance in the domain: no step is longer
	nodes int64
	abort bool
}

// gridWindowBound returns the window bound of g; ok is false when the grid is too
// small for any window, or no window length finished within the budget. When even
// the shortest window does not finish with k lags (many lags, many dimensions), the
// lags beyond k/2 are dropped and it tries again (w >= 0: fewer lags bound F from
// below), down to one lag.
func gridWindowBound(ctx context.Context, g *topo.Grid, w curves.Weights, ring bool) (LowerBound, bool, error) {
	n := g.N()
	var axes []latticeAxis
	for j, s := range g.Dims() {
		if s > 1 {
			axes = append(axes, latticeAxis{s, g.Wrap()[j]})
		}
	}
	if len(axes) == 0 {
		return LowerBound{}, false, nil
	}
	for k := min(len(w), gridWindowMaxK); k >= 1; k /= 2 {
		for k > 1 && w[k-1] == 0 {
			k--
		}
		b, ok, err := gridWindowBoundK(ctx, axes, n, w, k, ring)
		if err != nil || ok {
			return b, ok, err
		}
	}
	return LowerBound{}, false, nil
}

// gridWindowBoundK is the best window bound with lags 1..k, windows of K+1 nodes and
// longer while the budget lasts.
func gridWindowBoundK(ctx context.Context, axes []latticeAxis, n int, w curves.Weights, k int, ring bool) (LowerBound, bool, error) {
	if n < k+2 {
		return LowerBound{}, false, nil
	}
	var best LowerBound
	found := false
	var nodes int64 // search nodes so far, against gridWindowBudget
	for L := k + 1; L <= k+1+gridWindowExtra; L++ {
		if (!ring && n < L) || (ring && n < 2*L) {
			break
		}
		b, ok, err := gridWindowBoundL(ctx, axes, n, w, k, L, ring, &nodes)
		if err != nil {
			return LowerBound{}, false, err
		}
		if !ok {
			break
		}
		if !found || b.Value > best.Value {
			best, found = b, true
		}
	}
	return best, found, nil
}

// gridWindowBoundL is the bound with windows of length L.
func gridWindowBoundL(ctx context.Context, axes []latticeAxis, n int, w curves.Weights, k, L int, ring bool, nodes *int64) (LowerBound, bool, error) {
	// Integer coefficients: c(t) = w(t) / (L - t) scaled by 2^S lcm.
	lcm := int64(1)
	for t := 1; t <= k; t++ {
		d := int64(L - t)
		lcm = lcm / gcd64(lcm, d) * d
		if lcm > 1<<20 {
			return LowerBound{}, false, nil
		}
	}
	// Every distance in the (relaxed) domain is at most its diameter, so a window's
	// cost is below cmax L k diam: the weights get the bits that leave that below 2^62.
	diam := 0
	for _, ax := range axes {
		if ax.wrap {
			diam += ax.size / 2
		} else {
			diam += 2 * (ax.size - 1)
		}
	}
	bitsFree := 62 - int(math.Ceil(math.Log2(float64(lcm)*float64(L)*float64(k)*float64(diam)+1)))
	bitsFree = min(bitsFree, 40)
	if bitsFree < 12 {
		return LowerBound{}, false, nil
	}
	wmax := 0.0
	for t := 1; t <= k; t++ {
		wmax = max(wmax, w[t-1])
	}
	_, e := math.Frexp(wmax) // wmax in [2^(e-1), 2^e)
	shift := bitsFree - e    // wmax * 2^shift < 2^bitsFree
	exact := true
	ws := &windowSearch{ctx: ctx, axes: axes, dim: len(axes), k: k, c: make([]int64, k+1), nodes: *nodes, diam: diam}
	defer func() { *nodes = ws.nodes }()
	for t := 1; t <= k; t++ {
		v := math.Ldexp(w[t-1], shift)
		f := math.Floor(v) // rounding down keeps the bound valid
		if f != v || math.Ldexp(f, -shift) != w[t-1] {
			exact = false
		}
		ws.c[t] = int64(f) * (lcm / int64(L-t))
	}
	if ws.c[1] <= 0 {
		return LowerBound{}, false, nil
	}
	ws.equal = make([]int, ws.dim)
	for a := range ws.axes {
		ws.equal[a] = -1
		for b := a - 1; b >= 0; b-- {
			if ws.axes[b] == ws.axes[a] {
				ws.equal[a] = b
				break
			}
		}
	}
	ws.m = make([]int64, L+1)
	for l := 2; l <= L; l++ {
		v, ok := ws.minWindow(l)
		if ws.ctx.Err() != nil {
			return LowerBound{}, false, context.Cause(ws.ctx)
		}
		if !ok {
			return LowerBound{}, false, nil
		}
		ws.m[l] = v
	}
	// total = ((n - L + 1) m_L + 2 Σ m_l) / (2^shift lcm), or n m_L / (...) on the ring.
	num := new(big.Int)
	if ring {
		num.Mul(big.NewInt(int64(n)), big.NewInt(ws.m[L]))
	} else {
		num.Mul(big.NewInt(int64(n-L+1)), big.NewInt(ws.m[L]))
		for l := 1; l < L; l++ {
			num.Add(num, new(big.Int).Mul(big.NewInt(2), big.NewInt(ws.m[l])))
		}
	}
	den := big.NewInt(lcm)
	if shift >= 0 {
		den.Lsh(den, uint(shift))
	} else {
		num.Lsh(num, uint(-shift))
	}
	v, fexact := ratFloorFloat(new(big.Rat).SetFrac(num, den))
	src := fmt.Sprintf("grid-window-%d", L)
	if ring {
		src += "-ring"
	}
	return LowerBound{Value: v, Source: src, Exact: exact && fexact}, true, nil
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// offsetsOfNorm returns the step vectors of L1 norm delta (cached), each axis's step
// within its range: (-size/2, size/2] on a wrapped axis (each point of the cycle
// once, the step's norm its distance), ±(size - 1) on a mesh axis.
func (ws *windowSearch) offsetsOfNorm(delta int) []int32 {
	for len(ws.offsets) <= delta {
		dn := len(ws.offsets)
		var out []int32
		v := make([]int32, ws.dim)
		var rec func(a, left int)
		rec = func(a, left int) {
			if a == ws.dim {
				if left == 0 {
					out = append(out, v...)
				}
				return
			}
			ax := ws.axes[a]
			lo, hi := -(ax.size - 1), ax.size-1
			if ax.wrap {
				lo, hi = -(ax.size-1)/2, ax.size/2
			}
			for x := max(lo, -left); x <= min(hi, left); x++ {
				v[a] = int32(x)
				rec(a+1, left-abs(x))
			}
		}
		rec(0, dn)
		ws.offsets = append(ws.offsets, out)
	}
	return ws.offsets[delta]
}

// minWindow returns m_l: the least Σ c(t) d over sequences of l distinct lattice
// points starting at the origin; ok is false when the budget ran out or there is
// no such sequence.
func (ws *windowSearch) minWindow(l int) (int64, bool) {
	dim := ws.dim
	pts := make([]int32, l*dim) // pts[j*dim+a]; point 0 is the origin
	// cross[j]: the least cost of pairs (i < j <= r < l) at lag <= k, one hop each.
	cross := make([]int64, l+1)
	for j := 0; j <= l; j++ {
		for i := 0; i < j; i++ {
			for r := j; r < l; r++ {
				if t := r - i; t <= ws.k {
					cross[j] += ws.c[t]
				}
			}
		}
	}
	rest := func(j int) int64 { return ws.m[l-j] + cross[j] } // bound on what placing j.. costs
	best := int64(math.MaxInt64)
	var fixed uint64 // axes whose reflection is broken
	var rec func(j int, partial int64)
	dist := func(i, j int) int64 {
		var s int64
		for a, ax := range ws.axes {
			d := pts[i*dim+a] - pts[j*dim+a]
			if d < 0 {
				d = -d
			}
			if ax.wrap && int32(ax.size)-d < d {
				d = int32(ax.size) - d
			}
			s += int64(d)
		}
		return s
	}
	rec = func(j int, partial int64) {
		if ws.abort {
			return
		}
		if j == l {
			best = min(best, partial)
			return
		}
		// Step radius: c(1) (δ - 1) < best - partial - rest(j), and no step is longer
		// than the domain's diameter. (Before the first incumbent the steps are tried
		// shortest first, so the first descent ends with short steps.)
		base := partial + rest(j)
		maxDelta := ws.diam
		if best != math.MaxInt64 {
			if base >= best {
				return
			}
			maxDelta = min(maxDelta, 1+int((best-base-1)/ws.c[1]))
		}
		prev := pts[(j-1)*dim : j*dim]
		cur := pts[j*dim : (j+1)*dim]
		for delta := 1; delta <= maxDelta; delta++ {
			if best != math.MaxInt64 && base+ws.c[1]*int64(delta-1) >= best {
				break
			}
			offs := ws.offsetsOfNorm(delta)
		next:
			for o := 0; o < len(offs); o += dim {
				ws.nodes++
				if ws.nodes&4095 == 0 && ws.ctx.Err() != nil || ws.nodes > gridWindowBudget {
					ws.abort = true
					return
				}
				newFixed := fixed
				for a, ax := range ws.axes {
					x := prev[a] + offs[o+a]
					if ax.wrap {
						s := int32(ax.size)
						x = ((x % s) + s) % s
						// signed value in (-s/2, s/2]
						sx := x
						if 2*sx > s {
							sx -= s
						}
						if newFixed>>a&1 == 0 && sx != 0 && 2*sx != s {
							if sx < 0 {
								continue next
							}
							newFixed |= 1 << a
						}
					} else {
						if x < -int32(ax.size-1) || x > int32(ax.size-1) {
							continue next
						}
						if newFixed>>a&1 == 0 && x != 0 {
							if x < 0 {
								continue next
							}
							newFixed |= 1 << a
						}
					}
					cur[a] = x
				}
				if j == 1 { // permutations of equal axes: |p_1| descending among them
					for a := range ws.axes {
						if b := ws.equal[a]; b >= 0 && absSigned(cur[b], ws.axes[b]) < absSigned(cur[a], ws.axes[a]) {
							continue next
						}
					}
				}
				for i := 0; i < j; i++ {
					same := true
					for a := 0; a < dim; a++ {
						if pts[i*dim+a] != cur[a] {
							same = false
							break
						}
					}
					if same {
						continue next
					}
				}
				cost := partial
				for t := 1; t <= ws.k && t <= j; t++ {
					cost += ws.c[t] * dist(j-t, j)
				}
				if cost+rest(j+1) >= best {
					continue
				}
				saved := fixed
				fixed = newFixed
				rec(j+1, cost)
				fixed = saved
				if ws.abort {
					return
				}
			}
		}
	}
	rec(1, 0)
	if ws.abort || best == math.MaxInt64 {
		return 0, false
	}
	return best, true
}

func absSigned(x int32, ax latticeAxis) int32 {
	if ax.wrap && 2*x > int32(ax.size) {
		x -= int32(ax.size)
	}
	if x < 0 {
		x = -x
	}
	return x
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
