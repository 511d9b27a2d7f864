package geom

// Select returns the value of rank r (0-based) among a and reorders a so that
// a[:r] <= a[r] <= a[r+1:]: a deterministic quickselect (Hoare partitions around a
// median-of-three pivot), O(len(a)) expected. It is the "k nearest by selection rather
// than sorting" step shared by the center-based solvers. r must be in [0, len(a)).
func Select[T Number](a []T, r int) T {
	lo, hi := 0, len(a)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		x, y, z := a[lo], a[mid], a[hi]
		p := max(min(x, y), min(max(x, y), z))
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case r <= j:
			hi = j
		case r >= i:
			lo = i
		default:
			return a[r]
		}
	}
	return a[r]
}

// SumSmallest returns the sum of the m smallest values of a, reordering a.
func SumSmallest[T Number](a []T, m int) T {
	if m <= 0 {
		return 0
	}
	if m < len(a) {
		Select(a, m-1)
	}
	var s T
	for _, v := range a[:min(m, len(a))] {
		s += v
	}
	return s
}
