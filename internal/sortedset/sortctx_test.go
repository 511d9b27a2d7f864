package sortedset

import (
	"cmp"
	"context"
	"errors"
	"math/rand"
	"slices"
	"testing"

	"github.com/procalloc/procalloc/internal/ctxtest"
)

// SortStableContext gives slices.SortStableFunc's order (pairs with many equal
// keys, so stability shows) at every length around its runs and merges, and
// stops with the cause at each of its looks.
func TestSortStableContext(t *testing.T) {
	type pair struct{ key, at int }
	byKey := func(a, b pair) int { return cmp.Compare(a.key, b.key) }
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 5, sortEvery - 1, sortEvery, sortEvery + 1, 3*sortEvery + 7, 8 * sortEvery, 9*sortEvery + 100} {
		s := make([]pair, n)
		for i := range s {
			s[i] = pair{rng.Intn(n/3 + 1), i}
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, byKey)
		got := slices.Clone(s)
		count := ctxtest.NewCounting()
		if err := SortStableContext(count, got, byKey); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d elements: %v, or not slices.SortStableFunc's order", n, err)
		}
		looks := count.Looks()
		if n > sortEvery && looks < int64(n/sortEvery) {
			t.Errorf("%d elements: %d looks, want at least %d", n, looks, n/sortEvery)
		}
		for k, stop := range ctxtest.Stops(looks, 10) {
			if err := SortStableContext(stop, slices.Clone(s), byKey); !errors.Is(err, context.Canceled) {
				t.Fatalf("%d elements, ended at look %d of %d: %v, want context.Canceled", n, k+1, looks, err)
			}
		}
	}
}
