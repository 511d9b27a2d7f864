package ptas

// grid3SameOn turns on grid3Scan's shortcut for a center whose k nearest are
// those of the center just before it on its row, one plane lower (sameAsBelow);
// tests turn it off to compare.
var grid3SameOn = true

// sameAsBelow reports whether the center (cx, cy, cz) of setRow's row (with its
// tables), of radius thr with below points closer than thr and within points
// within it, has the same k nearest by (distance, index) as the center (cx, cy,
// cz - 1) of radius thrP, belowP and withinP. As sameAsPrev in the plane: the two
// balls of radius thr - 1 (thrP - 1) hold the same points, and those of radius thr
// (thrP) too. Two balls of radii r1 around c and r2 around c - e_z meet, in the
// planes z <= cz - 1, in the points within min(r1, r2 + 1) - (cz - z) of (cx, cy),
// and in the planes z >= cz in those within min(r1 + 1, r2) - (z - cz + 1): from
// the row's tables, lo(cz - 1, min(r1, r2 + 1) - 1) + hi(cz - 1, min(r1 + 1, r2)).
// The walks of both centers built the tables out to max(thr, thrP).
func (g *grid3Scan) sameAsBelow(cz, thr, below, within, thrP, belowP, withinP int) bool {
	if below != belowP || within != withinP {
		return false
	}
	if g.rowMeet(cz, thr, thrP) != within {
		return false
	}
	return below == 0 || g.rowMeet(cz, thr-1, thrP-1) == below
}

// rowMeet counts the points within r1 of (rowX, rowY, cz) and r2 of (rowX, rowY,
// cz - 1) (r1, r2 >= 0, cz >= 1, the row's tables out to max(r1, r2)).
func (g *grid3Scan) rowMeet(cz, r1, r2 int) int {
	L := g.L
	n := int(g.rowT[min(r1+1, r2)*L+cz-1].hi)
	if s := min(r1, r2+1) - 1; s >= 0 {
		n += int(g.rowT[s*L+cz-1].lo)
	}
	return n
}

// sameRowBelow reports whether center p is center t one plane lower.
func (g *grid3Scan) sameRowBelow(p, t int) bool {
	c := g.centers
	return c[3*p] == c[3*t] && c[3*p+1] == c[3*t+1] && c[3*p+2] == c[3*t+2]-1
}
