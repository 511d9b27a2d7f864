// Package choicetest checks, in tests, that a package's exported list of choices
// (sim.Scheds, order.Methods, ...) hands each caller its own copy: a caller who
// overwrites or appends to the list it got must not change the package's list.
//
// It follows no paper.
package choicetest

import (
	"slices"
	"testing"
)

// Copies overwrites every element of the slice get returns with spoil, appends
// spoil to it, and fails t unless get then returns what it returned the first
// time. If accepts is not nil, it is the package's parser of the list's names (or
// its validity check), which must still accept every element afterwards. name says
// which list in the failure.
func Copies[T comparable](t testing.TB, name string, get func() []T, spoil T, accepts func(T) error) {
	t.Helper()
	first := get()
	want := slices.Clone(first)
	if len(want) == 0 {
		t.Fatalf("%s: empty list", name)
	}
	for i := range first {
		first[i] = spoil
	}
	_ = append(first[:len(first):len(first)], spoil)
	_ = append(first[:0], spoil)
	if got := get(); !slices.Equal(got, want) {
		t.Errorf("%s after a caller overwrote its copy: %v, want %v", name, got, want)
	}
	if accepts == nil {
		return
	}
	for _, v := range want {
		if err := accepts(v); err != nil {
			t.Errorf("%s: %v refused after a caller overwrote its copy: %v", name, v, err)
		}
	}
}
