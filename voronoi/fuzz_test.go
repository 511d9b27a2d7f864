package voronoi

import (
	"testing"

	"github.com/procalloc/procalloc/geom"
)

// FuzzKNearestSets: tiny inputs from bytes (coordinates 0..4), checked against the
// quarter-lattice brute force and the exact witness test.
func FuzzKNearestSets(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 1, 3, 3}, uint8(2))
	f.Add([]byte{2, 2, 2, 2, 2, 2, 0, 4, 4, 0}, uint8(3))
	f.Add([]byte{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, kb uint8) {
		if len(data) < 2 {
			return
		}
		if len(data) > 16 {
			data = data[:16]
		}
		pts := make([]geom.Point, len(data)/2)
		for i := range pts {
			pts[i] = geom.Point{int(data[2*i] % 5), int(data[2*i+1] % 5)}
		}
		k := 1 + int(kb)%len(pts)
		sets, err := KNearestSets(pts, k, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteSets(pts, k)
		if len(sets) != len(want) {
			t.Fatalf("points %v k %d: %d sets, brute %d", pts, k, len(sets), len(want))
		}
		for _, s := range sets {
			if _, ok := want[setKey(s.Indices)]; !ok {
				t.Fatalf("points %v k %d: extra set %v", pts, k, s.Indices)
			}
			if err := CheckWitness(pts, s.Indices, s.Center2); err != nil {
				t.Fatal(err)
			}
		}
	})
}
