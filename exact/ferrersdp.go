package exact

import (
	"context"
	"math"
	"slices"
)

// ferrersDP is an exact dynamic program for min over Ferrers diagrams λ ⊢ k of
// lineCost(λ) + lineCost(λ') (the 2D optimum, marginal.go), run along the diagram's
// boundary: the lattice path from (W, 0) to (0, H) with N steps (at x: the next row
// has length x) and W steps (at height y: column x has height y). Rows come in
// descending order, columns in ascending order, so one pass carries both one-axis
// programs:
//
//   - columns, outside-in (marginal.go, fact 1): each column but the last (column 1,
//     the tallest) goes to one side and adds P(k-P), P the side's total after it; state
//     S (columns pushed) and L (the smaller side's total).
//   - rows, inside-out, the same arrangement read from the centre: row 1 (the longest)
//     is the centre; with a and b the totals still to come left and right of it (a+b =
//     k minus the rows placed, a chosen freely at the start), the row placed next to a
//     side's inner block has, on its outer side of the gap between them, exactly that
//     side's remaining total r, so it adds r(k-r) and r drops by its length. Every
//     arrangement of the rows is one choice of a and of sides, with the same cost as
//     the outside-in sum (both are Σ over gaps of outer mass × inner mass).
//
// At (x, y) the rows placed total T = x·y + S (rows 1..y hold x cells each left of x
// and every cell of the columns right of x, all of height <= y), so a state is (x, y,
// S, L, a) with L <= S/2 and a <= b by mirror symmetry; it holds the least cost of the
// path so far. The answer is the least cost reaching (0, y) with S + y = k, a = 0.
// Every diagram is one path and every path one diagram, so this is exact.
//
// Pruning (the DP only looks for a diagram cheaper than the incumbent U): a state is
// not expanded when its cost plus a lower bound on what remains is >= U. The two axes'
// costs to come are added separately, each minimised with the other axis ignored:
//   - rows: those still to come are at most x long and nonincreasing; split by side
//     they are two nonincreasing sequences (any two merge into one), and a side with
//     r left adds r(k-r), then r' = r - (its row), ... down to 0: phi[x][r] is the
//     least such sum, so phi[x][a] + phi[x][b] bounds the rows.
//   - columns: columns x..1 are at least y tall and nondecreasing towards column 1,
//     totalling k - S; xrest (buildColumnRest) is the exact least cost of the column
//     program over all such sequences.
//
// Costs are int32 (the caller only runs it for k <= ferrersDPMaxK, where every sum
// stays far below 2^31).
type ferrersDP struct {
	ctx   context.Context
	k     int
	U     int32                 // look only for costs < U
	phi   [][]int32             // rows' lower bound per side, phi[x][r]
	xrest [][][]int32           // columns' cost to come, buildColumnRest
	keep  map[[2]int]*keptLayer // expanded states per (x, y), for the backtrack
	store *dpStore
}

const (
	inf32         = int32(math.MaxInt32)
	ferrersDPMaxK = 220 // memory: the layers of one column x hold ~k^4/(96x) states
)

// dpLayer holds the states (S, L, a) of one boundary point (x, y), R = k - x·y. A
// state's entry is U - cost (0: no path below U yet), so a cleared array is empty.
type dpLayer struct {
	R   int
	off []int32
	c   []int32
	hit []bool // hit[blockOf(S, L)]: some entry of the (S, L) block was written
}

// blockOf numbers the (S, L) pairs, L <= S/2, in order.
func blockOf(S, L int) int { return (S/2)*(S/2+1) + (S%2)*(S/2+1) + L }

func (l *dpLayer) at(S, L, a int) int { return int(l.off[S]) + L*((l.R-S)/2+1) + a }

// dpStore keeps released layers by R for reuse, across the runs of Clusters too (a
// layer's shape depends on R alone), so memory is not paid for again at every k.
type dpStore struct {
	offs [][]int32    // layerOffsets by R
	pool [][]*dpLayer // released layers by R
}

