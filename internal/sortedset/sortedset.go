package sortedset

import "cmp"

// Common counts the values two ascending slices share (each slice without
// repeats; not checked).
func Common[T cmp.Ordered](a, b []T) int {
	c, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			c++
			i++
			j++
		}
	}
	return c
}

// Overlap reports whether two ascending slices share a value: Common(a, b) > 0,
// ending at the first value shared.
func Overlap[T cmp.Ordered](a, b []T) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}
