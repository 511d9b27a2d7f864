package qap

import "slices"

// maxAutomorphisms caps the automorphisms of the distance matrix that
// distanceAutomorphisms lists; a larger group is left unused.
const maxAutomorphisms = 100_000

// maxAutomorphismWork caps the distance comparisons of one automorphism search (tens
// of milliseconds).
const maxAutomorphismWork = 20_000_000

// distanceAutomorphisms lists the permutations pi of the locations with
// B[pi(k)][pi(l)] = B[k][l] for all k, l (the symmetries of the machine: for a torus
// its translations, reflections and dimension swaps, for a hypercube all its
// automorphisms), by backtracking. It returns nil when the group is larger than
// maxAutomorphisms or the search needs more than maxAutomorphismWork comparisons
// (then no symmetry is used, which is always sound).
func distanceAutomorphisms(b []float64, n int) [][]int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	auts, complete := automorphismSearch(b, n, order, -1, maxAutomorphisms)
	if !complete {
		return nil
	}
	return auts
}

// automorphismSearch enumerates automorphisms of the distances b, assigning the nodes
// in the given order, order[0] to image0 when image0 >= 0; it stops after maxSols
// solutions (complete = true) or maxAutomorphismWork comparisons (complete = false).
func automorphismSearch(b []float64, n int, order []int, image0, maxSols int) (auts [][]int, complete bool) {
	// Nodes whose sorted distance rows differ cannot be images of each other.
	sig := make([][]float64, n)
	for k := 0; k < n; k++ {
		r := append([]float64{b[k*n+k]}, b[k*n:k*n+n]...)
		slices.Sort(r[1:])
		sig[k] = r
	}
	byRow := make([]int, n)
	for i := range byRow {
		byRow[i] = i
	}
	slices.SortFunc(byRow, func(x, y int) int { return slices.Compare(sig[x], sig[y]) })
	class := make([]int, n)
	for i := 1; i < n; i++ {
		class[byRow[i]] = class[byRow[i-1]]
		if !slices.Equal(sig[byRow[i]], sig[byRow[i-1]]) {
			class[byRow[i]]++
		}
	}
	pi := make([]int, n)
	used := make([]bool, n)
	work := 0
	stopped := false
	var rec func(d int) bool // false: stop
	rec = func(d int) bool {
		if d == n {
			auts = append(auts, slices.Clone(pi))
			return len(auts) < maxSols
		}
		k := order[d]
		for c := 0; c < n; c++ {
			if d == 0 && image0 >= 0 && c != image0 {
				continue
			}
			work++
			if used[c] || class[k] != class[c] {
				continue
			}
			ok := true
			for e := 0; e < d && ok; e++ {
				l := order[e]
				ok = b[k*n+l] == b[c*n+pi[l]] && b[l*n+k] == b[pi[l]*n+c]
				work++
			}
			if work > maxAutomorphismWork {
				stopped = true
				return false
			}
			if !ok {
				continue
			}
			pi[k], used[c] = c, true
			cont := rec(d + 1)
			used[c] = false
			if !cont {
				return false
			}
		}
		return true
	}
	rec(0)
	return auts, !stopped
}

// mapsToZero returns, for every node v, an automorphism of the distances mapping v to
// node 0, or nil when some node has none (the machine is not vertex-transitive) or the
// search runs out of budget.
func mapsToZero(b []float64, n int) [][]int {
	to0 := make([][]int, n)
	order := make([]int, n)
	for v := 0; v < n; v++ {
		order[0] = v
		j := 1
		for u := 0; u < n; u++ {
			if u != v {
				order[j] = u
				j++
			}
		}
		a, _ := automorphismSearch(b, n, order, 0, 1)
		if len(a) == 0 {
			return nil
		}
		to0[v] = a[0]
	}
	return to0
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
