package curves

import (
	"math"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/topo"
	"gonum.org/v1/gonum/mat"
)

// On a machine whose second Laplacian eigenvalue is repeated, LAPACK may return any
// orthonormal basis of its eigenspace (a build with FMA returned another one on
// mesh:16x16, and the spectral ordering changed with it). The ordering must be the
// same for every basis: here the basis LAPACK returned and that basis turned by a
// rotation in each plane of two eigenspace columns give the same order, while on a
// machine whose second eigenvalue is simple (16x22) the ordering is still column 1's.
func TestSpectralDoesNotDependOnTheEigenbasis(t *testing.T) {
	for _, tc := range []struct {
		m        topo.Machine
		repeated int // multiplicity of the second eigenvalue
	}{
		{topo.Mesh(16, 16), 2},
		{topo.Torus(8, 8), 4},
		{topo.Mesh(6, 6, 6), 3},
		{topo.Mesh(16, 22), 1},
	} {
		nv := tc.m.N()
		lap := mat.NewSymDense(nv, nil)
		var nb []int
		for a := range nv {
			nb = tc.m.Neighbors(a, nb[:0])
			lap.SetSym(a, a, float64(len(nb)))
			for _, b := range nb {
				if b > a {
					lap.SetSym(a, b, -1)
				}
			}
		}
		var es mat.EigenSym
		if !es.Factorize(lap, true) {
			t.Fatal("no eigendecomposition")
		}
		vals := es.Values(nil)
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		d := 1
		for d+1 < nv && vals[d+1]-vals[1] < 1e-9*vals[nv-1] {
			d++
		}
		if d != tc.repeated {
			t.Fatalf("%s: second eigenvalue of multiplicity %d, want %d", tc.m.Spec(), d, tc.repeated)
		}
		want, err := Spectral(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		if got := fiedlerOrder(nv, vals, &vecs); !slices.Equal(got, want) {
			t.Fatalf("%s: fiedlerOrder of LAPACK's basis is not Spectral's order", tc.m.Spec())
		}
		// Another orthonormal basis of the eigenspace: columns j and j+1 turned by
		// angle theta, for each j in the eigenspace.
		rot := mat.DenseCopyOf(&vecs)
		for j := 1; j < d; j++ {
			theta := 0.3 + 0.7*float64(j)
			c, s := math.Cos(theta), math.Sin(theta)
			for i := range nv {
				a, b := rot.At(i, j), rot.At(i, j+1)
				rot.Set(i, j, c*a-s*b)
				rot.Set(i, j+1, s*a+c*b)
			}
		}
		if d > 1 {
			// The turned basis is a different Fiedler vector: column 1 changed.
			if diff := math.Abs(rot.At(0, 1) - vecs.At(0, 1)); diff < 1e-6 {
				t.Fatalf("%s: the rotation left column 1 as it was", tc.m.Spec())
			}
		}
		if got := fiedlerOrder(nv, vals, rot); !slices.Equal(got, want) {
			t.Errorf("%s: another basis of the repeated eigenspace gives another spectral ordering", tc.m.Spec())
		}
	}
}