// layer returns an empty layer of R, reusing a released one.
func (d *ferrersDP) layer(R int) *dpLayer {
	st := d.store
	for len(st.offs) <= R {
		st.offs, st.pool = append(st.offs, nil), append(st.pool, nil)
	}
	if st.offs[R] == nil {
		st.offs[R] = layerOffsets(R)
	}
	if n := len(st.pool[R]); n > 0 {
		l := st.pool[R][n-1]
		st.pool[R] = st.pool[R][:n-1]
		clear(l.c)
		clear(l.hit)
		return l
	}
	off := st.offs[R]
	return &dpLayer{R: R, off: off, c: make([]int32, off[R+1]), hit: make([]bool, blockOf(R+1, 0))}
}

func (d *ferrersDP) release(l *dpLayer) { d.store.pool[l.R] = append(d.store.pool[l.R], l) }

// keptLayer lists the expanded states of one (x, y): indices ascending, costs.
type keptLayer struct {
	idx, c []int32
}

func newFerrersDP(ctx context.Context, k int, U int64, store *dpStore) *ferrersDP {
	d := &ferrersDP{ctx: ctx, k: k, U: int32(min(U, int64(inf32)))}
	if store == nil {
		store = &dpStore{}
	}
	d.store = store
	// phi[x][r]: the least Σ r_j(k - r_j) over r = r_0 > r_1 > ... > 0 with
	// nonincreasing steps of at most x (the rows of one side, see the type comment).
	d.phi = make([][]int32, k+1)
	d.phi[0] = make([]int32, k+1)
	for r := 1; r <= k; r++ {
		d.phi[0][r] = inf32
	}
	for x := 1; x <= k; x++ {
		p := make([]int32, k+1)
		for r := 1; r <= k; r++ {
			v := int64(d.phi[x-1][r])
			if x <= r {
				v = min(v, d.g(r)+int64(p[r-x]))
			}
			p[r] = int32(min(v, int64(inf32)))
		}
		d.phi[x] = p
	}
	d.buildColumnRest()
	return d
}

func (d *ferrersDP) g(t int) int64 { return int64(t) * int64(d.k-t) }

// buildColumnRest fills xrest[x][y][blockOf(S, L)]: the least cost of the column
// program still to come at a state (x, y, S, L), over every sequence of the columns
// x..1 with heights >= y, nondecreasing towards column 1, totalling k - S (the rows
// ignored, so it is a lower bound of the cost to come). Column 1 adds nothing and
// must be at least y tall; column x >= 2 is either exactly y tall (pushed to either
// side, then the state (x-1, y, S+y, ·)) or taller (the state (x, y+1, S, L)).
func (d *ferrersDP) buildColumnRest() {
	k := d.k
	d.xrest = make([][][]int32, k+1)
	for x := 1; x <= k; x++ {
		ymax := k / x
		d.xrest[x] = make([][]int32, ymax+2)
		for y := ymax; y >= 1; y-- {
			R := k - x*y
			t := make([]int32, blockOf(R+1, 0))
			for S := 0; S <= R; S++ {
				for L := 0; L <= S/2; L++ {
					v := inf32
					if x == 1 {
						v = 0 // column 1 = k - S >= y cells, as S <= R
					} else {
						if y+1 <= ymax && S <= k-x*(y+1) {
							v = d.xrest[x][y+1][blockOf(S, L)]
						}
						next := d.xrest[x-1][y]
						S2, l2 := S+y, L+y
						if n := next[blockOf(S2, min(l2, S2-l2))]; n != inf32 {
							v = int32(min(int64(v), d.g(l2)+int64(n)))
						}
						if n := next[blockOf(S2, L)]; n != inf32 {
							v = int32(min(int64(v), d.g(S-L+y)+int64(n)))
						}
					}
					t[blockOf(S, L)] = v
				}
			}
			d.xrest[x][y] = t
		}
	}
}

// lowerCols is the columns' part of h of a state (see the type comment); the rows'
// part is phi[x][a] + phi[x][b].
func (d *ferrersDP) lowerCols(x, y, S, L int) int64 {
	return int64(d.xrest[x][y][blockOf(S, L)])
}

