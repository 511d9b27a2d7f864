package ptas

// The taken shell points' marginals from the rotated tables. xPass takes the points
// at distance thr plane x by plane x, lowest x first, so every taken plane but the
// last (xcut) is taken whole: the taken points are the shell points with x < xcut,
// plus the first ones of plane xcut. In a plane y (over x and z) the shell points
// at distance thr of the center are those at distance rho = thr - |y - cy| of
// (cx, cz) in the plane, the boundary of a square of the plane's rotated
// coordinates: four edges, each a segment of one row or column of the rotated
// table, which "x < xcut" cuts to a prefix. So the count of a plane y is at most
// four segments of four reads each (two when xcut <= cx), and the same for a
// plane z from the stack of the planes z, instead of reading the 2 rem + 1 lines
// of every taken plane x (takeShell).

// shellTablesMin: the whole taken planes' marginals come from the tables
// (takeWhole) when their lines (takeShell's work) are at least shellTablesMin
// times the planes y and z the tables read; a negative value turns them off
// (tests compare both).
var shellTablesMin = 3

// takeTaken adds to addY and addZ the taken points xPass recorded in g.taken for
// the center (cx, cy, cz) at radius thr: the whole planes before the last from
// the tables when that reads less (takeWholeY; true: their marginals along z are
// left to takeWholeZ), else cell by cell, and the last plane cell by cell
// (takeShell).
func (g *grid3Scan) takeTaken(cx, cy, cz, thr int) (wholeZ bool) {
	taken := g.taken
	n := len(taken)
	if n == 0 {
		return false
	}
	xcut := int(taken[n-2])
	if n > 2 && shellTablesMin >= 0 {
		// takeShell's lines for the whole planes, against the planes y and z
		// whose shells reach below xcut.
		lines := 0
		for i := 0; i < n-2; i += 2 {
			rem := thr - abs(int(taken[i])-cx)
			lines += min(cy+rem, g.H-1) - max(cy-rem, 0) + 1
		}
		reach := thr + min(xcut-cx-1, 0) // the planes within reach of cy or cz hold such points
		planes := min(cy+reach, g.H-1) - max(cy-reach, 0) + min(cz+reach, g.L-1) - max(cz-reach, 0) + 2
		if lines >= shellTablesMin*planes {
			g.takeWholeY(cx, cy, cz, thr, xcut)
			g.takeShell(xcut, cx, cy, cz, thr, taken[n-1])
			return true
		}
	}
	for i := 0; i < n; i += 2 {
		g.takeShell(int(taken[i]), cx, cy, cz, thr, taken[i+1])
	}
	return false
}

// takeWhole adds to addY and addZ the points at L1 distance thr from (cx, cy, cz)
// with x < xcut.
func (g *grid3Scan) takeWhole(cx, cy, cz, thr, xcut int) {
	g.takeWholeY(cx, cy, cz, thr, xcut)
	g.takeWholeZ(cx, cy, cz, thr, xcut)
}

// takeWholeY adds to addY the points at L1 distance thr from (cx, cy, cz) with
// x < xcut, per plane y from the stack of the planes y.
func (g *grid3Scan) takeWholeY(cx, cy, cz, thr, xcut int) {
	D := xcut - cx
	reach := thr + min(D-1, 0) // planes farther out hold no shell point with x < xcut
	if reach < 0 {
		return
	}
	st := &g.py
	A, B := st.place(cx, cz)
	for y := max(cy-reach, 0); y <= min(cy+reach, g.H-1); y++ {
		g.addY[y] += shellBelow(st.pre, y*st.ss, st.s, 1, st.u, A, B, thr-abs(y-cy), D)
	}
}

// takeWholeZ adds to addZ the points at L1 distance thr from (cx, cy, cz) with
// x < xcut, per plane z from the stack of the planes z.
func (g *grid3Scan) takeWholeZ(cx, cy, cz, thr, xcut int) {
	D := xcut - cx
	reach := thr + min(D-1, 0)
	if reach < 0 {
		return
	}
	at := stackAt(&g.zShape, cx, cy)
	L := g.L
	for z := max(cz-reach, 0); z <= min(cz+reach, L-1); z++ {
		g.addZ[z] += shellBelow(g.zs, z, at.s*L, L, at.u, at.a, at.b, thr-abs(z-cz), D)
	}
}

// shellBelow counts the points of one plane at L1 distance rho >= 0 from a place
// (x0, c0) with x - x0 < D, from the plane's rotated prefix table: the entry of
// (a, b) (the points with rotated coordinates a' < a and b' < b) is
// tab[base + a*sa + b*sb], a and b in 0..u, the place at rotated (A, B) = (x0 + c0,
// x0 - c0 + const). With dx = x - x0 and dc = c - c0, the shell is four edges:
// dx + dc = -rho (row A - rho, both corners on the c axis and the x axis below
// x0), dx - dc = -rho (column B - rho, without its corners), dx + dc = rho (row
// A + rho, both corners; not for rho 0, where all four are the one place) and
// dx - dc = rho (column B + rho, without its corners). Along an edge b (a row)
// or a (a column) is rho + 2 dx up to a constant, so dx < D is a prefix of it;
// the rotated coordinates between carry no points (odd sums), and those outside
// the table none either.
func shellBelow(tab []int32, base, sa, sb, u, A, B, rho, D int) int32 {
	hi := D - 1 // the largest dx taken
	var c int32
	// row: the points of row a with b in b0..b1.
	row := func(a, b0, b1 int) int32 {
		b0, b1 = max(b0, 0), min(b1, u-1)
		if a < 0 || a >= u || b0 > b1 {
			return 0
		}
		r0, r1 := base+a*sa, base+(a+1)*sa
		return tab[r1+(b1+1)*sb] - tab[r0+(b1+1)*sb] - tab[r1+b0*sb] + tab[r0+b0*sb]
	}
	// col: the points of column b with a in a0..a1.
	col := func(b, a0, a1 int) int32 {
		a0, a1 = max(a0, 0), min(a1, u-1)
		if b < 0 || b >= u || a0 > a1 {
			return 0
		}
		c0, c1 := base+b*sb, base+(b+1)*sb
		return tab[a1*sa+sa+c1] - tab[a0*sa+c1] - tab[a1*sa+sa+c0] + tab[a0*sa+c0]
	}
	// dx + dc = -rho, dx in -rho..min(0, hi): b = B + rho + 2 dx.
	if h := min(0, hi); h >= -rho {
		c += row(A-rho, B-rho, B+rho+2*h)
	}
	if rho == 0 {
		return c
	}
	// dx - dc = -rho, dx in 1-rho..min(-1, hi): a = A + rho + 2 dx.
	if h := min(-1, hi); h >= 1-rho {
		c += col(B-rho, A+2-rho, A+rho+2*h)
	}
	// dx + dc = rho, dx in 0..min(rho, hi): b = B - rho + 2 dx.
	if h := min(rho, hi); h >= 0 {
		c += row(A+rho, B-rho, B-rho+2*h)
	}
	// dx - dc = rho, dx in 1..min(rho-1, hi): a = A - rho + 2 dx.
	if h := min(rho-1, hi); h >= 1 {
		c += col(B+rho, A+2-rho, A-rho+2*h)
	}
	return c
}
