package alloc

import (
	"slices"
	"testing"

	"github.com/procalloc/procalloc/curves"
	"github.com/procalloc/procalloc/topo"
)

// FuzzCurveAllocator drives a curve allocator with an operation sequence decoded
// from the input and checks every allocation against the literal definition and the
// interval index against the free set. Input: byte 0 machine size, byte 1 rule, byte 2
// ring and span-search mode, byte 3 ordering seed, then one byte per operation (high
// bit set: end a job; else allocate 1 + b mod free).
func FuzzCurveAllocator(f *testing.F) {
	f.Add([]byte{10, 2, 0, 1, 3, 5, 0x80, 2, 7, 0x81, 1})
	f.Add([]byte{17, 1, 1, 9, 8, 8, 8, 0x81, 0x80, 12, 3, 3})
	f.Add([]byte{33, 3, 3, 4, 1, 2, 3, 4, 5, 0x83, 0x80, 20, 0x82, 7, 7})
	f.Add([]byte{5, 0, 0, 0, 4, 0x80, 4, 0, 0x81})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		n := 1 + int(data[0])%48
		rule := CurveRule(data[1] % 4)
		ring := data[2]&1 == 1 && rule != SortedFreeList
		mode := 1 + int(data[2]>>1)&1
		o := make(curves.Order, n)
		for i := range o {
			o[i] = i
		}
		for i := n - 1; i > 0; i-- { // a permutation from the seed byte
			j := (int(data[3])*31 + i*17) % (i + 1)
			o[i], o[j] = o[j], o[i]
		}
		a, err := NewCurveAllocator("fuzz", topo.Mesh(n), o, rule, ring)
		if err != nil {
			t.Fatal(err)
		}
		a.scanMode = mode
		runOps(t, a, data[4:], func(k int) []int {
			freeRank := make([]bool, n)
			for r := range freeRank {
				freeRank[r] = a.st.IsFree(o[r])
			}
			want := refCurveAllocate(freeRank, rule, ring, k)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range want {
				if got[i] != o[r] {
					t.Fatalf("allocate %d: got %v, want ranks %v", k, got, want)
				}
			}
			return got
		}, func() { checkIndex(t, a) })
	})
}

// FuzzMBS drives MBS on a small mesh with an operation sequence (as above) and checks
// every allocation against the brute-force reference and the blocks after each step.
func FuzzMBS(f *testing.F) {
	f.Add([]byte{8, 8, 5, 4, 0x80, 9, 1, 0x81})
	f.Add([]byte{6, 5, 12, 3, 3, 0x82, 7, 0x80, 30})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		g := topo.Mesh(1+int(data[0])%12, 1+int(data[1])%12)
		a, err := NewMBS(g)
		if err != nil {
			t.Fatal(err)
		}
		runOps(t, a, data[2:], func(k int) []int {
			want := refMBS(a, a.st.IsFree, k)
			got, err := a.Allocate(k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("allocate %d: got %v, want %v", k, got, want)
			}
			return got
		}, func() { checkBuddy(t, a) })
	})
}

// runOps drives an allocator with the fuzzers' operation bytes: a byte with the top
// bit set releases job (b & 0x7f) mod the running jobs (skipped when none runs);
// another allocates k = 1 + b mod the free nodes (skipped when none is free) through
// allocate, which checks the allocation and returns its nodes (nil: none taken).
// check runs after every operation not skipped.
func runOps(t *testing.T, a Allocator, ops []byte, allocate func(k int) []int, check func()) {
	t.Helper()
	var jobs [][]int
	for _, b := range ops {
		if b&0x80 != 0 {
			if len(jobs) == 0 {
				continue
			}
			j := int(b&0x7f) % len(jobs)
			if err := a.Release(jobs[j]); err != nil {
				t.Fatal(err)
			}
			jobs = slices.Delete(jobs, j, j+1)
		} else {
			if a.NumFree() == 0 {
				continue
			}
			got := allocate(1 + int(b)%a.NumFree())
			if got == nil {
				continue
			}
			jobs = append(jobs, got)
		}
		check()
	}
}