// run returns the least cost below U (inf32 when there is none) and whether the
// context stopped it.
func (d *ferrersDP) run() (int32, bool) {
	k := d.k
	U := int64(d.U)
	best := inf32
	next := make([]*dpLayer, k+2)
	for x := k; x >= 1; x-- {
		if d.ctx.Err() != nil {
			return best, true
		}
		cur := next
		next = make([]*dpLayer, k/max(x-1, 1)+2)
		ymax := k / x
		if cur[1] == nil {
			cur[1] = d.layer(k - x)
		}
		for a := 0; a <= (k-x)/2; a++ { // start: row 1 has length W = x, cost 0
			cur[1].c[cur[1].at(0, 0, a)] = d.U
		}
		cur[1].hit[0] = true
		phi := d.phi[x]
		for y := 1; y <= ymax; y++ {
			lay := cur[y]
			if lay == nil {
				continue
			}
			cur[y] = nil
			var kept *keptLayer
			if d.keep != nil {
				kept = &keptLayer{}
				d.keep[[2]int{x, y}] = kept
			}
			R := lay.R
			var up, left *dpLayer
			for S := 0; S <= R; S++ {
				na := (R-S)/2 + 1
				T := x*y + S
				canUp := T+x <= k
				for L := 0; L <= S/2; L++ {
					if !lay.hit[blockOf(S, L)] {
						continue
					}
					base := lay.at(S, L, 0)
					hx := U - d.lowerCols(x, y, S, L)
					// Targets of this (S, L): N keeps S, L; W pushes column x (height y)
					// to the smaller side (A) or the larger (B).
					upBase, leftA, leftB := -1, -1, -1
					var gA, gB int64
					if x >= 2 {
						S2, l2 := S+y, L+y
						gA, gB = d.g(l2), d.g(S-L+y)
						if gA < U || gB < U {
							if left == nil {
								if next[y] == nil {
									next[y] = d.layer(k - (x-1)*y)
								}
								left = next[y]
							}
							leftA, leftB = left.at(S2, min(l2, S2-l2), 0), left.at(S2, L, 0)
							left.hit[blockOf(S2, min(l2, S2-l2))] = true
							left.hit[blockOf(S2, L)] = true
						}
					}
					for a := range na {
						e := int64(lay.c[base+a])
						if e <= 0 {
							continue
						}
						c := U - e
						b := k - T - a
						if c+int64(phi[a])+int64(phi[b]) >= hx {
							continue
						}
						if kept != nil {
							kept.idx = append(kept.idx, int32(base+a))
							kept.c = append(kept.c, int32(c))
						}
						if canUp {
							if upBase < 0 {
								if up == nil {
									if cur[y+1] == nil {
										cur[y+1] = d.layer(k - x*(y+1))
									}
									up = cur[y+1]
								}
								upBase = up.at(S, L, 0)
								up.hit[blockOf(S, L)] = true
							}
							if a >= x {
								if r := e - d.g(a); r > 0 && r > int64(up.c[upBase+min(a-x, b)]) {
									up.c[upBase+min(a-x, b)] = int32(r)
								}
							}
							if b >= x {
								if r := e - d.g(b); r > 0 && r > int64(up.c[upBase+min(a, b-x)]) {
									up.c[upBase+min(a, b-x)] = int32(r)
								}
							}
						}
						if x == 1 {
							if S+y == k && a == 0 && c < int64(best) {
								best = int32(c)
							}
							continue
						}
						if r := e - gA; r > 0 && r > int64(left.c[leftA+a]) {
							left.c[leftA+a] = int32(r)
						}
						if r := e - gB; r > 0 && r > int64(left.c[leftB+a]) {
							left.c[leftB+a] = int32(r)
						}
					}
				}
			}
			d.release(lay)
		}
	}
	return best, false
}

