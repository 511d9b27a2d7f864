package ilp

import "slices"

// maxAutomorphisms caps the automorphisms of the distance matrix that
// distanceAutomorphisms lists; a larger group is left unused (the symmetry breaking is
// then skipped, which is always sound).
const maxAutomorphisms = 100_000

// distanceAutomorphisms lists the permutations pi of the locations with
// B[pi(k)][pi(l)] = B[k][l] for all k, l (the symmetries of the machine: for a torus
// its translations, reflections and dimension swaps, for a hypercube all its
// automorphisms), by backtracking with the sorted rows as a refinement. It returns nil
// when the group is larger than maxAutomorphisms or the search takes too long.
func distanceAutomorphisms(b []float64, n int) [][]int {
	sig := make([][]float64, n)
	for k := 0; k < n; k++ {
		r := append([]float64{b[k*n+k]}, b[k*n:k*n+n]...)
		slices.Sort(r[1:])
		sig[k] = r
	}
	var out [][]int
	pi := make([]int, n)
	used := make([]bool, n)
	steps := 0
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == n {
			out = append(out, slices.Clone(pi))
			return len(out) <= maxAutomorphisms
		}
		for c := 0; c < n; c++ {
			steps++
			if steps > 20_000_000 {
				return false
			}
			if used[c] || !slices.Equal(sig[k], sig[c]) {
				continue
			}
			ok := true
			for l := 0; l < k && ok; l++ {
				ok = b[k*n+l] == b[c*n+pi[l]] && b[l*n+k] == b[pi[l]*n+c]
			}
			if !ok {
				continue
			}
			pi[k], used[c] = c, true
			cont := rec(k + 1)
			used[c] = false
			if !cont {
				return false
			}
		}
		return true
	}
	if !rec(0) {
		return nil
	}
	return out
}

// facilityTwins returns, for each facility, the smallest facility it is interchangeable
// with (swapping the two leaves A unchanged), itself if none: the twin classes. Two
// unassigned twins lead to subtrees of equal cost, so only one of them needs to be
// tried at a location.
// Facilities in skip are left out (their classes are singletons).
func facilityTwins(a []float64, n int, skip ...int) []int {
	rep := make([]int, n)
	for i := range rep {
		rep[i] = i
	}
	twins := func(i, j int) bool {
		if a[i*n+i] != a[j*n+j] || a[i*n+j] != a[j*n+i] {
			return false
		}
		for k := 0; k < n; k++ {
			if k != i && k != j && (a[i*n+k] != a[j*n+k] || a[k*n+i] != a[k*n+j]) {
				return false
			}
		}
		return true
	}
	for j := 0; j < n; j++ {
		if slices.Contains(skip, j) {
			continue
		}
		for i := 0; i < j; i++ {
			if rep[i] == i && !slices.Contains(skip, i) && twins(i, j) {
				rep[j] = i
				break
			}
		}
	}
	return rep
}

// locationSymmetry is the symmetry breaking BranchAndBound derives from the machine's
// automorphisms when the caller supplies none: facility f0 is restricted to one
// location per orbit of the group, and facility f1 to one location per orbit of the
// stabilizer of f0's location. For any assignment some automorphism maps it to one
// that satisfies both (same cost), so an optimum is kept.
type locationSymmetry struct {
	f0, f1  int
	rep0    []bool   // rep0[k]: k is the smallest location of its orbit
	rep1    [][]bool // rep1[r][k]: k is smallest in its orbit under Stab(r) (r a rep0)
	orbits0 int
}

func newLocationSymmetry(a, b []float64, n int) *locationSymmetry {
	if n < 3 {
		return nil
	}
	auts := distanceAutomorphisms(b, n)
	if len(auts) <= 1 {
		return nil
	}
	// f0: the facility with the largest total flow; f1: its heaviest partner.
	flow := func(i, j int) float64 { return a[i*n+j] + a[j*n+i] }
	f0, best := 0, -1.0
	for i := 0; i < n; i++ {
		var t float64
		for j := 0; j < n; j++ {
			if j != i {
				t += flow(i, j)
			}
		}
		if t > best {
			f0, best = i, t
		}
	}
	f1, best := -1, 0.0
	for j := 0; j < n; j++ {
		if j != f0 && flow(f0, j) > best {
			f1, best = j, flow(f0, j)
		}
	}
	if f1 < 0 {
		f1 = (f0 + 1) % n
	}
	s := &locationSymmetry{f0: f0, f1: f1, rep0: make([]bool, n), rep1: make([][]bool, n)}
	minImage := func(k int, group [][]int) int {
		m := k
		for _, pi := range group {
			m = min(m, pi[k])
		}
		return m
	}
	for k := 0; k < n; k++ {
		if minImage(k, auts) == k {
			s.rep0[k] = true
			s.orbits0++
			var stab [][]int
			for _, pi := range auts {
				if pi[k] == k {
					stab = append(stab, pi)
				}
			}
			s.rep1[k] = make([]bool, n)
			for l := 0; l < n; l++ {
				s.rep1[k][l] = minImage(l, stab) == l
			}
		}
	}
	return s
}

// allowed reports whether facility i may take location k given the partial
// assignment p (-1: unassigned).
func (s *locationSymmetry) allowed(p []int, i, k int) bool {
	switch {
	case i == s.f0:
		return s.rep0[k] && (p[s.f1] < 0 || s.rep1[k][p[s.f1]])
	case i == s.f1 && p[s.f0] >= 0:
		return s.rep1[p[s.f0]][k]
	}
	return true
}
