package sortedset

import (
	"context"
	"slices"
)

// sortEvery is how many elements SortStableContext sorts or merges between looks
// at its context: a few milliseconds of name comparisons.
const sortEvery = 1 << 12

// SortStableContext sorts s as slices.SortStableFunc(s, cmp) does (the same
// order: stable), looking at ctx every few thousand elements: runs of sortEvery
// sorted in turn, then merged pairwise, bottom up. A stable sort of 131,072 host
// names in no order by hostlist.NaturalCompare takes 0.3 s (0.7 s under load),
// of 2^20 names seconds, where Ctrl-C waited. A cancelled ctx returns its cause,
// s then holds its elements in some order.
func SortStableContext[E any](ctx context.Context, s []E, cmp func(a, b E) int) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	n := len(s)
	if n <= sortEvery {
		slices.SortStableFunc(s, cmp)
		return nil
	}
	for lo := 0; lo < n; lo += sortEvery {
		slices.SortStableFunc(s[lo:min(lo+sortEvery, n)], cmp)
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
	src, dst := s, make([]E, n)
	for width := sortEvery; width < n; width *= 2 {
		k := 0 // elements merged since the last look
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, o := lo, mid, lo
			for i < mid && j < hi {
				if cmp(src[j], src[i]) < 0 { // the left run's first on ties: stable
					dst[o] = src[j]
					j++
				} else {
					dst[o] = src[i]
					i++
				}
				o++
				if k++; k == sortEvery {
					k = 0
					if ctx.Err() != nil {
						return context.Cause(ctx)
					}
				}
			}
			o += copy(dst[o:], src[i:mid])
			copy(dst[o:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
	return nil
}