// backtrack rebuilds the columns (nonincreasing) of a diagram of cost v from the
// states kept by a run with keep set and U > v.
func (d *ferrersDP) backtrack(v int32) []int {
	k := d.k
	lookup := func(x, y, S, L, a int) (int32, bool) {
		m := d.keep[[2]int{x, y}]
		if m == nil || S < 0 || L < 0 || L > S/2 {
			return 0, false
		}
		R := k - x*y
		if S > R || a < 0 || a > (R-S)/2 {
			return 0, false
		}
		i, ok := slices.BinarySearch(m.idx, int32((&dpLayer{R: R, off: layerOffsets(R)}).at(S, L, a)))
		if !ok {
			return 0, false
		}
		return m.c[i], true
	}
	// Terminal: (1, y, S = k-y, L, a = 0) with cost v.
	x, y, S, L, a := 1, 0, 0, 0, 0
	found := false
	for yy := 1; yy <= k && !found; yy++ {
		for LL := 0; LL <= (k-yy)/2; LL++ {
			if c, ok := lookup(1, yy, k-yy, LL, 0); ok && c == v {
				x, y, S, L, a, found = 1, yy, k-yy, LL, 0, true
				break
			}
		}
	}
	if !found {
		return nil
	}
	cols := map[int]int{1: y}
	c := v
	for !(y == 1 && S == 0 && c == 0) {
		T := x*y + S
		b := k - T - a
		moved := false
		// From (x, y-1) by an N step (row y of length x).
		if y >= 2 {
			Tp := T - x
			for ap := 0; ap <= (k-Tp)/2 && !moved; ap++ {
				cp, ok := lookup(x, y-1, S, L, ap)
				if !ok {
					continue
				}
				bp := k - Tp - ap
				if ap >= x && min(ap-x, bp) == a && max(ap-x, bp) == b && int64(cp)+d.g(ap) == int64(c) ||
					bp >= x && min(ap, bp-x) == a && max(ap, bp-x) == b && int64(cp)+d.g(bp) == int64(c) {
					y, a, c, moved = y-1, ap, cp, true
				}
			}
		}
		// From (x+1, y) by a W step (column x+1 of height y).
		if !moved && S >= y {
			Sp := S - y
			for Lp := 0; Lp <= Sp/2 && !moved; Lp++ {
				cp, ok := lookup(x+1, y, Sp, Lp, a)
				if !ok {
					continue
				}
				l2 := Lp + y
				if min(l2, S-l2) == L && int64(cp)+d.g(l2) == int64(c) ||
					Lp == L && int64(cp)+d.g(Sp-Lp+y) == int64(c) {
					cols[x+1] = y
					x, S, L, c, moved = x+1, Sp, Lp, cp, true
				}
			}
		}
		if !moved {
			return nil
		}
	}
	out := make([]int, x)
	for i := 1; i <= x; i++ {
		out[i-1] = cols[i]
	}
	return out
}

func layerOffsets(R int) []int32 {
	off := make([]int32, R+2)
	n := 0
	for S := 0; S <= R; S++ {
		off[S] = int32(n)
		n += (S/2 + 1) * ((R-S)/2 + 1)
	}
	off[R+1] = int32(n)
	return off
}

// ferrersDPOptimum proves or improves the incumbent diagram inc for k: it returns the
// best diagram's columns, its cost and whether the search finished (then it is
// optimal). Without a finished run it returns inc. store may be nil.
func ferrersDPOptimum(ctx context.Context, k int, inc []int, store *dpStore) (cols []int, cost int64, optimal bool) {
	U := lineCost(inc) + lineCost(conjugate(inc))
	d := newFerrersDP(ctx, k, U, store)
	v, stopped := d.run()
	if stopped {
		return inc, U, false
	}
	if v == inf32 {
		return inc, U, true
	}
	// A cheaper diagram exists: run again below v+1, keeping the states, and trace it.
	d2 := newFerrersDP(ctx, k, int64(v)+1, store)
	d2.keep = map[[2]int]*keptLayer{}
	if _, stopped := d2.run(); stopped {
		return inc, U, false
	}
	cols = d2.backtrack(v)
	if cols == nil {
		return inc, U, false
	}
	return cols, lineCost(cols) + lineCost(conjugate(cols)), true
}
