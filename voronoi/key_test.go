package voronoi

import "testing"

// Key is equal for two families exactly when their Inner and Boundary sets are: all
// 4,096 pairs of subsets of six indices (some past one uvarint byte, 127 and 128)
// give distinct keys, and the center and radius do not enter it.
func TestFamilyKeyInjective(t *testing.T) {
	idx := []int{0, 1, 2, 127, 128, 300}
	subset := func(mask int) []int {
		var s []int
		for b, v := range idx {
			if mask&(1<<b) != 0 {
				s = append(s, v)
			}
		}
		return s
	}
	seen := map[string][2]int{}
	for in := range 1 << len(idx) {
		for bd := range 1 << len(idx) {
			f := Family{Inner: subset(in), Boundary: subset(bd)}
			k := f.Key()
			if prev, dup := seen[k]; dup {
				t.Fatalf("Inner %v Boundary %v: same key as Inner %v Boundary %v", f.Inner, f.Boundary, subset(prev[0]), subset(prev[1]))
			}
			seen[k] = [2]int{in, bd}
			g := Family{Center2: [2]int64{7, -3}, Radius2: 11, Inner: subset(in), Boundary: subset(bd)}
			if g.Key() != k {
				t.Fatalf("Inner %v Boundary %v: key depends on the center or radius", f.Inner, f.Boundary)
			}
		}
	}
}
