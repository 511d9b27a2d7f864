package qap

import (
	"bytes"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestReadQAPLIB(t *testing.T) {
	q, err := ReadQAPLIB(strings.NewReader("3\n0 1 2\n1 0 3\n2 3 0\n\n0 5 2 5 0 1\n2 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteQAPLIB(&buf, q); err != nil {
		t.Fatal(err)
	}
	q2, err := ReadQAPLIB(&buf)
	if err != nil || q2.N != 3 || !equal(q.A, q2.A) || !equal(q.B, q2.B) {
		t.Fatalf("round trip: %v %v", q2, err)
	}
	for _, bad := range []string{"", "x", "2 1 2 3", "2 1 2 3 4 5 6 7 8 9", "0", "2.5", "2 1 2 3 4 5 6 7 nan"} {
		if _, err := ReadQAPLIB(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzReadQAPLIB(f *testing.F) {
	f.Add("2\n0 1\n1 0\n0 3\n3 0\n")
	f.Add("1 5 7")
	f.Add("3 1e400")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ReadQAPLIB(strings.NewReader(s))
		if err != nil {
			return
		}
		if len(q.A) != q.N*q.N || len(q.B) != q.N*q.N {
			t.Fatalf("matrix sizes %d %d for n %d", len(q.A), len(q.B), q.N)
		}
		// What was read is written (WriteQAPLIB) as a file that reads as the same
		// instance, number for number.
		var buf strings.Builder
		if err := WriteQAPLIB(&buf, q); err != nil {
			t.Fatal(err)
		}
		back, err := ReadQAPLIB(strings.NewReader(buf.String()))
		if err != nil || back.N != q.N || !slices.Equal(back.A, q.A) || !slices.Equal(back.B, q.B) {
			t.Fatalf("%q written as %q reads back as %+v, %v", s, buf.String(), back, err)
		}
	})
}

// A QAPLIB file's n makes no memory by itself: the matrices grow as their numbers
// are read. The 5 bytes "5000\n" allocated two 5000x5000 matrices (381 MB) before
// "file ends before A[1][1]" (found by the twenty-seventh round's search for
// inputs that explode); reading them now allocates some kilobytes.
func TestReadQAPLIBMemoryFollowsInput(t *testing.T) {
	for _, in := range []string{"5000\n", "5000\n1 2 3\n", "4999 " + strings.Repeat("7 ", 10000)} {
		runtime.GC()
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		_, err := ReadQAPLIB(strings.NewReader(in))
		runtime.ReadMemStats(&b)
		if err == nil || !strings.Contains(err.Error(), "file ends before A[") {
			t.Errorf("%.20q: %v, want the file to end early", in, err)
		}
		if got := b.TotalAlloc - a.TotalAlloc; got > 1<<20 {
			t.Errorf("%.20q (%d bytes): %d bytes allocated, want at most 1 MiB", in, len(in), got)
		}
	}
}
