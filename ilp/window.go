package ilp

import "fmt"

// MaxWindowTuples caps the tuples per window of FormulationWindow.
const MaxWindowTuples = 400_000

// windowLayout describes the tuple columns of FormulationWindow.
type windowLayout struct {
	n, k    int // window covers k+1 ranks
	ring    bool
	windows int
	code    []int32 // base-n code of a (k+1)-tuple -> local tuple index, -1 if not distinct
	tuples  [][]int // local index -> tuple
	base    int     // first z column
}

func (wl *windowLayout) col(r, local int) int { return wl.base + r*len(wl.tuples) + local }

func (wl *windowLayout) rank(r, j int) int { return (r + j) % wl.n }

func newWindowLayout(n, k int, ring bool) (*windowLayout, error) {
	if k+1 > n {
		return nil, fmt.Errorf("window formulation: window of %d ranks on %d nodes", k+1, n)
	}
	count := 1.0
	for i := 0; i <= k; i++ {
		count *= float64(n - i)
	}
	if count > MaxWindowTuples {
		return nil, fmt.Errorf("window formulation: %.0f tuples per window exceed the limit of %d (use formulation aj)", count, MaxWindowTuples)
	}
	wl := &windowLayout{n: n, k: k, ring: ring}
	if ring {
		wl.windows = n
	} else {
		wl.windows = n - k
	}
	size := 1
	for i := 0; i <= k; i++ {
		size *= n
	}
	wl.code = make([]int32, size)
	t := make([]int, k+1)
	for c := 0; c < size; c++ {
		x := c
		ok := true
		for j := 0; j <= k; j++ {
			t[j] = x % n
			x /= n
			for i := 0; i < j; i++ {
				if t[i] == t[j] {
					ok = false
				}
			}
		}
		if !ok {
			wl.code[c] = -1
			continue
		}
		wl.code[c] = int32(len(wl.tuples))
		wl.tuples = append(wl.tuples, append([]int(nil), t...))
	}
	return wl, nil
}

func (wl *windowLayout) encodeTuple(t []int) int {
	c, mul := 0, 1
	for _, v := range t {
		c += v * mul
		mul *= wl.n
	}
	return int(wl.code[c])
}

// addWindows adds the window variables and constraints of FormulationWindow with
// windows of kw+1 ranks, and returns the facility pairs whose offset exceeds kw (to be
// covered by pair variables).
func addWindows(mm *Model, ring bool, kw int) ([][2]int, error) {
	q, m, n := mm.q, mm.HiGHS, mm.q.N
	k := kw
	if k == 0 {
		return nil, fmt.Errorf("window formulation: no flows")
	}
	wl, err := newWindowLayout(n, k, ring)
	if err != nil {
		return nil, err
	}
	mm.win = wl
	wl.base = m.NumCols()
	// Charge each flow pair within the window width to one window: the one starting at
	// its first rank on the line (or the last window), the one starting at the rank
	// after the wrap on the ring.
	type charge struct {
		oi, oj   int // offsets of the pair's ranks inside the window
		aij, aji float64
	}
	charges := make([][]charge, wl.windows)
	var long [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			aij, aji := q.A[i*n+j], q.A[j*n+i]
			if aij == 0 && aji == 0 {
				continue
			}
			t := j - i
			if ring {
				t = min(t, n-t)
			}
			if t > k {
				long = append(long, [2]int{i, j})
				continue
			}
			var r int
			switch {
			case !ring:
				r = min(i, wl.windows-1)
			case j-i <= k:
				r = i
			default:
				r = j
			}
			oi, oj := (i-r+n)%n, (j-r+n)%n
			charges[r] = append(charges[r], charge{oi, oj, aij, aji})
		}
	}
	for r := 0; r < wl.windows; r++ {
		for _, t := range wl.tuples {
			var c float64
			for _, ch := range charges[r] {
				a, b := t[ch.oi], t[ch.oj]
				c += ch.aij*q.B[a*n+b] + ch.aji*q.B[b*n+a]
			}
			m.AddCol(c, 0, 1, false)
		}
	}
	var idx []int
	var val []float64
	// Window marginals at offset j equal x (offset 0 everywhere; every offset for the
	// last window of the line, whose later ranks no other window starts at).
	byPos := make([][]int, (k+1)*n) // [j*n+v] -> local tuples with t[j] == v
	for li, t := range wl.tuples {
		for j, v := range t {
			byPos[j*n+v] = append(byPos[j*n+v], li)
		}
	}
	for r := 0; r < wl.windows; r++ {
		maxJ := 0
		if !ring && r == wl.windows-1 {
			maxJ = k
		}
		for j := 0; j <= maxJ; j++ {
			for v := 0; v < n; v++ {
				idx, val = idx[:0], val[:0]
				for _, li := range byPos[j*n+v] {
					idx = append(idx, wl.col(r, li))
					val = append(val, 1)
				}
				idx = append(idx, mm.x(wl.rank(r, j), v))
				val = append(val, -1)
				m.AddRow(0, 0, idx, val)
			}
		}
	}
	// Consecutive windows agree on the k ranks they share: for every k-tuple, the
	// tuples of window r ending with it and those of window r+1 starting with it.
	tail := map[int][]int{}
	head := map[int][]int{}
	var keys []int
	for li, t := range wl.tuples {
		kt, kh := 0, 0
		for j := 0; j < k; j++ {
			kt = kt*n + t[j+1]
			kh = kh*n + t[j]
		}
		if _, ok := tail[kt]; !ok {
			keys = append(keys, kt)
		}
		tail[kt] = append(tail[kt], li)
		head[kh] = append(head[kh], li)
	}
	links := wl.windows - 1
	if ring {
		links = wl.windows
	}
	for r := 0; r < links; r++ {
		r2 := (r + 1) % wl.windows
		for _, key := range keys {
			idx, val = idx[:0], val[:0]
			for _, li := range tail[key] {
				idx = append(idx, wl.col(r, li))
				val = append(val, 1)
			}
			for _, li := range head[key] {
				idx = append(idx, wl.col(r2, li))
				val = append(val, -1)
			}
			m.AddRow(0, 0, idx, val)
		}
	}
	return long, nil
}

func addSymmetry(mm *Model, sym *Symmetry) {
	m := mm.HiGHS
	for _, f := range sym.fix {
		c := mm.x(f.i, f.k)
		m.ColLower[c], m.ColUpper[c] = f.v, f.v
	}
	var idx []int
	var val []float64
	for _, r := range sym.rows {
		idx, val = idx[:0], val[:0]
		for _, t := range r.terms {
			idx = append(idx, mm.x(t.i, t.k))
			val = append(val, t.c)
		}
		m.AddRow(r.lo, r.hi, idx, val)
	}
}
