package ptas

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A hand-checkable case where the carried-over order decides the answer. Free-list
// order Q(0,10), C(0,0), X(0,-1), Y(0,1); k = 2.
//
// PReMAS, Gen-Alg: center Q sorts the working array [Q C X Y] to [Q Y C X] (Y is
// nearer Q than X), score d(Q,Y) = 9. Center C: Y and X are both at distance 1 and the
// stable sort keeps Y first: [C Y X Q], score 1, the new best. X and Y as centers
// also score 1, not strictly better. Answer {C, Y} = indices [1 3].
// MM under PReMAS: centers (0,10), (0,0), (0,-1), (0,1) (x values [0], y values in
// order of first appearance): the same sorts, the same answer.
// By index, the tie at C goes to X (index 2): [1 2].
func TestPReMASCarryOver(t *testing.T) {
	pts := [][]int{{0, 10}, {0, 0}, {0, -1}, {0, 1}}
	for _, c := range []struct {
		name string
		f    func([][]int, int, Options) (Result, error)
	}{{"genalg", GenAlg[[]int, int]}, {"mm", MM[[]int, int]}} {
		p, err := c.f(pts, 2, Options{Ties: TiesPReMAS})
		if err != nil || !slices.Equal(p.Indices, []int{1, 3}) || p.Total != 1 || !slices.Equal(p.Center, []float64{0, 0}) {
			t.Errorf("%s premas: %+v %v, want indices [1 3] center (0,0)", c.name, p, err)
		}
		b, _ := c.f(pts, 2, Options{})
		if !slices.Equal(b.Indices, []int{1, 2}) {
			t.Errorf("%s by index: %v, want [1 2]", c.name, b.Indices)
		}
	}
	// MC1x1 (L-infinity): the same carry-over.
	p, _ := MC1x1(pts, 2, Options{Ties: TiesPReMAS})
	if !slices.Equal(p.Indices, []int{1, 3}) {
		t.Errorf("mc1x1 premas: %v", p.Indices)
	}
}

// The first strictly better center wins: with two equally good clusters the earlier
// center's (in the PReMAS center order) cluster is kept.
func TestPReMASFirstBestWins(t *testing.T) {
	pts := [][]int{{5, 5}, {5, 6}, {0, 0}, {0, 1}}
	p, _ := MM(pts, 2, Options{Ties: TiesPReMAS})
	// x values in appearance order [5 0]; the center (5,5) comes first.
	if !slices.Equal(p.Indices, []int{0, 1}) {
		t.Errorf("premas: %v, want [0 1]", p.Indices)
	}
	b, _ := MM(pts, 2, Options{})
	// By index the centers ascend: (0,0) first.
	if !slices.Equal(b.Indices, []int{2, 3}) {
		t.Errorf("by index: %v, want [2 3]", b.Indices)
	}
}

// On mesh-like inputs full of ties (free nodes of small meshes in free-list order, x
// outermost), the PReMAS modes equal the direct implementation of the reference rules.
func TestPReMASMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 300; trial++ {
		X, Y, Z := 2+r.IntN(5), 2+r.IntN(5), 1+r.IntN(3)
		var pts [][]int
		for x := 0; x < X; x++ {
			for y := 0; y < Y; y++ {
				for z := 0; z < Z; z++ {
					if r.IntN(3) > 0 {
						pts = append(pts, []int{x, y, z})
					}
				}
			}
		}
		if len(pts) < 2 {
			continue
		}
		k := 1 + r.IntN(len(pts)-1)
		for _, c := range []struct {
			name    string
			f       func([][]int, int, Options) (Result, error)
			centers [][]int
			m       metric
			s       scoreKind
		}{
			{"mm", MM[[]int, int], refMMCenters(pts, TiesPReMAS), metricL1, scorePairwise},
			{"genalg", GenAlg[[]int, int], pts, metricL1, scorePairwise},
			{"mc1x1", MC1x1[[]int, int], pts, metricLInf, scoreStar},
		} {
			got, err := c.f(pts, k, Options{Ties: TiesPReMAS})
			if err != nil {
				t.Fatal(err)
			}
			want := refSearch(pts, k, c.centers, c.m, c.s, TiesPReMAS)
			if !slices.Equal(got.Indices, want) {
				t.Fatalf("%s k=%d on %v: %v, reference %v", c.name, k, pts, got.Indices, want)
			}
		}
	}
}
