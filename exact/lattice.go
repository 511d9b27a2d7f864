package exact

// Optimal totals of m distinct points of Z^2 and Z^3 (index m), as computed by Cluster
// (the plane-count search, marginal.go): Z^2 up to m = 200, Z^3 up to m = 60.
// TestLatticeTable recomputes them; Z^2 m <= 49 is OEIS A193452 (Demaine et al. 2010,
// Table 1) and m <= 21 Fig. 2 of Bender et al. 2005; Z^3 m <= 13 is OEIS A290190.
var (
	z2Optima = []int64{
		0, 0, 1, 4, 8, 16, 25, 38, 54, 72, 96, 124, 152, 188, 227, 272, 318, 374, 433, 496,
		563, 632, 716, 804, 895, 992, 1091, 1204, 1318, 1442, 1570, 1704, 1840, 1996, 2153,
		2318, 2486, 2656, 2847, 3040, 3241, 3446, 3662, 3886, 4112, 4360, 4612, 4868, 5128,
		5398, 5675, 5960, 6248, 6568, 6890, 7222, 7556, 7896, 8243, 8604, 8968, 9354, 9749,
		10146, 10556, 10972, 11400, 11836, 12280, 12728, 13209, 13700, 14193, 14690, 15195,
		15712, 16232, 16780, 17335, 17904, 18478, 19062, 19653, 20262, 20874, 21506, 22141,
		22804, 23472, 24144, 24831, 25522, 26225, 26938, 27667, 28406, 29157, 29912, 30708,
		31512, 32332,
		// m = 101..200 (ferrersDP)
		33156, 33975, 34814, 35658, 36526, 37398, 38292, 39190, 40118, 41047, 41992, 42928,
		43900, 44877, 45866, 46866, 47886, 48917, 49960, 51008, 52104, 53201, 54308, 55420,
		56544, 57684, 58836, 60002, 61176, 62376, 63578, 64806, 66038, 67297, 68560, 69834,
		71120, 72423, 73756, 75093, 76456, 77823, 79208, 80595, 82018, 83427, 84844, 86264,
		87740, 89221, 90718, 92228, 93758, 95301, 96860, 98424, 100036, 101650, 103282, 104918,
		106564, 108207, 109890, 111579, 113294, 115015, 116772, 118534, 120324, 122119, 123930,
		125752, 127586, 129427, 131276, 133140, 135008, 136942, 138882, 140838, 142808, 144802,
		146810, 148834, 150864, 152944, 155008, 157064, 159184, 161309, 163454, 165584, 167764,
		169951, 172148, 174354, 176588, 178825, 181098, 183386,
	}
	z3Optima = []int64{
		0, 0, 1, 4, 8, 16, 25, 36, 48, 68, 89, 112, 136, 168, 201, 238, 278, 322, 369, 420,
		472, 536, 599, 664, 734, 812, 891, 972, 1062, 1156, 1249, 1344, 1440, 1560, 1681,
		1806, 1933, 2064, 2199, 2340, 2480,
		// m = 41..60 (the coupled plane search)
		2632, 2785, 2940, 3096, 3268, 3443, 3624, 3808, 4008, 4209, 4416, 4625, 4840, 5057,
		5284, 5510, 5744, 5979, 6218, 6458,
	}
)

// LatticeOptimum returns the proven optimal total of m distinct points of Z^dim when
// the table above holds it, and false otherwise (other dimensions, m beyond the
// table). Allocators pass it to MM and Gen-Alg as ptas.Options.Floor.
func LatticeOptimum(dim, m int) (int64, bool) {
	t := latticeTable(dim)
	if m < 0 || m >= len(t) {
		return 0, false
	}
	return t[m], true
}

// latticeTable is the table of proven optima of Z^dim (nil for other dimensions).
func latticeTable(dim int) []int64 {
	switch dim {
	case 2:
		return z2Optima
	case 3:
		return z3Optima
	}
	return nil
}

// LatticeBound returns a lower bound on the total pairwise L1 distance of any m
// distinct points of Z^dim (dim 2 or 3): the tabulated optimum when known, else the
// recursive bound f(m) >= m f(m-1) / (m-2) (each point's removal leaves m-1 points,
// and every pair survives m-2 of the m removals). Other dimensions: 0.
func LatticeBound(dim, m int) float64 {
	t := latticeTable(dim)
	if t == nil {
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
