package exact

// Optimal totals of m distinct points of Z^2 and Z^3 (index m, m = 0..len-1), as
// computed by Clusters: Z^2 up to m = 26 and Z^3 up to m = 17 (Z^2 m <= 21 is Fig. 2
// of Bender et al. 2005; TestLatticeTable recomputes the table's prefix).
var (
	z2Optima = []int64{0, 0, 1, 4, 8, 16, 25, 38, 54, 72, 96, 124, 152, 188, 227, 272, 318, 374, 433, 496, 563, 632, 716, 804, 895, 992, 1091}
	z3Optima = []int64{0, 0, 1, 4, 8, 16, 25, 36, 48, 68, 89, 112, 136, 168, 201, 238, 278, 322}
)

// LatticeBound returns a lower bound on the total pairwise L1 distance of any m
// distinct points of Z^dim (dim 2 or 3): the tabulated optimum when known, else the
// recursive bound f(m) >= m f(m-1) / (m-2) (each point's removal leaves m-1 points,
// and every pair survives m-2 of the m removals). Other dimensions: 0.
func LatticeBound(dim, m int) float64 {
	var t []int64
	switch dim {
	case 2:
		t = z2Optima
	case 3:
		t = z3Optima
	default:
		return 0
	}
	if m < len(t) {
		return float64(t[m])
	}
	f := float64(t[len(t)-1])
	for j := len(t); j <= m; j++ {
		f = float64(j) * f / float64(j-2)
	}
	return f
}
