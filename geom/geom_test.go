package geom

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBoundingBoxTriplePerimeter(t *testing.T) {
	// Three points in the plane: total pairwise L1 = twice the box's sum of sides.
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 1000; trial++ {
		pts := make([]Point, 3)
		for i := range pts {
			pts[i] = Point{r.IntN(10), r.IntN(10)}
		}
		if got, want := PairwiseL1(pts), 2*BoundingBox(pts).SumOfSides(); got != want {
			t.Fatalf("%v: pairwise %d, 2*sides %d", pts, got, want)
		}
	}
}

func TestReadPoints(t *testing.T) {
	pts, err := ReadPoints(strings.NewReader("# header\n1 2\n\n3.5 -4 # c\n1 2\n"))
	if p, err := ReadPoints(strings.NewReader("9007199254740991 -9007199254740991\n")); err != nil || p[0][0] != 1<<53-1 {
		t.Errorf("2^53-1: %v, %v", p, err)
	}
	if err != nil || len(pts) != 3 || pts[1][0] != 3.5 {
		t.Fatalf("got %v, %v", pts, err)
	}
	for _, bad := range []string{"", "# only\n", "1 2\n3\n", "1 NaN\n", "1 inf\n", "1 x\n",
		"9007199254740993 0\n", "0 -9007199254740992\n"} { // 2^53+1 would read as 2^53
		if _, err := ReadPoints(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func FuzzReadPoints(f *testing.F) {
	f.Add("1 2\n3 4\n")
	f.Add("# c\n1e3 -2.5\n")
	f.Fuzz(func(t *testing.T, src string) {
		pts, err := ReadPoints(strings.NewReader(src))
		if err != nil {
			return
		}
		if err := CheckDims(pts); err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if err := WritePoints(&sb, pts); err != nil {
			t.Fatal(err)
		}
		back, err := ReadPoints(strings.NewReader(sb.String()))
		if err != nil || len(back) != len(pts) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range pts {
			if L1(pts[i], back[i]) != 0 {
				t.Fatalf("round trip changed point %d", i)
			}
		}
	})
}

func BenchmarkPairwiseL1Million(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	pts := make([]Point, 1_000_000)
	for i := range pts {
		pts[i] = Point{r.IntN(1 << 20), r.IntN(1 << 20)}
	}
	b.ResetTimer()
	for b.Loop() {
		PairwiseL1(pts)
	}
}

// TestReadPointsDimensionMismatchMessage: a short line names its own count in the
// right number ("1 coordinate") and the dimension of the lines before it.
func TestReadPointsDimensionMismatchMessage(t *testing.T) {
	for in, want := range map[string]string{
		"1 2\n3\n":     "line 2: 1 coordinate, but earlier points have 2",
		"1\n2 3 4\n":   "line 2: 3 coordinates, but earlier points have 1",
		"1 2 3\n4 5\n": "line 2: 2 coordinates, but earlier points have 3",
	} {
		_, err := ReadPoints(strings.NewReader(in))
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// WritePoints refuses, writing nothing, what ReadPoints would refuse to read back.
func TestWritePointsRefusesUnreadable(t *testing.T) {
	for _, tc := range []struct {
		name string
		pts  []PointF
		want string
	}{
		{"none", nil, "no points"},
		{"no dimension", []PointF{{}}, "no coordinates"},
		{"mixed", []PointF{{1, 2}, {3}}, "dimension"},
		{"NaN", []PointF{{1, 2}, {math.NaN(), 0}}, "point 1 coordinate 0"},
		{"Inf", []PointF{{math.Inf(-1)}}, "not finite"},
		{"2^53", []PointF{{0}, {1 << 53}}, "2^53"},
	} {
		var sb strings.Builder
		err := WritePoints(&sb, tc.pts)
		if err == nil || !strings.Contains(err.Error(), tc.want) || sb.Len() != 0 {
			t.Errorf("%s: err %v, wrote %q; want an error saying %q and nothing written", tc.name, err, sb.String(), tc.want)
		}
	}
}
