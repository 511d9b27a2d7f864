package voronoi

import (
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/procalloc/procalloc/geom"
)

// Set is one k-nearest set with a witness center (doubled coordinates) and the
// doubled L1 radius at which its farthest member lies.
type Set struct {
	Indices []int    // ascending
	Center2 [2]int64 // the witness center, coordinates doubled
	Radius2 int64    // twice the L1 distance from the center to the farthest member
}

// Center returns the witness in input coordinates.
func (s Set) Center() [2]float64 {
	return [2]float64{float64(s.Center2[0]) / 2, float64(s.Center2[1]) / 2}
}

// Radius returns the L1 distance from the witness center to the set's farthest
// member, in input coordinates (Radius2 / 2).
func (s Set) Radius() float64 { return float64(s.Radius2) / 2 }

// KNearestSets returns every distinct k-nearest set (tie rule of Walk) with one witness
// each, sorted lexicographically by indices. It fails when more than limit sets exist
// (heavy ties can make the count exponential: n coincident points have C(n, k)), so
// callers bound the output; limit <= 0 means no limit.
func KNearestSets(pts []geom.Point, k, limit int) ([]Set, error) {
	return KNearestSetsContext(context.Background(), pts, k, limit)
}

// KNearestSetsContext is KNearestSets that stops, with ctx's cause, soon after ctx
// ends: it looks at ctx every 64 points of the walk and every 1,024 families.
func KNearestSetsContext(ctx context.Context, pts []geom.Point, k, limit int) ([]Set, error) {
	// Families and sets short enough are keyed by 128 bits (packed indices, see
	// packKey) in maps without pointers; longer ones (ties) by uvarint strings.
	// Either way a key is equal exactly when the index lists are, and a list
	// always gets the same kind of key, so the output is as with strings alone.
	width := bits.Len(uint(len(pts) - 1))
	if !packKeys {
		width = 128 // nothing fits: strings only (the tests compare both)
	}
	seenFam, seenFamPacked := map[string]bool{}, map[[2]uint64]struct{}{}
	seen, seenPacked := map[string]bool{}, map[[2]uint64]struct{}{}
	var out []Set
	var ferr error
	var keyBuf, setBuf []byte
	var idxBuf []int
	steps := 0
	err := walk(ctx, pts, k, nil, func(f *Family) bool {
		if steps++; steps&1023 == 0 && ctx.Err() != nil {
			ferr = fmt.Errorf("voronoi: stopped after %d sets: %w", len(out), context.Cause(ctx))
			return false
		}
		// Keys are built in one buffer; a lookup through string(buf) does not
		// allocate, so only new families and sets cost a string.
		if key, ok := packKey(width, f.Inner, f.Boundary); ok {
			if _, dup := seenFamPacked[key]; dup {
				return true
			}
			seenFamPacked[key] = struct{}{}
		} else {
			keyBuf = f.appendKey(keyBuf[:0])
			if seenFam[string(keyBuf)] {
				return true
			}
			seenFam[string(keyBuf)] = true
		}
		need := f.Need(k)
		pick := make([]int, 0, need)
		var rec func(start int) bool
		rec = func(start int) bool {
			if len(pick) == need {
				// In a reused buffer: most candidates are sets met before, and
				// only a new one is kept (cloned) below.
				idxBuf = append(append(idxBuf[:0], f.Inner...), pick...)
				idx := idxBuf
				slices.Sort(idx)
				fresh := false
				if key, ok := packKey(width, idx, nil); ok {
					if _, dup := seenPacked[key]; !dup {
						seenPacked[key], fresh = struct{}{}, true
					}
				} else {
					setBuf = appendIndices(setBuf[:0], idx)
					if !seen[string(setBuf)] {
						seen[string(setBuf)], fresh = true, true
					}
				}
				if fresh {
					if limit > 0 && len(out) >= limit {
						ferr = fmt.Errorf("voronoi: more than %d distinct %d-nearest sets (ties); raise the limit", limit, k)
						return false
					}
					if len(out)&4095 == 4095 && ctx.Err() != nil {
						ferr = fmt.Errorf("voronoi: stopped after %d sets: %w", len(out), context.Cause(ctx))
						return false
					}
					idx = slices.Clone(idx)
					out = append(out, Set{Indices: idx, Center2: f.Center2, Radius2: farthest2(pts, idx, f.Center2)})
				}
				return true
			}
			for i := start; i <= len(f.Boundary)-(need-len(pick)); i++ {
				pick = append(pick, f.Boundary[i])
				if !rec(i + 1) {
					return false
				}
				pick = pick[:len(pick)-1]
			}
			return true
		}
		return rec(0)
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("voronoi: stopped after %d sets: %w", len(out), err)
		}
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	slices.SortFunc(out, func(a, b Set) int { return slices.Compare(a.Indices, b.Indices) })
	return out, nil
}

// farthest2 is the doubled L1 distance from the doubled center c2 to the farthest of
// the points idx: the radius of the set itself. (A family's radius is that of its
// boundary ring, which a set taking none of the boundary points does not reach.)
func farthest2(pts []geom.Point, idx []int, c2 [2]int64) int64 {
	var r int64
	for _, i := range idx {
		d := abs64(2*int64(pts[i][0])-c2[0]) + abs64(2*int64(pts[i][1])-c2[1])
		r = max(r, d)
	}
	return r
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// CheckWitness verifies exactly that idx is a k-nearest set of the doubled center c2
// under the tie rule, returning an error naming the violation.
func CheckWitness(pts []geom.Point, idx []int, c2 [2]int64) error {
	in := make(map[int]bool, len(idx))
	var maxIn int64 = -1
	for _, i := range idx {
		in[i] = true
		maxIn = max(maxIn, dist2(pts[i], c2))
	}
	for i, p := range pts {
		if !in[i] {
			if d := dist2(p, c2); d < maxIn {
				return fmt.Errorf("point %d (doubled distance %d) is closer than member at %d", i, d, maxIn)
			}
		}
	}
	return nil
}

// dist2 is the doubled L1 distance from p to the doubled center c2.
func dist2(p geom.Point, c2 [2]int64) int64 {
	dx := 2*int64(p[0]) - c2[0]
	dy := 2*int64(p[1]) - c2[1]
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	return dx + dy
}

// packKeys turns packKey's keys off when false (tests).
var packKeys = true

// packKey packs the index lists a and b (indices below 2^width) into 128 bits:
// len(a) and len(a)+len(b) in 6 bits each, then each index in width bits. The
// encoding is injective for lists of fewer than 64 indices that fit; ok is false
// for the others (keyed by appendIndices instead).
func packKey(width int, a, b []int) (key [2]uint64, ok bool) {
	na, m := len(a), len(a)+len(b)
	if m >= 64 || 12+m*width > 128 {
		return key, false
	}
	key[0] = uint64(na) | uint64(m)<<6
	pos := 12
	for _, list := range [2][]int{a, b} {
		for _, v := range list {
			u := uint64(v)
			if pos < 64 {
				key[0] |= u << pos
				if pos+width > 64 {
					key[1] |= u >> (64 - pos)
				}
			} else {
				key[1] |= u << (pos - 64)
			}
			pos += width
		}
	}
	return key, true
}
